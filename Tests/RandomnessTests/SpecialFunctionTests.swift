import XCTest
import Randomness
#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// Identities with closed forms, classical table values (χ² and t quantiles) and values computed
/// with mpmath at 30 significant digits.
final class SpecialFunctionTests: XCTestCase {
    func testLogGamma() {
        XCTAssertEqual(logGamma(1), 0, accuracy: 1e-15)
        XCTAssertEqual(logGamma(2), 0, accuracy: 1e-15)
        XCTAssertEqual(logGamma(0.5), 0.5 * log(Double.pi), accuracy: 1e-15)
        XCTAssertEqual(logGamma(10), log(362_880), accuracy: 1e-13)
        XCTAssertEqual(logGamma(100), 359.13420536957539877, accuracy: 1e-11)
        XCTAssertEqual(logGamma(0.1), 2.2527126517342059020, accuracy: 1e-14)
    }

    func testDigamma() {
        let eulerGamma = 0.57721566490153286061
        XCTAssertEqual(digamma(1), -eulerGamma, accuracy: 1e-14)
        XCTAssertEqual(digamma(0.5), -eulerGamma - 2 * log(2), accuracy: 1e-14)
        XCTAssertEqual(digamma(10), 2.2517525890667211076, accuracy: 1e-14)
        XCTAssertEqual(digamma(3.3), 1.0348224890596216863, accuracy: 1e-14)
        XCTAssertEqual(digamma(1e-3), -1000.5755719318102797, accuracy: 1e-10)
        XCTAssertEqual(digamma(-1.5), 0.70315664064524318723, accuracy: 1e-13)
        for x in [0.7, 2.2, 9.9, 31.4] {
            XCTAssertEqual(digamma(x + 1), digamma(x) + 1 / x, accuracy: 1e-13, "recurrence at \(x)")
        }
        XCTAssertTrue(digamma(0).isNaN)
        XCTAssertTrue(digamma(-2).isNaN)
    }

    func testNormalCDF() {
        XCTAssertEqual(normalCDF(0), 0.5)
        XCTAssertEqual(normalCDF(-1), 0.15865525393145705141, accuracy: 1e-16)
        XCTAssertEqual(normalCDF(3), 0.99865010196836990547, accuracy: 1e-16)
        XCTAssertEqual(normalCDF(1.959963984540054), 0.975, accuracy: 1e-15)
        // Relative accuracy in the far lower tail, where 1 + erf(x) would have cancelled to 0.
        XCTAssertEqual(normalCDF(-8) / 6.2209605742717841235e-16, 1, accuracy: 1e-13)
    }

    func testRegularizedGammaPIdentities() {
        for x in [1e-8, 0.01, 0.5, 1, 2, 5, 30] {
            // P(1, x) = 1 − e^{−x}.
            XCTAssertEqual(regularizedGammaP(a: 1, x: x), -expm1(-x), accuracy: 1e-15, "P(1, \(x))")
            // P(1/2, x) = erf(√x).
            XCTAssertEqual(regularizedGammaP(a: 0.5, x: x), erf(x.squareRoot()), accuracy: 1e-14, "P(0.5, \(x))")
            // Q(n, x) = e^{−x} Σ_{k<n} x^k/k!  (Poisson tail) for integer n = 5.
            var term = exp(-x)
            var poisson = 0.0
            for k in 0..<5 {
                if k > 0 { term *= x / Double(k) }
                poisson += term
            }
            XCTAssertEqual(regularizedGammaQ(a: 5, x: x), poisson, accuracy: 1e-14, "Q(5, \(x))")
            XCTAssertEqual(regularizedGammaP(a: 5, x: x) + regularizedGammaQ(a: 5, x: x), 1, accuracy: 1e-15)
        }
        XCTAssertEqual(regularizedGammaP(a: 3, x: 0), 0)
        XCTAssertEqual(regularizedGammaP(a: 3, x: .infinity), 1)
    }

    func testRegularizedGammaTableValues() {
        // χ² quantiles: P(k/2, q/2) at the tabulated 95% / 99% points.
        XCTAssertEqual(regularizedGammaP(a: 0.5, x: 3.841458820694124 / 2), 0.95, accuracy: 1e-12)
        XCTAssertEqual(regularizedGammaP(a: 5, x: 18.307038053275146 / 2), 0.95, accuracy: 1e-12)
        XCTAssertEqual(regularizedGammaP(a: 2.5, x: 15.08627246938899 / 2), 0.99, accuracy: 1e-12)
        // mpmath.
        XCTAssertEqual(regularizedGammaP(a: 3.7, x: 2.1), 0.20770997967764117982, accuracy: 1e-14)
        XCTAssertEqual(regularizedGammaQ(a: 3.7, x: 9.5), 0.010484295668969343061, accuracy: 1e-15)
        XCTAssertEqual(regularizedGammaP(a: 100, x: 90), 0.15822098918643016810, accuracy: 1e-12)
        XCTAssertEqual(regularizedGammaQ(a: 0.3, x: 20) / 8.1884452892102696639e-11, 1, accuracy: 1e-12)
    }

