/// A named time zone over one run: its UTC offset at the run's start and each change of it
/// (daylight saving time), in seconds from the run's start, read once from the system's time zone
/// database when the model is built.
struct CompiledZone: Sendable {
    let name: String
    /// The instants the offset changes, in order; the offset before the first change, then after
    /// each (one more than the changes).
    private let frozenChanges: FrozenBuffer<Double>
    private let frozenOffsets: FrozenBuffer<Double>
    var changes: [Double] { Array(frozenChanges.buffer) }
    var offsets: [Double] { Array(frozenOffsets.buffer) }

    /// The zone over a run starting at `startDay` (days since 1970) for `days` days; the table reaches
    /// a week past the horizon, for the fire times just after it.
    init(name: String, startDay: Int, days: Int) {
        let start = Double(startDay) * 86_400
        let (first, later) = TimeZoneDatabase.offsets(of: name, from: start, to: start + Double(days + 7) * 86_400)
        self.name = name
        frozenChanges = FrozenBuffer(later.map { $0.0 - start })
        frozenOffsets = FrozenBuffer([first] + later.map(\.1))
    }

    /// The table as the loop reads it; valid while the zone lives.
    var view: ZoneView { ZoneView(changes: frozenChanges.buffer, offsets: frozenOffsets.buffer.baseAddress!) }

    /// The offset at the run's start.
    var startOffset: Double { frozenOffsets.buffer[0] }

    /// The offset in seconds at time `t` (seconds from the run's start).
    func offset(at t: Double) -> Double { withExtendedLifetime(self) { view.offset(at: t) } }
}

/// A zone's table in plain memory.
struct ZoneView {
    let changes: UnsafeBufferPointer<Double>
    let offsets: UnsafePointer<Double>

    /// The offset in seconds at time `t`: a zone changes its offset a few times in a run at most.
    @inline(__always) func offset(at t: Double) -> Double {
        var k = 0
        while k < changes.count, changes[k] <= t { k &+= 1 }
        return offsets[k]
    }

    /// The first change of offset after `t`; nil when none follows in the table.
    func firstChange(after t: Double) -> Double? { changes.first { $0 > t } }
}

/// The week and the clock of organic returns (`ReturnPattern`), ready for the loop: the factor of
/// each local hour of the week, Monday 00:00 first, scaled to a mean of 1, and their running sums.
///
/// The pattern is a change of time: a gap drawn from the segment's distribution is spent in
/// "pattern time", which runs at the factor's pace, so that the organic open falls where the
/// pattern's cumulative intensity since the close reaches the gap. For exponential gaps this is
/// exactly a Poisson process whose intensity is the segment's times the factor.
struct CompiledReturnPattern: Sendable {
    private let frozenFactors: FrozenBuffer<Double>
    private let frozenCumulative: FrozenBuffer<Double>
    let weekShift: Double

    init(_ pattern: ReturnPattern, startDay: Int) {
        let factors = pattern.weeklyHourFactors
        var sums = [0.0]
        for f in factors { sums.append(sums[sums.count - 1] + f * 3_600) }
        frozenFactors = FrozenBuffer(factors)
        frozenCumulative = FrozenBuffer(sums)
        // 1970-01-01 was a Thursday, day 3 of a week starting on Monday.
        let weekday = ((startDay + 3) % 7 + 7) % 7
        weekShift = Double(weekday + 7) * 86_400
    }

    /// The pattern as the loop reads it; valid while the pattern lives.
    var view: PatternView {
        PatternView(factors: frozenFactors.buffer.baseAddress!, cumulative: frozenCumulative.buffer.baseAddress!,
                    weekShift: weekShift)
    }

    func advance(local: Double, by gap: Double) -> Double { withExtendedLifetime(self) { view.advance(local: local, by: gap) } }
    func weekday(ofLocal local: Double) -> Int { view.weekday(ofLocal: local) }
}

/// A return pattern in plain memory.
struct PatternView {
    static let week = 604_800.0
    /// 168 factors, and 169 running sums of factor × 3,600 (the last one the week, 604,800).
    let factors: UnsafePointer<Double>
    let cumulative: UnsafePointer<Double>
    /// Added to a local clock reading (seconds from the run's start at UTC midnight, plus the
    /// offset) to count from a Monday 00:00 at least a week earlier.
    let weekShift: Double

    /// The local weekday (0 = Monday) of a local clock reading.
    func weekday(ofLocal local: Double) -> Int {
        Int((local + weekShift) / 86_400) % 7
    }

    /// The local clock reading at which pattern time has run `gap` seconds from `local`.
    func advance(local: Double, by gap: Double) -> Double {
        guard gap.isFinite else { return .infinity }
        let x = local + weekShift
        let weeks = (x / Self.week).rounded(.down)
        let phase = x - weeks * Self.week
        let cell = min(Int(phase / 3_600), 167)
        let spent = cumulative[cell] + (phase - Double(cell) * 3_600) * factors[cell] + gap
        let more = (spent / Self.week).rounded(.down)
        let rest = spent - more * Self.week
        // The hour in which the running sum passes `rest`: the last with cumulative ≤ rest and a
        // positive factor (hours with factor 0 take no pattern time).
        var lo = 0, hi = 168
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if cumulative[mid] <= rest { lo = mid } else { hi = mid }
        }
        while factors[lo] == 0 && lo < 167 { lo += 1 }
        while factors[lo] == 0 && lo > 0 { lo -= 1 }
        let within = min(max((rest - cumulative[lo]) / factors[lo], 0), 3_600)
        let end = (weeks + more) * Self.week + Double(lo) * 3_600 + within - weekShift
        return max(end, local)
    }
}
