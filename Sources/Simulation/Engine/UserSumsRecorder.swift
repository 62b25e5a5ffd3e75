/// Turns one user's counts under every configuration into the per-user sums of `UserSums`.
///
/// The timeline adds its counts straight into a configuration's tally; the recorder reads the
/// notification counters and per-message/period counters (a prefix of the tally) before and after
/// each configuration's simulation of a user, so the difference is that user's own totals. The
/// days the user was active come from the timeline's bitset of run days.
///
/// One recorder per worker; its storage is plain memory allocated once, so recording a user does
/// no reference counting. Free it with `deallocate()`.
final class UserSumsRecorder {
    private let layouts: [TallyLayout]
    /// Where configuration i's saved tally prefix starts in `before`.
    private let prefixStart: [Int]
    /// Per configuration: the tally prefix before the current user.
    private let before: UnsafeMutablePointer<Int64>
    /// Per configuration: the current user's totals, one `Total` row each.
    private let totals: UnsafeMutablePointer<Int64>
    /// Per configuration: the run days (UTC) the current user opened the app, as bits.
    private let activeDays: UnsafeMutablePointer<UInt64>
    private let words: Int
    /// Per configuration: whether it has no message or period slot, that is no reminder (the
    /// holdout): its notification counters stay zero, and there is nothing to read.
    private let silent: [Bool]
    /// Whether to add the detail terms (`UserSumsLayout.keepsDetail`); without them only the
    /// notification counters before the slots are read. The segments' terms are added when
    /// `segments` says so, whatever the detail: the totals per recorded user are read from them.
    private let detail: Bool
    private let segments: Bool
    /// Per configuration: the current user's pair inputs, worked out once by `finish` for all the pairs.
    private let pairInputs: UnsafeMutablePointer<PairTermInputs>
    /// The pairs' terms gathered over users, when they are not added pair by pair.
    private var gather: PairGather?

    /// The current user's totals kept per configuration.
    private enum Total: Int, CaseIterable {
        case delivered, optedOut, scheduled, censored, triggered, responded
    }

    /// With `gatheredPairs` (the sums' number of pairs), the pairs' terms are gathered over users and
    /// added to the sums by `addGatheredPairs`, which must then be called before the sums are read.
    init(layouts: [TallyLayout], detail: Bool = true, segments: Bool = true, gatheredPairs: Int? = nil) {
        self.layouts = layouts
        gather = gatheredPairs.map { PairGather(configurations: layouts.count, pairs: $0) }
        self.detail = detail
        self.segments = detail || segments
        silent = layouts.map { $0.messageSlots + $0.periodSlots == 0 }
        var starts: [Int] = [], at = 0
        for layout in layouts {
            starts.append(at)
            at += detail ? layout.dailyOffset : layout.messageOffset
        }
        prefixStart = starts
        before = .allocate(capacity: max(at, 1))
        before.initialize(repeating: 0, count: max(at, 1))
        totals = .allocate(capacity: max(layouts.count * Total.allCases.count, 1))
        totals.initialize(repeating: 0, count: max(layouts.count * Total.allCases.count, 1))
        words = ((layouts.first?.days ?? 0) + 63) / 64
        activeDays = .allocate(capacity: max(layouts.count * words, 1))
        activeDays.initialize(repeating: 0, count: max(layouts.count * words, 1))
        pairInputs = .allocate(capacity: max(layouts.count, 1))
        pairInputs.initialize(repeating: PairTermInputs(opens: 0, delivered: 0, optedOut: false, days: 0), count: max(layouts.count, 1))
    }

    func deallocate() {
        gather?.deallocate()
        before.deallocate()
        totals.deallocate()
        activeDays.deallocate()
        pairInputs.deallocate()
    }

    @inline(__always) private func total(_ i: Int, _ t: Total) -> Int64 {
        totals[i &* Total.allCases.count &+ t.rawValue]
    }

    /// The notification counters `end` reads, one run of the tally: only they are saved before a
    /// user (with the message and period slots after them when the detail is kept).
    static let readCounters = Counter.scheduled.rawValue..<(Counter.optOuts.rawValue + 1)

