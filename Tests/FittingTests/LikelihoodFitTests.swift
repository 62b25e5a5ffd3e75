import Fitting
import Foundation
import GapFamilies
import Randomness
import RecordedData
import XCTest

/// The fit from a family's likelihood alone (`GapModel.fitByLikelihood`), the one a family without a
/// fit of its own gets, against the exponential, Weibull and lognormal fits, which reach the same
/// optimum by other roads (closed form, profile likelihood, analytic information).
final class LikelihoodFitTests: XCTestCase {
    func testEveryFamilyWithALikelihoodIsAModel() {
        let withLikelihood = GapFamily.allCases.filter { $0.likelihood != nil }
        XCTAssertEqual(GapModel.allCases.map(\.family), withLikelihood)
        XCTAssertNil(GapModel(.bgnbd))
        XCTAssertEqual(GapModel(.weibull), .weibull)
    }

    func testTheGenericFitFindsTheSpecialisedOptimaAndStandardErrors() throws {
        var generator = Xoshiro256(seed: 7101)
        let cases: [(GapModel, [CensoredGap])] = [
            (.exponential, simulateGaps(ExponentialDistribution(mean: 3), subjects: 300, window: 20, generator: &generator)),
            (.weibull, simulateGaps(WeibullDistribution(shape: 0.8, scale: 4), subjects: 300, window: 20, generator: &generator)),
            (.logNormal, simulateGaps(LogNormalDistribution(mu: 1, sigma: 0.9), subjects: 300, window: 20, generator: &generator)),
        ]
        for (model, data) in cases {
            let special = try model.fit(data)
            let generic = try model.fitByLikelihood(data)
            let name = model.name
            XCTAssertTrue(generic.converged, name)
            XCTAssertEqual(generic.logLikelihood, special.logLikelihood, accuracy: 1e-7 * abs(special.logLikelihood), name)
            XCTAssertEqual(generic.familyValues.count, special.familyValues.count, name)
            for (g, s) in zip(generic.familyValues, special.familyValues) {
                XCTAssertEqual(g, s, accuracy: 1e-5 * abs(s), name)
            }
            // The exponential's own fit estimates the rate; the family's parameter is the mean, whose
            // standard error is the rate's over the rate squared.
            let specialErrors = model == .exponential
                ? special.parameters.map { ($0.standardError ?? .nan) / ($0.value * $0.value) }
                : special.parameters.map { $0.standardError ?? .nan }
            for (g, s) in zip(generic.parameters.map { $0.standardError ?? .nan }, specialErrors) {
                XCTAssertEqual(g, s, accuracy: 1e-3 * s, name)
            }
            XCTAssertEqual(generic.survival(2), special.survival(2), accuracy: 1e-5, name)
        }
    }

    func testDataThatCannotPinAParameterDownIsRefused() {
        // Every gap the same: the Weibull shape grows without bound.
        let identical = Array(repeating: CensoredGap(duration: 2, censored: false), count: 20)
        XCTAssertThrowsError(try GapModel.weibull.fitByLikelihood(identical)) { error in
            guard case .degenerateData = error as? FittingError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try GapModel.weibull.fitByLikelihood([])) { XCTAssertEqual($0 as? FittingError, .emptyData) }
    }
}
