import XCTest
import Randomness
#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Every continuous sampler against its exact mean, variance and CDF (see `StatisticalChecks` for how
/// the tolerances follow from n). Raw moments come from textbook formulas so that the distributions'
/// own `mean`/`variance` properties are checked too.
final class ContinuousSamplerTests: XCTestCase {
    // MARK: Raw moments E[X^k], k = 1…4

    private func exponentialMoments(mean: Double) -> [Double] {
        [mean, 2 * pow(mean, 2), 6 * pow(mean, 3), 24 * pow(mean, 4)]
    }

    /// E[X^k] = λ^k Γ(1 + k/shape), using libm's tgamma rather than the module's logGamma.
    private func weibullMoments(shape: Double, scale: Double) -> [Double] {
        (1...4).map { k in pow(scale, Double(k)) * tgamma(1 + Double(k) / shape) }
    }

    private func normalMoments(mean m: Double, sd s: Double) -> [Double] {
        let s2 = s * s
        return [m, m * m + s2, m * m * m + 3 * m * s2, pow(m, 4) + 6 * m * m * s2 + 3 * s2 * s2]
    }

    /// E[X^k] = exp(kμ + k²σ²/2).
    private func logNormalMoments(mu: Double, sigma: Double) -> [Double] {
        (1...4).map { k in
            let kd = Double(k)
            return exp(kd * mu + 0.5 * kd * kd * sigma * sigma)
        }
    }

    /// E[X^k] = α(α+1)…(α+k−1) / β^k.
    private func gammaMoments(shape: Double, rate: Double) -> [Double] {
        var product = 1.0
        return (0..<4).map { r in
            product *= (shape + Double(r)) / rate
            return product
        }
    }

    /// E[X^k] = Π_{r<k} (a+r)/(a+b+r).
    private func betaMoments(a: Double, b: Double) -> [Double] {
        var product = 1.0
        return (0..<4).map { r in
            product *= (a + Double(r)) / (a + b + Double(r))
            return product
        }
    }

    // MARK: Uniforms

    func testNextUnitIsUniform() {
        StatisticalChecks.assertSamplerMatches(
            UnitUniform(), rawMoments: [1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5], seed: 101, "nextUnit")
    }

    func testNextOpenUnitIsUniform() {
        StatisticalChecks.assertSamplerMatches(
            OpenUnitUniform(), rawMoments: [1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5], seed: 102, "nextOpenUnit")
    }

    // MARK: Samplers

    func testExponential() {
        StatisticalChecks.assertSamplerMatches(
            ExponentialDistribution(mean: 2.5), rawMoments: exponentialMoments(mean: 2.5),
            seed: 201, "Exponential(mean: 2.5)")
        let byRate = ExponentialDistribution(rate: 4)
        XCTAssertEqual(byRate.mean, 0.25)
        StatisticalChecks.assertSamplerMatches(
            byRate, rawMoments: exponentialMoments(mean: 0.25), n: 50_000, seed: 202, "Exponential(rate: 4)")
    }

    func testWeibull() {
        for (index, shape) in [0.5, 1, 3].enumerated() {
            let distribution = WeibullDistribution(shape: shape, scale: 1.7)
            StatisticalChecks.assertSamplerMatches(
                distribution, rawMoments: weibullMoments(shape: shape, scale: 1.7),
                seed: 301 + UInt64(index), "Weibull(shape: \(shape))")
        }
    }

    func testNormal() {
        StatisticalChecks.assertSamplerMatches(
            NormalDistribution(mean: 10, standardDeviation: 2), rawMoments: normalMoments(mean: 10, sd: 2),
            seed: 401, "Normal(10, 2)")
        StatisticalChecks.assertSamplerMatches(
            NormalDistribution(mean: -1, standardDeviation: 0.01), rawMoments: normalMoments(mean: -1, sd: 0.01),
            n: 50_000, seed: 402, "Normal(-1, 0.01)")
    }

    func testLogNormalByMu() {
        StatisticalChecks.assertSamplerMatches(
            LogNormalDistribution(mu: 0.3, sigma: 0.5), rawMoments: logNormalMoments(mu: 0.3, sigma: 0.5),
            seed: 501, "LogNormal(mu: 0.3, sigma: 0.5)")
    }

