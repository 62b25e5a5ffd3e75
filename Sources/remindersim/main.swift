import ReminderSimCLI

exit(RemindersimCommand.main())
