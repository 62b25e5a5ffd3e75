import GapFamilies
import Randomness
import XCTest

/// Each family's description: names, parameters, typical gaps, one-line descriptions and samplers.
final class GapFamilyTests: XCTestCase {
    func testNamesAndParametersAreDistinct() {
        let names = GapFamily.allCases.map(\.name)
        XCTAssertEqual(names, ["exponential", "weibull", "lognormal", "gamma", "bgnbd", "paretoNBD"])
        for family in GapFamily.allCases {
            let fields = family.parameters.flatMap { [$0.name] + ($0.alternative.map { [$0.name] } ?? []) }
            XCTAssertEqual(Set(fields).count, fields.count, family.name)
            XCTAssertFalse(fields.contains("unit"), family.name)
            XCTAssertFalse(family.parameters.contains { $0.meaning.isEmpty }, family.name)
        }
    }

    func testBoundsAcceptWhatAScenarioAccepts() {
        let mean = GapFamily.exponential.parameters[0].bounds
        XCTAssertFalse(mean.contains(0))
        XCTAssertTrue(mean.contains(1e6))
        XCTAssertFalse(mean.contains(1e6.nextUp))
        XCTAssertFalse(mean.contains(.nan))
        let shape = GapFamily.weibull.parameters[0].bounds
        XCTAssertTrue(shape.contains(0.05))
        XCTAssertFalse(shape.contains(50.5))
        XCTAssertTrue(GapFamily.lognormal.parameters[0].bounds.contains(-50))
        XCTAssertFalse(GapFamily.lognormal.parameters[1].bounds.contains(10.5))
        let median = GapFamily.lognormal.parameters[0].alternative
        XCTAssertEqual(median?.name, "median")
        XCTAssertEqual(median.map { $0.parameter(4) } ?? .nan, log(4), accuracy: 1e-15)
    }

    func testTypicalGaps() {
        XCTAssertEqual(GapFamily.exponential.typicalGap([3]).value, 3)
        XCTAssertEqual(GapFamily.weibull.typicalGap([1, 2]).value, 2, accuracy: 1e-12)
        XCTAssertEqual(GapFamily.lognormal.typicalGap([log(5), 1]).value, 5, accuracy: 1e-12)
        XCTAssertEqual(GapFamily.lognormal.typicalGap([0, 1]).field, "")
        XCTAssertEqual(GapFamily.gamma.typicalGap([0.5, 4]).value, 4)
        XCTAssertEqual(GapFamily.gamma.typicalGap([0.5, 4]).field, "mean")
        XCTAssertEqual(GapFamily.bgnbd.typicalGap([2, 6, 1, 1]).value, 3)
        XCTAssertEqual(GapFamily.bgnbd.typicalGap([2, 6, 1, 1]).field, "alpha")
    }

    func testDescriptions() {
        XCTAssertEqual(GapFamily.exponential.describe([10], unit: "days"), "exponential, mean 10 days")
        XCTAssertEqual(GapFamily.weibull.describe([0.8, 1], unit: "days"), "Weibull, shape 0.8, scale 1 days")
        XCTAssertEqual(GapFamily.lognormal.describe([log(4), 1], unit: "hours"), "lognormal, median 4 hours, sigma 1")
        XCTAssertEqual(GapFamily.gamma.describe([0.5, 4], unit: "days"), "gamma, shape 0.5, mean 4 days")
        XCTAssertEqual(GapFamily.bgnbd.describe([0.24, 4.4, 0.79, 2.4], unit: "weeks"),
                       "BG/NBD, r 0.24, alpha 4.4 (per week), a 0.79, b 2.4")
        XCTAssertEqual(GapFamily.paretoNBD.describe([0.55, 10.58, 0.61, 11.67], unit: "weeks"),
                       "Pareto/NBD, r 0.55, alpha 10.58, s 0.61, beta 11.67 (per week)")
    }

