/// Gaussian noise, drawn exactly by the ziggurat (see `RandomNumberGenerator.nextStandardNormal()`).
public struct NormalDistribution: ContinuousDistribution, Equatable {
    /// The sampler's table, kept so a draw needs no lookup (see `Ziggurat`).
    @usableFromInline internal let normal = Ziggurat.normal
    public let mean: Double
    public let standardDeviation: Double

    /// - Precondition: `mean` is finite; `standardDeviation` is finite and > 0.
    public init(mean: Double, standardDeviation: Double) {
        precondition(mean.isFinite, "NormalDistribution: mean must be finite")
        precondition(
            standardDeviation > 0 && standardDeviation.isFinite,
            "NormalDistribution: standardDeviation must be finite and > 0"
        )
        self.mean = mean
        self.standardDeviation = standardDeviation
    }

    public var variance: Double { standardDeviation * standardDeviation }

    /// One draw; one generator output about 99% of the time (see `nextStandardNormal()`).
    @inlinable
    public func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        mean + standardDeviation * generator.nextStandardNormal(using: normal)
    }

    public func cdf(_ x: Double) -> Double {
        normalCDF((x - mean) / standardDeviation)
    }

    public func survival(_ x: Double) -> Double {
        normalCDF((mean - x) / standardDeviation)
    }
}
