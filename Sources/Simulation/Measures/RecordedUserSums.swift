import Foundation

/// Where each total lives in `RecordedUserSums`: one row per recorded user a replay segment can
/// follow (the clusters), each holding that recorded user's totals over the virtual users who
/// replayed it of the per-user quantities behind the clustered intervals, then, once, the sums of
/// those quantities' own squares and products over every replaying virtual user (left zero when
/// every segment replays, where they are not needed).
///
/// A row's columns: the virtual users; per configuration `ClusterColumn`'s thirteen; per held pair
/// `PairColumn`'s seven. The quantities (`ConfigurationQuantity`, then `PairMeasure` per pair) each
/// take an x and a y column of a row.
public struct RecordedUserSumsLayout: CountsLayout {
    /// Recorded users (rows).
    public let clusters: Int
    public let configurations: Int
    /// The pairs of configurations held, in the order of the run's `UserSumsLayout.pairList`.
    public let pairList: [ConfigurationPair]
    /// Columns of a row.
    public let width: Int
    /// Where the own-square sums start: after the rows.
    public let ownOffset: Int
    public let count: Int
    /// Per quantity: its x and y columns in a row.
    let columns: [(x: Int, y: Int)]

    /// Per configuration, columns of a row.
    public enum ClusterColumn: Int, CaseIterable, Sendable {
        case triggeredX, triggeredY, respondedX, respondedY, attributedX, attributedY, optOutX, optOutY
        case retainedD7, eligibleD7, retainedD30, eligibleD30, optedOut
    }

    /// Per pair (a, b), columns of a row: per-user differences a − b, and the days' eligibility.
    public enum PairColumn: Int, CaseIterable, Sendable {
        case opensDiff, deliveredDiff, optOutDiff, retainedD7Diff, eligibleD7, retainedD30Diff, eligibleD30
    }

    /// The measures clustered per configuration, each a ratio of two columns.
    public enum ConfigurationQuantity: Int, CaseIterable, Sendable {
        case trigger, response, attributed, optOutPerDelivered, retentionD7, retentionD30, optOutRate
    }

    /// The most totals a run keeps (128 MB per thread): beyond it, a run of many recorded users and many
    /// pairs of configurations keeps none, and its intervals are by virtual user.
    public static let maximumCount = 1 << 24

    static let configurationWidth = ClusterColumn.allCases.count
    static let pairWidth = PairColumn.allCases.count
    /// Products kept per quantity: x², y², xy.
    static let productWidth = 3

    public init(clusters: Int, configurations: Int, pairList: [ConfigurationPair]) {
        self.clusters = max(0, clusters)
        self.configurations = configurations
        self.pairList = pairList
        width = 1 + configurations * Self.configurationWidth + pairList.count * Self.pairWidth
        var columns: [(x: Int, y: Int)] = []
        for c in 0..<configurations {
            let o = 1 + c * Self.configurationWidth
            func at(_ k: ClusterColumn) -> Int { o + k.rawValue }
            columns += [(at(.triggeredX), at(.triggeredY)), (at(.respondedX), at(.respondedY)),
                        (at(.attributedX), at(.attributedY)), (at(.optOutX), at(.optOutY)),
                        (at(.retainedD7), at(.eligibleD7)), (at(.retainedD30), at(.eligibleD30)), (at(.optedOut), 0)]
        }
        for p in pairList.indices {
            let o = 1 + configurations * Self.configurationWidth + p * Self.pairWidth
            func at(_ k: PairColumn) -> Int { o + k.rawValue }
            columns += [(at(.opensDiff), 0), (at(.deliveredDiff), 0), (at(.optOutDiff), 0),
                        (at(.retainedD7Diff), at(.eligibleD7)), (at(.retainedD30Diff), at(.eligibleD30))]
        }
        self.columns = columns
        ownOffset = self.clusters * width
        count = ownOffset + columns.count * Self.productWidth
    }