    /// Call before configuration `i` simulates the user, with its tally's counts.
    func begin(_ i: Int, _ c: UnsafeMutablePointer<Int64>) {
        if silent[i] { return }
        // A few counters: loops the compiler keeps inline rather than calls to copy memory. The
        // counters between the notification counters and the slots are not read.
        let b = before + prefixStart[i]
        for k in Self.readCounters { b[k] = c[k] }
        guard detail else { return }
        for k in layouts[i].messageOffset..<layouts[i].dailyOffset { b[k] = c[k] }
    }

    @inline(__always) private static func add(_ s: UnsafeMutablePointer<Int64>, _ x: Int64, _ y: Int64) {
        s[0] &+= x
        s[1] &+= y
        s[2] &+= x &* x
        s[3] &+= y &* y
        s[4] &+= x &* y
    }

    /// Call after configuration `i` simulated the user, with its tally's counts, the user's run days
    /// and the sums' storage: adds the user's ratio terms.
    func end(_ i: Int, _ c: UnsafeMutablePointer<Int64>, activeDays days: UnsafePointer<UInt64>,
             into sums: UnsafeMutablePointer<Int64>, _ l: UserSumsLayout) {
        if detail { (activeDays + i &* words).update(from: days, count: words) }
        if silent[i] {
            // Every term would be zero.
            (totals + i &* Total.allCases.count).update(repeating: 0, count: Total.allCases.count)
            return
        }
        let b = before + prefixStart[i]
        func d(_ k: Int) -> Int64 { c[k] &- b[k] }
        func d(_ counter: Counter) -> Int64 {
            assert(Self.readCounters.contains(counter.rawValue), "a counter `begin` does not save")
            return d(counter.rawValue)
        }
        let del = d(.delivered)
        let trig = del &+ d(.foreground) &+ d(.suppressed)
        let sch = d(.scheduled), cen = d(.censored), resp = d(.responded)
        let opt = d(.optOuts)
        let t = totals + i &* Total.allCases.count
        t[Total.delivered.rawValue] = del
        t[Total.triggered.rawValue] = trig
        t[Total.scheduled.rawValue] = sch
        t[Total.censored.rawValue] = cen
        t[Total.responded.rawValue] = resp
        t[Total.optedOut.rawValue] = opt > 0 ? 1 : 0
        Self.add(sums + l.ratio(i, .trigger), trig, sch &- cen)
        Self.add(sums + l.ratio(i, .response), resp, del)
        Self.add(sums + l.ratio(i, .attributed), d(.attributed), del)
        Self.add(sums + l.ratio(i, .optOut), opt, del)
        guard detail else { return }
        let layout = layouts[i]
        for slot in 0..<(layout.messageSlots + layout.periodSlots) {
            let o = layout.messageOffset + slot * SlotCounter.allCases.count
            let sDel = d(o + SlotCounter.delivered.rawValue)
            let sTrig = sDel &+ d(o + SlotCounter.foreground.rawValue) &+ d(o + SlotCounter.suppressed.rawValue)
            let sEligible = d(o + SlotCounter.scheduled.rawValue) &- d(o + SlotCounter.censored.rawValue)
            // Most users never reach most slots: skip the zeros.
            if sEligible != 0 || sTrig != 0 {
                Self.add(sums + l.slot(i, slot, response: false), sTrig, sEligible)
            }
            if sDel != 0 {
                Self.add(sums + l.slot(i, slot, response: true), d(o + SlotCounter.responded.rawValue), sDel)
            }
        }
    }