    func testLogNormalByMedian() {
        let distribution = LogNormalDistribution(median: 2, sigma: 0.8)
        XCTAssertEqual(distribution.mu, log(2), accuracy: 1e-15)
        XCTAssertEqual(distribution.median, 2, accuracy: 1e-15)
        XCTAssertEqual(distribution.cdf(2), 0.5, accuracy: 1e-15)
        StatisticalChecks.assertSamplerMatches(
            distribution, rawMoments: logNormalMoments(mu: log(2), sigma: 0.8),
            seed: 502, "LogNormal(median: 2, sigma: 0.8)")
    }

    func testGamma() {
        for (index, shape) in [0.3, 1, 2.5, 10].enumerated() {
            let rate = 1.5
            StatisticalChecks.assertSamplerMatches(
                GammaDistribution(shape: shape, rate: rate), rawMoments: gammaMoments(shape: shape, rate: rate),
                seed: 601 + UInt64(index), "Gamma(shape: \(shape), rate: \(rate))")
        }
        let byScale = GammaDistribution(shape: 2, scale: 3)
        XCTAssertEqual(byScale.mean, 6, accuracy: 1e-12)
        XCTAssertEqual(byScale.variance, 18, accuracy: 1e-12)
    }

    func testBeta() {
        for (index, (a, b)) in [(0.5, 0.5), (2.0, 5.0), (0.66, 2.5)].enumerated() {
            StatisticalChecks.assertSamplerMatches(
                BetaDistribution(a: a, b: b), rawMoments: betaMoments(a: a, b: b),
                seed: 701 + UInt64(index), "Beta(\(a), \(b))")
        }
    }

    /// With shapes this small U^(1/a) underflows to 0 for about a quarter of the draws, so a naive
    /// Ga/(Ga+Gb) would return NaN (0/0) in roughly 6% of draws. The KS check is not used here: 12% of
    /// the true mass lies below the smallest positive double and must round to 0.
    func testBetaWithTinyShapesStaysFinite() {
        let distribution = BetaDistribution(a: 0.002, b: 0.002)
        let n = 50_000
        let samples = StatisticalChecks.draw(distribution, n: n, seed: 710)
        XCTAssertTrue(samples.allSatisfy { $0 >= 0 && $0 <= 1 }, "every draw must be a number in [0, 1]")
        let moments = TheoreticalMoments(raw: betaMoments(a: 0.002, b: 0.002))
        let mean = samples.reduce(0, +) / Double(n)
        XCTAssertEqual(mean, moments.mean,
                       accuracy: StatisticalChecks.z * moments.variance.squareRoot() / Double(n).squareRoot())
    }

    // MARK: Power of the checks themselves

    /// The checks must be able to fail: a 3% error in the exponential mean or a small shape error in
    /// the gamma is rejected at the same n and tolerances used above.
    func testChecksRejectWrongDistributions() {
        let n = 200_000
        let exponentialSamples = StatisticalChecks.draw(ExponentialDistribution(mean: 1), n: n, seed: 901)
        let wrongExponential = ExponentialDistribution(mean: 1.03)
        let exponentialVerdict = StatisticalChecks.evaluate(
            exponentialSamples, moments: TheoreticalMoments(raw: exponentialMoments(mean: 1.03)),
            cdf: wrongExponential.cdf)
        XCTAssertFalse(exponentialVerdict.ksOK, "KS must detect mean 1 vs 1.03")
        XCTAssertFalse(exponentialVerdict.meanOK, "mean check must detect mean 1 vs 1.03")
        XCTAssertFalse(exponentialVerdict.varianceOK, "variance check must detect variance 1 vs 1.0609")

        let gammaSamples = StatisticalChecks.draw(GammaDistribution(shape: 2.5, rate: 1), n: n, seed: 902)
        // Same mean 2.5; variance 2.72 instead of 2.5; sup |F − G| ≈ 0.015, three times the KS critical value.
        let wrongGamma = GammaDistribution(shape: 2.3, rate: 0.92)
        let gammaVerdict = StatisticalChecks.evaluate(
            gammaSamples, moments: TheoreticalMoments(raw: gammaMoments(shape: 2.3, rate: 0.92)),
            cdf: wrongGamma.cdf)
        XCTAssertTrue(gammaVerdict.meanOK, "the wrong gamma has the right mean")
        XCTAssertFalse(gammaVerdict.varianceOK, "variance check must detect 2.5 vs 2.72")
        XCTAssertFalse(gammaVerdict.ksOK, "KS must detect shape 2.5 vs 2.3 at equal mean")
    }
}
