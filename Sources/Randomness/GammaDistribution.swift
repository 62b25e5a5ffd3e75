#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Gamma-distributed quantities (sums of exponential stages, conjugate rates), drawn exactly by
/// Marsaglia & Tsang, "A simple method for generating gamma variables", ACM TOMS 26(3), 2000.
///
/// For shape α ≥ 1, with d = α − 1/3 and c = 1/√(9d): draw Z standard normal until v = (1 + cZ) > 0,
/// set v ← v³, draw U ∈ (0, 1), and accept d·v if `U < 1 − 0.0331 Z⁴` (squeeze) or
/// `ln U < Z²/2 + d(1 − v + ln v)`; otherwise start over. For α < 1 the same paper's boost is used:
/// draw Y ~ Gamma(α + 1) as above, then U ∈ (0, 1), and return Y · U^(1/α). The result is divided by
/// the rate (multiplied by `1/rate`).
public struct GammaDistribution: ContinuousDistribution, Equatable {
    public let shape: Double
    public let rate: Double
    @usableFromInline internal let d: Double
    @usableFromInline internal let c: Double
    @usableFromInline internal let inverseShape: Double
    @usableFromInline internal let scale: Double
    @usableFromInline internal let boosted: Bool

    /// - Precondition: `shape` and `rate` are finite and > 0.
    public init(shape: Double, rate: Double) {
        requirePositiveFinite(shape, "shape", of: "GammaDistribution")
        requirePositiveFinite(rate, "rate", of: "GammaDistribution")
        (self.shape, self.rate) = (shape, rate)
        boosted = shape < 1
        let base = boosted ? shape + 1 : shape
        d = base - 1.0 / 3.0
        c = 1 / (9 * d).squareRoot()
        inverseShape = 1 / shape
        scale = 1 / rate
    }

    /// - Precondition: `shape` and `scale` are finite and > 0.
    public init(shape: Double, scale: Double) {
        requirePositiveFinite(scale, "scale", of: "GammaDistribution")
        self.init(shape: shape, rate: 1 / scale)
    }

    public var mean: Double { shape / rate }

    public var variance: Double { shape / (rate * rate) }

    /// One draw. Acceptance per attempt is above 0.95 for every shape, so the expected number of
    /// normal draws is below 1.06 (plus one uniform per attempt, plus one for the boost).
    @inlinable
    public func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        if boosted {
            let y = marsagliaTsang(&generator)
            return y * pow(generator.nextOpenUnit(), inverseShape) * scale
        }
        return marsagliaTsang(&generator) * scale
    }

    /// ln of a Gamma(shape, 1) draw, consuming exactly the same generator outputs as `sample`.
    ///
    /// Working in logs keeps the boosted case usable when `U^(1/shape)` would underflow to zero,
    /// which matters when a ratio of small-shape gammas is formed (Beta).
    @inlinable
    internal func logStandardSample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        if boosted {
            let y = marsagliaTsang(&generator)
            return log(y) + log(generator.nextOpenUnit()) * inverseShape
        }
        return log(marsagliaTsang(&generator))
    }

    /// A Gamma(shape, 1) draw (shape ≥ 1 here, or shape + 1 when boosted).
    @inlinable
    internal func marsagliaTsang<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        while true {
            var z: Double
            var v: Double
            repeat {
                z = generator.nextStandardNormal()
                v = 1 + c * z
            } while v <= 0
            v = v * v * v
            let u = generator.nextOpenUnit()
            let z2 = z * z
            if u < 1 - 0.0331 * (z2 * z2) {
                return d * v
            }
            if log(u) < 0.5 * z2 + d * (1 - v + log(v)) {
                return d * v
            }
        }
    }

    /// P(shape, rate · x), the regularized lower incomplete gamma function.
    public func cdf(_ x: Double) -> Double {
        x <= 0 ? 0 : regularizedGammaP(a: shape, x: rate * x)
    }

    public func survival(_ x: Double) -> Double {
        x <= 0 ? 1 : regularizedGammaQ(a: shape, x: rate * x)
    }
}
