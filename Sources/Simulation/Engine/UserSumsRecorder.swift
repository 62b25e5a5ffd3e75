/// Turns one user's counts under every configuration into the per-user sums of `UserSums`.
///
/// The timeline adds its counts straight into a configuration's tally; the recorder reads the
/// notification counters and per-message/period counters (a prefix of the tally) before and after
/// each configuration's simulation of a user, so the difference is that user's own totals. The
/// days the user was active come from the timeline's bitset of run days.
struct UserSumsRecorder {
    private let layouts: [TallyLayout]
    /// Per configuration: the tally prefix before the current user.
    private var before: [[Int64]]
    /// Per configuration: the current user's totals.
    private var delivered: [Int64]
    private var optedOut: [Bool]
    private var scheduled: [Int64]
    private var censored: [Int64]
    private var triggered: [Int64]
    private var responded: [Int64]
    /// Per configuration: the run days (UTC) the current user opened the app, as bits.
    private var activeDays: [[UInt64]]

    init(layouts: [TallyLayout]) {
        self.layouts = layouts
        before = layouts.map { Array(repeating: 0, count: $0.dailyOffset) }
        activeDays = layouts.map { Array(repeating: 0, count: ($0.days + 63) / 64) }
        let zeros = Array(repeating: Int64(0), count: layouts.count)
        delivered = zeros
        optedOut = Array(repeating: false, count: layouts.count)
        scheduled = zeros
        censored = zeros
        triggered = zeros
        responded = zeros
    }

    /// Call before configuration `i` simulates the user, with its tally's counts.
    mutating func begin(_ i: Int, _ c: UnsafeMutablePointer<Int64>) {
        let n = layouts[i].dailyOffset
        before[i].withUnsafeMutableBufferPointer { b in
            for k in 0..<n { b[k] = c[k] }
        }
    }

    @inline(__always) private static func add(_ s: UnsafeMutablePointer<Int64>, _ x: Int64, _ y: Int64) {
        s[0] &+= x
        s[1] &+= y
        s[2] &+= x &* x
        s[3] &+= y &* y
        s[4] &+= x &* y
    }

    /// Call after configuration `i` simulated the user, with its tally's counts and the user's run
    /// days: adds the user's ratio terms.
    mutating func end(_ i: Int, _ c: UnsafeMutablePointer<Int64>, activeDays days: UnsafePointer<UInt64>,
                      into sums: inout UserSums) {
        let layout = layouts[i]
        let sumsLayout = sums.layout
        do {
            before[i].withUnsafeBufferPointer { b in
                func d(_ k: Int) -> Int64 { c[k] &- b[k] }
                func d(_ counter: Counter) -> Int64 { d(counter.rawValue) }
                let del = d(.delivered)
                let trig = del &+ d(.foreground) &+ d(.suppressed)
                let sch = d(.scheduled), cen = d(.censored), resp = d(.responded)
                let opt = d(.optOuts)
                delivered[i] = del
                triggered[i] = trig
                scheduled[i] = sch
                censored[i] = cen
                responded[i] = resp
                optedOut[i] = opt > 0
                activeDays[i].withUnsafeMutableBufferPointer { words in
                    for w in words.indices { words[w] = days[w] }
                }
                sums.counts.withUnsafeMutableBufferPointer { s in
                    let base = s.baseAddress!
                    Self.add(base + sumsLayout.ratio(i, .trigger), trig, sch &- cen)
                    Self.add(base + sumsLayout.ratio(i, .response), resp, del)
                    Self.add(base + sumsLayout.ratio(i, .attributed), d(.attributed), del)
                    Self.add(base + sumsLayout.ratio(i, .optOut), opt, del)
                    let slots = layout.messageSlots + layout.periodSlots
                    for slot in 0..<slots {
                        let o = layout.messageOffset + slot * SlotCounter.allCases.count
                        let sDel = d(o + SlotCounter.delivered.rawValue)
                        let sTrig = sDel &+ d(o + SlotCounter.foreground.rawValue) &+ d(o + SlotCounter.suppressed.rawValue)
                        let sEligible = d(o + SlotCounter.scheduled.rawValue) &- d(o + SlotCounter.censored.rawValue)
                        // Most users never reach most slots: skip the zeros.
                        if sEligible != 0 || sTrig != 0 {
                            Self.add(base + sumsLayout.slot(i, slot, response: false), sTrig, sEligible)
                        }
                        if sDel != 0 {
                            Self.add(base + sumsLayout.slot(i, slot, response: true), d(o + SlotCounter.responded.rawValue), sDel)
                        }
                    }
                }
            }
        }
    }

