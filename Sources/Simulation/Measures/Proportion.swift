import Foundation

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

    /// Difference of two paired proportions from the discordant counts (users retained only here,
    /// only in the holdout) out of `count` pairs; Wald interval with the paired variance.
    public static func pairedDifference(gained: Int64, lost: Int64, count: Int64) -> Estimate? {
        guard count > 0 else { return nil }
        let n = Double(count), g = Double(gained), l = Double(lost)
        let d = (g - l) / n
        let variance = max(0, (g + l) / n - d * d) / n
        let half = z95 * variance.squareRoot()
        return Estimate(value: d, low: d - half, high: d + half)
    }
}
