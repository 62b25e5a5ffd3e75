import Foundation

/// Sums over users of a ratio's per-user numerator x and denominator y: Σx, Σy, Σx², Σy², Σxy.
/// What the delta-method interval of a ratio of sums needs, and integers, so they merge exactly.
public struct RatioSums: Equatable, Sendable {
    /// Users the sums run over (including those with nothing to count).
    public var users: Int64
    public var x: Int64
    public var y: Int64
    public var xx: Int64
    public var yy: Int64
    public var xy: Int64

    public init(users: Int64, x: Int64, y: Int64, xx: Int64, yy: Int64, xy: Int64) {
        self.users = users
        self.x = x
        self.y = y
        self.xx = xx
        self.yy = yy
        self.xy = xy
    }

    /// Σx / Σy and its user-clustered 95% interval: the delta method for a ratio estimator,
    /// Var(R) ≈ n/(n − 1) · Σ(xᵢ − R·yᵢ)² / (Σy)², the users being the independent units
    /// (Cochran 1977, §6.3; the cluster-robust variance of a ratio). For a proportion strictly
    /// between 0 and 1 the interval is taken on the logit scale (se of logit R = se / (R(1 − R)))
    /// and mapped back; otherwise it is R ± z·se clamped to `bounds`.
    public func interval(z: Double = z95, bounds: ClosedRange<Double> = 0...1) -> (low: Double, high: Double)? {
        guard let spread else { return nil }
        let r = Double(x) / Double(y), se = spread.scaled.squareRoot() / spread.sy
        if bounds == 0...1 && r > 0 && r < 1 {
            // A proportion: the interval is built on the logit scale and mapped back, so that it stays
            // inside (0, 1) and is asymmetric near the edges, where a rare rate's estimate is skewed.
            let logit = log(r / (1 - r)), half = z * se / (r * (1 - r))
            func back(_ x: Double) -> Double { 1 / (1 + exp(-x)) }
            return (back(logit - half), back(logit + half))
        }
        return (Swift.max(bounds.lowerBound, r - z * se), Swift.min(bounds.upperBound, r + z * se))
    }
}

/// The ratios kept per configuration.
public enum ClusteredRatio: Int, CaseIterable, Sendable {
    /// Triggered of (scheduled − censored).
    case trigger
    /// Responded of delivered.
    case response
    /// Attributed opens of delivered.
    case attributed
    /// Opt-outs of delivered.
    case optOut
}

/// Per (configuration, segment) counts over users.
public enum SegmentCounter: Int, CaseIterable, Sendable {
    case users, opens, opensLiftSum, opensLiftSquares, delivered, optOuts, scheduled, censored
    case retainedD7, eligibleD7, gainedD7, lostD7, retainedD30, eligibleD30, gainedD30, lostD30
}

/// Per configuration: sums over its users of per-user quantities that no ratio or pair holds, what a
/// live test's arms, each with users of its own, are sized from.
public enum ArmCounter: Int, CaseIterable, Sendable {
    /// Σ over users of the square of the user's opens (Σ opens is the tally's).
    case opensSquares
}

/// Per pair of configurations (a, b), a < b: sums of per-user differences a − b.
public enum PairCounter: Int, CaseIterable, Sendable {
    case users, opensDiff, opensDiffSquares, deliveredDiff, deliveredDiffSquares
    /// Users who opted out under a only, under b only.
    case optOutOnlyA, optOutOnlyB
    case eligibleD7, retainedD7OnlyA, retainedD7OnlyB
    case eligibleD30, retainedD30OnlyA, retainedD30OnlyB
}

/// Which pairs of configurations a run's sums over users hold.
public enum PairSet: Equatable, Sendable {
    /// Every pair.
    case all
    /// Every configuration against each of these references (distinct indices, ascending; the holdout,
    /// 0, always among them).
    case against([Int])

    /// Runs of at most this many configurations (besides the holdout) keep every pair unless asked
    /// otherwise; above it, the pairs the decision needs.
    public static let everyPairUpTo = 10
}

/// Two configurations a < b whose per-user differences a run's sums hold.
public struct ConfigurationPair: Equatable, Sendable {
    public let a: Int
    public let b: Int

    public init(a: Int, b: Int) { (self.a, self.b) = (a, b) }
}

