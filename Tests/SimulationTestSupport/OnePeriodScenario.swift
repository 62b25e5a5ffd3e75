import Simulation

extension Scenario {
    /// The built-in scenario with one configuration per period of `periods` (in days, labelled "3d"
    /// and so on, one message "A", no message weights), `users` users over `days` days.
    public static func onePeriodEach(_ periods: [Int], users: Int, days: Int) -> Scenario {
        var s = Scenario.builtInDefault
        (s.users, s.horizonDays, s.response.messageWeights) = (users, days, [:])
        s.configurations = periods.map {
            ConfigurationSpec(label: "\($0)d", reminders: [ReminderSpec(messages: ["A"], timePeriods: [$0])])
        }
        return s
    }
}
