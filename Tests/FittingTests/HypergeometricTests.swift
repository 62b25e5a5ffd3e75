import Fitting
import Foundation
import XCTest

final class HypergeometricTests: XCTestCase {
    private let points: [Double] = [0, 1e-8, 0.1, 0.5, 0.9, 0.99, 0.999]

    func testLogarithmIdentity() throws {
        for z in points where z > 0 {
            let expected = -log1p(-z) / z
            XCTAssertEqual(try hypergeometric2F1(a: 1, b: 1, c: 2, z: z), expected, accuracy: 1e-13 * expected, "z = \(z)")
        }
        XCTAssertEqual(try hypergeometric2F1(a: 1, b: 1, c: 2, z: 0), 1)
    }

    func testBinomialIdentity() throws {
        for z in points {
            for (a, b) in [(0.243, 2.426), (3.5, 0.7), (-0.5, 1.3)] {
                let expected = pow(1 - z, -a)
                XCTAssertEqual(try hypergeometric2F1(a: a, b: b, c: b, z: z), expected, accuracy: 1e-12 * expected, "a=\(a), z=\(z)")
            }
        }
    }

    func testArcsineIdentity() throws {
        // ₂F₁(1/2, 1/2; 3/2; y²) = arcsin(y)/y.
        for y in [0.05, 0.3, 0.7, 0.95, 0.999] {
            let expected = asin(y) / y
            XCTAssertEqual(try hypergeometric2F1(a: 0.5, b: 0.5, c: 1.5, z: y * y), expected, accuracy: 1e-12 * expected, "y = \(y)")
        }
    }

    func testNegativeArgumentAndTerminatingSeries() throws {
        // ₂F₁(1, 1; 2; −z) = ln(1+z)/z, and a = −2 gives the polynomial 1 − 2bz/c + b(b+1)z²/(c(c+1)).
        XCTAssertEqual(try hypergeometric2F1(a: 1, b: 1, c: 2, z: -0.6), log(1.6) / 0.6, accuracy: 1e-14)
        let (b, c, z) = (1.7, 2.9, 0.8)
        XCTAssertEqual(
            try hypergeometric2F1(a: -2, b: b, c: c, z: z),
            1 - 2 * b * z / c + b * (b + 1) * z * z / (c * (c + 1)), accuracy: 1e-14
        )
    }

    func testRejectsInvalidArguments() {
        XCTAssertThrowsError(try hypergeometric2F1(a: 1, b: 1, c: 2, z: 1))
        XCTAssertThrowsError(try hypergeometric2F1(a: 1, b: 1, c: -2, z: 0.5))
        XCTAssertThrowsError(try hypergeometric2F1(a: 1, b: 1, c: 2, z: 0.999_999, maxTerms: 1000)) { error in
            XCTAssertEqual(error as? FittingError, .seriesDidNotConverge)
        }
    }
}