    /// The samplers are the distributions the simulation always drew from, in seconds, so runs keep their draws.
    func testSamplersScaleToSeconds() {
        guard case let .exponential(e) = GapFamily.exponential.sampler([2], unitSeconds: 3_600) else { return XCTFail() }
        XCTAssertEqual(e, ExponentialDistribution(mean: 7_200))
        guard case let .weibull(w) = GapFamily.weibull.sampler([0.8, 2], unitSeconds: 60) else { return XCTFail() }
        XCTAssertEqual(w, WeibullDistribution(shape: 0.8, scale: 120))
        guard case let .lognormal(l) = GapFamily.lognormal.sampler([1, 0.5], unitSeconds: 86_400) else { return XCTFail() }
        XCTAssertEqual(l, LogNormalDistribution(mu: 1 + log(86_400), sigma: 0.5))
        guard case .perUser = GapFamily.bgnbd.sampler([1, 2, 3, 4], unitSeconds: 1) else { return XCTFail() }
        guard case let .dropoutChance(rate, chance) = GapFamily.bgnbd.mixing([1, 2, 3, 4]) else { return XCTFail() }
        XCTAssertEqual(rate, GammaDistribution(shape: 1, rate: 2))
        XCTAssertEqual(chance, BetaDistribution(a: 3, b: 4))
        guard case .perUser = GapFamily.paretoNBD.sampler([1, 2, 3, 4], unitSeconds: 1) else { return XCTFail() }
        guard case let .dropoutRate(lambda, mu) = GapFamily.paretoNBD.mixing([1, 2, 3, 4]) else { return XCTFail() }
        XCTAssertEqual(lambda, GammaDistribution(shape: 1, rate: 2))
        XCTAssertEqual(mu, GammaDistribution(shape: 3, rate: 4))
        XCTAssertNil(GapFamily.weibull.mixing([1, 2]))
    }

    /// Every family with a likelihood: its density is minus the slope of its survival (checked by
    /// Simpson's rule between quantiles of the typical gap), the survival falls from 1, and values
    /// outside the family's domain give no trap.
    func testLikelihoodDensityAndSurvivalAgree() throws {
        for family in GapFamily.allCases {
            guard let likelihood = family.likelihood else {
                XCTAssertNotNil(family.mixing(family.parameters.map { _ in 1 }), "\(family.name) has neither likelihood nor mixing")
                continue
            }
            let values = family.parameters.map { p -> Double in
                switch p.bounds {
                case let .positiveUpTo(limit): return min(1.7, limit)
                case let .within(range): return min(max(1.3, range.lowerBound), range.upperBound)
                }
            }
            let typical = family.typicalGap(values).value
            XCTAssertEqual(likelihood.logSurvival(1e-12 * typical, values), 0, accuracy: 1e-3, family.name)
            for (a, b) in [(0.2, 0.7), (0.7, 1.5), (1.5, 4.0)].map({ ($0 * typical, $1 * typical) }) {
                let steps = 400
                let h = (b - a) / Double(steps)
                var integral = 0.0
                for k in 0...steps {
                    let weight: Double = k == 0 || k == steps ? 1 : (k % 2 == 1 ? 4 : 2)
                    integral += weight * exp(likelihood.logDensity(a + Double(k) * h, values))
                }
                integral *= h / 3
                let drop = exp(likelihood.logSurvival(a, values)) - exp(likelihood.logSurvival(b, values))
                XCTAssertEqual(integral, drop, accuracy: 1e-8, "\(family.name) on [\(a), \(b)]")
            }
            let start = likelihood.start(GapMoments([0.5, 1, 2, 4].map { $0 * typical }))
            XCTAssertEqual(start.count, values.count, family.name)
            XCTAssertTrue(zip(family.parameters, start).allSatisfy { $0.bounds.contains($1) }, "\(family.name) starts at \(start)")
        }
    }

    /// A fit searches positive parameters over their logarithms and others as they are.
    func testParametersHaveAnUnconstrainedScale() {
        let weibull = GapFamily.weibull.parameters
        XCTAssertTrue(weibull.allSatisfy(\.isPositive))
        XCTAssertEqual(weibull[0].unconstrained(2), log(2))
        XCTAssertEqual(weibull[1].constrained(log(3)), 3, accuracy: 1e-15)
        let mu = GapFamily.lognormal.parameters[0]
        XCTAssertFalse(mu.isPositive)
        XCTAssertEqual(mu.unconstrained(-2), -2)
        XCTAssertEqual(mu.constrained(-2), -2)
        let m = GapMoments([1, 2, 4])
        XCTAssertEqual(m.mean, 7.0 / 3, accuracy: 1e-15)
        XCTAssertEqual(m.variance, (16.0 / 9 + 1.0 / 9 + 25.0 / 9) / 3, accuracy: 1e-15)
        XCTAssertEqual(m.logMean, log(2), accuracy: 1e-15)
        XCTAssertEqual(m.logVariance, 2 * log(2) * log(2) / 3, accuracy: 1e-15)
    }

