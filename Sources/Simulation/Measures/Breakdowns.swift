import ReminderEngine

/// Notification counts of one message or one period of one configuration.
public struct SlotMetrics: Sendable {
    /// Which reminder of the configuration, and the message or period index within it.
    public let reminder: Int
    public let index: Int
    /// The message text, or the delay really used at the period written with its unit (e.g. `7 days`).
    public let name: String
    /// Periods only: the delay really used, in the reminder's unit (it differs from `timePeriods` at
    /// index 0 in `original-1.0.0`); nil for messages.
    public let periodValue: Int?
    /// Notification outcomes (ENGINES.md), and the returns they caused.
    public let scheduled, cancelled, delivered, foreground, suppressed, censored, responded: Int64
    /// Per-user sums of the trigger and response ratios, for their clustered intervals.
    let triggerSums: RatioSums?
    let responseSums: RatioSums?
    /// Not shown because of a frequency cap (an extension around the engines).
    public let capped: Int64
    /// Discarded by the system past its pending limit (a platform rule).
    public let dropped: Int64

    public var triggered: Int64 { delivered + foreground + suppressed }
    public var triggerRate: Proportion { Proportion(triggered, of: scheduled - censored, clustered: triggerSums) }
    public var responseRate: Proportion { Proportion(responded, of: delivered, clustered: responseSums) }

    init(reminder: Int, index: Int, name: String, periodValue: Int? = nil, sums: (trigger: RatioSums, response: RatioSums)?,
         read: (SlotCounter) -> Int64) {
        (triggerSums, responseSums) = (sums?.trigger, sums?.response)
        (self.reminder, self.index, self.name, self.periodValue) = (reminder, index, name, periodValue)
        scheduled = read(.scheduled)
        cancelled = read(.cancelled)
        delivered = read(.delivered)
        foreground = read(.foreground)
        suppressed = read(.suppressed)
        censored = read(.censored)
        responded = read(.responded)
        capped = read(.capped)
        dropped = read(.dropped)
    }

    /// Per-message rows of a configuration, reminder by reminder.
    public static func messages(_ spec: ConfigurationSpec, _ tally: Tally, sums: UserSums? = nil, index c: Int = 0) -> [SlotMetrics] {
        var rows: [SlotMetrics] = [], slot = 0
        for (r, reminder) in spec.reminders.enumerated() {
            for (i, text) in reminder.messages.enumerated() {
                let s = slot
                let users = tally[.users]
                let clustered = sums.flatMap { $0.layout.keepsDetail ? $0 : nil }.map {
                    ($0.message(c, s, response: false, users: users), $0.message(c, s, response: true, users: users))
                }
                rows.append(SlotMetrics(reminder: r, index: i, name: text, sums: clustered) { tally.message(s, $0) })
                slot += 1
            }
        }
        return rows
    }

    /// Per-period rows of a configuration, reminder by reminder, each named by the delay its
    /// notifications really used (which says so where it is not the configured period).
    public static func periods(_ spec: ConfigurationSpec, _ tally: Tally, sums: UserSums? = nil, index c: Int = 0) -> [SlotMetrics] {
        var rows: [SlotMetrics] = [], slot = 0
        for (r, reminder) in spec.reminders.enumerated() {
            for (i, configured) in reminder.timePeriods.enumerated() {
                let s = slot
                let used = spec.periodValue(reminder: r, index: i)
                var name = periodText(used, reminder.unit)
                if used != configured { name += " (timePeriods says \(periodText(configured, reminder.unit)))" }
                if spec.sequence != nil { name = "step \(r + 1): \(name) after the last session" }
                let users = tally[.users]
                let clustered = sums.flatMap { $0.layout.keepsDetail ? $0 : nil }.map {
                    ($0.period(c, s, response: false, users: users), $0.period(c, s, response: true, users: users))
                }
                rows.append(SlotMetrics(reminder: r, index: i, name: name, periodValue: used, sums: clustered) {
                    tally.period(s, $0)
                })
                slot += 1
            }
        }
        return rows
    }

    /// A delay with its unit, singular for 1: `1 day`, `10 days`.
    public static func periodText(_ value: Int, _ unit: PeriodUnit) -> String {
        "\(value) \(value == 1 ? String(unit.rawValue.dropLast()) : unit.rawValue)"
    }
}

/// What one cron rule did in one configuration.
public struct CronRuleMetrics: Sendable {
    public let index: Int
    public let rule: String
    public let launchesEvaluated: Int64
    public let blockRuns: Int64
    public let elseRuns: Int64
    /// Users for whom the block ran at least once.
    public let usersRan: Int64
    /// Day since install (local days) of each user's first run: median and 90th percentile.
    public let firstRunDayMedian: Int?
    public let firstRunDayP90: Int?
    /// The system prompt the rule's block asks for, if any: each block run is one ask.
    public let prompt: CronPrompt?
    /// Prompts the system showed of those asked, and users shown one at least once; nil for a rule
    /// that asks for none.
    public let shown: Int64?
    public let usersShown: Int64?

    public static func rules(_ spec: ConfigurationSpec, _ tally: Tally) -> [CronRuleMetrics] {
        spec.cronRules.enumerated().map { r, rule in
            let histogram = (0...tally.layout.days).map { tally.firstRun(r, day: $0) }
            let marked = rule.prompt != nil
            return CronRuleMetrics(
                index: r, rule: rule.rule, launchesEvaluated: tally.rule(r, .evaluated), blockRuns: tally.rule(r, .blockRuns),
                elseRuns: tally.rule(r, .elseRuns), usersRan: tally.rule(r, .usersRan),
                firstRunDayMedian: quantile(histogram, 0.5), firstRunDayP90: quantile(histogram, 0.9),
                prompt: rule.prompt, shown: marked ? tally.prompt(r, .shown) : nil,
                usersShown: marked ? tally.prompt(r, .usersShown) : nil)
        }
    }

    /// The smallest day d with at least a fraction q of the counts at or below d.
    public static func quantile(_ histogram: [Int64], _ q: Double) -> Int? {
        let total = histogram.reduce(0, +)
        guard total > 0 else { return nil }
        let needed = Int64((q * Double(total)).rounded(.up))
        var running: Int64 = 0
        for (day, count) in histogram.enumerated() {
            running += count
            if running >= max(needed, 1) { return day }
        }
        return histogram.count - 1
    }
}
