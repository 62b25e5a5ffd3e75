import Foundation
import Randomness
import ReminderEngine

/// The measures compared between two configurations on the same users.
public enum PairMeasure: CaseIterable, Sendable {
    case opensPerUser, retentionD7, retentionD30, optOutRate, deliveredPerUser

    /// The measure's name in tables and files (`opens_per_user`…), from its one description.
    public var rawValue: String { measure.name }

    /// The words a report uses for it (the measure's title).
    public var title: String { measure.title }

    /// The measure's position in `allCases`.
    static func index(_ m: PairMeasure) -> Int {
        switch m {
        case .opensPerUser: return 0
        case .retentionD7: return 1
        case .retentionD30: return 2
        case .optOutRate: return 3
        case .deliveredPerUser: return 4
        }
    }

    /// A difference of proportions (shown in percentage points) rather than of counts per user.
    public var isFraction: Bool { self == .retentionD7 || self == .retentionD30 || self == .optOutRate }
}

/// One configuration against another on the same users: the mean of the per-user differences
/// (configuration − reference) with its paired 95% interval.
public struct PairwiseComparison: Sendable {
    public let configuration: Int
    public let reference: Int
    public let measure: PairMeasure
    public let difference: Estimate?
    /// Pairs of outcomes the difference is taken over (users, or users whose day k was observed).
    public let pairs: Int64
    /// Users a run would need for a difference this size to show at 5% two-sided with 80% power,
    /// from this run's spread: n · ((z₀.₉₇₅ + z₀.₈) · se / |d|)². Nil when the difference is zero.
    public let usersToSeparate: Int64?

    /// Whether the interval holds zero: the two cannot be told apart at this user count.
    public var includesZero: Bool { difference.map { $0.low <= 0 && $0.high >= 0 } ?? true }

    /// z for 80% power.
    public static let z80 = 0.841_621_233_572_914

    init(configuration: Int, reference: Int, measure: PairMeasure, difference: Estimate?, pairs: Int64, users: Int64) {
        self.configuration = configuration
        self.reference = reference
        self.measure = measure
        self.difference = difference
        self.pairs = pairs
        if let d = difference, d.value != 0, users > 0 {
            let se = (d.high - d.low) / (2 * z95)
            let needed = Double(users) * pow((z95 + Self.z80) * se / abs(d.value), 2)
            usersToSeparate = needed < 1e15 ? Int64(needed.rounded(.up)) : nil
        } else {
            usersToSeparate = nil
        }
    }

    /// Every measure of `a` against `b` from the run's sums; empty when the sums do not hold the pair.
    /// With `replay`, the intervals are clustered by recorded user. `a`'s tally gives the paired
    /// proportions' margin (its users who opted out, or were retained) when it counts the pair's users.
    static func all(_ a: Int, _ b: Int, sums: UserSums, users: Int64, tally: Tally? = nil,
                    replay: ReplayClustering? = nil) -> [PairwiseComparison] {
        let lo = min(a, b), hi = max(a, b), flip = a > b
        guard let p = sums.layout.pairIndex(lo, hi) else { return [] }
        let start = sums.layout.pair(at: p)
        func c(_ k: PairCounter) -> Int64 { sums.counts[start + k.rawValue] }
        func mean(_ sum: PairCounter, _ squares: PairCounter) -> Estimate? {
            Estimate.mean(sum: flip ? -c(sum) : c(sum), squares: c(squares), count: c(.users))
        }
        func paired(_ onlyA: PairCounter, _ onlyB: PairCounter, _ n: PairCounter) -> Estimate? {
            // a's margin, from its tally when the tally's users are the pair's.
            var first: Int64?
            if let t = tally {
                switch n {
                case .users: first = t[.users] == c(.users) ? t[.optOuts] : nil
                case .eligibleD7: first = t[.eligibleD7] == c(n) ? t[.retainedD7] : nil
                case .eligibleD30: first = t[.eligibleD30] == c(n) ? t[.retainedD30] : nil
                default: first = nil
                }
            }
            return Estimate.pairedDifference(gained: flip ? c(onlyB) : c(onlyA), lost: flip ? c(onlyA) : c(onlyB), count: c(n),
                                             first: first)
        }
        return PairMeasure.allCases.map { m in
            let (estimate, pairs): (Estimate?, Int64)
            switch m {
            case .opensPerUser: (estimate, pairs) = (mean(.opensDiff, .opensDiffSquares), c(.users))
            case .deliveredPerUser: (estimate, pairs) = (mean(.deliveredDiff, .deliveredDiffSquares), c(.users))
            case .optOutRate: (estimate, pairs) = (paired(.optOutOnlyA, .optOutOnlyB, .users), c(.users))
            case .retentionD7: (estimate, pairs) = (paired(.retainedD7OnlyA, .retainedD7OnlyB, .eligibleD7), c(.eligibleD7))
            case .retentionD30: (estimate, pairs) = (paired(.retainedD30OnlyA, .retainedD30OnlyB, .eligibleD30), c(.eligibleD30))
            }
            let difference = replay.map { $0.difference(a, b, m) } ?? estimate
            return PairwiseComparison(configuration: a, reference: b, measure: m, difference: difference, pairs: pairs, users: users)
        }
    }
}