    /// Tolerances follow the documented accuracy of `regularizedBetaI`: 1e−14 absolute for a, b ≤ 20
    /// and 1e−12 for larger parameters.
    func testRegularizedBetaIdentities() {
        // Dyadic points so that 1 − x is exact and the symmetry relation compares the same arguments.
        for x in [0x1.0p-20, 0.046875, 0.3125, 0.5, 0.765625, 0.998046875] {
            XCTAssertEqual(regularizedBetaI(x: x, a: 1, b: 1), x, accuracy: 1e-15, "I_x(1,1)")
            for a in [0.3, 2.5, 7] {
                // I_x(a, 1) = x^a and I_x(1, b) = 1 − (1 − x)^b.
                XCTAssertEqual(regularizedBetaI(x: x, a: a, b: 1), pow(x, a), accuracy: 1e-14, "I_\(x)(\(a),1)")
                XCTAssertEqual(regularizedBetaI(x: x, a: 1, b: a), -expm1(a * log1p(-x)), accuracy: 1e-14,
                               "I_\(x)(1,\(a))")
                // Symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
                XCTAssertEqual(regularizedBetaI(x: x, a: a, b: 3.3) + regularizedBetaI(x: 1 - x, a: 3.3, b: a), 1,
                               accuracy: 2e-14, "symmetry at \(x), \(a)")
            }
            // I_x(1/2, 1/2) = (2/π) arcsin √x.
            XCTAssertEqual(regularizedBetaI(x: x, a: 0.5, b: 0.5), 2 / Double.pi * asin(x.squareRoot()),
                           accuracy: 1e-14, "arcsine law at \(x)")
        }
        for a in [0.4, 1, 3.5, 20] {
            XCTAssertEqual(regularizedBetaI(x: 0.5, a: a, b: a), 0.5, accuracy: 1e-14, "I_0.5(\(a),\(a))")
        }
        for a in [40.0, 150, 1000] {
            XCTAssertEqual(regularizedBetaI(x: 0.5, a: a, b: a), 0.5, accuracy: 1e-12, "I_0.5(\(a),\(a))")
        }
    }

    /// I_p(k, n − k + 1) = P(Binomial(n, p) ≥ k), with the binomial tail summed term by term.
    func testRegularizedBetaBinomialTail() {
        let n = 20
        let p = 0.37
        for k in [1, 5, 8, 13, 20] {
            var tail = 0.0
            for j in k...n {
                var coefficient = 1.0
                for i in 0..<j { coefficient *= Double(n - i) / Double(i + 1) }
                tail += coefficient * pow(p, Double(j)) * pow(1 - p, Double(n - j))
            }
            XCTAssertEqual(regularizedBetaI(x: p, a: Double(k), b: Double(n - k + 1)), tail, accuracy: 1e-14, "k = \(k)")
        }
    }

    func testRegularizedBetaTableValues() {
        // Student t, 10 degrees of freedom, at the tabulated two-sided 5% point t = 2.2281388519649385:
        // I_{ν/(ν+t²)}(ν/2, 1/2) ≈ 0.05; mpmath gives 0.0500000000018086731 for this rounded t.
        let t = 2.2281388519649385
        XCTAssertEqual(regularizedBetaI(x: 10 / (10 + t * t), a: 5, b: 0.5), 0.050000000001808673, accuracy: 1e-15)
        // mpmath.
        XCTAssertEqual(regularizedBetaI(x: 0.3, a: 0.66, b: 2.5), 0.72860095845965482603, accuracy: 1e-14)
        XCTAssertEqual(regularizedBetaI(x: 0.9, a: 20, b: 3.5), 0.72422376054487550496, accuracy: 1e-13)
        XCTAssertEqual(regularizedBetaI(x: 0.001, a: 0.5, b: 7), 0.092552301129898360344, accuracy: 1e-14)
        XCTAssertEqual(regularizedBetaI(x: 0, a: 2, b: 3), 0)
        XCTAssertEqual(regularizedBetaI(x: 1, a: 2, b: 3), 1)
    }
}
