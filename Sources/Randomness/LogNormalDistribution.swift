#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Positive, right-skewed quantities (durations, sizes) whose logarithm is normal:
/// `X = exp(mu + sigma · Z)`, Z standard normal by the ziggurat, the exponential by `TableExp`.
public struct LogNormalDistribution: ContinuousDistribution, Equatable {
    /// The sampler's tables, kept so a draw needs no lookup (see `Ziggurat` and `TableExp`).
    @usableFromInline internal let normal = Ziggurat.normal
    @usableFromInline internal let table = TableExp.shared
    /// Mean of ln X.
    public let mu: Double
    /// Standard deviation of ln X.
    public let sigma: Double

    /// - Precondition: `mu` is finite; `sigma` is finite and > 0.
    public init(mu: Double, sigma: Double) {
        precondition(mu.isFinite, "LogNormalDistribution: mu must be finite")
        requirePositiveFinite(sigma, "sigma", of: "LogNormalDistribution")
        (self.mu, self.sigma) = (mu, sigma)
    }

    /// Parameterised by the median `exp(mu)`, which is often easier to elicit than `mu`.
    ///
    /// - Precondition: `median` is finite and > 0; `sigma` is finite and > 0.
    public init(median: Double, sigma: Double) {
        requirePositiveFinite(median, "median", of: "LogNormalDistribution")
        self.init(mu: log(median), sigma: sigma)
    }

    public var median: Double { exp(mu) }

    /// `exp(mu + sigma²/2)`.
    public var mean: Double { exp(mu + 0.5 * sigma * sigma) }

    /// `(exp(sigma²) − 1) · exp(2 mu + sigma²)`.
    public var variance: Double {
        let s2 = sigma * sigma
        return expm1(s2) * exp(2 * mu + s2)
    }

    @inlinable @inline(__always)
    public func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        value(ofLog: logSample(&generator))
    }

    /// A draw of ln X; `value(ofLog:)` of it is `sample`'s draw, bit for bit. Splitting the two
    /// lets a caller draw several in stream order and then exponentiate them together, where the
    /// processor can overlap the exponentials.
    @inlinable @inline(__always)
    public func logSample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        mu + sigma * generator.nextStandardNormal(using: normal)
    }

    /// X from a draw of ln X.
    @inlinable @inline(__always)
    public func value(ofLog x: Double) -> Double {
        table.exp(x)
    }

    public func cdf(_ x: Double) -> Double {
        x <= 0 ? 0 : normalCDF((log(x) - mu) / sigma)
    }

    public func survival(_ x: Double) -> Double {
        x <= 0 ? 1 : normalCDF((mu - log(x)) / sigma)
    }
}