    /// The layout for a run with `clusters` recorded users and the sums of `sums`.
    public init(clusters: Int, sums: UserSumsLayout) {
        self.init(clusters: clusters, configurations: sums.configurations, pairList: sums.pairList)
    }

    /// Quantities per row.
    public var quantities: Int { columns.count }

    /// The quantity of configuration `c`.
    func quantity(_ c: Int, _ q: ConfigurationQuantity) -> Int { c * ConfigurationQuantity.allCases.count + q.rawValue }

    /// The quantity of the pair at `position` of `pairList`, for `measure`.
    func quantity(pair position: Int, _ measure: PairMeasure) -> Int {
        configurations * ConfigurationQuantity.allCases.count + position * PairMeasure.allCases.count
            + Self.pairOrder(measure)
    }

    /// A pair measure's place among a pair's quantities (the order of `PairColumn`).
    static func pairOrder(_ m: PairMeasure) -> Int {
        switch m {
        case .opensPerUser: return 0
        case .deliveredPerUser: return 1
        case .optOutRate: return 2
        case .retentionD7: return 3
        case .retentionD30: return 4
        }
    }

    /// The same recorded users with the pairs of `sums`.
    func holding(_ sums: UserSumsLayout) -> RecordedUserSumsLayout { RecordedUserSumsLayout(clusters: clusters, sums: sums) }

    public static func == (l: Self, r: Self) -> Bool {
        l.clusters == r.clusters && l.configurations == r.configurations && l.pairList == r.pairList
    }
}

/// Totals per recorded user of the per-user quantities behind the clustered intervals, over the
/// virtual users who replayed that recorded user: what makes the intervals of a run whose virtual
/// users outnumber the recorded users they replay honest. Integers, so they add exactly in any order.
public typealias RecordedUserSums = Counts<RecordedUserSumsLayout>

extension RecordedUserSums {
    /// These totals with the pairs of `target`, each taken from the first of `self` and `others`
    /// that holds it; nil when none does. The configurations' columns come from `self`.
    public func gathering(_ target: UserSumsLayout, from others: [RecordedUserSums] = []) -> RecordedUserSums? {
        let out = layout.holding(target)
        var result = RecordedUserSums(layout: out)
        let sources = [self] + others
        guard sources.allSatisfy({ $0.layout.clusters == layout.clusters && $0.layout.configurations == layout.configurations })
        else { return nil }
        let head = 1 + layout.configurations * RecordedUserSumsLayout.configurationWidth
        let perPair = PairMeasure.allCases.count * RecordedUserSumsLayout.productWidth
        let ownHead = layout.configurations * RecordedUserSumsLayout.ConfigurationQuantity.allCases.count
            * RecordedUserSumsLayout.productWidth
        for row in 0..<layout.clusters {
            for k in 0..<head { result.counts[row * out.width + k] = counts[row * layout.width + k] }
        }
        for k in 0..<ownHead { result.counts[out.ownOffset + k] = counts[layout.ownOffset + k] }
        for (p, pair) in out.pairList.enumerated() {
            guard let source = sources.first(where: { $0.layout.pairList.contains(pair) }),
                  let q = source.layout.pairList.firstIndex(of: pair) else { return nil }
            let w = RecordedUserSumsLayout.pairWidth, sl = source.layout
            for row in 0..<layout.clusters {
                for k in 0..<w { result.counts[row * out.width + head + p * w + k] = source.counts[row * sl.width + head + q * w + k] }
            }
            for k in 0..<perPair {
                result.counts[out.ownOffset + ownHead + p * perPair + k] = source.counts[sl.ownOffset + ownHead + q * perPair + k]
            }
        }
        return result
    }

    /// The virtual users who replayed a recorded user and the recorded users they replayed; nil when no
    /// run of `users` users could have counted them (a negative count of replaying users, or more of
    /// them than users).
    public func replaying(of users: Int64) -> (users: Int64, recordedUsers: Int64)? {
        var replaying: Int64 = 0, replayed: Int64 = 0
        for row in 0..<layout.clusters {
            let n = counts[row * layout.width]
            guard n >= 0, n <= users &- replaying else { return nil }
            replaying &+= n
            if n > 0 { replayed &+= 1 }
        }
        return (replaying, replayed)
    }
}

