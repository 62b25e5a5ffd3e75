import Foundation
import ReminderSimCLI

exit(Remindersim.runAsProcess())
