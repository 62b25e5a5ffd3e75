/// When two events of one user belong to the same visit.
enum VisitRule: Sendable {
    /// Seconds; an event strictly closer than this to the visit's latest event joins it.
    case gap(Double)
    /// Same calendar day, counted in a fixed offset (seconds east of UTC).
    case calendarDay(offset: Double)

    @inline(__always)
    func joins(start: Double, end: Double, next: Double) -> Bool {
        switch self {
        case .gap(let gap): return next - end < gap
        case .calendarDay(let offset): return Self.day(next, offset) == Self.day(start, offset)
        }
    }

    /// The time a visit is recorded at: its first event, or the start of its day at day resolution.
    func visitTime(start: Double) -> Double {
        switch self {
        case .gap: return start
        case .calendarDay(let offset): return Self.day(start, offset) * 86_400 - offset
        }
    }

    @inline(__always)
    private static func day(_ t: Double, _ offset: Double) -> Double {
        ((t + offset) / 86_400).rounded(.down)
    }
}

/// One user's visits, built event by event in memory proportional to the visits, not the events.
struct VisitAccumulator {
    // Unsorted input is the reason for spans: grouping by gap is single-linkage clustering on a line, so a
    // visit's first and last event are all that is needed to merge a later event into it, whatever the
    // order. In-order events cost O(1); out-of-order ones wait in a buffer that is sorted and merged once it
    // is as large as the span list, which keeps the cost O(log n) per event and the buffer no larger than
    // the visits. The price is 16 bytes per visit while importing instead of 8, and duplicates of interior
    // events going uncounted (see `add`).

    /// Flattened (start, end) pairs, sorted, never joinable with their neighbours.
    private(set) var spans: [Double] = []
    private var pending: [Double] = []

    /// Adds one event; returns how many exact duplicates of already seen event times this revealed.
    ///
    /// Duplicates are recognised when they coincide with a visit's first or last event, or with each
    /// other in the buffer: exact for time-ordered input, a lower bound otherwise (remembering every
    /// interior event time would make memory grow with rows).
    @inline(__always)
    mutating func add(_ t: Double, rule: VisitRule) -> Int {
        let n = spans.count
        guard n > 0 else {
            spans.append(t)
            spans.append(t)
            return 0
        }
        let lastStart = spans[n - 2], lastEnd = spans[n - 1]
        if t >= lastStart {
            if t == lastStart || t == lastEnd { return 1 }
            if t < lastEnd { return 0 }
            if rule.joins(start: lastStart, end: lastEnd, next: t) {
                spans[n - 1] = t
            } else {
                spans.append(t)
                spans.append(t)
            }
            return 0
        }
        pending.append(t)
        return pending.count >= max(16, n / 2) ? mergePending(rule: rule) : 0
    }

    /// Folds the buffered events into the spans; returns the duplicates found doing so.
    mutating func mergePending(rule: VisitRule) -> Int {
        guard !pending.isEmpty else { return 0 }
        pending.sort()
        var merged: [Double] = []
        merged.reserveCapacity(spans.count + 2 * pending.count)
        var duplicates = 0
        var i = 0, j = 0
        var start = 0.0, end = 0.0, open = false
        while i < spans.count || j < pending.count {
            let s: Double, e: Double
            if j == pending.count || (i < spans.count && spans[i] <= pending[j]) {
                s = spans[i]; e = spans[i + 1]; i += 2
            } else {
                s = pending[j]; e = s; j += 1
            }
            guard open else {
                start = s; end = e; open = true
                continue
            }
            if s == e, s == start || s == end {
                duplicates += 1
            } else if s <= end || rule.joins(start: start, end: end, next: s) {
                end = max(end, e)
            } else {
                merged.append(start)
                merged.append(end)
                start = s; end = e
            }
        }
        merged.append(start)
        merged.append(end)
        if merged.capacity > 2 * merged.count {
            // Most buffered events fell into existing visits: drop the reservation rather than keep it
            // as slack for every user.
            spans = [Double](unsafeUninitializedCapacity: merged.count) { buffer, count in
                count = buffer.initialize(fromContentsOf: merged)
            }
        } else {
            spans = merged
        }
        pending = []
        return duplicates
    }

    /// The visit times, ascending, plus the duplicates found in the last merge.
    mutating func finish(rule: VisitRule) -> (visits: [Double], duplicates: Int) {
        let duplicates = mergePending(rule: rule)
        var visits: [Double] = []
        visits.reserveCapacity(spans.count / 2)
        for k in stride(from: 0, to: spans.count, by: 2) {
            visits.append(rule.visitTime(start: spans[k]))
        }
        spans = []
        return (visits, duplicates)
    }
}
