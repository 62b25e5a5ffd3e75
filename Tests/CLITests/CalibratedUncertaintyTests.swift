import Foundation
import ReminderSimTestSupport
import Simulation
import XCTest

/// `calibrate` writes the fitted parameters' covariance into the calibrated scenario, and `run`
/// decides under draws of it.
final class CalibratedUncertaintyTests: ReminderSimTestCase {
    func testCalibratedScenarioCarriesTheCovarianceItPrintsAsIntervals() throws {
        let start = CalibrationFixture.experiment(baseResponse: 0.05)
        var truth = CalibrationFixture.experiment(baseResponse: 0.15)
        truth.users = 3_000
        truth.seed = 77
        let csv = try CalibrationFixture.results(of: truth)
        try writeFile("past-test.csv", csv)
        try writeFile("app.json", try start.canonicalJSON())

        let result = try remindersim("calibrate", "app.json", "past-test.csv", "--fit", "baseResponse", "--users", "1500",
                                     "--threads", "2")
        assertExit(result, 0)
        assertContains(result.stdout, "It carries the fitted parameters' covariance (log-odds) as response.uncertainty")
        let line = try XCTUnwrap(result.stdoutLines.first { $0.hasPrefix("baseResponse") })
        let numbers = line.split(separator: " ").compactMap { Double($0) }  // start, fitted, lower, upper
        XCTAssertEqual(numbers.count, 4, line)

        let calibrated = try Scenario.decode(String(contentsOf: workDirectory.appendingPathComponent("app-calibrated.json"),
                                                    encoding: .utf8))
        let joint = try XCTUnwrap(calibrated.response.uncertainty?.joint)
        XCTAssertEqual(joint.parameters, [.baseResponse])
        func logit(_ p: Double) -> Double { log(p / (1 - p)) }
        // The printed values have four significant digits: the log-odds agree to about 1e-3.
        XCTAssertEqual(joint.mean[0], logit(numbers[1]), accuracy: 2e-3)
        let se = (logit(numbers[3]) - logit(numbers[2])) / (2 * 1.959_964)
        XCTAssertEqual(joint.covariance[0][0].squareRoot(), se, accuracy: 0.02 * se)

        let run = try remindersim("run", "app-calibrated.json", "--users", "300", "--model-draws", "3", "--json", "--db", "c.sqlite")
        assertExit(run, 0)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let draws = (doc["decision"] as? [String: Any])?["modelDraws"] as? [String: Any]
        XCTAssertEqual(draws?["draws"] as? Int, 3, run.stdout)
    }
}
