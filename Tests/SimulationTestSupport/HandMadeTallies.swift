import Simulation

/// Made-up tallies for code that only stores or shows results, so its tests need no simulation.
public enum HandMadeTallies {
    /// Made-up but consistent counts for every configuration of `s` and the holdout: storage only stores
    /// them, so they need not come from a simulation. Each configuration's numbers differ.
    public static func tallies(for s: Scenario) -> RunTallies {
        let specs = [ConfigurationSpec.holdout] + s.expandedConfigurations
        let tallies = specs.enumerated().map { i, spec in
            var t = Tally(layout: TallyLayout(
                messageSlots: spec.reminders.reduce(0) { $0 + $1.messages.count },
                periodSlots: spec.reminders.reduce(0) { $0 + $1.timePeriods.count },
                cronRules: spec.cronRules.count, days: s.horizonDays))
            let k = Int64(i)
            let outcomes: [Counter: Int64] = spec.reminders.isEmpty ? [:] : [
                .scheduled: 200 + k, .cancelled: 50, .delivered: 80 + k, .foreground: 10, .suppressed: 5, .censored: 55,
                .responded: 20 + k, .attributed: 30, .optOuts: 3, .revived: 1,
            ]
            let base: [Counter: Int64] = [
                .users: Int64(s.users), .opens: 900 + 10 * k, .organicOpens: 880, .responseOpens: 20 + 10 * k,
                .launches: 700, .retainedD1: 120, .eligibleD1: 290, .retainedD7: 60 + k, .eligibleD7: 250,
                .retainedD30: 20, .eligibleD30: 100, .opensLiftSum: 10 * k, .opensLiftSquares: 40 * k,
                .gainedD7: 2 * k, .lostD7: k, .gainedD30: k, .lostD30: 0,
            ]
            for (counter, value) in base.merging(outcomes, uniquingKeysWith: { a, _ in a }) { t.counts[counter.rawValue] = value }
            for slot in 0..<(t.layout.messageSlots + t.layout.periodSlots) {
                let offset = t.layout.messageOffset + slot * SlotCounter.allCases.count
                for (c, v) in [SlotCounter.scheduled: 40, .cancelled: 10, .delivered: 16, .foreground: 2, .suppressed: 1,
                               .censored: 11, .responded: 4] as [SlotCounter: Int64] {
                    // Scheduled grows fastest, so that no slot fires more than it scheduled.
                    t.counts[offset + c.rawValue] = v + Int64(slot) * (c == .scheduled ? 4 : 1)
                }
            }
            for d in 0..<s.horizonDays { t.counts[t.layout.daily(d)] = Int64(100 + d) }
            for r in 0..<t.layout.cronRules {
                t.counts[t.layout.rule(r, .evaluated)] = 700
                t.counts[t.layout.rule(r, .blockRuns)] = 100 + Int64(r)
                t.counts[t.layout.firstRun(r, day: r + 1)] = 90
            }
            return t
        }
        return RunTallies(tallies: tallies, users: 0..<s.users)
    }
}