/// One configuration's headline measures among the users of one segment.
public struct SegmentMetrics: Sendable {
    public let configuration: Int
    public let segment: Int
    public let segmentName: String
    public let users: Int64
    public let opens: Int64
    public let delivered: Int64
    /// Notifications scheduled for the group's users, and of them those that would fire past the horizon.
    public let scheduled, censored: Int64
    /// Opens per user above the holdout among the segment's users (paired).
    public let opensLiftPerUser: Estimate?
    public let triggerRate: Proportion
    public let responseRate: Proportion
    public let retentionD7: Proportion
    public let liftD7: Estimate?
    public let retentionD30: Proportion
    public let liftD30: Estimate?
    /// Users of the segment who turned notifications off.
    public let optOutRate: Proportion
    public let deliveredPerIncrementalOpen: Double?
    /// `deliveredPerIncrementalOpen` with its interval, as the configuration's (`Estimate.deliveredPerExtraOpen`).
    public var deliveredPerExtraOpen: Estimate? {
        Estimate.deliveredPerExtraOpen(deliveredPerIncrementalOpen, delivered: delivered, users: users, lift: opensLiftPerUser)
    }

    /// `s` is the group's place in the sums; `number`, the one reported, when it differs (a platform's).
    init(configuration c: Int, segment s: Int, name: String, sums: UserSums, isHoldout: Bool, number: Int? = nil) {
        func v(_ k: SegmentCounter) -> Int64 { sums.segment(c, s, k) }
        configuration = c
        segment = number ?? s
        segmentName = name
        users = v(.users)
        opens = v(.opens)
        delivered = v(.delivered)
        (scheduled, censored) = (v(.scheduled), v(.censored))
        opensLiftPerUser = isHoldout ? nil : Estimate.mean(sum: v(.opensLiftSum), squares: v(.opensLiftSquares), count: users)
        triggerRate = Proportion(sums.segmentRatio(c, s, response: false).x, of: v(.scheduled) - v(.censored),
                                 clustered: sums.segmentRatio(c, s, response: false))
        let response = sums.segmentRatio(c, s, response: true)
        responseRate = Proportion(response.x, of: v(.delivered), clustered: response)
        retentionD7 = Proportion(v(.retainedD7), of: v(.eligibleD7))
        retentionD30 = Proportion(v(.retainedD30), of: v(.eligibleD30))
        liftD7 = isHoldout ? nil : Estimate.pairedDifference(gained: v(.gainedD7), lost: v(.lostD7), count: v(.eligibleD7), first: v(.retainedD7))
        liftD30 = isHoldout ? nil : Estimate.pairedDifference(gained: v(.gainedD30), lost: v(.lostD30), count: v(.eligibleD30), first: v(.retainedD30))
        optOutRate = Proportion(v(.optOuts), of: users)
        deliveredPerIncrementalOpen = !isHoldout && v(.opensLiftSum) > 0 ? Double(v(.delivered)) / Double(v(.opensLiftSum)) : nil
    }
}

/// Why a retention lift should not be read at face value.
public enum LiftNote: Equatable, Sendable {
    /// No notification can fire before day k ends: the lift is zero by construction.
    case zeroByConstruction(shortestDelaySeconds: Double)
    /// A period is exactly k days and a notification scheduled on the install day uses it: it fires on
    /// day k itself for a user last seen that day, so the day-k lift measures that notification's pull
    /// rather than a lasting habit. (Later periods, reached only once notifications have fired on
    /// later days, are not flagged: such a chain reaches day k only through answers at every step.)
    case periodEqualsDay(NotificationPlace)

