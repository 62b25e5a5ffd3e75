import Foundation
import Simulation
import XCTest
@testable import Calibration

/// A small experiment: the default population over two weeks, a 2-day and a 1/2/4-day circular reminder
/// against a holdout, without cron rules.
func smallScenario(baseResponse: Double = 0.12, optOut: Double = 0.02, fatigue: Double = 0.85, days: Int = 10) -> Scenario {
    var s = Scenario.builtInDefault
    s.horizonDays = days
    s.population.installSpreadDays = 3
    s.configurations = s.configurations.filter { ["2d", "1/2/4d circular"].contains($0.label) }
        .map { var c = $0; c.cronRules = []; return c }
    s.grid = nil
    s.response.baseResponse = baseResponse
    s.response.optOutPerDelivery = optOut
    s.response.fatigue = fatigue
    return s
}

/// The results a live test of `scenario` with `users` users per arm would report, simulated at `seed`.
func simulatedResults(_ scenario: Scenario, users: Int, seed: UInt64, retention: Bool = false) throws -> ExperimentResults {
    var s = scenario
    s.users = users
    s.seed = seed
    let model = try CompiledModel(s)
    let tallies = model.run(options: RunOptions(threads: 2)).tallies
    return ExperimentResults(arms: tallies.indices.map { i in
        let t = tallies[i]
        return ExperimentResults.Arm(
            label: i == 0 ? "holdout" : model.configurations[i].spec.label, users: Int(t[.users]),
            delivered: Int(t[.delivered]), opens: Int(t[.opens]), optOuts: Int(t[.optOuts]),
            retainedD7: retention ? Int(t[.retainedD7]) : nil, line: i + 2)
    })
}

final class CalibrationTests: XCTestCase {
    private func options(users: Int, seed: UInt64) -> Calibration.Options {
        var o = Calibration.Options()
        o.users = users
        o.seed = seed
        o.threads = 2
        o.restarts = 0
        o.batches = 30
        return o
    }

    func testParameterRecoveryCoverage() throws {
        // Results simulated with the true base response at one seed, calibrated from a wrong start at another.
        // Each 95% interval covers the truth with probability 0.95 if the standard errors are right; over 12
        // independent experiments P(at most 8 cover) = 0.002, so fewer than 9 means the intervals are too narrow.
        let truth = 0.12
        var covered = 0
        var widths: [Double] = []
        let began = Date()
        for replicate in 0..<12 {
            let results = try simulatedResults(smallScenario(baseResponse: truth), users: 3_000, seed: 1_000 + UInt64(replicate))
            let start = smallScenario(baseResponse: 0.06)
            let c = try Calibration.fit(scenario: start, results: results, parameters: [.baseResponse],
                                        options: options(users: 1_500, seed: 5_000 + UInt64(replicate)))
            let e = try XCTUnwrap(c.estimates.first)
            if e.lower <= truth && truth <= e.upper { covered += 1 }
            widths.append(e.upper - e.lower)
            print(String(format: "replicate %d: %.4f [%.4f, %.4f], J = %.2f (df %d), %d simulations",
                         replicate, e.value, e.lower, e.upper, c.statistic, c.degreesOfFreedom, c.evaluations))
        }
        print("covered \(covered) of 12 in \(Date().timeIntervalSince(began)) s")
        XCTAssertGreaterThanOrEqual(covered, 9)
        XCTAssertLessThan(widths.reduce(0, +) / 12, truth, "intervals narrower than the value itself")
    }
}
