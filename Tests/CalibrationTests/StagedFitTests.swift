import Foundation
import Simulation
import XCTest
@testable import Calibration

/// A fit in stages: Nelder–Mead on a few users, then Gauss–Newton steps on all of them.
final class StagedFitTests: XCTestCase {
    func testTheSearchRunsOnASixteenthOfTheUsersButNoFewerThanTenThousand() {
        XCTAssertEqual(Calibration.searchUsers(100), 100)
        XCTAssertEqual(Calibration.searchUsers(20_000), 20_000)
        XCTAssertEqual(Calibration.searchUsers(39_999), 39_999, "a search on more than a quarter of the users is not worth a stage")
        XCTAssertEqual(Calibration.searchUsers(40_000), 10_000)
        XCTAssertEqual(Calibration.searchUsers(100_000), 10_000)
        XCTAssertEqual(Calibration.searchUsers(200_000), 12_500)
        XCTAssertEqual(Calibration.searchUsers(10_000_000), 625_000)
    }

    /// Weighted least squares with moments linear in the parameters: one Gauss–Newton step lands on the exact
    /// minimum (central differences are exact for a linear function), and the next step, worked out with the
    /// same slopes, is nil.
    func testGaussNewtonSolvesALinearProblemInOneStep() throws {
        let a: [[Double]] = [[1, 0.5], [0.2, -1], [2, 1], [0.3, 0.3], [-1, 2]]
        let c: [Double] = [0.1, 0.2, -0.3, 0.4, 0]
        let observed: [Double] = [1.3, -0.7, 2.9, 1.1, 0.6]
        let kept = [0, 1, 2, 4]  // moment 3 is left out of the distance
        let weights: [Double] = [4, 1, 2, 0.5]
        func m(_ z: [Double]) -> [Double] { a.indices.map { k in c[k] + a[k][0] * z[0] + a[k][1] * z[1] } }
        // The exact minimiser from the normal equations, by Cramer's rule.
        var (s00, s01, s11, t0, t1) = (0.0, 0.0, 0.0, 0.0, 0.0)
        for (k, w) in zip(kept, weights) {
            let r = observed[k] - c[k]
            s00 += w * a[k][0] * a[k][0]; s01 += w * a[k][0] * a[k][1]; s11 += w * a[k][1] * a[k][1]
            t0 += w * a[k][0] * r; t1 += w * a[k][1] * r
        }
        let det = s00 * s11 - s01 * s01
        let exact = [(t0 * s11 - t1 * s01) / det, (s00 * t1 - s01 * t0) / det]

        var calls = 0
        let result = try Calibration.gaussNewton(from: [3, -2], observed: observed, kept: kept, weights: weights) { z in
            calls += 1
            return m(z)
        }
        XCTAssertEqual(result.steps, 1)
        XCTAssertTrue(result.converged)
        XCTAssertEqual(result.point[0], exact[0], accuracy: 1e-9)
        XCTAssertEqual(result.point[1], exact[1], accuracy: 1e-9)
        XCTAssertEqual(result.jacobian[2][1], 1, accuracy: 1e-9)
        XCTAssertEqual(result.moments, m(result.point))
        // The point and its slopes (1 + 4), then one step: with the same slopes the next step is nil, so they
        // are not measured again.
        XCTAssertEqual(calls, 6)
    }

    /// Moments logistic in the parameters with observed values the model reproduces exactly at a known point:
    /// the steps reach it to within a tenth of its standard error, as they promise.
    func testGaussNewtonReachesTheMinimumOfANonlinearProblem() throws {
        let x: [Double] = [-2, -1, 0, 1, 2, 3]
        let truth = [-1.2, 0.7]
        func m(_ z: [Double]) -> [Double] { x.map { 1 / (1 + exp(-(z[0] + z[1] * $0))) } }
        let observed = m(truth)
        let kept = Array(x.indices)
        let weights = [Double](repeating: 10_000, count: x.count)
        let result = try Calibration.gaussNewton(from: [0, 0], observed: observed, kept: kept, weights: weights, simulate: m)
        XCTAssertTrue(result.converged)
        XCTAssertLessThanOrEqual(result.steps, 5)
        // Standard errors from (G'WG)⁻¹ at the end.
        let g = result.jacobian
        var (s00, s01, s11) = (0.0, 0.0, 0.0)
        for k in kept { s00 += weights[k] * g[k][0] * g[k][0]; s01 += weights[k] * g[k][0] * g[k][1]; s11 += weights[k] * g[k][1] * g[k][1] }
        let det = s00 * s11 - s01 * s01
        let se = [(s11 / det).squareRoot(), (s00 / det).squareRoot()]
        XCTAssertEqual(result.point[0], truth[0], accuracy: 0.1 * se[0])
        XCTAssertEqual(result.point[1], truth[1], accuracy: 0.1 * se[1])
    }

    /// A step that makes the distance worse is halved until it does not: for m(z) = z³ from z = 0.1 the first
    /// full step goes to 25 (the slope by central differences of width 0.1 is 0.04); the steps still reach the
    /// minimum at 1 to within a tenth of the standard error the slopes give (1 / |m'(1)| = 1/3).
    func testAStepThatOvershootsIsHalved() throws {
        func distance(_ z: Double) -> Double { (1 - z * z * z) * (1 - z * z * z) }
        var tried: [Double] = []
        let result = try Calibration.gaussNewton(from: [0.1], observed: [1], kept: [0], weights: [1]) { z in
            tried.append(z[0])
            return [z[0] * z[0] * z[0]]
        }
        XCTAssertTrue(result.converged)
        XCTAssertEqual(result.point[0], 1, accuracy: 0.1 / abs(result.jacobian[0][0]))
        XCTAssertTrue(tried.contains { $0 > 20 }, "the full first step is tried")
        XCTAssertLessThan(distance(result.point[0]), distance(0.1))
    }

