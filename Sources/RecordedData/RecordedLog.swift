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

/// How a customer's frequency, recency and age are measured from their visits.
public enum SummaryConvention: Sendable, Equatable {
    /// Times as recorded: the age runs from the first visit to the calibration end instant.
    case continuous
    /// Whole calendar days in a fixed UTC offset (seconds east of UTC), the convention of Fader & Hardie's
    /// CDNOW tables and of lifetimes' `summary_data_from_transaction_data`: frequency counts repeat days,
    /// recency and age are whole days from the first visit's day to the last visit's day and to the
    /// calibration end's day, and visits on the calibration end's day are in the window.
    case wholeDays(utcOffsetSeconds: Int)

    /// A short phrase for reports.
    public var phrase: String {
        switch self {
        case .continuous: return "continuous time (ages to the cut-off instant)"
        case .wholeDays: return "whole days (ages from the first visit's day to the cut-off day)"
        }
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
    /// Set when every visit is one calendar day, dated at its start in this UTC offset (seconds east of
    /// UTC): the log then has day resolution, and summaries use whole days.
    public let calendarDayOffset: Int?
    /// The first line's fields, when it was read as a header rather than as data.
    public let headerLine: [String]?
    /// Which of the format's layouts the file has, when the format has several.
    public let layout: String?
    /// Visits far outside the rest of the data, and whether they were left out.
    public let outliers: OutlierReport?
    /// Users by offset from UTC, as the events state it (a zone in the timestamp, or an offset column);
    /// empty when no event states one.
    public let utcOffsets: UTCOffsetTally
    /// Rows by event type, with an event-type column: every row read, kept or not.
    public let eventTypes: [EventTypeCount]
    /// Rows of event types not counted by name (see `eventTypes`).
    public let otherEventTypes: Int

    /// A log built in memory; `observationEnd` defaults to the last visit.
    /// - Precondition: at least one user has a visit, and no visit is after `observationEnd`.
    public init(users: [UserVisits], observationEnd: Double? = nil, calendarDayOffset: Int? = nil) {
        let count = users.reduce(0) { $0 + $1.visits.count }
        self.init(
            users: users, observationEnd: observationEnd, rows: count, events: count,
            duplicates: 0, skipped: 0, filtered: 0, issues: [], lastEvent: nil, calendarDayOffset: calendarDayOffset)
    }

    init(
        users: [UserVisits], observationEnd: Double?, rows: Int, events: Int, duplicates: Int,
        skipped: Int, filtered: Int, issues: [ImportIssue], lastEvent: Double?, headerLine: [String]? = nil,
        layout: String? = nil, outliers: OutlierReport? = nil, utcOffsets: UTCOffsetTally = UTCOffsetTally([]),
        eventTypes: [EventTypeCount] = [], otherEventTypes: Int = 0, calendarDayOffset: Int? = nil
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
        self.rows = rows
        self.events = events
        self.duplicates = duplicates
        self.skipped = skipped
        self.filtered = filtered
        self.issues = issues
        self.calendarDayOffset = calendarDayOffset
        self.headerLine = headerLine
        self.layout = layout
        self.outliers = outliers
        self.utcOffsets = utcOffsets
        self.eventTypes = eventTypes
        self.otherEventTypes = otherEventTypes
    }

    /// Whole days for a log with day resolution, continuous time otherwise.
    public var summaryConvention: SummaryConvention {
        calendarDayOffset.map { .wholeDays(utcOffsetSeconds: $0) } ?? .continuous
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
    /// (inclusive); users whose first visit is later are left out. `convention` defaults to the log's.
    public func customerSummaries(
        calibrationEnd: Double, unit: GapUnit = .weeks, convention: SummaryConvention? = nil
    ) -> [CustomerSummary] {
        let scale = unit.seconds
        let rule = convention ?? summaryConvention
        let cutoff = Self.windowEnd(calibrationEnd, rule)
        var result: [CustomerSummary] = []
        for (index, user) in users.enumerated() {
            guard let first = user.visits.first, first <= cutoff else { continue }
            let inWindow = Self.countAtOrBefore(cutoff, in: user.visits)
            let last = user.visits[inWindow - 1]
            let recency: Double, age: Double
            switch rule {
            case .continuous:
                recency = last - first
                age = calibrationEnd - first
            case .wholeDays(let offset):
                let firstDay = Self.day(first, offset)
                recency = Double(Self.day(last, offset) - firstDay) * 86_400
                age = Double(Self.day(calibrationEnd, offset) - firstDay) * 86_400
            }
            result.append(CustomerSummary(
                frequency: inWindow - 1, recency: recency / scale, age: age / scale, user: index, id: user.id))
        }
        return result
    }

    /// Each summarised user's repeat visits after the calibration window up to `holdoutEnd` (inclusive; with
    /// whole days, through `holdoutEnd`'s day), in the same order and for the same users as
    /// `customerSummaries(calibrationEnd:unit:convention:)`.
    public func holdoutCounts(
        calibrationEnd: Double, holdoutEnd: Double, convention: SummaryConvention? = nil
    ) -> [Int] {
        let rule = convention ?? summaryConvention
        let cutoff = Self.windowEnd(calibrationEnd, rule)
        let later = Self.windowEnd(holdoutEnd, rule)
        return users.compactMap { user in
            guard let first = user.visits.first, first <= cutoff else { return nil }
            return max(0, Self.countAtOrBefore(later, in: user.visits) - Self.countAtOrBefore(cutoff, in: user.visits))
        }
    }

    /// The length of (calibrationEnd, holdoutEnd] in seconds: whole days under the whole-day convention.
    public func holdoutLength(calibrationEnd: Double, holdoutEnd: Double, convention: SummaryConvention? = nil) -> Double {
        switch convention ?? summaryConvention {
        case .continuous: return holdoutEnd - calibrationEnd
        case .wholeDays(let offset): return Double(Self.day(holdoutEnd, offset) - Self.day(calibrationEnd, offset)) * 86_400
        }
    }

    /// The calendar day (days since 1970-01-01 in the offset) that holds the instant `t`.
    static func day(_ t: Double, _ offset: Int) -> Int { Int(((t + Double(offset)) / 86_400).rounded(.down)) }

    /// The latest instant inside a window that ends at `t`: `t` itself, or the end of `t`'s day.
    private static func windowEnd(_ t: Double, _ rule: SummaryConvention) -> Double {
        switch rule {
        case .continuous: return t
        case .wholeDays(let offset): return Double(day(t, offset) + 1) * 86_400 - Double(offset) - 0.001
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
