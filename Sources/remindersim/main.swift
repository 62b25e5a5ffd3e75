import Foundation
import ReminderSimCLI

exit(ReminderSim.runAsProcess())
