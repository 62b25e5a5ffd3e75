import Fitting
import Foundation
import RecordedData
import XCTest

/// A fit is written to a scenario's segments only when every value is one a scenario accepts.
final class FitUsabilityTests: XCTestCase {
    /// Gaps spread so narrowly around one value that the Weibull shape lands far above 50, the largest
    /// a scenario accepts.
    func testAWeibullShapeAScenarioRefusesIsNamed() throws {
        let data = (0..<200).map { CensoredGap(duration: 1 + Double($0) * 1e-5, censored: false) }
        let fit = try GapModel.weibull.fit(data)
        XCTAssertGreaterThan(fit.parameters[0].value, 50)
        let problem = try XCTUnwrap(FitAnalysis.problem(of: fit))
        XCTAssertTrue(problem.hasPrefix("shape = "), problem)
        XCTAssertTrue(problem.hasSuffix(" is outside what a scenario accepts"), problem)
    }

    /// Gaps whose logarithms spread by more than 10, the largest lognormal sigma a scenario accepts.
    func testALognormalSigmaAScenarioRefusesIsNamed() throws {
        let data = (0..<200).map { CensoredGap(duration: exp($0.isMultiple(of: 2) ? -12 : 12) * (1 + Double($0) * 1e-3), censored: false) }
        let fit = try GapModel.logNormal.fit(data)
        XCTAssertGreaterThan(fit.parameters[1].value, 10)
        let problem = try XCTUnwrap(FitAnalysis.problem(of: fit))
        XCTAssertTrue(problem.hasPrefix("sigma = "), problem)
    }

    func testUsableFitsHaveNoProblem() throws {
        let data = (1...200).map { CensoredGap(duration: Double($0) / 20, censored: $0.isMultiple(of: 7)) }
        for model in GapModel.allCases {
            let fit = try model.fit(data)
            XCTAssertNil(FitAnalysis.problem(of: fit), model.name)
            XCTAssertEqual(fit.familyValues.count, model.family.parameters.count, model.name)
        }
        let exponential = try GapModel.exponential.fit(data)
        XCTAssertEqual(exponential.familyValues[0], 1 / exponential.parameters[0].value)
    }
}