/// Where each sum lives in `UserSums`' flat storage.
public struct UserSumsLayout: CountsLayout {
    public let configurations: Int
    public let segments: Int
    /// Platforms, whose rows follow the segments' (0 without platforms); `groups` counts both.
    public let platforms: Int
    public var groups: Int { segments + platforms }
    public let messageSlots: [Int]
    public let periodSlots: [Int]
    /// Days of the run (UTC), for the daily-active differences.
    public let days: Int
    /// The pairs held, and the pairs themselves in storage order.
    public let pairs: PairSet
    public let pairList: [ConfigurationPair]
    /// For `.against`: per reference (by position) and configuration, the pair's position in
    /// `pairList`, or −1 where the pair is the configuration itself.
    private let pairPosition: [Int]
    /// Per configuration: its position among the references, or −1.
    private let referencePosition: [Int]
    let configOffsets: [Int]
    let segmentOffset: Int
    /// Where the per-configuration `ArmCounter` sums start.
    let armOffset: Int
    let pairOffset: Int
    /// Whether the sums hold the `ArmCounter` block: false for sums stored before it was kept, read
    /// back with the block zero.
    public let keepsArmSums: Bool
    /// Whether the run added the per-user terms of the message and period slots' ratios, the
    /// retention curve's and the daily active users' differences, the segments' and platforms'
    /// rows (kept anyway for a run that replays recorded users, whose totals are read from them)
    /// and the arms' squares: false for a tune's racing batch, which reads configuration-level
    /// estimates and pairs only. Those sums are then zero, and read as absent.
    public let keepsDetail: Bool
    public let count: Int

    static let ratioWidth = 5
    static let slotWidth = 2 * ratioWidth
    static let segmentWidth = SegmentCounter.allCases.count + 2 * ratioWidth
    static let pairWidth = PairCounter.allCases.count
    static let armWidth = ArmCounter.allCases.count

    /// - Parameters: `messageSlots[i]`, `periodSlots[i]`: configuration i's slots (0 is the holdout).
    ///   `pairs`: `.against` indices must be distinct, ascending and below the configuration count.
    ///   `keepsArmSums`: false for sums stored before the arm block was kept. `keepsDetail`: see above.
    public init(segments: Int, platforms: Int = 0, messageSlots: [Int], periodSlots: [Int], days: Int, pairs: PairSet = .all,
                keepsArmSums: Bool = true, keepsDetail: Bool = true) {
        precondition(messageSlots.count == periodSlots.count, "UserSumsLayout: one slot count per configuration")
        configurations = messageSlots.count
        self.segments = segments
        self.platforms = platforms
        self.messageSlots = messageSlots
        self.periodSlots = periodSlots
        self.days = days
        self.pairs = pairs
        self.keepsArmSums = keepsArmSums
        self.keepsDetail = keepsDetail
        var offsets: [Int] = [], at = 0
        for i in 0..<configurations {
            offsets.append(at)
            at += ClusteredRatio.allCases.count * Self.ratioWidth + (messageSlots[i] + periodSlots[i]) * Self.slotWidth
                + 2 * retentionCurveDays + 2 * days
        }
        configOffsets = offsets
        segmentOffset = at
        armOffset = segmentOffset + configurations * (segments + platforms) * Self.segmentWidth
        pairOffset = armOffset + configurations * Self.armWidth
        let k = configurations
        var list: [ConfigurationPair] = []
        switch pairs {
        case .all:
            // Pairs (0,1), (0,2), … (0,K−1), (1,2), …
            for a in 0..<k { for b in (a + 1)..<max(a + 1, k) { list.append(ConfigurationPair(a: a, b: b)) } }
            pairPosition = []
            referencePosition = []
        case let .against(references):
            precondition(references.allSatisfy { (0..<k).contains($0) } && zip(references, references.dropFirst()).allSatisfy(<),
                         "UserSumsLayout: references must be distinct, ascending configurations")
            // Reference after reference, each against every configuration but itself and earlier references.
            var positions = Array(repeating: -1, count: k), table = Array(repeating: -1, count: references.count * k)
            for (p, r) in references.enumerated() { positions[r] = p }
            for (p, r) in references.enumerated() {
                for o in 0..<k where o != r {
                    let q = positions[o]
                    if q >= 0 && q < p {
                        table[p * k + o] = table[q * k + r]
                        continue
                    }
                    table[p * k + o] = list.count
                    list.append(ConfigurationPair(a: min(r, o), b: max(r, o)))
                }
            }
            pairPosition = table
            referencePosition = positions
        }
        pairList = list
        count = pairOffset + list.count * Self.pairWidth
    }

