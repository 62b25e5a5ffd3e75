import XCTest
import Randomness

/// Theoretical moments of a distribution, derived from its raw moments E[X], E[X²], E[X³], E[X⁴]
/// (computed in each test from textbook formulas, independently of the `mean`/`variance` properties).
struct TheoreticalMoments {
    let mean: Double
    let variance: Double
    /// μ₄ = E[(X − μ)⁴] = m₄ − 4μm₃ + 6μ²m₂ − 3μ⁴.
    let fourthCentral: Double

    init(raw m: [Double]) {
        precondition(m.count == 4)
        let mu = m[0]
        mean = mu
        variance = m[1] - mu * mu
        fourthCentral = m[3] - 4 * mu * m[2] + 6 * mu * mu * m[1] - 3 * mu * mu * mu * mu
    }
}

/// Outcome of comparing a sample with a distribution; tolerances are functions of n only.
struct SampleVerdict {
    let n: Int
    let sampleMean: Double
    let sampleVariance: Double
    /// 5 · σ/√n: the sample mean has standard error σ/√n (CLT), so a correct sampler exceeds this
    /// with probability ≈ 6e−7.
    let meanTolerance: Double
    /// 5 · SE(s²), with the exact variance of the unbiased sample variance
    /// Var(s²) = (μ₄ − σ⁴ (n−3)/(n−1)) / n  (≈ σ⁴ (κ − 1)/n, κ = μ₄/σ⁴ the kurtosis).
    let varianceTolerance: Double
    /// Kolmogorov–Smirnov statistic D_n = sup |F_n(x) − F(x)| against the exact CDF.
    let ks: Double
    /// 1.95/√n: the asymptotic Kolmogorov critical value for α ≈ 0.001 (K_{0.999} = 1.949).
    let ksCritical: Double

    let meanError: Double
    let varianceError: Double

    var meanOK: Bool { meanError <= meanTolerance }
    var varianceOK: Bool { varianceError <= varianceTolerance }
    var ksOK: Bool { ks < ksCritical }
}

enum StatisticalChecks {
    static let z = 5.0

    static func draw<D: ContinuousDistribution>(_ distribution: D, n: Int, seed: UInt64) -> [Double] {
        var generator = Xoshiro256(seed: seed)
        var samples = [Double]()
        samples.reserveCapacity(n)
        for _ in 0..<n {
            samples.append(distribution.sample(&generator))
        }
        return samples
    }

    /// Compares `samples` with `moments` and with `cdf`.
    static func evaluate(
        _ samples: [Double],
        moments: TheoreticalMoments,
        cdf: (Double) -> Double
    ) -> SampleVerdict {
        let n = samples.count
        let count = Double(n)
        let mean = samples.reduce(0, +) / count
        var squares = 0.0
        for x in samples {
            let deviation = x - mean
            squares += deviation * deviation
        }
        let variance = squares / (count - 1)

        let sigma2 = moments.variance
        let varianceOfVariance =
            (moments.fourthCentral - sigma2 * sigma2 * (count - 3) / (count - 1)) / count

        let sorted = samples.sorted()
        var d = 0.0
        for (i, x) in sorted.enumerated() {
            let f = cdf(x)
            d = max(d, f - Double(i) / count, Double(i + 1) / count - f)
        }

        return SampleVerdict(
            n: n,
            sampleMean: mean,
            sampleVariance: variance,
            meanTolerance: z * sigma2.squareRoot() / count.squareRoot(),
            varianceTolerance: z * varianceOfVariance.squareRoot(),
            ks: d,
            ksCritical: 1.95 / count.squareRoot(),
            meanError: abs(mean - moments.mean),
            varianceError: abs(variance - sigma2)
        )
    }

    /// Full check of a sampler: closed-form mean/variance against the raw-moment derivation, then
    /// sample mean, sample variance and KS against theory, then CDF/survival consistency.
    static func assertSamplerMatches<D: ContinuousDistribution>(
        _ distribution: D,
        rawMoments: [Double],
        n: Int = 200_000,
        seed: UInt64,
        _ label: String,
        file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let moments = TheoreticalMoments(raw: rawMoments)
        XCTAssertEqual(distribution.mean, moments.mean, accuracy: 1e-9 * abs(moments.mean),
                       "\(label): mean property", file: file, line: line)
        XCTAssertEqual(distribution.variance, moments.variance, accuracy: 1e-9 * moments.variance,
                       "\(label): variance property", file: file, line: line)

        let samples = draw(distribution, n: n, seed: seed)
        let verdict = evaluate(samples, moments: moments, cdf: distribution.cdf)
        XCTAssertTrue(verdict.meanOK,
                      "\(label): |mean error| \(verdict.meanError) > \(verdict.meanTolerance)",
                      file: file, line: line)
        XCTAssertTrue(verdict.varianceOK,
                      "\(label): |variance error| \(verdict.varianceError) > \(verdict.varianceTolerance)",
                      file: file, line: line)
        XCTAssertTrue(verdict.ksOK,
                      "\(label): KS \(verdict.ks) >= \(verdict.ksCritical)",
                      file: file, line: line)

        // survival must be the complement of cdf everywhere, including where it is computed directly.
        for x in samples.prefix(200) {
            XCTAssertEqual(distribution.cdf(x) + distribution.survival(x), 1, accuracy: 1e-12,
                           "\(label): cdf + survival at \(x)", file: file, line: line)
        }
    }

    /// Two-sided binomial tolerance for a count: z · √(n p (1 − p)).
    static func binomialTolerance(n: Int, p: Double) -> Double {
        z * (Double(n) * p * (1 - p)).squareRoot()
    }
}

/// Replays a fixed list of outputs, for exercising edge cases of the conversions.
struct ScriptedGenerator: RandomNumberGenerator {
    var outputs: [UInt64]
    var position = 0

    init(_ outputs: [UInt64]) {
        self.outputs = outputs
    }

    mutating func next() -> UInt64 {
        let value = outputs[position]
        position += 1
        return value
    }
}

/// [0, 1) uniform via `nextUnit()`, so the generic sampler check can be reused.
struct UnitUniform: ContinuousDistribution {
    var mean: Double { 0.5 }
    var variance: Double { 1.0 / 12.0 }
    func cdf(_ x: Double) -> Double { min(max(x, 0), 1) }
    func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double { generator.nextUnit() }
}

/// (0, 1) uniform via `nextOpenUnit()`.
struct OpenUnitUniform: ContinuousDistribution {
    var mean: Double { 0.5 }
    var variance: Double { 1.0 / 12.0 }
    func cdf(_ x: Double) -> Double { min(max(x, 0), 1) }
    func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Double { generator.nextOpenUnit() }
}
