#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
import Randomness

@inline(__always)
func lnBeta(_ a: Double, _ b: Double) -> Double {
    logGamma(a) + logGamma(b) - logGamma(a + b)
}

@inline(__always)
func logAddExp(_ u: Double, _ v: Double) -> Double {
    let m = max(u, v)
    if m == -.infinity { return -.infinity }
    return m + log1p(exp(-abs(u - v)))
}

/// The Gaussian hypergeometric function ₂F₁(a, b; c; z) for |z| < 1 by its power series.
///
/// Terms are summed until the remaining tail, estimated geometrically from the current term ratio,
/// is below 1e−15 of the sum. The ratio tends to z, so about 36 / (1 − z) terms are needed: cheap
/// for z ≤ 0.999, slow as z → 1, where a 1 − z transformation would be the remedy.
///
/// - Throws: `.invalidParameter` when |z| ≥ 1 or c is a non-positive integer;
///   `.seriesDidNotConverge` when `maxTerms` is not enough.
public func hypergeometric2F1(
    a: Double, b: Double, c: Double, z: Double, maxTerms: Int = 10_000_000
) throws(FittingError) -> Double {
    guard a.isFinite, b.isFinite, c.isFinite, z.isFinite, abs(z) < 1 else {
        throw .invalidParameter("hypergeometric2F1 needs finite a, b, c and |z| < 1")
    }
    guard !(c <= 0 && c == c.rounded()) else {
        throw .invalidParameter("hypergeometric2F1 is undefined when c is a non-positive integer")
    }
    let settled = max(abs(a), abs(b), abs(c)) + 1
    return try hypergeometricTail(first: 1, z: z, maxTerms: maxTerms, settledAfter: settled) { n in
        (a + n) * (b + n) / ((c + n) * (n + 1))
    }
}

/// Σ_{n≥0} t_n with t_0 = `first` and t_{n+1} = t_n · ratio(n) · z, stopping on a geometric tail bound.
///
/// The bound is only trusted once n exceeds `settledAfter`, past which every Pochhammer factor is
/// positive: earlier, a factor close to zero can make one term tiny without ending the series.
func hypergeometricTail(
    first: Double, z: Double, maxTerms: Int, settledAfter: Double, ratio: (Double) -> Double
) throws(FittingError) -> Double {
    var term = first
    var sum = first
    var n = 0.0
    for _ in 0..<maxTerms {
        if term == 0 { return sum }
        let rho = ratio(n) * z
        term *= rho
        sum += term
        n += 1
        // The ratios tend to |z| (from above or below), so the larger of the two bounds the remaining
        // ratios once they are monotone, which they are for all but the first few terms.
        let bound = max(abs(ratio(n) * z), abs(z))
        if n > settledAfter && bound < 1 && abs(term) * bound / (1 - bound) <= 1e-15 * abs(sum) {
            return sum
        }
    }
    throw .seriesDidNotConverge
}
