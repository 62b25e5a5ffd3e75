import Foundation
import RecordedData
import XCTest
@testable import Fitting

/// The quadrature behind the Pareto/NBD likelihood where its series converges slowly, against exact
/// answers: the rule on polynomials, the closed form at α = β, and the series where both work.
final class PowerIntegralTests: XCTestCase {
    func testTheSixteenPointRuleIntegratesPolynomialsUpToDegreeThirtyOne() {
        let rule = GaussLegendre(points: 16)
        XCTAssertEqual(rule.nodes.count, 16)
        for degree in 0...31 {
            let value = zip(rule.nodes, rule.weights).reduce(0.0) { $0 + $1.1 * pow($1.0, Double(degree)) }
            XCTAssertEqual(value, degree % 2 == 0 ? 2 / Double(degree + 1) : 0, accuracy: 1e-14, "x^\(degree)")
        }
        // Degree 32 is the first the rule misses: ∫x³² = 2/33, and the rule's error there is far above rounding.
        let x32 = zip(rule.nodes, rule.weights).reduce(0.0) { $0 + $1.1 * pow($1.0, 32) }
        XCTAssertGreaterThan(abs(x32 - 2.0 / 33), 1e-12)
    }

    func testEqualRatesMatchTheClosedForm() throws {
        // α = β: the integrand is α^(r+s) (α+u)^−(r+s+x+1), whose integral from lo to hi is
        // α^(r+s) [(α+lo)^−a − (α+hi)^−a] / a with a = r + s + x.
        for (r, s, alpha, x, lo, hi) in [(0.55, 0.61, 10.58, 0.0, 0.0, 38.0), (2.0, 0.3, 0.01, 7.0, 3.0, 400.0),
                                         (0.2, 30.0, 5.0, 1.0, 0.5, 1e6), (1.0, 1.0, 1e5, 250.0, 10.0, 20.0)] {
            let a = r + s + x
            let closed = (r + s) * log(alpha) - a * log(alpha + lo) + log(-expm1(-a * log((alpha + hi) / (alpha + lo)))) - log(a)
            let value = try XCTUnwrap(PowerIntegral.logIntegral(r: r, alpha: alpha, s: s, beta: alpha, x: x, from: lo, to: hi))
            XCTAssertEqual(value, closed, accuracy: 1e-12 * max(1, abs(closed)), "r \(r) s \(s) α \(alpha) x \(x)")
        }
    }

