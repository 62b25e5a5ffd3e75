import Foundation
import ReminderSimCLI

exit(Remindersim.main())
