#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Exponential waiting times (memoryless delays): `X = mean · E`, E a standard exponential drawn
/// by the ziggurat (see `RandomNumberGenerator.nextStandardExponential()`).
public struct ExponentialDistribution: ContinuousDistribution, Equatable {
    /// The sampler's table, kept so a draw needs no lookup (see `Ziggurat`).
    @usableFromInline internal let exponential = Ziggurat.exponential
    public let mean: Double

    /// - Precondition: `mean` is finite and > 0.
    public init(mean: Double) {
        requirePositiveFinite(mean, "mean", of: "ExponentialDistribution")
        self.mean = mean
    }

    /// - Precondition: `rate` is finite and > 0.
    public init(rate: Double) {
        requirePositiveFinite(rate, "rate", of: "ExponentialDistribution")
        self.init(mean: 1 / rate)
    }

    public var rate: Double { 1 / mean }

    public var variance: Double { mean * mean }

    /// One draw; one generator output about 99% of the time.
    @inlinable @inline(__always)
    public func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        mean * generator.nextStandardExponential(using: exponential)
    }

    public func cdf(_ x: Double) -> Double {
        x <= 0 ? 0 : -expm1(-x / mean)
    }

    public func survival(_ x: Double) -> Double {
        x <= 0 ? 1 : exp(-x / mean)
    }
}
