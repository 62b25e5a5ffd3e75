import CronEngine

/// Which of a configuration's cron rules match at a launch, as a bit mask, looked up instead of
/// evaluated rule after rule.
///
/// A two-field rule reads only `launchesToday` and `activeDays`, so its answers for every pair
/// (launches today < `launchesWidth`, active days ≤ the run's days + 1) are worked out once, by the
/// engine's own `CronRule.matches`, and kept as one mask per pair. A launch past the table (a
/// user's ninth launch of a day, say) asks the engine directly. One-field rules read
/// `totalLaunches`, which grows without bound: their answers are worked out the same way for the
/// first `totalWidth` launches, and the engine answers them beyond. Rules the released parser
/// cannot read never match and have no bit. The masks are the engine's answers,
/// bit for bit; the loop then counts a rule's block runs without a branch on whether it matched,
/// which a processor could not predict.
struct CronLaunchTable {
    /// Launches of one day the table covers: 0..<launchesWidth.
    static let launchesWidth = 8

    /// Launches in all the table covers: 0..<totalWidth.
    static let totalWidth = 256

    /// masks[activeDays · launchesWidth + launchesToday]: the two-field rules that match.
    private let masks: FrozenBuffer<UInt64>
    private let rows: Int
    /// totalMasks[totalLaunches]: the one-field rules that match.
    private let totalMasks: FrozenBuffer<UInt64>

    /// - Precondition: at most 64 rules (`ConfigurationSpec.maximumCronRules`).
    init(rules: [CronRule], days: Int) {
        precondition(rules.count <= 64, "CronLaunchTable: at most 64 rules")
        rows = days + 2
        var masks = Array(repeating: UInt64(0), count: rows * Self.launchesWidth)
        for activeDays in 0..<rows {
            for launchesToday in 0..<Self.launchesWidth {
                let counters = LaunchCounters(launchesToday: launchesToday, activeDays: activeDays)
                masks[activeDays * Self.launchesWidth + launchesToday] = Self.dailyMask(rules, counters)
            }
        }
        self.masks = FrozenBuffer(masks)
        totalMasks = FrozenBuffer((0..<Self.totalWidth).map {
            Self.totalMask(rules, LaunchCounters(totalLaunches: $0))
        })
    }

    /// The two-field rules that match these counters, asked of the engine.
    static func dailyMask(_ rules: some Collection<CronRule>, _ counters: LaunchCounters) -> UInt64 {
        var mask: UInt64 = 0
        for (r, rule) in rules.enumerated() {
            if case .daily = rule, rule.matches(counters) { mask |= 1 << UInt64(r) }
        }
        return mask
    }

    /// The one-field rules that match these counters, asked of the engine.
    static func totalMask(_ rules: some Collection<CronRule>, _ counters: LaunchCounters) -> UInt64 {
        var mask: UInt64 = 0
        for (r, rule) in rules.enumerated() {
            if case .total = rule, rule.matches(counters) { mask |= 1 << UInt64(r) }
        }
        return mask
    }

    /// What the loop reads: plain pointers, valid while the table lives.
    var view: View { View(masks: masks.buffer, rows: rows, totalMasks: totalMasks.buffer) }

    struct View {
        let masks: UnsafeBufferPointer<UInt64>
        let rows: Int
        let totalMasks: UnsafeBufferPointer<UInt64>

        /// The rules among `rules` that match at a launch with these counters (which count it).
        @inline(__always)
        func matches(_ rules: UnsafeBufferPointer<CronRule>, _ counters: LaunchCounters) -> UInt64 {
            let today = counters.launchesToday, days = counters.activeDays, total = counters.totalLaunches
            let daily = today < CronLaunchTable.launchesWidth && days < rows
                ? masks[days &* CronLaunchTable.launchesWidth &+ today]
                : CronLaunchTable.dailyMask(rules, counters)
            return daily | (total < CronLaunchTable.totalWidth ? totalMasks[total] : CronLaunchTable.totalMask(rules, counters))
        }
    }
}