    /// The same layout holding other pairs.
    public func holding(_ pairs: PairSet) -> UserSumsLayout {
        UserSumsLayout(segments: segments, platforms: platforms, messageSlots: messageSlots, periodSlots: periodSlots, days: days,
                       pairs: pairs, keepsArmSums: keepsArmSums, keepsDetail: keepsDetail)
    }

    /// The same layout marked as stored before the arm block was kept.
    public var withoutArmSums: UserSumsLayout {
        UserSumsLayout(segments: segments, platforms: platforms, messageSlots: messageSlots, periodSlots: periodSlots, days: days,
                       pairs: pairs, keepsArmSums: false, keepsDetail: keepsDetail)
    }

    /// Counts of sums stored before the arm block was kept.
    public var countWithoutArmSums: Int { count - configurations * Self.armWidth }

    /// The references of `.against`, or nil for every pair.
    public var references: [Int]? {
        if case let .against(r) = pairs { return r }
        return nil
    }

    func ratio(_ c: Int, _ r: ClusteredRatio) -> Int { configOffsets[c] + r.rawValue * Self.ratioWidth }
    /// Slot `s` counts message slots first, then period slots; `response` picks the second ratio.
    func slot(_ c: Int, _ s: Int, response: Bool) -> Int {
        configOffsets[c] + ClusteredRatio.allCases.count * Self.ratioWidth + s * Self.slotWidth + (response ? Self.ratioWidth : 0)
    }
    /// Users retained on day k (1...30) here but not in the holdout, then the reverse.
    func curve(_ c: Int, day k: Int, gained: Bool) -> Int {
        configOffsets[c] + ClusteredRatio.allCases.count * Self.ratioWidth + (messageSlots[c] + periodSlots[c]) * Self.slotWidth
            + 2 * (k - 1) + (gained ? 0 : 1)
    }
    /// Users active on run day d (UTC) here but not in the holdout, then the reverse.
    func daily(_ c: Int, day d: Int, gained: Bool) -> Int {
        curve(c, day: 1, gained: true) + 2 * retentionCurveDays + 2 * d + (gained ? 0 : 1)
    }
    func arm(_ c: Int, _ a: ArmCounter) -> Int { armOffset + c * Self.armWidth + a.rawValue }
    /// Where configuration c's own terms lie, everything but the pairs: its block (ratios, slots,
    /// curve, daily), its groups' rows and its arm's counters. They depend on its runs alone (and
    /// the holdout's, the same in every run of the same users).
    func ownRanges(_ c: Int) -> [Range<Int>] {
        let end = c + 1 < configurations ? configOffsets[c + 1] : segmentOffset
        let groups = (segments + platforms) * Self.segmentWidth
        return [configOffsets[c]..<end, (segmentOffset + c * groups)..<(segmentOffset + (c + 1) * groups),
                (armOffset + c * Self.armWidth)..<(armOffset + (c + 1) * Self.armWidth)]
    }
    func segment(_ c: Int, _ s: Int) -> Int { segmentOffset + (c * (segments + platforms) + s) * Self.segmentWidth }
    func segmentRatio(_ c: Int, _ s: Int, response: Bool) -> Int {
        segment(c, s) + SegmentCounter.allCases.count + (response ? Self.ratioWidth : 0)
    }

    /// The position of the pair of configurations a ≠ b in `pairList`, or nil when it is not held.
    public func pairIndex(_ a: Int, _ b: Int) -> Int? {
        let k = configurations
        guard a != b, (0..<k).contains(a), (0..<k).contains(b) else { return nil }
        let lo = min(a, b), hi = max(a, b)
        switch pairs {
        case .all: return lo * k - lo * (lo + 1) / 2 + (hi - lo - 1)
        case .against:
            let p = referencePosition[lo], q = referencePosition[hi]
            if p >= 0 && (q < 0 || p < q) { return pairPosition[p * k + hi] }
            if q >= 0 { return pairPosition[q * k + lo] }
            return nil
        }
    }

    /// Whether the sums hold the pair of configurations a ≠ b.
    public func holds(_ a: Int, _ b: Int) -> Bool { pairIndex(a, b) != nil }

    /// Where the pair at `position` of `pairList` starts.
    func pair(at position: Int) -> Int { pairOffset + position * Self.pairWidth }
}

/// Sums over users of per-user quantities: user-clustered ratio intervals, paired comparisons between
/// the pairs of configurations the layout holds, and per-segment measures. Integers, so they add exactly in any order.
public typealias UserSums = Counts<UserSumsLayout>

