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

    /// Gaps all of one length: every family with a shape has nothing to fit but a spike, and says so
    /// (the gamma's likelihood grew past 10¹⁴ in floating point and ranked it first).
    func testGapsOfOneLengthAreDegenerateForEveryFamilyWithAShape() throws {
        let data = (0..<50).map { CensoredGap(duration: 86_400, censored: $0 == 49) }
        for model in GapModel.allCases where model.family.parameters.count > 1 {
            XCTAssertThrowsError(try model.fit(data), model.name) { error in
                guard case .degenerateData = error as? FittingError else { return XCTFail("\(model.name): \(error)") }
            }
        }
        XCTAssertNoThrow(try GapModel.exponential.fit(data))
    }

    /// Customers who never visit again say nothing about how often customers return: BG/NBD and
    /// Pareto/NBD are not fitted (they stopped near their starting values and called it an estimate).
    func testCustomerBaseModelsNeedARepeatVisit() {
        let start = 1_704_067_200.0
        let users = (0..<50).map { UserVisits(id: "u\($0)", visits: [start + Double($0) * 3_600]) }
        let analysis = FitAnalysis(log: RecordedLog(users: users, observationEnd: start + 90 * 86_400))
        XCTAssertNil(analysis.bgnbd)
        XCTAssertNil(analysis.paretoNBD)
        XCTAssertTrue(analysis.bgnbdFailure?.hasPrefix("no customer visited again") ?? false, "\(String(describing: analysis.bgnbdFailure))")
        XCTAssertNotEqual(analysis.recommendation().model, .bgnbd)
        XCTAssertNotEqual(analysis.recommendation().model, .paretoNBD)
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
