import Fitting
import Foundation
import GapFamilies
import Randomness
import RecordedData
import XCTest

/// The gamma gap model, fitted from its family's likelihood alone.
final class GammaFitTests: XCTestCase {
    let gamma = GapModel(.gamma)!

    /// ln f(t) = a ln(a/m) − ln Γ(a) + (a − 1) ln t − a t/m, written out with the C library's tgamma.
    func handLogDensity(_ t: Double, shape a: Double, mean m: Double) -> Double {
        log(pow(a / m, a) * pow(t, a - 1) * exp(-a * t / m) / tgamma(a))
    }

    func testRecoversShapeAndMeanFromCensoredGaps() throws {
        for (seed, shape, mean) in [(UInt64(7201), 2.0, 3.0), (7202, 0.6, 5.0)] {
            var generator = Xoshiro256(seed: seed)
            let data = simulateGaps(GammaDistribution(shape: shape, scale: mean / shape), subjects: 400, window: 30,
                                    generator: &generator)
            XCTAssertGreaterThan(data.filter(\.censored).count, 300)
            let fit = try gamma.fit(data)
            XCTAssertTrue(fit.converged)
            XCTAssertEqual(fit.modelName, "Gamma")
            assertWithinStandardErrors(fit.parameters["shape"], truth: shape)
            assertWithinStandardErrors(fit.parameters["mean"], truth: mean)
            XCTAssertEqual(fit.familyValues, fit.parameters.map(\.value))
        }
    }

    /// The fit's log-likelihood is Σ ln f over the ended gaps and Σ ln Q(a, a t/m) over the censored
    /// ones, here written out by hand.
    func testLogLikelihoodIsTheClosedForm() throws {
        let ended = [0.4, 1.3, 2.2, 2.9, 4.1, 6.5, 0.9, 3.3]
        let running = [5.0, 1.7, 8.2]
        let data = ended.map { CensoredGap(duration: $0, censored: false) } + running.map { CensoredGap(duration: $0, censored: true) }
        let fit = try gamma.fit(data)
        let (a, m) = (fit.familyValues[0], fit.familyValues[1])
        let hand = ended.reduce(0) { $0 + handLogDensity($1, shape: a, mean: m) }
            + running.reduce(0) { $0 + log(regularizedGammaQ(a: a, x: a * $1 / m)) }
        XCTAssertEqual(fit.logLikelihood, hand, accuracy: 1e-9 * abs(hand))
        XCTAssertEqual(fit.aic, 4 - 2 * hand, accuracy: 1e-8 * abs(hand))
        // At the optimum the score is zero: nudging either parameter lowers the hand-written likelihood.
        for (da, dm) in [(1e-3, 0.0), (-1e-3, 0), (0, 1e-3), (0, -1e-3)] {
            let nudged = ended.reduce(0) { $0 + handLogDensity($1, shape: a * (1 + da), mean: m * (1 + dm)) }
                + running.reduce(0) { $0 + log(regularizedGammaQ(a: a * (1 + da), x: a * (1 + da) * $1 / (m * (1 + dm)))) }
            XCTAssertLessThan(nudged, hand)
        }
    }

    /// Over repeated samples (θ̂ − θ)/SE is roughly standard normal: its SD is within 0.2 of 1 (a
    /// 4-sigma band for 200 replicates, as in GapModelTests), its mean within 0.3 of 0, and the
    /// ±1.96 SE interval holds the truth in 95% ± 6% of them (4 binomial SDs of 200 trials is 6%).
    func testStandardErrorsCoverTheTruth() throws {
        var generator = Xoshiro256(seed: 7203)
        let (shape, mean) = (1.5, 2.0)
        var z: [[Double]] = [[], []]
        for _ in 0..<200 {
            let data = simulateGaps(GammaDistribution(shape: shape, scale: mean / shape), subjects: 50, window: 10,
                                    generator: &generator)
            let fit = try gamma.fit(data)
            for (i, truth) in [shape, mean].enumerated() {
                z[i].append((fit.parameters[i].value - truth) / (fit.parameters[i].standardError ?? .nan))
            }
        }
        for (name, zs) in zip(["shape", "mean"], z) {
            let (m, se) = meanAndStandardError(zs)
            let sd = se * Double(zs.count).squareRoot()
            let covered = Double(zs.filter { abs($0) < 1.96 }.count) / Double(zs.count)
            print(String(format: "gamma %@ over 200 fits: z mean %+.3f, SD %.3f, 95%% interval covers %.3f", name, m, sd, covered))
            XCTAssertEqual(m, 0, accuracy: 0.3, name)
            XCTAssertEqual(sd, 1, accuracy: 0.2, name)
            XCTAssertEqual(covered, 0.95, accuracy: 0.06, name)
        }
    }

    func testGapsWithNoSpreadAreRefused() {
        let identical = Array(repeating: CensoredGap(duration: 2, censored: false), count: 20)
        XCTAssertThrowsError(try gamma.fit(identical)) { error in
            guard case .degenerateData = error as? FittingError else { return XCTFail("\(error)") }
        }
    }

    /// One ended gap with no longer censored one is a spike too, for every family with a shape (the gamma
    /// once reached a shape of 9e38 and a log-likelihood of 1e25, first in the table); a censored gap
    /// past it gives the search something to fit.
    func testOneEndedGapAloneIsRefused() throws {
        // A censored gap a second longer (of 152 days, in days) is no spread either: the spike narrows to that second.
        for censored in [[], [CensoredGap(duration: 1, censored: true)], [CensoredGap(duration: 152 + 1.0 / 86_400, censored: true)]] {
            for model in [gamma, GapModel(.weibull)!, GapModel(.lognormal)!] {
                XCTAssertThrowsError(try model.fit([CensoredGap(duration: 152, censored: false)] + censored)) { error in
                    guard case let .degenerateData(reason) = error as? FittingError else { return XCTFail("\(error)") }
                    XCTAssertEqual(reason, "only one gap ended, and no user was seen away for much longer: the events have no spread")
                }
            }
        }
        let fit = try gamma.fit([CensoredGap(duration: 2, censored: false), CensoredGap(duration: 5, censored: true)])
        XCTAssertTrue(fit.logLikelihood.isFinite && fit.logLikelihood < 0, "\(fit.logLikelihood)")
        XCTAssertLessThan(fit.parameters[0].value, 1e6, "shape")
    }

    func testRefitsWithAFixedDropout() throws {
        var generator = Xoshiro256(seed: 7204)
        let gaps = simulateGaps(GammaDistribution(shape: 2, scale: 1), subjects: 1000, window: 60, dropout: 0.2,
                                generator: &generator)
        let plateau = KaplanMeier(gaps).plateau
        let plain = try gamma.fit(gaps)
        let refit = try gamma.fit(gaps, dropout: plateau, from: plain)
        XCTAssertTrue(refit.converged)
        // Held at the true dropout the refit finds the gaps again; the plain fit stretches its tail instead.
        let truth = try gamma.fit(gaps, dropout: 0.2, from: plain)
        XCTAssertEqual(truth.familyValues[0], 2, accuracy: 4 * (plain.parameters[0].standardError ?? 0))
        XCTAssertEqual(truth.familyValues[1], 2, accuracy: 4 * (plain.parameters[1].standardError ?? 0))
        XCTAssertGreaterThan(plain.familyValues[1], truth.familyValues[1])
    }
}