extension UserSums {
    private func ratio(at o: Int, users: Int64) -> RatioSums {
        RatioSums(users: users, x: counts[o], y: counts[o + 1], xx: counts[o + 2], yy: counts[o + 3], xy: counts[o + 4])
    }

    /// Configuration `c`'s ratio over its `users` users.
    public func ratio(_ c: Int, _ r: ClusteredRatio, users: Int64) -> RatioSums { ratio(at: layout.ratio(c, r), users: users) }

    /// A message slot's trigger (or response) ratio.
    public func message(_ c: Int, _ slot: Int, response: Bool, users: Int64) -> RatioSums {
        ratio(at: layout.slot(c, slot, response: response), users: users)
    }

    public func period(_ c: Int, _ slot: Int, response: Bool, users: Int64) -> RatioSums {
        ratio(at: layout.slot(c, layout.messageSlots[c] + slot, response: response), users: users)
    }

    public func segment(_ c: Int, _ s: Int, _ counter: SegmentCounter) -> Int64 {
        counts[layout.segment(c, s) + counter.rawValue]
    }

    public func segmentRatio(_ c: Int, _ s: Int, response: Bool) -> RatioSums {
        ratio(at: layout.segmentRatio(c, s, response: response), users: segment(c, s, .users))
    }

    /// Configuration `c`'s arm sum; nil for sums stored before the arm block was kept.
    public func arm(_ c: Int, _ a: ArmCounter) -> Int64? {
        layout.keepsArmSums && layout.keepsDetail ? counts[layout.arm(c, a)] : nil
    }

    /// Sums stored before the arm block was kept (`layout.countWithoutArmSums` counts), read into
    /// `layout` with the block zero and the layout marked as not keeping it; nil on a count mismatch.
    public static func withoutArmSums(layout: UserSumsLayout, stored: [Int64]) -> UserSums? {
        guard stored.count == layout.countWithoutArmSums else { return nil }
        let old = layout.withoutArmSums
        var counts = Array(stored[..<old.armOffset])
        counts += Array(repeating: 0, count: old.configurations * UserSumsLayout.armWidth)
        counts += stored[old.armOffset...]
        return UserSums(layout: old, counts: counts)
    }

    /// The counts as stored: without the arm block when the sums were read without it, so that they
    /// read back the same.
    public var storedCounts: [Int64] {
        guard !layout.keepsArmSums else { return counts }
        let block = layout.configurations * UserSumsLayout.armWidth
        return Array(counts[..<layout.armOffset]) + counts[(layout.armOffset + block)...]
    }

    /// Users retained on day k here and not in the holdout (gained), and the reverse (lost).
    public func curve(_ c: Int, day k: Int) -> (gained: Int64, lost: Int64) {
        (counts[layout.curve(c, day: k, gained: true)], counts[layout.curve(c, day: k, gained: false)])
    }

    /// Users active on run day d here and not in the holdout (gained), and the reverse (lost).
    public func daily(_ c: Int, day d: Int) -> (gained: Int64, lost: Int64) {
        (counts[layout.daily(c, day: d, gained: true)], counts[layout.daily(c, day: d, gained: false)])
    }

    /// A pair's counter with a < b; nil when the sums do not hold the pair.
    public func pair(_ a: Int, _ b: Int, _ counter: PairCounter) -> Int64? {
        guard a < b, let p = layout.pairIndex(a, b) else { return nil }
        return counts[layout.pair(at: p) + counter.rawValue]
    }

    /// These sums with the pairs of `pairs`, each taken from the first of `self` and `others` that
    /// holds it; nil when none holds one of them. Everything but the pairs comes from `self`, and
    /// the others must have its layout but for the pairs.
    public func gathering(_ pairs: PairSet, from others: [UserSums] = []) -> UserSums? {
        let target = layout.holding(pairs)
        var out = UserSums(layout: target)
        let sources = [self] + others
        guard sources.allSatisfy({ $0.layout.holding(pairs) == target }) else { return nil }
        for i in 0..<target.pairOffset { out.counts[i] = counts[i] }
        let width = UserSumsLayout.pairWidth
        for (p, pair) in target.pairList.enumerated() {
            guard let source = sources.first(where: { $0.layout.holds(pair.a, pair.b) }),
                  let q = source.layout.pairIndex(pair.a, pair.b) else { return nil }
            let from = source.layout.pair(at: q), to = target.pair(at: p)
            for k in 0..<width { out.counts[to + k] = source.counts[from + k] }
        }
        return out
    }
}

