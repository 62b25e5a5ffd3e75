import Foundation

/// The mean of per-user values with the spread and the skewness around it, for an interval that
/// allows for skewness (`interval(z:)`).
///
/// Per-user differences in opens are skewed: most users open the same under both configurations,
/// a few whom a notification brought back open many times more. The normal interval's upper bound
/// then falls below the true mean far more often than its level says on a few hundred users (the
/// mean and the spread are both small on the samples that miss the heavy users).
public struct CentralMoments: Equatable, Sendable {
    /// The values.
    public let count: Int
    public let mean: Double
    /// Σ(x − mean)² and Σ(x − mean)³.
    public let squares: Double
    public let cubes: Double

    public init(count: Int, mean: Double, squares: Double, cubes: Double) {
        (self.count, self.mean, self.squares, self.cubes) = (count, mean, squares, cubes)
    }

    /// The moments of `value(0)`, …, `value(count − 1)`, worked out in two passes (the mean, then the
    /// powers of the deviations from it) in that order, so the same values give the same bits.
    public init(count: Int, _ value: (Int) -> Int64) {
        var sum: Int64 = 0
        for i in 0..<count { sum &+= value(i) }
        let mean = count > 0 ? Double(sum) / Double(count) : 0
        var squares = 0.0, cubes = 0.0
        for i in 0..<count {
            let d = Double(value(i)) - mean, d2 = d * d
            squares += d2
            cubes += d2 * d
        }
        self.init(count: count, mean: mean, squares: squares, cubes: cubes)
    }

    /// The moments of `count` values d from their power sums about a `shift` near them: with e = d − shift,
    /// `sum` = Σe (exact), `squares` = Σe², `cubes` = Σe³, and m = Σe/n, Σ(d − mean)² = Σe² − nm² and
    /// Σ(d − mean)³ = Σe³ − 3mΣe² + 2nm³. A shift near the values keeps nearly equal large ones' digits.
    public init(count: Int, shift: Int64, sum: Int64, squares: Double, cubes: Double) {
        let n = Double(count), m = count > 0 ? Double(sum) / n : 0
        self.init(count: count, mean: Double(shift) + m, squares: max(0, squares - n * m * m),
                  cubes: cubes - 3 * m * squares + 2 * n * m * m * m)
    }

    /// The sample skewness g₁ = m₃ / m₂^(3/2), with mₖ = Σ(x − mean)ᵏ / n; nil for fewer than three values
    /// or none apart.
    public var skewness: Double? {
        guard count >= 3, squares > 0 else { return nil }
        let n = Double(count)
        return (cubes / n) / (squares / n * (squares / n).squareRoot())
    }

    /// The interval for the mean at normal quantile `z`, corrected for skewness by Hall's monotone
    /// transformation of the studentised mean (Hall 1992, "On the removal of skewness by
    /// transformation", JRSS B 54:221–228): with T = √n (mean − μ) / s and a = g₁ / (3√n),
    /// g(T) = T + aT² + a²T³/3 + a/2 is nearer normal than T, and μ lies within
    /// [mean − s/√n · g⁻¹(z), mean − s/√n · g⁻¹(−z)], where g⁻¹(x) = ((1 + 3a(x − a/2))^(1/3) − 1) / a.
    /// Its quantiles agree to order n^(−1/2) with the Cornish–Fisher expansion of T's, whose first term
    /// moves the quantile x by −g₁(2x² + 1) / (6√n); and g is increasing, so the bounds never cross.
    /// With no skewness it is the normal interval mean ± z·s/√n (s with n − 1). For right-skewed
    /// values the interval reaches further above the mean than below it.
    /// Nil without values; a point without spread.
    public func interval(z: Double) -> Estimate? {
        guard count > 0, mean.isFinite else { return nil }
        guard count > 1, squares > 0, squares.isFinite else { return Estimate(value: mean, low: mean, high: mean) }
        let n = Double(count)
        let se = (squares / (n - 1)).squareRoot() / n.squareRoot()
        let a = (skewness ?? 0) / (3 * n.squareRoot())
        guard a.isFinite else { return nil }
        func inverse(_ x: Double) -> Double {
            // For a tiny a the closed form loses its digits to cancellation: its expansion to first order.
            if abs(a) < 1e-7 { return x - a * (x * x + 0.5) }
            return (cbrt(1 + 3 * a * (x - a / 2)) - 1) / a
        }
        return Estimate(value: mean, low: mean - se * inverse(z), high: mean - se * inverse(-z))
    }
}
