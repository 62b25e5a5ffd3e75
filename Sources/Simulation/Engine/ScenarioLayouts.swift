/// The layouts of a run's counts, worked out from its scenario alone: what the compiled model gives
/// each configuration, without compiling it (which needs the scenario's recorded logs). Counts read
/// back from a store are checked against these before anything indexes them.
extension TallyLayout {
    /// The layout of a configuration's tally in a run of `days` days: one message slot per message and
    /// one period slot per time period of each of its reminders, one rule per cron rule.
    public init(_ spec: ConfigurationSpec, days: Int) {
        self.init(messageSlots: spec.reminders.reduce(0) { $0 + $1.messages.count },
                  periodSlots: spec.reminders.reduce(0) { $0 + $1.timePeriods.count },
                  cronRules: spec.cronRules.count, days: days)
    }
}

extension Scenario {
    /// The layouts of a run's tallies: the holdout's, then each configuration's in the scenario's order.
    public var tallyLayouts: [TallyLayout] {
        ([ConfigurationSpec.holdout] + expandedConfigurations).map { TallyLayout($0, days: horizonDays) }
    }

    /// The layout of a run's sums over users holding `pairs`.
    public func userSumsLayout(pairs: PairSet = .all) -> UserSumsLayout {
        let layouts = tallyLayouts
        return UserSumsLayout(segments: population.segments.count, platforms: population.platforms?.count ?? 0, messageSlots: layouts.map(\.messageSlots),
                              periodSlots: layouts.map(\.periodSlots), days: horizonDays, pairs: pairs)
    }
}