    /// Call once every configuration has simulated the user: adds the segment and pair terms. With
    /// `groupOnly`, adds only the terms of one more group the user belongs to (a platform).
    func finish(segment: Int, outcomes: UnsafeBufferPointer<UserOutcome>, into sums: UnsafeMutablePointer<Int64>,
                _ l: UserSumsLayout, groupOnly: Bool = false) {
        if segments {
            for i in 0..<layouts.count {
                addSegmentTerms(i, segment: segment, outcomes: outcomes, sums + l.segment(i, segment))
                Self.add(sums + l.segmentRatio(i, segment, response: false), total(i, .triggered),
                         total(i, .scheduled) &- total(i, .censored))
                Self.add(sums + l.segmentRatio(i, segment, response: true), total(i, .responded), total(i, .delivered))
            }
        }
        if groupOnly { return }
        if detail {
            for i in 0..<layouts.count {
                let opens = outcomes[i].opens
                sums[l.arm(i, .opensSquares)] &+= opens &* opens
            }
            for i in 1..<layouts.count { addDayDifferences(i, outcomes: outcomes, sums, l) }
        }
        for i in 0..<layouts.count {
            pairInputs[i] = PairTermInputs(outcome: outcomes[i], delivered: total(i, .delivered), optedOut: total(i, .optedOut) != 0)
        }
        if gather != nil {
            gather?.add(pairInputs, pairs: l.pairList, into: sums + l.pair(at: 0))
            return
        }
        // The pairs the layout holds, in storage order.
        var p = sums + l.pair(at: 0)
        l.pairList.withUnsafeBufferPointer { pairs in
            for pair in pairs {
                PairTermInputs.add(pairInputs[pair.a], pairInputs[pair.b], into: p)
                p += UserSumsLayout.pairWidth
            }
        }
    }

    /// Adds the pairs' terms gathered since the last call to `sums` (see `PairGather`).
    func addGatheredPairs(into sums: UnsafeMutablePointer<Int64>, _ l: UserSumsLayout) {
        gather?.addPairs(into: sums + l.pair(at: 0), pairs: l.pairList)
    }

    /// Configuration `i`'s pair inputs for the user `finish` last finished.
    @inline(__always) func finishedPairInputs(_ i: Int) -> PairTermInputs { pairInputs[i] }

    /// Configuration `i`'s segment counters for one user.
    private func addSegmentTerms(_ i: Int, segment: Int, outcomes: UnsafeBufferPointer<UserOutcome>,
                                 _ g: UnsafeMutablePointer<Int64>) {
        let o = outcomes[i], holdout = outcomes[0]
        func add(_ c: SegmentCounter, _ v: Int64) { g[c.rawValue] &+= v }
        let lift = o.opens &- holdout.opens
        add(.users, 1)
        add(.opens, o.opens)
        add(.opensLiftSum, lift)
        add(.opensLiftSquares, lift &* lift)
        add(.delivered, total(i, .delivered))
        add(.optOuts, total(i, .optedOut))
        add(.scheduled, total(i, .scheduled))
        add(.censored, total(i, .censored))
        func retention(_ day: Int, _ retained: SegmentCounter, _ eligible: SegmentCounter,
                       _ gained: SegmentCounter, _ lost: SegmentCounter) {
            guard o.eligible(day: day) else { return }
            add(eligible, 1)
            let here = o.retained(day: day), there = holdout.retained(day: day)
            add(retained, one(here))
            add(gained, one(here && !there))
            add(lost, one(there && !here))
        }
        retention(7, .retainedD7, .eligibleD7, .gainedD7, .lostD7)
        retention(30, .retainedD30, .eligibleD30, .gainedD30, .lostD30)
    }

