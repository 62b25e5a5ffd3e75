import XCTest
@testable import Fitting

final class ParameterEstimateTests: XCTestCase {
    func testStandardErrorsComeFromTheInverseHessian() throws {
        // Independent parameters: the covariance is the inverse of each diagonal term.
        let fitted = parameterEstimates(["shape": 2, "scale": 3], hessian: [[4, 0], [0, 0.25]])
        XCTAssertEqual(fitted.parameters.map(\.name), ["shape", "scale"], "in the order given")
        XCTAssertEqual(fitted.parameters.map(\.value), [2, 3])
        XCTAssertEqual(fitted.parameters.map(\.standardError), [0.5, 2])
        let covariance = try XCTUnwrap(fitted.covariance)
        XCTAssertEqual(covariance[0][0], 0.25, accuracy: 1e-15)
        XCTAssertEqual(covariance[1][1], 4, accuracy: 1e-15)
        XCTAssertEqual(covariance[0][1], 0, accuracy: 1e-15)

        // Correlated: [[2, 1], [1, 2]]⁻¹ = [[2, −1], [−1, 2]] / 3.
        let correlated = parameterEstimates(["mu": 0, "sigma": 1], hessian: [[2, 1], [1, 2]])
        XCTAssertEqual(try XCTUnwrap(correlated.parameters[0].standardError), (2.0 / 3).squareRoot(), accuracy: 1e-15)
        XCTAssertEqual(try XCTUnwrap(correlated.covariance)[0][1], -1.0 / 3, accuracy: 1e-15)
    }

    func testNoStandardErrorsWhenTheInformationIsNotPositiveDefinite() {
        // A saddle, not a maximum: the likelihood says nothing about the spread of the estimates.
        let fitted = parameterEstimates(["a": 1, "b": 2], hessian: [[1, 2], [2, 1]])
        XCTAssertEqual(fitted.parameters.map(\.value), [1, 2], "the estimates are kept")
        XCTAssertEqual(fitted.parameters.map(\.standardError), [nil, nil])
        XCTAssertNil(fitted.covariance)
    }
}