    func testTheQuadratureAgreesWithTheSeriesWhereBothConverge() throws {
        // z = |α − β|/(max + t_x) between 0.9 and 0.995: the series (some 400 to 7,000 terms) and the
        // quadrature are two independent ways to the same integral.
        var checked = 0
        for (r, s) in [(0.55, 0.61), (3.0, 0.05), (0.1, 4.0)] {
            for ratio in [12.0, 50.0, 150.0, 190.0] {
                for (alpha, beta) in [(ratio, 1.0), (1.0, ratio)] {
                    let m = try ParetoNBDModel(r: r, alpha: alpha, s: s, beta: beta)
                    for (x, tx, T) in [(0, 0.0, 30.0), (2, 0.2, 12.0), (9, 0.01, 0.5)] {
                        let z = abs(alpha - beta) / (max(alpha, beta) + tx)
                        guard z > 0.9, z <= ParetoNBDModel.seriesUpTo else { continue }
                        let series = try m.parts(x: x, tx: tx, T: T).died - log(s)
                        let quadrature = try XCTUnwrap(PowerIntegral.logIntegral(r: r, alpha: alpha, s: s, beta: beta, x: Double(x), from: tx, to: T))
                        XCTAssertEqual(quadrature, series, accuracy: 1e-12 * max(1, abs(series)), "\(m) x \(x) t_x \(tx) T \(T)")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 40)
    }

    func testRatesFarApartMatchAClosedForm() throws {
        // With r + x = 1 and s = 1 the integrand is αʳβ/((α+u)(β+u)²), whose antiderivative by partial
        // fractions is αʳβ·[ln((α+u)/(β+u))/(β−α)² + 1/((β−α)(β+u))]: exact for any α ≠ β, here up to
        // z = 1 − 10⁻⁹ at t_x = 0, where the series would need ~4 · 10¹⁰ terms. The differences between
        // the bounds are written so that a narrow range loses no digits.
        for (alpha, beta) in [(1e-9, 1.0), (1.0, 1e-9), (2e-4, 3.0), (7.0, 1e-3), (1e6, 0.5), (0.5, 1e6), (40.0, 1.0)] {
            for (lo, hi) in [(0.0, 10.0), (0.0, 1e-6), (3.0, 1e4), (1e-7, 2e-7)] {
                for (r, x) in [(1.0, 0.0), (0.3, 0.7)] {
                    let d = beta - alpha, w = hi - lo
                    let logs = log1p(w / (alpha + lo)) - log1p(w / (beta + lo))
                    let closed = pow(alpha, r) * beta * (logs / (d * d) - w / ((beta + hi) * (beta + lo)) / d)
                    let value = try XCTUnwrap(PowerIntegral.logIntegral(r: r, alpha: alpha, s: 1, beta: beta, x: x, from: lo, to: hi))
                    XCTAssertEqual(value, log(closed), accuracy: 1e-12 * max(1, abs(log(closed))), "α \(alpha) β \(beta) [\(lo), \(hi)] r \(r)")
                }
            }
        }
    }

    func testFarApartRatesAreQuick() throws {
        // A likelihood at z = 1 − 10⁻⁸ takes well under a millisecond, not billions of terms.
        let m = try ParetoNBDModel(r: 2.2, alpha: 10.7, s: 5e-5, beta: 1.07e9)
        let start = Date()
        for x in 0..<200 {
            let value = try m.logLikelihood(CustomerSummary(frequency: x, recency: x == 0 ? 0 : 1.5, age: 2.7))
            XCTAssertTrue(value.isFinite, "x \(x): \(value)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "200 likelihoods")
    }
}

/// The Pareto/NBD fit's work budget: spent, the search stops and the fit says it is not usable; not
/// spent, it changes nothing.
final class ParetoNBDWorkBudgetTests: XCTestCase {
    private let customers: [CustomerSummary] = (0..<120).map { (i: Int) -> CustomerSummary in
        let x = i % 5
        let recency: Double = x == 0 ? 0 : Double(i % 17 + 1)
        return CustomerSummary(frequency: x, recency: recency, age: 20 + Double(i % 11))
    }

    func testASpentBudgetStopsTheSearchAndTheFitIsNotUsable() throws {
        let starved = try ParetoNBD.fit(customers, start: nil, optimizer: NelderMead(), workPerHistory: 50)
        XCTAssertTrue(starved.ranOutOfWork)
        let problem = try XCTUnwrap(FitAnalysis.problem(of: starved, failure: nil))
        XCTAssertTrue(problem.hasPrefix("the search spent its work budget"), problem)

        // With the budget a fit has, these customers (a degenerate set: s runs to its edge) are judged on their own.
        let fed = try ParetoNBD.fit(customers)
        XCTAssertFalse(fed.ranOutOfWork)
        XCTAssertFalse(FitAnalysis.problem(of: fed, failure: nil)?.hasPrefix("the search spent") ?? false)
    }

    func testTheBudgetChangesNoLikelihood() throws {
        let groups = try ParetoNBD.DistinctHistories(customers)
        for p in [[0.55, 10.6, 0.61, 11.7], [2.0, 0.01, 0.3, 5e4], [1.0, 3e5, 0.8, 2.0]] {
            let free = groups.logLikelihood(p)
            let work = WorkBudget(Int.max / 2)
            XCTAssertEqual(groups.logLikelihood(p, work: work), free, "\(p)")
            XCTAssertLessThan(work.left, Int.max / 2, "the work is counted")
            XCTAssertEqual(groups.logLikelihood(p, work: WorkBudget(10)), -.infinity, "spent on the way")
        }
    }
}