    /// Day-by-day differences of configuration `i` from the holdout: retention curve and daily
    /// active users.
    private func addDayDifferences(_ i: Int, outcomes: UnsafeBufferPointer<UserOutcome>,
                                   _ base: UnsafeMutablePointer<Int64>, _ l: UserSumsLayout) {
        let o = outcomes[i], holdout = outcomes[0]
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
        let mine = activeDays + i &* words
        for w in 0..<words {
            let here = mine[w], there = activeDays[w]
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
}

/// What one configuration's run of one user gives the terms of its pairs with others: the
/// recorder adds them as the user is simulated, and `PairInputStore` keeps them to add pairs chosen
/// after the run.
struct PairTermInputs: Equatable {
    var opens: Int64
    var delivered: Int64
    var optedOut: Bool
    /// Bits 0 and 1: eligible on days 7 and 30; bits 2 and 3: retained on them.
    var days: UInt8

    @inline(__always) init(opens: Int64, delivered: Int64, optedOut: Bool, days: UInt8) {
        (self.opens, self.delivered, self.optedOut, self.days) = (opens, delivered, optedOut, days)
    }

    @inline(__always) init(outcome o: UserOutcome, delivered: Int64, optedOut: Bool) {
        var days: UInt8 = 0
        if o.eligible(day: 7) { days |= 1 }
        if o.eligible(day: 30) { days |= 2 }
        if o.retained(day: 7) { days |= 4 }
        if o.retained(day: 30) { days |= 8 }
        self.init(opens: o.opens, delivered: delivered, optedOut: optedOut, days: days)
    }

    /// The pair (a, b)'s counters for one user, a before b.
    @inline(__always) static func add(_ a: PairTermInputs, _ b: PairTermInputs, into p: UnsafeMutablePointer<Int64>) {
        func add(_ c: PairCounter, _ v: Int64) { p[c.rawValue] &+= v }
        add(.users, 1)
        let dOpens = a.opens &- b.opens, dDelivered = a.delivered &- b.delivered
        add(.opensDiff, dOpens)
        add(.opensDiffSquares, dOpens &* dOpens)
        add(.deliveredDiff, dDelivered)
        add(.deliveredDiffSquares, dDelivered &* dDelivered)
        add(.optOutOnlyA, one(a.optedOut && !b.optedOut))
        add(.optOutOnlyB, one(b.optedOut && !a.optedOut))
        // Eligibility is a's: the pair's users eligible on the day.
        func retention(_ eligibleBit: UInt8, _ retainedBit: UInt8, _ eligible: PairCounter, _ onlyA: PairCounter,
                       _ onlyB: PairCounter) {
            guard a.days & eligibleBit != 0 else { return }
            add(eligible, 1)
            let x = a.days & retainedBit != 0, y = b.days & retainedBit != 0
            add(onlyA, one(x && !y))
            add(onlyB, one(y && !x))
        }
        retention(1, 4, .eligibleD7, .retainedD7OnlyA, .retainedD7OnlyB)
        retention(2, 8, .eligibleD30, .retainedD30OnlyA, .retainedD30OnlyB)
    }
}

/// The pairs' terms over many users, gathered as sums per configuration and sums of products per
/// pair: a pair's terms are differences, and Σ(x − y)² = Σx² − 2Σxy + Σy², Σ[x ∧ ¬y] = Σx − Σ[x ∧ y]
/// (for 0/1 values). Per user and pair that is three sums to add instead of the thirteen counters
/// of `PairCounter`; `addPairs` turns them into those counters, the same integers (the identities
/// hold user by user, and wrapping arithmetic keeps them).
///
/// The yes/no terms (opted out, retained on days 7 and 30) are counted in one word, in fields of
/// `fieldBits` bits: the fields of two configurations' words anded are the pair's. They hold up to
/// 2^21 − 1 users, so `add` turns the counts into pairs at least that often (`maximumUsers`).
///
/// A pair's day-7 and day-30 eligibility is its first configuration's. It is the user's whatever the
/// configuration (it depends on the install and the horizon only), which lets the retention terms
/// of the second configuration be read from its own sums too; debug builds check it.
struct PairGather {
    static let fieldBits: Int64 = 21
    static let fieldMask: Int64 = (1 << fieldBits) - 1
    /// The most users gathered between two additions to the pairs' counters.
    static let maximumUsers = Int(fieldMask)
    /// Per configuration: Σ opens, Σ opens², Σ delivered, Σ delivered², the yes/no word.
    private static let armWidth = 5
    /// Per pair: Σ opens × opens, Σ delivered × delivered, the yes/no words anded.
    private static let crossWidth = 3

    private let arms: UnsafeMutablePointer<Int64>
    private let cross: UnsafeMutablePointer<Int64>
    /// This user's yes/no word per configuration.
    private let words: UnsafeMutablePointer<Int64>
    private let configurations: Int
    private let pairs: Int
    /// Users, users eligible on day 7, on day 30: one word of fields.
    private var users: Int64 = 0
    private var gathered = 0

    init(configurations: Int, pairs: Int) {
        (self.configurations, self.pairs) = (configurations, pairs)
        arms = .allocate(capacity: max(1, configurations * Self.armWidth))
        arms.initialize(repeating: 0, count: max(1, configurations * Self.armWidth))
        cross = .allocate(capacity: max(1, pairs * Self.crossWidth))
        cross.initialize(repeating: 0, count: max(1, pairs * Self.crossWidth))
        words = .allocate(capacity: max(1, configurations))
        words.initialize(repeating: 0, count: max(1, configurations))
    }

    func deallocate() {
        arms.deallocate()
        cross.deallocate()
        words.deallocate()
    }

    /// One user's inputs under every configuration, for `list`'s pairs; once `maximumUsers` are
    /// gathered, their counters are added to `first` (see `addPairs`).
    @inline(__always)
    mutating func add(_ inputs: UnsafeMutablePointer<PairTermInputs>, pairs list: [ConfigurationPair],
                      into first: UnsafeMutablePointer<Int64>) {
        gathered &+= 1
        let firstDays = inputs[0].days
        users &+= 1 | Int64(firstDays & 1) << Self.fieldBits | Int64(firstDays >> 1 & 1) << (2 * Self.fieldBits)
        for i in 0..<configurations {
            let p = inputs[i]
            assert(p.days & 3 == firstDays & 3, "PairGather: eligibility differs between configurations")
            let word = one(p.optedOut) | Int64(p.days >> 2 & 1) << Self.fieldBits | Int64(p.days >> 3 & 1) << (2 * Self.fieldBits)
            words[i] = word
            let a = arms + i &* Self.armWidth
            a[0] &+= p.opens
            a[1] &+= p.opens &* p.opens
            a[2] &+= p.delivered
            a[3] &+= p.delivered &* p.delivered
            a[4] &+= word
        }
        var c = cross
        list.withUnsafeBufferPointer { pairs in
            for pair in pairs {
                let x = inputs[pair.a], y = inputs[pair.b]
                c[0] &+= x.opens &* y.opens
                c[1] &+= x.delivered &* y.delivered
                c[2] &+= words[pair.a] & words[pair.b]
                c += Self.crossWidth
            }
        }
        if gathered == Self.maximumUsers { addPairs(into: first, pairs: list) }
    }

    /// Adds the counters of the users gathered for `list`'s pairs to `first`, the first pair's
    /// counters, the others after it; and starts again from none.
    mutating func addPairs(into first: UnsafeMutablePointer<Int64>, pairs list: [ConfigurationPair]) {
        guard gathered > 0 else { return }
        precondition(list.count == pairs, "PairGather: other pairs")
        func field(_ w: Int64, _ f: Int64) -> Int64 { w >> (f * Self.fieldBits) & Self.fieldMask }
        for (position, pair) in list.enumerated() {
            let p = first + position * UserSumsLayout.pairWidth
            let a = arms + pair.a * Self.armWidth, b = arms + pair.b * Self.armWidth
            let c = cross + position * Self.crossWidth
            func add(_ counter: PairCounter, _ v: Int64) { p[counter.rawValue] &+= v }
            add(.users, field(users, 0))
            add(.opensDiff, a[0] &- b[0])
            add(.opensDiffSquares, a[1] &- 2 &* c[0] &+ b[1])
            add(.deliveredDiff, a[2] &- b[2])
            add(.deliveredDiffSquares, a[3] &- 2 &* c[1] &+ b[3])
            for (f, onlyA, onlyB) in [(Int64(0), PairCounter.optOutOnlyA, PairCounter.optOutOnlyB),
                                      (1, .retainedD7OnlyA, .retainedD7OnlyB), (2, .retainedD30OnlyA, .retainedD30OnlyB)] {
                let both = field(c[2], f)
                add(onlyA, field(a[4], f) &- both)
                add(onlyB, field(b[4], f) &- both)
            }
            add(.eligibleD7, field(users, 1))
            add(.eligibleD30, field(users, 2))
        }
        arms.update(repeating: 0, count: configurations * Self.armWidth)
        cross.update(repeating: 0, count: pairs * Self.crossWidth)
        users = 0
        gathered = 0
    }
}
