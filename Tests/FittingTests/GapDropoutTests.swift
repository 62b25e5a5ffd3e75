import Fitting
import Foundation
import Randomness
import RecordedData
import XCTest

/// Gap models refitted for users who never come back after a session with a fixed chance.
final class GapDropoutTests: XCTestCase {
    func testRefitWithTheTrueDropoutRecoversTheGapDistribution() throws {
        // Weibull gaps (shape 0.8, scale 3 days) and a 20% chance of never returning, watched for 200 days:
        // a gap that has not ended after 200 days almost surely never will, so Kaplan–Meier's plateau
        // estimates the dropout; refitted with it, the gap model must find the truth within 4 standard
        // errors, while the plain fit, stretching its tail over the dropouts, must not.
        var generator = Xoshiro256(seed: 2801)
        let truth = WeibullDistribution(shape: 0.8, scale: 3)
        let gaps = simulateGaps(truth, subjects: 3000, window: 200, dropout: 0.2, generator: &generator)
        let plateau = KaplanMeier(gaps).plateau
        let sessions = Double(gaps.count)
        XCTAssertEqual(plateau, 0.2, accuracy: 4 * (0.2 * 0.8 / sessions).squareRoot())

        let plain = try GapModel.weibull.fit(gaps)
        let refit = try GapModel.weibull.fit(gaps, dropout: plateau, from: plain)
        XCTAssertTrue(refit.converged)
        XCTAssertEqual(refit.dropout, plateau)
        let shapeSE = try XCTUnwrap(plain.parameters["shape"]?.standardError)
        let scaleSE = try XCTUnwrap(plain.parameters["scale"]?.standardError)
        XCTAssertEqual(refit.familyValues[0], 0.8, accuracy: 4 * shapeSE, "shape")
        XCTAssertEqual(refit.familyValues[1], 3, accuracy: 4 * scaleSE, "scale")
        XCTAssertGreaterThan(abs(plain.familyValues[0] - 0.8), 4 * shapeSE, "the plain fit's shape is pulled down")
        XCTAssertGreaterThan(refit.logLikelihood, plain.logLikelihood, "one more (fixed) parameter that fits better")

        // With no dropout the refit is the plain fit.
        let none = try GapModel.weibull.fit(gaps, dropout: 0, from: plain)
        XCTAssertEqual(none.familyValues[0], plain.familyValues[0], accuracy: 1e-6 * plain.familyValues[0])
        XCTAssertEqual(none.logLikelihood, plain.logLikelihood, accuracy: 1e-6 * abs(plain.logLikelihood))
        XCTAssertThrowsError(try GapModel.weibull.fit(gaps, dropout: 1, from: plain))
    }

    func testEachFamilyRefits() throws {
        var generator = Xoshiro256(seed: 2802)
        let gaps = simulateGaps(ExponentialDistribution(mean: 2), subjects: 1000, window: 100, dropout: 0.1, generator: &generator)
        let plateau = KaplanMeier(gaps).plateau
        for model in GapModel.allCases {
            let plain = try model.fit(gaps)
            let refit = try model.fit(gaps, dropout: plateau, from: plain)
            XCTAssertTrue(refit.converged, model.name)
            XCTAssertEqual(refit.familyValues.count, model.family.parameters.count, model.name)
            XCTAssertTrue(refit.familyValues.allSatisfy(\.isFinite), model.name)
            if model == .exponential {
                // The mean is 1/rate, whose standard error is the rate's divided by the rate squared.
                let rate = try XCTUnwrap(plain.parameters["rate"])
                let se = try XCTUnwrap(rate.standardError) / (rate.value * rate.value)
                XCTAssertEqual(refit.familyValues[0], 2, accuracy: 4 * se, "exponential mean")
            }
        }
    }
}
