import Foundation

/// The two-sided 95% normal quantile.
public let z95 = 1.959_963_984_540_054

/// A count out of a total, with its Wilson score interval. No rate is ever NaN: with a total of
/// zero there is no rate and no interval.
public struct Proportion: Equatable, Sendable {
    public let count: Int64
    public let total: Int64

    public init(_ count: Int64, of total: Int64) {
        (self.count, self.total) = (count, total)
    }

    public var rate: Double? { total > 0 ? Double(count) / Double(total) : nil }

    /// Wilson score interval (Wilson 1927) at the given normal quantile.
    public func wilson(z: Double = z95) -> (low: Double, high: Double)? {
        guard total > 0 else { return nil }
        let n = Double(total), p = Double(count) / n, z2 = z * z
        let centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z / (1 + z2 / n) * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        return (max(0, centre - half), min(1, centre + half))
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
