import Fitting
import Foundation
import Randomness
import RecordedData
import XCTest

// Why 4 standard errors: an MLE is asymptotically normal, so a correct fit misses a 4-SE band with
// probability 6e−5 per parameter; over the ~30 such checks in this target the chance of any false
// alarm is about 0.2 %, while a 2-SE band would fail one check or another most of the time. The
// seeds are fixed, and a wrong likelihood or SE typically misses by far more than 4 SE with these
// sample sizes. `testStandardErrorsAreCalibrated` guards against the opposite failure (inflated SEs
// that would make any band pass).

final class GapModelTests: XCTestCase {
    /// Σ ln f + Σ ln S through the public density/survival, independent of the fitting code paths.
    private func logLikelihood(_ distribution: GapDistribution, _ data: [CensoredGap]) -> Double {
        data.reduce(0) { $0 + ($1.censored ? log(distribution.survival($1.duration)) : log(distribution.density($1.duration))) }
    }

    private func report(_ fit: FitResult, truth: [Double], censoredShare: Double) {
        let pairs = zip(fit.parameters, truth).map { p, t in
            String(format: "%@ %.4f ± %.4f (truth %.4f, z = %+.2f)", p.name, p.value, p.standardError ?? .nan, t, (p.value - t) / (p.standardError ?? .nan))
        }
        print("\(fit.modelName): \(pairs.joined(separator: "; ")); censored \(String(format: "%.0f", 100 * censoredShare)) %, n = \(fit.n), iterations \(fit.iterations)")
    }

    private func censoredShare(_ data: [CensoredGap]) -> Double {
        Double(data.filter(\.censored).count) / Double(data.count)
    }

    func testExponentialRecovery() throws {
        var generator = Xoshiro256(seed: 101)
        let data = simulateGaps(ExponentialDistribution(rate: 0.2), subjects: 400, window: 30, generator: &generator)
        let fit = try GapModel.exponential.fit(data)
        report(fit, truth: [0.2], censoredShare: censoredShare(data))
        assertWithinStandardErrors(fit.parameters["rate"], truth: 0.2)
        let events = Double(fit.uncensoredCount)
        XCTAssertEqual(fit.parameters[0].value, events / data.reduce(0) { $0 + $1.duration }, accuracy: 1e-15)
        XCTAssertEqual(fit.logLikelihood, logLikelihood(fit.distribution, data), accuracy: 1e-8 * abs(fit.logLikelihood))
        XCTAssertEqual(fit.aic, 2 - 2 * fit.logLikelihood, accuracy: 1e-9)
        XCTAssertEqual(fit.survival(5), exp(-fit.parameters[0].value * 5), accuracy: 1e-15)
    }

    func testWeibullRecoveryRisingAndFallingHazard() throws {
        for (seed, shape, scale) in [(UInt64(202), 1.5, 8.0), (203, 0.7, 3.0)] {
            var generator = Xoshiro256(seed: seed)
            let data = simulateGaps(WeibullDistribution(shape: shape, scale: scale), subjects: 300, window: 40, generator: &generator)
            let fit = try GapModel.weibull.fit(data)
            report(fit, truth: [shape, scale], censoredShare: censoredShare(data))
            XCTAssertTrue(fit.converged)
            assertWithinStandardErrors(fit.parameters["shape"], truth: shape)
            assertWithinStandardErrors(fit.parameters["scale"], truth: scale)
            XCTAssertEqual(fit.logLikelihood, logLikelihood(fit.distribution, data), accuracy: 1e-8 * abs(fit.logLikelihood))
        }
    }

    func testLogNormalRecovery() throws {
        var generator = Xoshiro256(seed: 303)
        let data = simulateGaps(LogNormalDistribution(mu: 1.5, sigma: 0.8), subjects: 300, window: 30, generator: &generator)
        let fit = try GapModel.logNormal.fit(data)
        report(fit, truth: [1.5, 0.8], censoredShare: censoredShare(data))
        XCTAssertTrue(fit.converged)
        assertWithinStandardErrors(fit.parameters["mu"], truth: 1.5)
        assertWithinStandardErrors(fit.parameters["sigma"], truth: 0.8)
        XCTAssertEqual(fit.logLikelihood, logLikelihood(fit.distribution, data), accuracy: 1e-8 * abs(fit.logLikelihood))
    }

    func testHeavyCensoring() throws {
        // Window far shorter than the typical gap: most subjects contribute only a censored gap.
        var generator = Xoshiro256(seed: 404)
        let weibullData = simulateGaps(WeibullDistribution(shape: 1.3, scale: 20), subjects: 1500, window: 6, generator: &generator)
        XCTAssertGreaterThan(censoredShare(weibullData), 0.75)
        let weibull = try GapModel.weibull.fit(weibullData)
        report(weibull, truth: [1.3, 20], censoredShare: censoredShare(weibullData))
        assertWithinStandardErrors(weibull.parameters["shape"], truth: 1.3)
        assertWithinStandardErrors(weibull.parameters["scale"], truth: 20)

        let logNormalData = simulateGaps(LogNormalDistribution(mu: 3, sigma: 1), subjects: 1500, window: 8, generator: &generator)
        XCTAssertGreaterThan(censoredShare(logNormalData), 0.75)
        let logNormal = try GapModel.logNormal.fit(logNormalData)
        report(logNormal, truth: [3, 1], censoredShare: censoredShare(logNormalData))
        XCTAssertTrue(logNormal.converged)
        assertWithinStandardErrors(logNormal.parameters["mu"], truth: 3)
        assertWithinStandardErrors(logNormal.parameters["sigma"], truth: 1)

        let exponentialData = simulateGaps(ExponentialDistribution(rate: 0.02), subjects: 1500, window: 10, generator: &generator)
        let exponential = try GapModel.exponential.fit(exponentialData)
        report(exponential, truth: [0.02], censoredShare: censoredShare(exponentialData))
        assertWithinStandardErrors(exponential.parameters["rate"], truth: 0.02)
    }