extension UserSums {
    /// The first sum no run can produce, and why: the per-user quantities are whole numbers, so a sum
    /// of their squares is never below the sum of their magnitudes, and all of them but the lifts
    /// over the holdout and the pairs' differences are counts, never below zero. Nil for sums a run
    /// could have made. A database edited by hand shows here before any interval is computed from it.
    public func firstImpossibleSum() -> (index: Int, reason: String)? {
        var signed = Set<Int>()
        for c in 0..<layout.configurations {
            for s in 0..<layout.groups { signed.insert(layout.segment(c, s) + SegmentCounter.opensLiftSum.rawValue) }
        }
        for p in layout.pairList.indices {
            signed.insert(layout.pair(at: p) + PairCounter.opensDiff.rawValue)
            signed.insert(layout.pair(at: p) + PairCounter.deliveredDiff.rawValue)
        }
        for (i, v) in counts.enumerated() where v < 0 && !signed.contains(i) {
            return (i, "\(v) is below zero, and it sums counts")
        }
        // (sum, sum of squares) of whole numbers: Σx² ≥ Σ|x| ≥ |Σx|.
        var squares: [(Int, Int)] = []
        func ratio(_ o: Int) { squares += [(o, o + 2), (o + 1, o + 3)] }
        for c in 0..<layout.configurations {
            for r in ClusteredRatio.allCases { ratio(layout.ratio(c, r)) }
            for slot in 0..<(layout.messageSlots[c] + layout.periodSlots[c]) {
                ratio(layout.slot(c, slot, response: false))
                ratio(layout.slot(c, slot, response: true))
            }
            for s in 0..<layout.groups {
                let g = layout.segment(c, s)
                squares.append((g + SegmentCounter.opensLiftSum.rawValue, g + SegmentCounter.opensLiftSquares.rawValue))
                ratio(layout.segmentRatio(c, s, response: false))
                ratio(layout.segmentRatio(c, s, response: true))
            }
        }
        for p in layout.pairList.indices {
            let o = layout.pair(at: p)
            squares.append((o + PairCounter.opensDiff.rawValue, o + PairCounter.opensDiffSquares.rawValue))
            squares.append((o + PairCounter.deliveredDiff.rawValue, o + PairCounter.deliveredDiffSquares.rawValue))
        }
        for (sum, square) in squares where counts[square] < counts[sum].magnitude {
            return (square, "a sum of squares of whole numbers, \(counts[square]), below the magnitude of their sum, \(counts[sum])")
        }
        return nil
    }
}

extension UserSums {
    /// The first sum over users that disagrees with `tallies`, the same run's counts of the same
    /// users (one per configuration, the holdout first), and why; nil when they agree. Each user's
    /// terms are read from the tally's counts, so the ratios' sums are its totals, and the segments
    /// (and the platforms) share out its users. A database edited by hand, or a shard whose sums were
    /// replaced, shows here.
    public func firstDisagreement(with tallies: [Tally]) -> (index: Int, reason: String)? {
        guard tallies.count == layout.configurations else {
            return (0, "sums for \(layout.configurations) configurations, but the run has \(tallies.count)")
        }
        for (c, t) in tallies.enumerated() {
            let sums: [(ClusteredRatio, x: (Int64, String), y: (Int64, String))] = [
                (.trigger, (t[.delivered] &+ t[.foreground] &+ t[.suppressed], "fired"), (t[.scheduled] &- t[.censored], "not censored")),
                (.response, (t[.responded], "answered"), (t[.delivered], "delivered")),
                (.attributed, (t[.attributed], "attributed"), (t[.delivered], "delivered")),
                (.optOut, (t[.optOuts], "opt-outs"), (t[.delivered], "delivered")),
            ]
            for (ratio, x, y) in sums {
                let o = layout.ratio(c, ratio)
                for (k, (total, name)) in [x, y].enumerated() where counts[o + k] != total {
                    return (o + k, "configuration \(c)'s sum over users of notifications \(name) is \(counts[o + k]), "
                        + "but its tally counts \(total)")
                }
            }
            guard layout.keepsDetail else { continue }
            // The segments share out the users, and so do the platforms.
            for (groups, name) in [(0..<layout.segments, "segments"), (layout.segments..<layout.groups, "platforms")]
            where !groups.isEmpty {
                let users = groups.reduce(Int64(0)) { $0 &+ segment(c, $1, .users) }
                if users != t[.users] {
                    return (layout.segment(c, groups.lowerBound), "configuration \(c)'s \(name) hold \(users) users, "
                        + "but its tally counts \(t[.users])")
                }
            }
        }
        return nil
    }
}