    public func text(day k: Int) -> String {
        switch self {
        case let .zeroByConstruction(shortest):
            return String(format: "n/a: zero by construction, no notification can fire before day %d ends (shortest delay %g days)",
                          k, shortest / 86_400)
        case .periodEqualsDay(.first):
            return "a period equals \(k) days: the first notification fires on day \(k) itself, so this lift measures that "
                + "notification's pull, not retention"
        case let .periodEqualsDay(.later(n)):
            return "a period equals \(k) days, the \(NotificationPlace.ordinal(n)) notification's (the first uses another): "
                + "a \(NotificationPlace.ordinal(n)) notification scheduled on the install day fires on day \(k) itself, so this "
                + "lift partly measures that notification's pull, not retention"
        case let .periodEqualsDay(.step(n)):
            return "step \(n) of the sequence fires \(k) days after the last session, on day \(k) itself for a user last seen on "
                + "the install day, so this lift measures that notification's pull, not retention"
        }
    }
}

/// The notification a period belongs to, as the day-k flag names it.
public enum NotificationPlace: Equatable, Sendable {
    /// The first notification a new user's reminder schedules: its first period, or, in the released
    /// code's early wiring, its second (the first open moves the period on).
    case first
    /// A later notification of a reminder's periods, counted from 1 (2 for the second).
    case later(Int)
    /// A step of an inactivity sequence, counted from 1.
    case step(Int)

    /// 1st, 2nd, 3rd, 4th… 11th, 12th, 13th, 21st.
    public static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }
}

extension ConfigurationSpec {
    /// Every delay a notification of this configuration can use, in seconds: those of the periods the
    /// engine can schedule at (`usablePeriods`).
    public var delaysUsedSeconds: [Double] {
        reminders.indices.flatMap { r in usablePeriods(reminder: r).map { delaySeconds(reminder: r, index: $0) } }
    }

    func delaySeconds(reminder r: Int, index i: Int) -> Double {
        Double(periodValue(reminder: r, index: i)) * reminders[r].unit.seconds
    }

    /// The period indices reminder `r` can schedule at, in order: from the one the first close uses (the
    /// engine decides it at the first open, a cold launch: the first period, or the second in the
    /// released code wired early) to the last, as fires move the period on; every one when the periods
    /// wrap. ACPReminder 1.0.0's first period, 1 unit whatever it says, counts only when it is used.
    public func usablePeriods(reminder r: Int) -> [Int] {
        let count = reminders[r].timePeriods.count
        guard let first = installDayPeriods(reminder: r, warmWithin: 0)?.first else { return Array(0..<count) }
        return reminders[r].circularTimePeriod ? Array(0..<count) : Array(first..<count)
    }

    /// What to say about the retention lift at day k, if anything. `warmWithin`: the longest time away
    /// after which a return is still a warm resume (the population's longest `coldLaunchAfterMinutes`).
    public func liftNote(day k: Int, warmWithin: Double = Segment.defaultColdLaunchAfterMinutes * 60) -> LiftNote? {
        let delays = delaysUsedSeconds
        guard let shortest = delays.min() else { return nil }
        // A notification is scheduled at a close after install (local day 0), so it fires no earlier than
        // install + delay; day k ends at most k + 1 days after install.
        if shortest >= Double(k + 1) * 86_400 { return .zeroByConstruction(shortestDelaySeconds: shortest) }
        return place(ofDelay: Double(k) * 86_400, warmWithin: warmWithin).map { .periodEqualsDay($0) }
    }

    /// The earliest notification scheduled on the install day that uses `seconds` as its delay (so
    /// that it fires that many seconds after a close on the install day), and the first reminder; nil
    /// when none does. A sequence's steps are all scheduled at every close.
    func place(ofDelay seconds: Double, warmWithin: Double) -> NotificationPlace? {
        if sequence != nil {
            let steps = reminders.indices.filter { r in reminders[r].timePeriods.indices.contains { delaySeconds(reminder: r, index: $0) == seconds } }
            return steps.first.map { .step($0 + 1) }
        }
        var best: (n: Int, reminder: Int)?
        for r in reminders.indices {
            guard let order = installDayPeriods(reminder: r, warmWithin: warmWithin),
                  let n = order.firstIndex(where: { delaySeconds(reminder: r, index: $0) == seconds }) else { continue }
            if best.map({ n < $0.n }) ?? true { best = (n, r) }
        }
        return best.map { $0.n == 0 ? .first : .later($0.n + 1) }
    }

