import Foundation
import Simulation
import XCTest

/// The exact binomial interval behind the model draws' P(feasible), against SciPy's beta quantiles
/// (`beta.ppf(0.05, x, n − x + 1)` and `beta.ppf(0.95, x + 1, n − x)`, scipy 1.11) and the closed
/// forms at the ends (x = n: low = 0.05^(1/n); x = 0: high = 1 − 0.05^(1/n)).
final class ClopperPearsonTests: XCTestCase {
    func testAgainstSciPyAndTheClosedForms() throws {
        let cases: [(x: Int64, n: Int64, low: Double, high: Double)] = [
            (29, 32, 0.7751838914107743, 0.9739569539514824),
            (31, 32, 0.860150539725774, 0.998398368533228),
            (32, 32, 0.9106318010137352, 1),
            (0, 32, 0, 0.08936819898626475),
            (10, 32, 0.18038450483604973, 0.47214043929769656),
            (1, 1, 0.05, 1),
            (500, 1000, 0.47351773123569124, 0.5264822687643087),
        ]
        for c in cases {
            let interval = try XCTUnwrap(Proportion(c.x, of: c.n).clopperPearson(level: 0.9), "\(c.x) of \(c.n)")
            XCTAssertEqual(interval.low, c.low, accuracy: 1e-12, "\(c.x) of \(c.n)")
            XCTAssertEqual(interval.high, c.high, accuracy: 1e-12, "\(c.x) of \(c.n)")
        }
        XCTAssertEqual(try XCTUnwrap(Proportion(32, of: 32).clopperPearson(level: 0.9)).low, pow(0.05, 1.0 / 32), accuracy: 1e-14)
        XCTAssertNil(Proportion(0, of: 0).clopperPearson(level: 0.9))
    }

    /// Each bound is a one-sided test at (1 − level)/2: at the low bound, seeing the count or more has
    /// exactly that chance (worked out here by summing the binomial terms directly).
    func testTheLowBoundIsAOneSidedTest() throws {
        for (x, n) in [(3, 10), (17, 40), (95, 100)] {
            let low = try XCTUnwrap(Proportion(Int64(x), of: Int64(n)).clopperPearson(level: 0.9)).low
            var choose = 1.0, tail = 0.0
            for k in 0...n {
                if k > 0 { choose *= Double(n - k + 1) / Double(k) }
                if k >= x { tail += choose * pow(low, Double(k)) * pow(1 - low, Double(n - k)) }
            }
            XCTAssertEqual(tail, 0.05, accuracy: 1e-10, "\(x) of \(n)")
        }
    }
}