/// The intervals of a run whose population replays recorded users, clustered by recorded user: the
/// virtual users who replay one recorded user share its organic timeline and are not independent,
/// so the independent units are the recorded users replayed and the users of other segments.
///
/// For a ratio of sums R = Σx/Σy over clusters g, Var(R) ≈ G/(G − 1) · Σ_g (X_g − R·Y_g)² / (Σy)²
/// (the cluster-robust, or linearisation, variance of a ratio estimator; Cochran 1977, §6.3, with
/// clusters as the units). The cluster products Σ X_g², Σ Y_g², Σ X_g·Y_g are those of the replayed
/// recorded users' totals plus, for the users of other segments, their own squares: the run's sums
/// over users less the replaying users' own squares.
public struct ReplayClustering: Sendable {
    /// Clusters: recorded users replayed at least once, plus the users of segments that do not replay.
    public let clusters: Int64
    /// Recorded users replayed at least once.
    public let recordedUsersReplayed: Int64
    /// Virtual users who replayed a recorded user.
    public let replayingUsers: Int64
    /// Virtual users.
    public let users: Int64
    /// Per quantity: the clustered sums (`users` is `clusters`) and the naive ones (every user its own).
    private let clustered: [RatioSums]
    private let naive: [RatioSums]
    private let layout: RecordedUserSumsLayout

    /// - Parameters: `sums`: the run's sums over users, with the same configurations and pairs;
    ///   `users`: the run's users. Nil when the layouts disagree, or when the totals count more
    ///   replaying users than `users`.
    public init?(_ totals: RecordedUserSums, sums: UserSums, users: Int64) {
        let l = totals.layout
        guard l.configurations == sums.layout.configurations, l.pairList == sums.layout.pairList,
              let (replaying, replayed) = totals.replaying(of: users) else { return nil }
        layout = l
        self.users = users
        let naive = Self.naiveSums(sums, layout: l, users: users)
        // Σ over recorded users of the products of their totals.
        var products = Array(repeating: Int64(0), count: l.quantities * RecordedUserSumsLayout.productWidth)
        totals.counts.withUnsafeBufferPointer { c in
            for row in 0..<l.clusters {
                let r = row * l.width
                guard c[r] > 0 else { continue }
                for (q, col) in l.columns.enumerated() {
                    let x = c[r + col.x], y = c[r + col.y]
                    products[3 * q] &+= x &* x
                    products[3 * q + 1] &+= y &* y
                    products[3 * q + 2] &+= x &* y
                }
            }
        }
        recordedUsersReplayed = replayed
        replayingUsers = replaying
        let groups = users - replaying + replayed
        clusters = groups
        // When every user replays, no user is a cluster of its own: the clusters' products are all
        // (and a run whose every segment replays keeps no own squares).
        let everyUserReplays = replaying == users
        clustered = naive.enumerated().map { q, n in
            if everyUserReplays {
                return RatioSums(users: groups, x: n.x, y: n.y, xx: products[3 * q], yy: products[3 * q + 1], xy: products[3 * q + 2])
            }
            let own = l.ownOffset + 3 * q
            return RatioSums(users: groups, x: n.x, y: n.y,
                             xx: n.xx &- totals.counts[own] &+ products[3 * q],
                             yy: n.yy &- totals.counts[own + 1] &+ products[3 * q + 1],
                             xy: n.xy &- totals.counts[own + 2] &+ products[3 * q + 2])
        }
        self.naive = naive
    }

