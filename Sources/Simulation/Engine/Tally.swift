/// Totals of one configuration over the users simulated so far.
public enum Counter: Int, CaseIterable, Sendable {
    case users, opens, organicOpens, responseOpens, launches
    case scheduled, cancelled, delivered, foreground, suppressed, censored
    case responded, attributed, optOuts, revived
    case retainedD1, eligibleD1, retainedD7, eligibleD7, retainedD30, eligibleD30
    /// Σ over users of (opens − holdout opens), and of its square: the paired lift and its spread.
    case opensLiftSum, opensLiftSquares
    /// Users retained on day k here but not in the holdout (gained), and the reverse (lost).
    case gainedD1, lostD1, gainedD7, lostD7, gainedD30, lostD30
    /// Delivery policies: notifications moved out of quiet hours, moved into a send window, and not
    /// delivered because of a frequency cap.
    case deferred, shifted, capped
    /// Platforms: notifications the system discarded past its pending limit (an outcome of their
    /// own), those not shown for want of permission (part of `suppressed`), those delivered quietly
    /// under provisional authorisation (part of `delivered`), and alarms an idle device deferred to
    /// a maintenance window. Users shown the permission prompt, and those of them who allowed
    /// notifications.
    case dropped, noPermission, quietDelivered, dozed, permissionAsked, permissionGranted
}

/// Per-message and per-period counts of notifications.
public enum SlotCounter: Int, CaseIterable, Sendable {
    case scheduled, cancelled, delivered, foreground, suppressed, censored, responded, capped
    /// Discarded by the system past its limit of pending notifications.
    case dropped
}

/// Per local clock hour of the user: notifications delivered then, and those of them that brought the
/// user back.
public enum HourCounter: Int, CaseIterable, Sendable {
    case delivered, responded
}

/// Per cron rule counts.
public enum RuleCounter: Int, CaseIterable, Sendable {
    case evaluated, blockRuns, elseRuns, usersRan
}

/// Per cron rule whose block asks for the App Store review prompt: prompts the system showed (the
/// asks are the rule's block runs), and users shown one at least once. Zero for unmarked rules.
public enum PromptCounter: Int, CaseIterable, Sendable {
    case shown, usersShown
}

/// Where each count lives in a `Tally`'s flat storage. The index functions use wrapping
/// arithmetic: their operands are bounded by the layout's small sizes, and the loop calls them at
/// every event.
public struct TallyLayout: CountsLayout {
    public let messageSlots: Int
    public let periodSlots: Int
    public let cronRules: Int
    public let days: Int

    public let messageOffset: Int
    public let periodOffset: Int
    public let dailyOffset: Int
    public let ruleOffset: Int
    /// Histogram of the day (since install) of each user's first run of each rule, `days + 1` bins.
    public let firstRunOffset: Int
    /// Users with an open on day k after install, k = 1...30.
    public let curveRetainedOffset: Int
    /// Users whose days 1...K lie inside the horizon, K = 0...30 (one bin per user).
    public let curveEligibleOffset: Int
    /// Deliveries and responses by the user's local hour, 0...23.
    public let hourOffset: Int
    /// Per cron rule, the review prompts it asked for that were shown (`PromptCounter`); last, so that
    /// the counts stored before it are this layout's first `promptOffset`.
    public let promptOffset: Int
    public let count: Int

    public init(messageSlots: Int, periodSlots: Int, cronRules: Int, days: Int) {
        self.messageSlots = messageSlots
        self.periodSlots = periodSlots
        self.cronRules = cronRules
        self.days = days
        messageOffset = Counter.allCases.count
        periodOffset = messageOffset + messageSlots * SlotCounter.allCases.count
        dailyOffset = periodOffset + periodSlots * SlotCounter.allCases.count
        ruleOffset = dailyOffset + days
        firstRunOffset = ruleOffset + cronRules * RuleCounter.allCases.count
        curveRetainedOffset = firstRunOffset + cronRules * (days + 1)
        curveEligibleOffset = curveRetainedOffset + retentionCurveDays
        hourOffset = curveEligibleOffset + retentionCurveDays + 1
        promptOffset = hourOffset + 24 * HourCounter.allCases.count
        count = promptOffset + cronRules * PromptCounter.allCases.count
    }

    @inlinable public func hour(_ h: Int, _ c: HourCounter) -> Int { hourOffset &+ h &* HourCounter.allCases.count &+ c.rawValue }