    /// The period indices reminder `r`'s notifications scheduled on the install day can use, in the
    /// order the engine reaches them: the first close's (after the first open, a cold launch), then,
    /// while each fires within a day of the install, the next close's for a user who comes back as it
    /// fires and leaves at once — a warm resume when the time away (the delay) is under `warmWithin`
    /// seconds, a cold launch otherwise. Worked out by the engine itself, so each mode's and wiring's
    /// rule holds: the documented one moves the period on only after a fire (with periods of a day or
    /// more, only the first is used on the install day), the released one also at the first open, and
    /// a cold launch's check under the README wiring not at all. Nil when the reminder is not one the
    /// engine takes.
    public func installDayPeriods(reminder r: Int, warmWithin: Double = Segment.defaultColdLaunchAfterMinutes * 60) -> [Int]? {
        guard let configuration = try? reminderConfiguration(r), !configuration.timePeriods.isEmpty else { return nil }
        let reminder = Reminder(configuration)
        var state = ReminderState()
        // Only the message is drawn; the periods do not depend on it.
        var source = SplitMix64(seed: 0)
        reminder.becameActive(at: 0, state: &state, coldLaunch: true)
        reminder.enteredBackground(at: 0, state: &state, random: &source)
        var order: [Int] = []
        var closedAt = 0.0
        while let pending = state.pending, !order.contains(pending.periodIndex) {
            order.append(pending.periodIndex)
            guard pending.fireTime < 86_400 else { break }
            reminder.becameActive(at: pending.fireTime, state: &state, coldLaunch: pending.fireTime - closedAt >= warmWithin)
            reminder.enteredBackground(at: pending.fireTime, state: &state, random: &source)
            closedAt = pending.fireTime
        }
        return order
    }
}

extension RunResults {
    /// Retention on day k after install minus the holdout's, among the same users (paired), as a fraction.
    public func retentionDifference(_ c: Int, day k: Int) -> Estimate? {
        guard let sums = tallies.sums, sums.layout.keepsDetail, c > 0 else { return nil }
        let d = sums.curve(c, day: k)
        let r = all[c].tally.retention(day: k)
        return Estimate.pairedDifference(gained: d.gained, lost: d.lost, count: r.eligible, first: r.retained)
    }

    /// Users active on run day d minus the holdout's, with its paired interval: the users are the
    /// pairs, and the difference is n times the paired difference of the shares of users active that
    /// day (`Estimate.pairedDifference`, from the configuration's own active users).
    public func dailyActiveDifference(_ c: Int, day d: Int) -> Estimate? {
        guard let sums = tallies.sums, sums.layout.keepsDetail, c > 0, users.count > 0 else { return nil }
        let x = sums.daily(c, day: d)
        let n = Int64(users.count)
        guard let share = Estimate.pairedDifference(gained: x.gained, lost: x.lost, count: n, first: all[c].tally.daily(d)) else {
            return nil
        }
        let scale = Double(n)
        return Estimate(value: Double(x.gained - x.lost), low: share.low * scale, high: share.high * scale)
    }
}

extension Estimate {
    /// `b − a` for estimates from two runs. `paired`: both runs simulated the same users, so the
    /// estimates are correlated and, without per-user data, the standard error is bounded by
    /// Cauchy–Schwarz, se(b − a) ≤ se(a) + se(b), whatever the correlation; otherwise the runs are
    /// independent and se(b − a) = √(se(a)² + se(b)²). Nil when either interval is unbounded.
    public static func difference(_ a: Estimate, _ b: Estimate, paired: Bool) -> Estimate? {
        let seA = (a.high - a.low) / (2 * z95), seB = (b.high - b.low) / (2 * z95)
        guard seA.isFinite, seB.isFinite else { return nil }
        let se = paired ? seA + seB : (seA * seA + seB * seB).squareRoot()
        let d = b.value - a.value
        return Estimate(value: d, low: d - z95 * se, high: d + z95 * se)
    }
}

extension RunResults {
    /// Whether `other` simulated the same users: same seed, user count and population, and an identical holdout.
    public func sharesUsers(with other: RunResults) -> Bool {
        scenario.seed == other.scenario.seed && scenario.users == other.scenario.users
            && scenario.population == other.scenario.population && users == other.users && holdout.tally == other.holdout.tally
    }
}
