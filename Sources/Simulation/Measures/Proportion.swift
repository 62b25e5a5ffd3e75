import Foundation
import Randomness

/// The two-sided 95% normal quantile.
public let z95 = 1.959_963_984_540_054

/// A count out of a total, with its 95% interval. No rate is ever NaN: with a total of zero there
/// is no rate and no interval.
///
/// Where every user contributes at most one trial (retention, users opting out) the interval is
/// Wilson's; where one user contributes many (notifications), `clustered` holds the per-user sums
/// and the interval is the user-clustered delta-method one.
public struct Proportion: Equatable, Sendable {
    public let count: Int64
    public let total: Int64
    public let clustered: RatioSums?

    public init(_ count: Int64, of total: Int64, clustered: RatioSums? = nil) {
        (self.count, self.total, self.clustered) = (count, total, clustered)
    }

    public var rate: Double? { total > 0 ? Double(count) / Double(total) : nil }

    /// The interval reports show: clustered by user when the sums are known, Wilson's otherwise.
    public var interval: (low: Double, high: Double)? {
        clustered?.interval() ?? wilson()
    }

    /// How `interval` was worked out, for tables: `clustered` or `wilson`; nil without an interval.
    public var intervalMethod: String? {
        guard total > 0 else { return nil }
        return clustered?.interval() != nil ? "clustered" : "wilson"
    }

    /// The Clopper–Pearson ("exact") interval at `level`, two-sided: each bound the binomial
    /// probability at which seeing `count` or more (or `count` or fewer) of `total` has chance
    /// (1 − level) / 2 (Clopper and Pearson 1934). A bound that excludes p is a one-sided exact test
    /// rejecting p at that chance: what a count of draws can and cannot settle.
    public func clopperPearson(level: Double) -> (low: Double, high: Double)? {
        guard total > 0, count >= 0, count <= total, level > 0, level < 1 else { return nil }
        let n = Double(total), x = Double(count), tail = (1 - level) / 2
        // P(X ≥ k | p) = I_p(k, n − k + 1), rising with p: the p at which it reaches `target`, by bisection.
        func solve(atLeast k: Double, _ target: Double) -> Double {
            var (lo, hi) = (0.0, 1.0)
            for _ in 0..<200 {
                let mid = (lo + hi) / 2
                if mid <= lo || mid >= hi { break }
                if regularizedBetaI(x: mid, a: k, b: n - k + 1) < target { lo = mid } else { hi = mid }
            }
            return (lo + hi) / 2
        }
        // The low bound: P(X ≥ x) = tail; the high one: P(X ≤ x) = tail, that is P(X ≥ x + 1) = 1 − tail.
        return (count == 0 ? 0 : solve(atLeast: x, tail), count == total ? 1 : solve(atLeast: x + 1, 1 - tail))
    }

    /// The rate with its interval as an estimate (the bounds the rate itself when it has no interval); nil
    /// without a rate.
    public var estimate: Estimate? {
        guard let r = rate else { return nil }
        let ci = interval
        return Estimate(value: r, low: ci?.low ?? r, high: ci?.high ?? r)
    }

    /// Wilson score interval (Wilson 1927) at the given normal quantile.
    public func wilson(z: Double = z95) -> (low: Double, high: Double)? {
        guard total > 0 else { return nil }
        let n = Double(total), p = Double(count) / n, z2 = z * z
        let centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z / (1 + z2 / n) * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        // At 0 of n (or n of n) the bound is exactly 0 (or 1); the formula leaves a rounding residue.
        return (count == 0 ? 0 : max(0, centre - half), count == total ? 1 : min(1, centre + half))
    }
}

/// An estimate with a 95% interval, or nothing when it cannot be computed.
public struct Estimate: Equatable, Sendable {
    public let value: Double
    public let low: Double
    public let high: Double

    public init(value: Double, low: Double, high: Double) {
        (self.value, self.low, self.high) = (value, low, high)
    }

