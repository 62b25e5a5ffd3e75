#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Weibull lifetimes (hazard rising for shape > 1, falling for shape < 1), drawn as a power of a
/// standard exponential E (by the ziggurat): `X = scale · E^(1/shape)`, computed as
/// `exp(ln E / shape)` with `TableExp`, cheaper than the C library's `pow`.
public struct WeibullDistribution: ContinuousDistribution, Equatable {
    /// The sampler's tables, kept so a draw needs no lookup (see `Ziggurat` and `TableExp`).
    @usableFromInline internal let exponential = Ziggurat.exponential
    @usableFromInline internal let table = TableExp.shared
    public let shape: Double
    public let scale: Double
    @usableFromInline internal let inverseShape: Double

    /// - Precondition: `shape` and `scale` are finite and > 0.
    public init(shape: Double, scale: Double) {
        requirePositiveFinite(shape, "shape", of: "WeibullDistribution")
        requirePositiveFinite(scale, "scale", of: "WeibullDistribution")
        (self.shape, self.scale) = (shape, scale)
        self.inverseShape = 1 / shape
    }

    /// `scale · Γ(1 + 1/shape)`.
    public var mean: Double {
        scale * exp(logGamma(1 + 1 / shape))
    }

    /// `scale² · (Γ(1 + 2/k) − Γ(1 + 1/k)²)`, evaluated as `m² · expm1(lnΓ(1+2/k) − 2 lnΓ(1+1/k))`
    /// so that the difference does not cancel catastrophically for large shapes.
    public var variance: Double {
        let logG1 = logGamma(1 + 1 / shape)
        let logG2 = logGamma(1 + 2 / shape)
        let m = scale * exp(logG1)
        return m * m * expm1(logG2 - 2 * logG1)
    }

    /// One draw; one generator output about 99% of the time.
    @inlinable @inline(__always)
    public func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        value(ofExponent: exponentSample(&generator))
    }

    /// A draw of ln(X / scale) = ln E / shape; `value(ofExponent:)` of it is `sample`'s draw, bit for
    /// bit (see `LogNormalDistribution.logSample`).
    @inlinable @inline(__always)
    public func exponentSample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        log(generator.nextStandardExponential(using: exponential)) * inverseShape
    }

    /// X from a draw of ln(X / scale).
    @inlinable @inline(__always)
    public func value(ofExponent y: Double) -> Double {
        scale * table.exp(y)
    }

    public func cdf(_ x: Double) -> Double {
        x <= 0 ? 0 : -expm1(-pow(x / scale, shape))
    }

    public func survival(_ x: Double) -> Double {
        x <= 0 ? 1 : exp(-pow(x / scale, shape))
    }
}