    /// Per quantity, the sums over users that treat every user as independent, from the run's sums.
    private static func naiveSums(_ sums: UserSums, layout l: RecordedUserSumsLayout, users: Int64) -> [RatioSums] {
        // A 0/1 per-user count x with y 0/1 and x ≤ y: x² = x, y² = y, xy = x.
        func indicator(_ x: Int64, _ y: Int64) -> RatioSums { RatioSums(users: users, x: x, y: y, xx: x, yy: y, xy: x) }
        var out: [RatioSums] = []
        let segments = 0..<sums.layout.segments
        for c in 0..<l.configurations {
            func seg(_ k: SegmentCounter) -> Int64 { segments.reduce(0) { $0 &+ sums.segment(c, $1, k) } }
            out += ClusteredRatio.allCases.map { sums.ratio(c, $0, users: users) }
            out.append(indicator(seg(.retainedD7), seg(.eligibleD7)))
            out.append(indicator(seg(.retainedD30), seg(.eligibleD30)))
            out.append(indicator(seg(.optOuts), users))
        }
        for p in l.pairList.indices {
            let start = sums.layout.pair(at: p)
            func v(_ k: PairCounter) -> Int64 { sums.counts[start + k.rawValue] }
            // Differences of 0/1 outcomes: d² = onlyA + onlyB, d·y = d.
            func discordant(_ a: PairCounter, _ b: PairCounter, _ n: PairCounter) -> RatioSums {
                RatioSums(users: users, x: v(a) &- v(b), y: v(n), xx: v(a) &+ v(b), yy: v(n), xy: v(a) &- v(b))
            }
            let n = v(.users)
            out.append(RatioSums(users: users, x: v(.opensDiff), y: n, xx: v(.opensDiffSquares), yy: n, xy: v(.opensDiff)))
            out.append(RatioSums(users: users, x: v(.deliveredDiff), y: n, xx: v(.deliveredDiffSquares), yy: n,
                                 xy: v(.deliveredDiff)))
            out.append(discordant(.optOutOnlyA, .optOutOnlyB, .users))
            out.append(discordant(.retainedD7OnlyA, .retainedD7OnlyB, .eligibleD7))
            out.append(discordant(.retainedD30OnlyA, .retainedD30OnlyB, .eligibleD30))
        }
        return out
    }

    /// Configuration `c`'s clustered sums of `q`.
    public func configuration(_ c: Int, _ q: RecordedUserSumsLayout.ConfigurationQuantity) -> RatioSums? {
        guard (0..<layout.configurations).contains(c) else { return nil }
        return clustered[layout.quantity(c, q)]
    }

    /// The clustered sums of the per-user differences a − b of `measure` (either order); nil when
    /// the pair is not held.
    public func pair(_ a: Int, _ b: Int, _ measure: PairMeasure) -> RatioSums? {
        sums(a, b, measure, clustered)
    }

    private func sums(_ a: Int, _ b: Int, _ measure: PairMeasure, _ from: [RatioSums]) -> RatioSums? {
        let pair = ConfigurationPair(a: min(a, b), b: max(a, b))
        guard a != b, let p = layout.pairList.firstIndex(of: pair) else { return nil }
        let s = from[layout.quantity(pair: p, measure)]
        return a < b ? s : RatioSums(users: s.users, x: -s.x, y: s.y, xx: s.xx, yy: s.yy, xy: -s.xy)
    }

    /// The mean of the per-user differences a − b of `measure` with its clustered interval.
    public func difference(_ a: Int, _ b: Int, _ measure: PairMeasure) -> Estimate? {
        pair(a, b, measure).flatMap { $0.estimate(bounds: measure.isFraction ? -1...1 : -Double.infinity...Double.infinity) }
    }

    /// Clustered variance over the variance with every user independent, for the per-user
    /// differences a − b of `measure`; nil when either is zero or unknown.
    public func designEffect(_ a: Int, _ b: Int, _ measure: PairMeasure) -> Double? {
        guard let c = sums(a, b, measure, clustered), let n = sums(a, b, measure, naive),
              let vc = c.variance, let vn = n.variance, vn > 0 else { return nil }
        return vc / vn
    }

