/// What to do with visits far outside the rest of a log's time span.
public enum OutlierPolicy: Sendable, Equatable {
    /// Report them and leave them out: one mistyped year must not stretch the observation by centuries.
    case exclude
    /// Report them and keep them.
    case keep
}

/// Visits whose time lies far outside the bulk of the log, by the rule `OutlierReport.rule`.
public struct OutlierReport: Sendable, Equatable {
    /// Visits inside these bounds (seconds since 1970, inclusive) are not outliers.
    public let bounds: ClosedRange<Double>
    /// Visits outside the bounds.
    public let visits: Int
    /// Rows that were outside the bounds (among the earliest and latest events), by line.
    public let examples: [ImportIssue]
    /// Whether the outlying visits were left out of the log.
    public let excluded: Bool

    /// The rule, for messages.
    public static let rule = "more than the span of the central 99% of visit times (at least one day) "
        + "before its 0.5th or after its 99.5th percentile, or before 1990 or from 2100 on"

    /// Visits in these years are plausible for an app's log; any other is an outlier, however many there are.
    public static let plausible = CivilTime.epochSeconds(year: 1990, month: 1, day: 1)
        ... CivilTime.epochSeconds(year: 2100, month: 1, day: 1) - 1

    /// The times a log may hold at all: the years a calendar date of four digits names. A row outside
    /// is a bad row, so that no time in a log is too large for the arithmetic done on it.
    public static let calendar = CivilTime.epochSeconds(year: 0, month: 1, day: 1)
        ... CivilTime.epochSeconds(year: 10_000, month: 1, day: 1) - 1

    /// The bounds of the rule for these visits: the plausible years, narrowed by the percentiles when
    /// there are enough visits to tell. When every visit lies outside the plausible years, those bounds
    /// are kept as they are, so that every visit is an outlier.
    static func bounds(of users: [UserVisits]) -> ClosedRange<Double> {
        guard let spread = spread(of: users) else { return plausible }
        let low = max(spread.lowerBound, plausible.lowerBound), high = min(spread.upperBound, plausible.upperBound)
        return low <= high ? low...high : plausible
    }

    /// The percentile bounds of the rule; nil when there are too few visits to tell.
    ///
    /// The percentiles come from an evenly strided sample of at most 200,000 visits, so a large log costs
    /// no more than a small one. A genuine tail stays inside: for visits spread over any span, the
    /// outermost 0.5% lies within 1% of the span of the percentiles, far from a whole span away.
    static func spread(of users: [UserVisits]) -> ClosedRange<Double>? {
        let total = users.reduce(0) { $0 + $1.visits.count }
        guard total >= 200 else { return nil }
        let stride = max(1, total / 200_000)
        var sample: [Double] = []
        sample.reserveCapacity(total / stride + 1)
        var position = 0
        for user in users {
            for t in user.visits {
                if position % stride == 0 { sample.append(t) }
                position += 1
            }
        }
        sample.sort()
        func quantile(_ p: Double) -> Double { sample[Int((p * Double(sample.count - 1)).rounded())] }
        let low = quantile(0.005), high = quantile(0.995)
        let width = max(high - low, 86_400)
        return (low - width)...(high + width)
    }
}

/// The earliest and latest events of an import with their lines (and the archive entry, counted from 0,
/// whose lines they are), kept to name outlying rows.
struct ExtremeEvents {
    typealias Event = (time: Double, line: Int, entry: Int)
    static let kept = 32
    /// Ascending by time.
    private(set) var earliest: [Event] = []
    /// Descending by time.
    private(set) var latest: [Event] = []

    /// An event must be earlier than this, or later than `latestKept`, to be kept (±∞ until the lists fill).
    private var earliestKept = Double.infinity
    private var latestKept = -Double.infinity

    @inline(__always)
    mutating func add(_ time: Double, line: Int, entry: Int = 0) {
        guard time < earliestKept || time > latestKept else { return }
        insert(time, line: line, entry: entry)
    }

    private mutating func insert(_ time: Double, line: Int, entry: Int) {
        defer {
            earliestKept = earliest.count < Self.kept ? .infinity : earliest[earliest.count - 1].time
            latestKept = latest.count < Self.kept ? -.infinity : latest[latest.count - 1].time
        }
        if earliest.count < Self.kept || time < earliest[earliest.count - 1].time {
            let at = earliest.firstIndex { time < $0.time } ?? earliest.count
            earliest.insert((time, line, entry), at: at)
            if earliest.count > Self.kept { earliest.removeLast() }
        }
        if latest.count < Self.kept || time > latest[latest.count - 1].time {
            let at = latest.firstIndex { time > $0.time } ?? latest.count
            latest.insert((time, line, entry), at: at)
            if latest.count > Self.kept { latest.removeLast() }
        }
    }

    /// The kept events outside `bounds`, in the order of their entries and lines.
    func beyond(_ bounds: ClosedRange<Double>) -> [Event] {
        var seen = Set<[Int]>()
        return (earliest + latest).filter { !bounds.contains($0.time) && seen.insert([$0.entry, $0.line]).inserted }
            .sorted { ($0.entry, $0.line) < ($1.entry, $1.line) }
    }

    /// The latest kept event inside `bounds`.
    func latest(within bounds: ClosedRange<Double>) -> Double? {
        latest.first { bounds.contains($0.time) }?.time
    }
}
