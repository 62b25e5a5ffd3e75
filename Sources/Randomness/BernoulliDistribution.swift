/// Yes/no events with a fixed probability: true when a 53-bit uniform in [0, 1) is below `probability`.
///
/// `probability` 0 never fires and 1 always fires; otherwise the draw is exact up to the 2^−53
/// resolution of the uniform.
public struct BernoulliDistribution: Sendable, Equatable {
    public let probability: Double

    /// - Precondition: `0 ≤ probability ≤ 1`.
    public init(probability: Double) {
        precondition(
            probability >= 0 && probability <= 1,
            "BernoulliDistribution: probability must be in [0, 1]"
        )
        self.probability = probability
    }

    public var mean: Double { probability }

    public var variance: Double { probability * (1 - probability) }

    /// One draw from one generator output.
    @inlinable
    public func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Bool {
        generator.nextUnit() < probability
    }
}