    /// Notifications delivered per open gained (`value`, delivered / opens gained) with its interval:
    /// the opens lift's interval carried over (delivered per user is nearly exact by comparison), the
    /// high bound infinite when the lift's low bound is not above 0. Nil without a value or users.
    public static func deliveredPerExtraOpen(_ value: Double?, delivered: Int64, users: Int64, lift: Estimate?) -> Estimate? {
        guard let value, let lift, users > 0 else { return nil }
        return deliveredPerExtraOpen(value, perUser: Double(delivered) / Double(users), lift: lift)
    }

    /// The same from notifications delivered per user, `perUser`, and the opens lift's interval.
    public static func deliveredPerExtraOpen(_ value: Double, perUser: Double, lift: Estimate) -> Estimate {
        Estimate(value: value, low: lift.high > 0 ? perUser / lift.high : 0, high: lift.low > 0 ? perUser / lift.low : .infinity)
    }

    /// Mean of per-user differences from their sum and sum of squares (normal approximation).
    public static func mean(sum: Int64, squares: Int64, count: Int64) -> Estimate? {
        guard count > 0 else { return nil }
        let n = Double(count), s = Double(sum)
        let mean = s / n
        guard count > 1 else { return Estimate(value: mean, low: mean, high: mean) }
        let variance = max(0, (Double(squares) - s * s / n) / (n - 1))
        let half = z95 * (variance / n).squareRoot()
        return Estimate(value: mean, low: mean - half, high: mean + half)
    }

    /// Difference p₁ − p₂ of two paired proportions over `count` pairs (users), from the discordant
    /// counts — `gained`: yes under the first only, `lost`: under the second only — and `first`, the
    /// pairs with yes under the first (under both, or the first only).
    ///
    /// With `first` the interval is Newcombe's square-and-add score interval for paired data (method 10
    /// of Newcombe 1998, Statistics in Medicine 17:2635–2650): each margin's Wilson interval, combined
    /// with the margins' correlation φ, taken as 0 when a margin is empty or full and shrunk towards 0 by
    /// n/2 when positive. Unlike the Wald interval it keeps a width when no pair is discordant (a few
    /// users, or a segment where both configurations agree by chance), and stays inside [−1, 1].
    /// Without `first`, or with counts that do not fit one table, the Wald interval with the paired
    /// variance.
    public static func pairedDifference(gained: Int64, lost: Int64, count: Int64, first: Int64? = nil) -> Estimate? {
        guard count > 0 else { return nil }
        let n = Double(count), g = Double(gained), l = Double(lost)
        let d = (g - l) / n
        // The table: a both, b = gained, c = lost, e neither.
        if let first, gained >= 0, lost >= 0, first >= gained, count - first >= lost {
            let a = first - gained, e = count - first - lost
            let secondCount = a + lost
            guard let (l1, u1) = Proportion(first, of: count).wilson(),
                  let (l2, u2) = Proportion(secondCount, of: count).wilson() else { return nil }
            let p1 = Double(first) / n, p2 = Double(secondCount) / n
            var phi = 0.0
            if first > 0, first < count, secondCount > 0, secondCount < count {
                let margins = Double(first) * Double(count - first) * Double(secondCount) * Double(count - secondCount)
                let cross = Double(a) * Double(e) - g * l
                let corrected = cross > n / 2 ? cross - n / 2 : (cross < 0 ? cross : 0)
                phi = corrected / margins.squareRoot()
            }
            let below = (p1 - l1) * (p1 - l1) - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) * (u2 - p2)
            let above = (u1 - p1) * (u1 - p1) - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) * (p2 - l2)
            return Estimate(value: d, low: max(-1, d - max(0, below).squareRoot()), high: min(1, d + max(0, above).squareRoot()))
        }
        let variance = max(0, (g + l) / n - d * d) / n
        let half = z95 * variance.squareRoot()
        return Estimate(value: d, low: d - half, high: d + half)
    }
}
