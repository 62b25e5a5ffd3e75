/// A unit of time for gaps, their distributions' parameters and customer summaries.
public enum GapUnit: String, Codable, Sendable, CaseIterable {
    case minutes, hours, days, weeks

    public var seconds: Double {
        switch self {
        case .minutes: return 60
        case .hours: return 3_600
        case .days: return 86_400
        case .weeks: return 604_800
        }
    }
}

/// A time until return; `censored` means observation stopped before the user came back.
public struct CensoredGap: Sendable, Equatable {
    public var duration: Double
    public var censored: Bool

    public init(duration: Double, censored: Bool) {
        (self.duration, self.censored) = (duration, censored)
    }
}

/// One user's visits, in seconds since 1970-01-01 UTC, ascending.
public struct UserVisits: Sendable, Equatable {
    public let id: String
    public let visits: [Double]

    public init(id: String, visits: [Double]) {
        self.id = id
        self.visits = visits.sorted()
    }
}

/// One customer's calibration-window history in the standard BG/NBD form (x, t_x, T) of Fader, Hardie
/// & Lee (2005).
public struct CustomerSummary: Sendable, Hashable {
    /// x: repeat visits in the calibration window (visits after the first, up to the calibration end).
    public var frequency: Int
    /// t_x: last visit in the window minus the first visit (0 when x = 0).
    public var recency: Double
    /// T: calibration end minus the first visit.
    public var age: Double
    /// The customer's index into `RecordedLog.users` and id, for a summary taken from a log.
    public var user: Int?
    public var id: String?

    public init(frequency: Int, recency: Double, age: Double, user: Int? = nil, id: String? = nil) {
        (self.frequency, self.recency, self.age, self.user, self.id) = (frequency, recency, age, user, id)
    }
}

/// Users and their visits as recorded in a log, with what the import saw on the way.
public struct RecordedLog: Sendable {
    /// In first-seen order; a user's position is its dense index.
    public let users: [UserVisits]
    /// Seconds since the epoch: given explicitly, or else the time of the last event.
    public let observationEnd: Double
    /// Data rows read: header and blank lines not included.
    public let rows: Int
    /// Rows that became events (not skipped, not filtered out).
    public let events: Int
    /// Events repeating an already seen (user, time); exact for per-user time-ordered input,
    /// a lower bound for unordered input (see `VisitAccumulator`).
    public let duplicates: Int
    public let skipped: Int
    /// Rows dropped because their event type is not kept.
    public let filtered: Int
    /// The first few skipped rows, as examples.
    public let issues: [ImportIssue]
    public let firstVisit: Double
    public let lastVisit: Double
    /// The latest event, which can be later than `lastVisit` since a visit is dated by its first event.
    public let lastEvent: Double

    /// A log built in memory; `observationEnd` defaults to the last visit.
    /// - Precondition: at least one user has a visit, and no visit is after `observationEnd`.
    public init(users: [UserVisits], observationEnd: Double? = nil) {
        let count = users.reduce(0) { $0 + $1.visits.count }
        self.init(
            users: users, observationEnd: observationEnd, rows: count, events: count,
            duplicates: 0, skipped: 0, filtered: 0, issues: [], lastEvent: nil)
    }

    init(
        users: [UserVisits], observationEnd: Double?, rows: Int, events: Int, duplicates: Int,
        skipped: Int, filtered: Int, issues: [ImportIssue], lastEvent: Double?
    ) {
        let firsts = users.compactMap(\.visits.first)
        let lasts = users.compactMap(\.visits.last)
        precondition(!firsts.isEmpty, "a recorded log needs at least one visit")
        self.users = users
        firstVisit = firsts.min()!
        lastVisit = lasts.max()!
        self.lastEvent = lastEvent ?? lastVisit
        self.observationEnd = observationEnd ?? self.lastEvent
        precondition(lastVisit <= self.observationEnd, "a visit lies after the end of observation")
        (self.rows, self.events, self.duplicates, self.skipped) = (rows, events, duplicates, skipped)
        (self.filtered, self.issues) = (filtered, issues)
    }

    public var visitCount: Int { users.reduce(0) { $0 + $1.visits.count } }

    /// Every user's gaps between consecutive visits (uncensored), then one right-censored gap from the
    /// last visit to the observation end: that user had not come back yet when observation stopped, which
    /// is what a Kaplan–Meier estimate needs to count dropouts instead of ignoring them. A user whose
    /// last visit is at the observation end contributes a censored gap of 0, which only leaves the risk set.
    public func gaps(unit: GapUnit = .days) -> [CensoredGap] {
        let scale = unit.seconds
        var result: [CensoredGap] = []
        result.reserveCapacity(visitCount)
        for user in users {
            guard let last = user.visits.last else { continue }
            for (a, b) in zip(user.visits, user.visits.dropFirst()) {
                result.append(CensoredGap(duration: (b - a) / scale, censored: false))
            }
            result.append(CensoredGap(duration: (observationEnd - last) / scale, censored: true))
        }
        return result
    }

    /// Frequency, recency and age per user over the calibration window that ends at `calibrationEnd`
    /// (inclusive); users whose first visit is later are left out.
    public func customerSummaries(calibrationEnd: Double, unit: GapUnit = .weeks) -> [CustomerSummary] {
        let scale = unit.seconds
        var result: [CustomerSummary] = []
        for (index, user) in users.enumerated() {
            guard let first = user.visits.first, first <= calibrationEnd else { continue }
            let inWindow = Self.countAtOrBefore(calibrationEnd, in: user.visits)
            result.append(CustomerSummary(
                frequency: inWindow - 1, recency: (user.visits[inWindow - 1] - first) / scale,
                age: (calibrationEnd - first) / scale, user: index, id: user.id))
        }
        return result
    }

    /// Each summarised user's repeat visits in (calibrationEnd, holdoutEnd], in the same order and for the
    /// same users as `customerSummaries(calibrationEnd:unit:)`.
    public func holdoutCounts(calibrationEnd: Double, holdoutEnd: Double) -> [Int] {
        users.compactMap { user in
            guard let first = user.visits.first, first <= calibrationEnd else { return nil }
            let later = Self.countAtOrBefore(holdoutEnd, in: user.visits)
            return max(0, later - Self.countAtOrBefore(calibrationEnd, in: user.visits))
        }
    }

    private static func countAtOrBefore(_ t: Double, in sorted: [Double]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