    @inlinable public func curveRetained(day k: Int) -> Int { curveRetainedOffset &+ k &- 1 }
    @inlinable public func curveEligibleThrough(_ k: Int) -> Int { curveEligibleOffset &+ k }

    @inlinable public func message(_ slot: Int, _ c: SlotCounter) -> Int {
        messageOffset &+ slot &* SlotCounter.allCases.count &+ c.rawValue
    }

    @inlinable public func period(_ slot: Int, _ c: SlotCounter) -> Int {
        periodOffset &+ slot &* SlotCounter.allCases.count &+ c.rawValue
    }

    /// Words of a bitset with one bit per run day.
    var activeDayWords: Int { (days + 63) / 64 }
    @inlinable public func daily(_ day: Int) -> Int { dailyOffset &+ day }

    @inlinable public func rule(_ r: Int, _ c: RuleCounter) -> Int {
        ruleOffset &+ r &* RuleCounter.allCases.count &+ c.rawValue
    }

    @inlinable public func firstRun(_ r: Int, day: Int) -> Int { firstRunOffset &+ r &* (days &+ 1) &+ day }

    @inlinable public func prompt(_ r: Int, _ c: PromptCounter) -> Int {
        promptOffset &+ r &* PromptCounter.allCases.count &+ c.rawValue
    }
}

/// Integer counts for one configuration.
public typealias Tally = Counts<TallyLayout>

extension Tally {
    public subscript(_ c: Counter) -> Int64 { counts[c.rawValue] }

    public func message(_ slot: Int, _ c: SlotCounter) -> Int64 { counts[layout.message(slot, c)] }
    public func period(_ slot: Int, _ c: SlotCounter) -> Int64 { counts[layout.period(slot, c)] }
    public func daily(_ day: Int) -> Int64 { counts[layout.daily(day)] }
    public func rule(_ r: Int, _ c: RuleCounter) -> Int64 { counts[layout.rule(r, c)] }
    public func firstRun(_ r: Int, day: Int) -> Int64 { counts[layout.firstRun(r, day: day)] }
    public func prompt(_ r: Int, _ c: PromptCounter) -> Int64 { counts[layout.prompt(r, c)] }
    public func hour(_ h: Int, _ c: HourCounter) -> Int64 { counts[layout.hour(h, c)] }

    /// Retention on day k after install (1...30), among users whose day k ends inside the horizon.
    public func retention(day k: Int) -> (retained: Int64, eligible: Int64) {
        let eligible = (k...retentionCurveDays).reduce(Int64(0)) { $0 + counts[layout.curveEligibleThrough($1)] }
        return (counts[layout.curveRetained(day: k)], eligible)
    }
}

