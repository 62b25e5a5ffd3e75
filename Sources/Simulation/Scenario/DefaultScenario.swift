import RecordedData

extension Scenario {
    /// The scenario `remindersim run` uses when given none: a mixed mobile audience and the
    /// configurations a team would first ask about, including both seed README examples.
    public static let builtInDefault: Scenario = {
        let messages = [
            "Hey - This potion's really odd. Come and See",
            "Your Village miss you",
            "Did you know our new features?",
        ]
        // The Crontab-IOS README rules, plus its "rate the app every 7 days" rule.
        let rules: [CronRuleSpec] = ["1 1", "2 1", "1 *", "2 *", "3", "1 */7"]
        return Scenario(
            name: "default",
            description: """
                A mixed audience (daily, weekly and fading users across six time zones) under the \
                ACPReminder README configuration as documented and as released (ACPReminder 1.0.2 and the \
                Crontab-IOS 1.0 pod, configured only when the app goes to the background, as the README \
                shows), and three alternatives, with the Crontab-IOS README rules. Every number here is an \
                assumption to replace with your own.
                """,
            seed: 20_261_202,
            users: 100_000,
            horizonDays: 90,
            startDate: "2026-01-05",
            population: Population(
                utcOffsets: [
                    UTCOffsetShare(hours: -8, weight: 0.15), UTCOffsetShare(hours: -5, weight: 0.25),
                    UTCOffsetShare(hours: 0, weight: 0.15), UTCOffsetShare(hours: 1, weight: 0.2),
                    UTCOffsetShare(hours: 5.5, weight: 0.1), UTCOffsetShare(hours: 8, weight: 0.15),
                ],
                installSpreadDays: 30,
                segments: [
                    Segment(name: "daily", weight: 0.3, returns: .weibull(shape: 0.8, scale: 1, unit: .days),
                            dropoutPerSession: 0.02, sessionLength: SessionLength(medianMinutes: 5, sigma: 0.8)),
                    Segment(name: "weekly", weight: 0.45, returns: .lognormal(mu: 1.386_294_361_119_890_6, sigma: 1, unit: .days),
                            dropoutPerSession: 0.05, sessionLength: SessionLength(medianMinutes: 4, sigma: 0.8)),
                    Segment(name: "fading", weight: 0.25, returns: .exponential(mean: 10, unit: .days),
                            dropoutPerSession: 0.15, sessionLength: SessionLength(medianMinutes: 3, sigma: 0.8)),
                ]),
            response: ResponseModel(messageWeights: [messages[0]: 1.2, messages[1]: 1.0, messages[2]: 0.8]),
            configurations: [
                ConfigurationSpec(
                    label: "README 7/10d", mode: .documented,
                    reminders: [ReminderSpec(messages: messages, timePeriods: [7, 10], appDomain: "com.mydomain.appName")],
                    cronRules: rules),
                ConfigurationSpec(
                    label: "README 7/10d released 1.0.2", mode: .original,
                    reminders: [ReminderSpec(messages: messages, timePeriods: [7, 10], appDomain: "com.mydomain.appName")],
                    cronRules: rules),
                ConfigurationSpec(
                    label: "3/7/14d random", mode: .documented,
                    reminders: [ReminderSpec(messages: messages, timePeriods: [3, 7, 14], randomMessage: true)],
                    cronRules: rules),
                ConfigurationSpec(
                    label: "1/2/4d circular", mode: .documented,
                    reminders: [ReminderSpec(messages: messages, timePeriods: [1, 2, 4], circularTimePeriod: true)],
                    cronRules: rules),
                ConfigurationSpec(
                    label: "2d", mode: .documented,
                    reminders: [ReminderSpec(messages: messages, timePeriods: [2])],
                    cronRules: rules),
            ])
    }()
}
