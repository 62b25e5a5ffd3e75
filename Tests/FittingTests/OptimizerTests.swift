import Fitting
import Foundation
import XCTest

final class OptimizerTests: XCTestCase {
    private func rosenbrock(_ x: [Double]) -> Double {
        let (u, v) = (1 - x[0], x[1] - x[0] * x[0])
        return u * u + 100 * v * v
    }

    func testRosenbrockFromClassicStart() {
        let result = NelderMead().minimize(rosenbrock, from: [-1.2, 1])
        XCTAssertTrue(result.converged)
        XCTAssertEqual(result.point[0], 1, accuracy: 1e-6)
        XCTAssertEqual(result.point[1], 1, accuracy: 1e-6)
        XCTAssertLessThan(result.value, 1e-12)
        print("Rosenbrock from (−1.2, 1): \(result.iterations) iterations, \(result.evaluations) evaluations, \(result.restarts) restarts")
    }

    func testShiftedQuadraticInFourDimensions() {
        // f = (x − m)ᵀ A (x − m) + 3 with A positive definite and off-diagonal coupling.
        let m = [3.0, -2.0, 0.5, 10.0]
        let a = [[4.0, 1, 0, 0.5], [1, 3, 0.2, 0], [0, 0.2, 2, 0.3], [0.5, 0, 0.3, 1]]
        func f(_ x: [Double]) -> Double {
            let d = zip(x, m).map { $0 - $1 }
            var s = 3.0
            for i in 0..<4 { for j in 0..<4 { s += d[i] * a[i][j] * d[j] } }
            return s
        }
        let result = NelderMead().minimize(f, from: [0, 0, 0, 0])
        XCTAssertTrue(result.converged)
        for i in 0..<4 { XCTAssertEqual(result.point[i], m[i], accuracy: 1e-5) }
        XCTAssertEqual(result.value, 3, accuracy: 1e-10)
        print("4-D quadratic from the origin: \(result.iterations) iterations, \(result.evaluations) evaluations")

        // The Hessian of a quadratic is exact under central differences up to rounding.
        let h = NumericalDerivatives.hessian(of: f, at: [1, 2, 3, 4])
        for i in 0..<4 { for j in 0..<4 { XCTAssertEqual(h[i][j], 2 * a[i][j], accuracy: 1e-5) } }
    }

    func testInfeasibleRegionsAreAvoided() {
        // NaN outside x > 0 must be treated as +∞; the minimum of x − ln x is at x = 1.
        let result = NelderMead().minimize({ $0[0] - log($0[0]) }, from: [5])
        XCTAssertTrue(result.converged)
        XCTAssertEqual(result.point[0], 1, accuracy: 1e-5)
    }

    func testGradientAndHessianOfSmoothFunction() {
        // f = exp(x) sin(y) + x² y³ at (0.7, −1.3), derivatives by hand.
        func f(_ p: [Double]) -> Double { exp(p[0]) * sin(p[1]) + p[0] * p[0] * pow(p[1], 3) }
        let (x, y) = (0.7, -1.3)
        let g = NumericalDerivatives.gradient(of: f, at: [x, y])
        XCTAssertEqual(g[0], exp(x) * sin(y) + 2 * x * pow(y, 3), accuracy: 1e-8)
        XCTAssertEqual(g[1], exp(x) * cos(y) + 3 * x * x * y * y, accuracy: 1e-8)
        let h = NumericalDerivatives.hessian(of: f, at: [x, y])
        XCTAssertEqual(h[0][0], exp(x) * sin(y) + 2 * pow(y, 3), accuracy: 1e-6)
        XCTAssertEqual(h[1][1], -exp(x) * sin(y) + 6 * x * x * y, accuracy: 1e-6)
        XCTAssertEqual(h[0][1], exp(x) * cos(y) + 6 * x * y * y, accuracy: 1e-6)
    }
}