    /// The staged fit against Nelder–Mead on all the users, on the same results and simulated users: the same
    /// distance minimised two ways, so the estimates agree to well within their standard errors (each within
    /// half a standard error of the other), with fewer simulations of all the users.
    func testStagedFitAgreesWithTheSearchOnAllTheUsers() throws {
        for replicate in 0..<3 {
            let results = try simulatedResults(smallScenario(baseResponse: 0.12, optOut: 0.02), users: 4_000,
                                               seed: 8_000 + UInt64(replicate))
            let start = smallScenario(baseResponse: 0.06, optOut: 0.05)
            var whole = options(users: 4_000, seed: 9_000 + UInt64(replicate))
            whole.searchUsers = 4_000
            var staged = whole
            staged.searchUsers = 1_000
            let a = try Calibration.fit(scenario: start, results: results, parameters: [.baseResponse, .optOutPerDelivery], options: whole)
            let b = try Calibration.fit(scenario: start, results: results, parameters: [.baseResponse, .optOutPerDelivery], options: staged)
            XCTAssertEqual(b.stages.map(\.users), [1_000, 4_000])
            XCTAssertEqual(b.stages.map(\.method), [.nelderMead, .gaussNewton])
            XCTAssertEqual(b.stages.reduce(0) { $0 + $1.simulations }, b.evaluations)
            XCTAssertLessThan(b.stages[1].simulations, a.stages.reduce(0) { $0 + $1.simulations } / 2)
            for (x, y) in zip(a.estimates, b.estimates) {
                let logit = { (p: Double) in log(p / (1 - p)) }
                let se = max(x.logOddsStandardError, y.logOddsStandardError)
                print(String(format: "replicate %d %@: whole %.5f, staged %.5f, difference %.3f standard errors", replicate,
                             x.parameter.rawValue, x.value, y.value, abs(logit(x.value) - logit(y.value)) / se))
                XCTAssertLessThanOrEqual(abs(logit(x.value) - logit(y.value)), 0.5 * se, "\(x.parameter)")
                XCTAssertTrue(y.lower <= x.value && x.value <= y.upper && x.lower <= y.value && y.value <= x.upper)
            }
            XCTAssertEqual(a.statistic, b.statistic, accuracy: 1)
        }
    }

    /// A staged fit is the same whatever the threads: every simulation's counts are whole numbers added in any order.
    func testAStagedFitIsTheSameWhateverTheThreads() throws {
        let results = try simulatedResults(smallScenario(baseResponse: 0.12), users: 3_000, seed: 8_100)
        var one = options(users: 2_000, seed: 9_100)
        one.searchUsers = 500
        one.threads = 1
        var three = one
        three.threads = 3
        let a = try Calibration.fit(scenario: smallScenario(baseResponse: 0.06), results: results, parameters: [.baseResponse], options: one)
        let b = try Calibration.fit(scenario: smallScenario(baseResponse: 0.06), results: results, parameters: [.baseResponse], options: three)
        XCTAssertEqual(a.estimates, b.estimates)
        XCTAssertEqual(a.stages, b.stages)
        XCTAssertEqual(a.moments, b.moments)
    }

    /// A fit whose covariance cannot be worked out names the parameters the moments stopped responding
    /// to, with the value one reached at the search's edge; or all of them, when they only move together.
    func testAFitWithoutCovarianceNamesTheParametersThatStoppedMattering() {
        let parameters: [ResponseParameter] = [.baseResponse, .optOutPerDelivery]
        // Three moments; the second parameter moves none of them.
        let flat = [[1.0, 0], [0.5, 0], [2, 0]], weights = [1.0, 1, 1]
        let named = Calibration.notResponding(parameters, jacobian: flat, weights: weights, at: [-2, -3], bound: 20)
        XCTAssertEqual(named.kind, .notIdentified)
        XCTAssertEqual(named.description, "the moments do not respond to optOutPerDelivery at the fit: either nothing in the "
            + "test measures it there (a count of zero, such as no opt-outs or no attributed opens, drives a rate to 0), or the "
            + "results lie where the scenario's model cannot reach and the search ended where it no longer matters: compare "
            + "them with the model's predictions (remindersim readout SCENARIO RESULTS), then leave it out of --fit or mend "
            + "the scenario")
        let edge = Calibration.notResponding(parameters, jacobian: flat, weights: weights, at: [-2, -19.5], bound: 20)
        XCTAssertTrue(edge.description.contains("optOutPerDelivery (driven to 3.4e-09, the edge of what the search tries)"),
                      edge.description)
        // Both move the moments, but only in step: named together.
        let together = Calibration.notResponding(parameters, jacobian: [[1, 2], [0.5, 1], [2, 4]], weights: weights,
                                                 at: [-2, -3], bound: 20)
        XCTAssertEqual(together.description, "the moments do not respond to baseResponse, optOutPerDelivery apart at the fit: "
            + "they move them only together; fit fewer of them")
        // And these are exactly the cases the covariance cannot be worked out for.
        for g in [flat, [[1, 2], [0.5, 1], [2, 4]]] {
            XCTAssertThrowsError(try Calibration.sandwich(jacobian: g, weights: weights, sigma: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                                                          parameters: 2))
        }
    }
}
