import Foundation
import ReminderSimCLI

exit(RemindersimCommand.main())
