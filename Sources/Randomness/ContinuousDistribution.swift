/// A real-valued distribution that can be sampled exactly and whose moments and CDF are known in
/// closed form, so samplers can be swapped generically and checked against theory.
///
/// Generator outputs and uniforms are bit-identical on every platform. Real-valued draws also go
/// through the C library's `log`, `exp` and `pow`, which are not correctly rounded everywhere, so
/// across different C libraries they can differ in the last bits (and, very rarely, a rejection
/// step could decide differently).
public protocol ContinuousDistribution: Sendable {
    /// The expectation E[X].
    var mean: Double { get }
    /// The variance Var[X].
    var variance: Double { get }
    /// P(X ≤ x).
    func cdf(_ x: Double) -> Double
    /// P(X > x); implementations override the default `1 − cdf(x)` where a direct formula keeps
    /// precision in the upper tail.
    func survival(_ x: Double) -> Double
    /// One draw; consumes a documented, fixed number of generator outputs per attempt.
    func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double
}

extension ContinuousDistribution {
    public var standardDeviation: Double {
        variance.squareRoot()
    }

    public func survival(_ x: Double) -> Double {
        1 - cdf(x)
    }
}

/// Stops with "`type`: `name` must be finite and > 0" unless `value` is: the check every
/// distribution makes of its scale and shape parameters.
@inline(__always)
func requirePositiveFinite(_ value: Double, _ name: String, of type: String) {
    precondition(value > 0 && value.isFinite, "\(type): \(name) must be finite and > 0")
}
