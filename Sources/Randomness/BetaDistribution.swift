#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Proportions and probabilities in [0, 1], drawn exactly as `X = Ga / (Ga + Gb)` with independent
/// `Ga ~ Gamma(a, 1)` and `Gb ~ Gamma(b, 1)` (first `Ga`, then `Gb`; see ``GammaDistribution``).
///
/// When either parameter is below 1 the ratio is formed from logarithms,
/// `X = 1 / (1 + exp(ln Gb − ln Ga))`, because boosted small-shape gammas can underflow to 0 and
/// turn `Ga / (Ga + Gb)` into 0/0.
public struct BetaDistribution: ContinuousDistribution, Equatable {
    public let a: Double
    public let b: Double
    @usableFromInline internal let gammaA: GammaDistribution
    @usableFromInline internal let gammaB: GammaDistribution
    @usableFromInline internal let useLogs: Bool

    /// - Precondition: `a` and `b` are finite and > 0.
    public init(a: Double, b: Double) {
        requirePositiveFinite(a, "a", of: "BetaDistribution")
        requirePositiveFinite(b, "b", of: "BetaDistribution")
        (self.a, self.b) = (a, b)
        gammaA = GammaDistribution(shape: a, rate: 1)
        gammaB = GammaDistribution(shape: b, rate: 1)
        useLogs = a < 1 || b < 1
    }

    public var mean: Double { a / (a + b) }

    public var variance: Double {
        let s = a + b
        return a * b / (s * s * (s + 1))
    }

    @inlinable
    public func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        if useLogs {
            let logX = gammaA.logStandardSample(&generator)
            let logY = gammaB.logStandardSample(&generator)
            return 1 / (1 + exp(logY - logX))
        }
        let x = gammaA.marsagliaTsang(&generator)
        let y = gammaB.marsagliaTsang(&generator)
        return x / (x + y)
    }

    /// I_x(a, b), the regularized incomplete beta function.
    public func cdf(_ x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        return regularizedBetaI(x: x, a: a, b: b)
    }

    /// I_{1−x}(b, a), which keeps precision near x = 1.
    public func survival(_ x: Double) -> Double {
        if x <= 0 { return 1 }
        if x >= 1 { return 0 }
        return regularizedBetaI(x: 1 - x, a: b, b: a)
    }
}