    /// Call once every configuration has simulated the user: adds the segment and pair terms.
    func finish(segment: Int, outcomes: [UserOutcome], into sums: inout UserSums) {
        let k = layouts.count
        let l = sums.layout
        let holdout = outcomes[0]
        sums.counts.withUnsafeMutableBufferPointer { s in
            let base = s.baseAddress!
            for i in 0..<k {
                let o = outcomes[i]
                let g = base + l.segment(i, segment)
                func add(_ c: SegmentCounter, _ v: Int64) { g[c.rawValue] &+= v }
                let lift = o.opens &- holdout.opens
                add(.users, 1)
                add(.opens, o.opens)
                add(.opensLiftSum, lift)
                add(.opensLiftSquares, lift &* lift)
                add(.delivered, delivered[i])
                add(.optOuts, optedOut[i] ? 1 : 0)
                add(.scheduled, scheduled[i])
                add(.censored, censored[i])
                func retention(_ day: Int, _ retained: SegmentCounter, _ eligible: SegmentCounter,
                               _ gained: SegmentCounter, _ lost: SegmentCounter) {
                    guard o.eligible(day: day) else { return }
                    add(eligible, 1)
                    let here = o.retained(day: day), there = holdout.retained(day: day)
                    if here { add(retained, 1) }
                    if here && !there { add(gained, 1) }
                    if there && !here { add(lost, 1) }
                }
                retention(7, .retainedD7, .eligibleD7, .gainedD7, .lostD7)
                retention(30, .retainedD30, .eligibleD30, .gainedD30, .lostD30)
                Self.add(base + l.segmentRatio(i, segment, response: false), triggered[i], scheduled[i] &- censored[i])
                Self.add(base + l.segmentRatio(i, segment, response: true), responded[i], delivered[i])
            }
            // Day-by-day differences from the holdout: retention curve and daily active users.
            for i in 1..<k {
                let o = outcomes[i]
                let mask = (UInt32(1) << UInt32(o.eligibleThrough)) &- 1
                var gained = o.retainedDays & ~holdout.retainedDays & mask
                var lost = holdout.retainedDays & ~o.retainedDays & mask
                while gained != 0 {
                    base[l.curve(i, day: gained.trailingZeroBitCount + 1, gained: true)] &+= 1
                    gained &= gained &- 1
                }
                while lost != 0 {
                    base[l.curve(i, day: lost.trailingZeroBitCount + 1, gained: false)] &+= 1
                    lost &= lost &- 1
                }
                for w in activeDays[i].indices {
                    let here = activeDays[i][w], there = activeDays[0][w]
                    var more = here & ~there, fewer = there & ~here
                    while more != 0 {
                        base[l.daily(i, day: w * 64 + more.trailingZeroBitCount, gained: true)] &+= 1
                        more &= more &- 1
                    }
                    while fewer != 0 {
                        base[l.daily(i, day: w * 64 + fewer.trailingZeroBitCount, gained: false)] &+= 1
                        fewer &= fewer &- 1
                    }
                }
            }
            for a in 0..<k {
                let oa = outcomes[a]
                for b in (a + 1)..<k {
                    let ob = outcomes[b]
                    let p = base + l.pair(a, b)
                    func add(_ c: PairCounter, _ v: Int64) { p[c.rawValue] &+= v }
                    add(.users, 1)
                    let dOpens = oa.opens &- ob.opens, dDelivered = delivered[a] &- delivered[b]
                    add(.opensDiff, dOpens)
                    add(.opensDiffSquares, dOpens &* dOpens)
                    add(.deliveredDiff, dDelivered)
                    add(.deliveredDiffSquares, dDelivered &* dDelivered)
                    if optedOut[a] && !optedOut[b] { add(.optOutOnlyA, 1) }
                    if optedOut[b] && !optedOut[a] { add(.optOutOnlyB, 1) }
                    if oa.eligible(day: 7) {
                        add(.eligibleD7, 1)
                        let x = oa.retained(day: 7), y = ob.retained(day: 7)
                        if x && !y { add(.retainedD7OnlyA, 1) }
                        if y && !x { add(.retainedD7OnlyB, 1) }
                    }
                    if oa.eligible(day: 30) {
                        add(.eligibleD30, 1)
                        let x = oa.retained(day: 30), y = ob.retained(day: 30)
                        if x && !y { add(.retainedD30OnlyA, 1) }
                        if y && !x { add(.retainedD30OnlyB, 1) }
                    }
                }
            }
        }
    }
}