    /// The same for configuration `c`'s quantity `q`.
    public func designEffect(_ c: Int, _ q: RecordedUserSumsLayout.ConfigurationQuantity) -> Double? {
        guard (0..<layout.configurations).contains(c), let vc = clustered[layout.quantity(c, q)].variance,
              let vn = naive[layout.quantity(c, q)].variance, vn > 0 else { return nil }
        return vc / vn
    }
}

extension RatioSums {
    /// n/(n − 1)·Σ(x − R·y)² and Σy, whose ratio √scaled / sy is the standard error of R = Σx / Σy
    /// (see `interval`); nil without them.
    var spread: (scaled: Double, sy: Double)? {
        guard y > 0, users > 1 else { return nil }
        let n = Double(users), sy = Double(y), r = Double(x) / sy
        // Σ(x − R y)² expanded; the products are exact integers up to 2^53 per term.
        let residual = max(0, Double(xx) - 2 * r * Double(xy) + r * r * Double(yy))
        return (n / (n - 1) * residual, sy)
    }

    /// The delta-method variance of Σx / Σy (see `interval`); nil without it.
    public var variance: Double? { spread.map { $0.scaled / ($0.sy * $0.sy) } }

    /// Σx / Σy with its interval within `bounds`.
    func estimate(bounds: ClosedRange<Double>) -> Estimate? {
        guard y > 0, let ci = interval(bounds: bounds) else { return nil }
        return Estimate(value: Double(x) / Double(y), low: ci.low, high: ci.high)
    }
}

/// How replaying recorded users bears on a run's intervals.
public struct ReplaySummary: Sendable {
    /// Virtual users, those among them who replayed a recorded user, and the recorded users replayed.
    public let users, replayingUsers, recordedUsersReplayed: Int64
    /// Independent units: the recorded users replayed and the users of segments that do not replay.
    public let clusters: Int64
    /// The objective, the configuration it is read for and the design effect there: its clustered
    /// variance over the variance with every virtual user independent. Nil when unknown.
    public let objective: DecisionMeasure
    public let configuration: Int
    public let designEffect: Double?

    /// Virtual users over the design effect: as many independent users would give the same interval.
    /// Nil when unknown, or too many to count (a design effect next to zero, from edited totals).
    public var effectiveUsers: Int64? {
        guard let d = designEffect, d > 0, d.isFinite else { return nil }
        return Int64(exactly: (Double(users) / d).rounded())
    }
}

extension RunResults {
    /// Whether a segment of the run's population replays recorded users.
    public var replaysRecordedUsers: Bool {
        scenario.population.segments.contains { if case .replay = $0.returns { return true } else { return false } }
    }

    /// For a run whose intervals are clustered by recorded user: what that changes, read for the
    /// objective of the recommendation (or, without one, of the first configuration).
    public var replaySummary: ReplaySummary? {
        guard let replay else { return nil }
        let objective = decision.rule.objective
        let c = decision.recommended ?? min(1, all.count - 1)
        let effect: Double?
        switch objective {
        case .opensLiftPerUser, .deliveredPerExtraOpen: effect = replay.designEffect(c, 0, .opensPerUser)
        case .liftD7: effect = replay.designEffect(c, 0, .retentionD7)
        case .liftD30: effect = replay.designEffect(c, 0, .retentionD30)
        case .deliveredPerUser: effect = replay.designEffect(c, 0, .deliveredPerUser)
        case .retentionD7: effect = replay.designEffect(c, .retentionD7)
        case .retentionD30: effect = replay.designEffect(c, .retentionD30)
        case .optOutRate: effect = replay.designEffect(c, .optOutRate)
        case .triggerRate: effect = replay.designEffect(c, .trigger)
        case .responseRate: effect = replay.designEffect(c, .response)
        }
        return ReplaySummary(users: replay.users, replayingUsers: replay.replayingUsers,
                             recordedUsersReplayed: replay.recordedUsersReplayed, clusters: replay.clusters,
                             objective: objective, configuration: c, designEffect: effect)
    }
}