    func testStandardErrorsAreCalibrated() throws {
        // Over repeated samples (θ̂ − θ)/SE should be roughly standard normal. With 200 replicates the
        // sample SD of z has its own SD ≈ 1/√400 = 0.05, so [0.8, 1.2] is a 4-sigma band, and the mean
        // of z is within ±0.3 (4 · 1/√200 ≈ 0.28 plus O(1/n) MLE bias).
        var generator = Xoshiro256(seed: 505)
        var zShape: [Double] = []
        var zScale: [Double] = []
        var zMu: [Double] = []
        for _ in 0..<200 {
            let weibullData = simulateGaps(WeibullDistribution(shape: 1.2, scale: 5), subjects: 60, window: 12, generator: &generator)
            let weibull = try GapModel.weibull.fit(weibullData)
            zShape.append((weibull.parameters[0].value - 1.2) / weibull.parameters[0].standardError!)
            zScale.append((weibull.parameters[1].value - 5) / weibull.parameters[1].standardError!)
            let logNormalData = simulateGaps(LogNormalDistribution(mu: 1, sigma: 0.6), subjects: 40, window: 6, generator: &generator)
            let logNormal = try GapModel.logNormal.fit(logNormalData)
            zMu.append((logNormal.parameters[0].value - 1) / logNormal.parameters[0].standardError!)
        }
        for (name, z) in [("shape", zShape), ("scale", zScale), ("mu", zMu)] {
            let (mean, se) = meanAndStandardError(z)
            let sd = se * Double(z.count).squareRoot()
            print(String(format: "z-scores of %@ over 200 fits: mean %+.3f, SD %.3f", name, mean, sd))
            XCTAssertEqual(mean, 0, accuracy: 0.3, name)
            XCTAssertEqual(sd, 1, accuracy: 0.2, name)
        }
    }

    func testWeibullAgreesWithGenericOptimiserAndNumericalInformation() throws {
        // Independent path: Nelder–Mead on the full two-parameter likelihood, and central-difference
        // information, against the profile-likelihood root and analytic information.
        var generator = Xoshiro256(seed: 606)
        let data = simulateGaps(WeibullDistribution(shape: 2.2, scale: 4), subjects: 200, window: 10, generator: &generator)
        let fit = try GapModel.weibull.fit(data)
        let negative: ([Double]) -> Double = { p in
            p[0] > 0 && p[1] > 0 ? -self.logLikelihood(.weibull(shape: p[0], scale: p[1]), data) : .infinity
        }
        let search = NelderMead().minimize(negative, from: [1, 1])
        XCTAssertEqual(search.point[0], fit.parameters[0].value, accuracy: 1e-5)
        XCTAssertEqual(search.point[1], fit.parameters[1].value, accuracy: 1e-5)
        XCTAssertEqual(-search.value, fit.logLikelihood, accuracy: 1e-8)

        let estimate = fit.parameters.map(\.value)
        let hessian = NumericalDerivatives.hessian(of: negative, at: estimate, steps: estimate.map { 1e-4 * $0 })
        let det = hessian[0][0] * hessian[1][1] - hessian[0][1] * hessian[1][0]
        let numericalSE = [(hessian[1][1] / det).squareRoot(), (hessian[0][0] / det).squareRoot()]
        for i in 0..<2 {
            XCTAssertEqual(fit.parameters[i].standardError!, numericalSE[i], accuracy: 1e-4 * numericalSE[i])
        }
    }

    func testSurvivalFunctions() {
        XCTAssertEqual(GapDistribution.weibull(shape: 2, scale: 3).survival(3), exp(-1), accuracy: 1e-15)
        XCTAssertEqual(GapDistribution.logNormal(mu: log(4), sigma: 0.5).survival(4), 0.5, accuracy: 1e-15)
        // Deep tail: S = Q(40) ≈ 3.7e−350 underflows, but it must be 0 or tiny, never NaN.
        let deep = GapDistribution.logNormal(mu: 0, sigma: 1).survival(exp(40))
        XCTAssertFalse(deep.isNaN)
        XCTAssertEqual(GapDistribution.exponential(rate: 2).survival(0), 1)
    }

    func testErrors() {
        XCTAssertThrowsError(try GapModel.weibull.fit([])) { XCTAssertEqual($0 as? FittingError, .emptyData) }
        XCTAssertThrowsError(try GapModel.exponential.fit([CensoredGap(duration: 3, censored: true)])) {
            XCTAssertEqual($0 as? FittingError, .noUncensoredObservations)
        }
        XCTAssertThrowsError(try GapModel.logNormal.fit([CensoredGap(duration: -1, censored: false)])) {
            XCTAssertEqual($0 as? FittingError, .invalidObservation(index: 0))
        }
        let identical = Array(repeating: CensoredGap(duration: 2, censored: false), count: 5)
        for model in [GapModel.weibull, .logNormal] {
            XCTAssertThrowsError(try model.fit(identical)) { error in
                guard case .degenerateData = error as? FittingError else { return XCTFail("\(model): \(error)") }
            }
        }
    }

    func testDescriptionNamesEverything() throws {
        let data = [1.0, 2, 3, 5, 8].map { CensoredGap(duration: $0, censored: false) } + [CensoredGap(duration: 4, censored: true)]
        let text = try GapModel.weibull.fit(data).description
        for word in ["Weibull", "shape", "scale", "logL", "AIC", "converged"] {
            XCTAssertTrue(text.contains(word), text)
        }
    }
}