    /// The gamma family's sampler draws gamma gaps in seconds: sample mean and variance within five
    /// standard errors of shape·scale and shape·scale², and the Kolmogorov–Smirnov distance to the
    /// gamma CDF below 1.95/√n (a 0.1% level), for a shape below 1 (the boosted draw) and above.
    func testGammaSamplerDrawsGammaGaps() throws {
        let n = 20_000
        for (seed, shape, mean) in [(UInt64(81), 2.5, 3.0), (82, 0.4, 1.5)] {
            guard case let .other(distribution) = GapFamily.gamma.sampler([shape, mean], unitSeconds: 3_600) else {
                return XCTFail("gamma compiles to a distribution drawn through its protocol")
            }
            let gamma = try XCTUnwrap(distribution as? GammaDistribution)
            XCTAssertEqual(gamma, GammaDistribution(shape: shape, scale: mean * 3_600 / shape))
            var generator = Xoshiro256(seed: seed)
            let draws = (0..<n).map { _ in distribution.sample(&generator) }
            let scale = mean * 3_600 / shape
            let m = draws.reduce(0, +) / Double(n)
            let variance = draws.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(n - 1)
            // Var of the sample variance: (μ₄ − σ⁴(n−3)/(n−1))/n with μ₄ = 3k(k+2)θ⁴ for Gamma(k, θ).
            let sigma2 = shape * scale * scale
            let mu4 = 3 * shape * (shape + 2) * pow(scale, 4)
            XCTAssertEqual(m, shape * scale, accuracy: 5 * (sigma2 / Double(n)).squareRoot(), "mean, shape \(shape)")
            XCTAssertEqual(variance, sigma2, accuracy: 5 * ((mu4 - sigma2 * sigma2 * Double(n - 3) / Double(n - 1)) / Double(n)).squareRoot(),
                           "variance, shape \(shape)")
            var ks = 0.0
            for (i, x) in draws.sorted().enumerated() {
                let f = regularizedGammaP(a: shape, x: x / scale)
                ks = max(ks, f - Double(i) / Double(n), Double(i + 1) / Double(n) - f)
            }
            XCTAssertLessThan(ks, 1.95 / Double(n).squareRoot(), "KS, shape \(shape)")
        }
    }

    /// The gamma likelihood against closed forms computed apart from the incomplete gamma function:
    /// the density from the C library's tgamma, and the survival Q(3, x) = e^−x (1 + x + x²/2) for
    /// shape 3 and Q(1/2, x) = erfc(√x) for shape 1/2.
    func testGammaLikelihoodMatchesClosedForms() throws {
        let likelihood = try XCTUnwrap(GapFamily.gamma.likelihood)
        for (shape, mean) in [(3.0, 2.0), (0.5, 4.0), (7.3, 0.2)] {
            let rate = shape / mean
            for t in [0.05, 0.7, 2.0, 9.0] {
                let density = pow(rate, shape) * pow(t, shape - 1) * exp(-rate * t) / tgamma(shape)
                XCTAssertEqual(likelihood.logDensity(t, [shape, mean]), log(density), accuracy: 1e-12 * max(1, abs(log(density))))
            }
        }
        for t in [0.1, 1.0, 3.0, 12.0] {
            let x = 3 * t / 2
            XCTAssertEqual(likelihood.logSurvival(t, [3, 2]), -x + log(1 + x + x * x / 2), accuracy: 1e-12 * max(1, x))
            let y = 0.5 * t / 4
            XCTAssertEqual(likelihood.logSurvival(t, [0.5, 4]), log(erfc(y.squareRoot())), accuracy: 1e-12 * max(1, y))
        }
        // Outside the domain: no trap, no number.
        XCTAssertTrue(likelihood.logSurvival(1, [0, 2]).isNaN)
        XCTAssertTrue(likelihood.logDensity(1, [2, .infinity]).isNaN)
        XCTAssertTrue(likelihood.logSurvival(1, [.nan, 2]).isNaN)
    }
}