extension Tally {
    /// The first count no run can produce, and why: every count counts something, so none is below
    /// zero but the sum of the lifts over the holdout; the users eligible on day 1, 7 or 30 are at
    /// most the users, and those retained, gained or lost on it at most the eligible; the active
    /// users of a day are at most the users. Nil for counts a run could have made. A database
    /// edited by hand shows here before any measure is computed from it.
    public func firstImpossibleCount() -> (index: Int, reason: String)? {
        for (i, v) in counts.enumerated() where v < 0 && i != Counter.opensLiftSum.rawValue {
            return (i, "\(v) is below zero, and it counts something")
        }
        let users = self[.users]
        // Every open is organic or a notification's answer; every notification scheduled ends in one
        // outcome. (A count a run cannot make breaks these sums, however large the limits allow.)
        let opens = self[.organicOpens] &+ self[.responseOpens]
        if self[.opens] != opens {
            return (Counter.opens.rawValue, "\(self[.opens]) opens, but \(self[.organicOpens]) organic and "
                + "\(self[.responseOpens]) answering a notification make \(opens)")
        }
        let outcomes: [Counter] = [.cancelled, .delivered, .foreground, .suppressed, .censored, .capped, .dropped]
        let ended = outcomes.reduce(Int64(0)) { $0 &+ self[$1] }
        if self[.scheduled] != ended {
            return (Counter.scheduled.rawValue, "\(self[.scheduled]) notifications scheduled, but their outcomes (cancelled, "
                + "delivered, foreground, suppressed, censored, capped, dropped) add up to \(ended)")
        }
        if self[.launches] > self[.opens] {
            return (Counter.launches.rawValue, "\(self[.launches]) cold launches, more than the \(self[.opens]) opens")
        }
        for (eligible, others) in [(Counter.eligibleD1, [Counter.retainedD1, .gainedD1, .lostD1]),
                                   (.eligibleD7, [.retainedD7, .gainedD7, .lostD7]),
                                   (.eligibleD30, [.retainedD30, .gainedD30, .lostD30])] {
            if self[eligible] > users {
                return (eligible.rawValue, "\(self[eligible]) users eligible, more than the \(users) users")
            }
            for other in others where self[other] > self[eligible] {
                return (other.rawValue, "\(self[other]) users, more than the \(self[eligible]) eligible")
            }
        }
        for day in 0..<layout.days where daily(day) > users {
            return (layout.daily(day), "\(daily(day)) users active on day \(day), more than the \(users) users")
        }
        // Every rate a report shows has its part at most its whole.
        func notification(_ at: (SlotCounter) -> Int, _ where_: String) -> (index: Int, reason: String)? {
            func value(_ c: SlotCounter) -> Int64 { counts[at(c)] }
            let fired = value(.delivered) &+ value(.foreground) &+ value(.suppressed)
            if value(.censored) > value(.scheduled) {
                return (at(.censored), "\(value(.censored)) censored\(where_), more than the \(value(.scheduled)) scheduled")
            }
            if fired > value(.scheduled) - value(.censored) {
                return (at(.delivered), "\(fired) fired\(where_) (delivered, in the foreground or suppressed), more than the "
                    + "\(value(.scheduled) - value(.censored)) scheduled that were not censored")
            }
            if value(.responded) > value(.delivered) {
                return (at(.responded), "\(value(.responded)) answered\(where_), more than the \(value(.delivered)) delivered")
            }
            return nil
        }
        // The configuration's own counters, as a slot's are read.
        func configuration(_ c: SlotCounter) -> Int {
            switch c {
            case .scheduled: return Counter.scheduled.rawValue
            case .censored: return Counter.censored.rawValue
            case .delivered: return Counter.delivered.rawValue
            case .foreground: return Counter.foreground.rawValue
            case .suppressed: return Counter.suppressed.rawValue
            case .responded: return Counter.responded.rawValue
            case .cancelled: return Counter.cancelled.rawValue
            case .capped: return Counter.capped.rawValue
            case .dropped: return Counter.dropped.rawValue
            }
        }
        if let found = notification(configuration, "") { return found }
        for slot in 0..<layout.messageSlots {
            if let found = notification({ layout.message(slot, $0) }, " of message slot \(slot)") { return found }
        }
        for slot in 0..<layout.periodSlots {
            if let found = notification({ layout.period(slot, $0) }, " of period slot \(slot)") { return found }
        }
        for (part, whole) in [(Counter.attributed, Counter.delivered), (.optOuts, .users), (.permissionAsked, .users),
                              (.permissionGranted, .permissionAsked)] where self[part] > self[whole] {
            return (part.rawValue, "\(self[part]) \(part), more than the \(self[whole]) \(whole)")
        }
        for h in 0..<24 where hour(h, .responded) > hour(h, .delivered) {
            return (layout.hour(h, .responded), "\(hour(h, .responded)) answered at hour \(h), more than the "
                + "\(hour(h, .delivered)) delivered then")
        }
        let eligibleUsers = (0...retentionCurveDays).reduce(Int64(0)) { $0 &+ counts[layout.curveEligibleThrough($1)] }
        if eligibleUsers > users {
            return (layout.curveEligibleOffset, "\(eligibleUsers) users in the retention curve, more than the \(users) users")
        }
        for k in 1...retentionCurveDays {
            let (retained, eligible) = retention(day: k)
            if retained > eligible {
                return (layout.curveRetained(day: k), "\(retained) users retained on day \(k), more than the \(eligible) eligible")
            }
        }
        for r in 0..<layout.cronRules {
            if rule(r, .usersRan) > users {
                return (layout.rule(r, .usersRan), "\(rule(r, .usersRan)) users whose block ran for rule \(r), more than the "
                    + "\(users) users")
            }
            if prompt(r, .usersShown) > users || prompt(r, .usersShown) > prompt(r, .shown) {
                return (layout.prompt(r, .usersShown), "\(prompt(r, .usersShown)) users shown rule \(r)'s prompt, more than "
                    + "the \(users) users or the \(prompt(r, .shown)) prompts shown")
            }
        }
        return nil
    }
}
