import Foundation
import Simulation
import ReminderSimTestSupport
import XCTest

/// `calibrate` from a user's point of view: a past test's results in, a calibrated scenario out.
final class CalibrateCommandTests: ReminderSimTestCase {
    /// The default scenario over ten days with the 2-day and 1/2/4-day circular reminders, no cron rules.
    private func experiment(baseResponse: Double) -> Scenario {
        var s = Scenario.builtInDefault
        s.horizonDays = 10
        s.population.installSpreadDays = 3
        s.configurations = s.configurations.filter { ["2d", "1/2/4d circular"].contains($0.label) }
            .map { var c = $0; c.cronRules = []; return c }
        s.grid = nil
        s.response.baseResponse = baseResponse
        return s
    }

    func testCalibrateRecoversTheBaseResponseAndWritesARunnableScenario() throws {
        // The past test: 4,000 users per arm with a base response of 0.15, at a seed of its own.
        var truth = experiment(baseResponse: 0.15)
        truth.users = 4_000
        truth.seed = 77
        let model = try CompiledModel(truth)
        let tallies = model.run(options: RunOptions(threads: 2)).tallies
        var csv = "arm,users,delivered,opens,opt_outs,retained_d7\n"
        for (i, t) in tallies.enumerated() {
            csv += "\(model.configurations[i].spec.label),\(t[.users]),\(t[.delivered]),\(t[.opens]),\(t[.optOuts]),\(t[.retainedD7])\n"
        }
        try writeFile("past-test.csv", csv)
        try writeFile("app.json", try experiment(baseResponse: 0.05).canonicalJSON())

        let result = try remindersim("calibrate", "app.json", "past-test.csv", "--fit", "baseResponse", "--users", "2000",
                                     "--threads", "2")
        assertExit(result, 0)
        assertContains(result.stdout, "Calibrating the response of \"default\" on 3 arms of past-test.csv")
        assertContains(result.stdout, "Goodness of fit: J = ")
        assertContains(result.stdout, "Calibrated scenario: app-calibrated.json")
        assertContains(result.stderr, "simulations in")
        let line = try XCTUnwrap(result.stdoutLines.first { $0.hasPrefix("baseResponse") })
        let numbers = line.split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(numbers.count, 4, line)  // start, fitted, lower, upper
        XCTAssertLessThanOrEqual(numbers[2], 0.15, line)
        XCTAssertGreaterThanOrEqual(numbers[3], 0.15, line)

        let calibrated = try Scenario.decode(String(contentsOf: workDirectory.appendingPathComponent("app-calibrated.json"),
                                                    encoding: .utf8))
        XCTAssertEqual(calibrated.response.baseResponse, numbers[1], accuracy: 5e-4 * numbers[1], "the terminal shows 4 significant digits")
        XCTAssertEqual(calibrated.configurations, experiment(baseResponse: 0.05).configurations)
        assertExit(try remindersim("run", "app-calibrated.json", "--users", "300", "--db", "c.sqlite"), 0)
    }

    func testRefusalsAndUsage() throws {
        try writeFile("app.json", try experiment(baseResponse: 0.05).canonicalJSON())
        try writeFile("bad.csv", "arm,users,delivered,opens,opt_outs\n2d,100,x,3,1\n")
        let bad = try remindersim("calibrate", "app.json", "bad.csv")
        assertExit(bad, 65)
        assertContains(bad.stderr, "bad.csv:2: column 3 (delivered): expected a whole number ≥ 0, got 'x'")
        try writeFile("one.csv", "arm,users,delivered,opens,opt_outs\nholdout,100,0,800,0\n2d,100,300,840,6\n")
        let fatigue = try remindersim("calibrate", "app.json", "one.csv", "--fit", "baseResponse,fatigue")
        assertExit(fatigue, 65)
        assertContains(fatigue.stderr, "fatigue cannot be identified from a single arm with one period")
        assertExit(try remindersim("calibrate", "app.json", "missing.csv"), 66)
        assertExit(try remindersim("calibrate", "missing.json", "one.csv"), 66)
        let unknown = try remindersim("calibrate", "app.json", "one.csv", "--fit", "charm")
        assertExit(unknown, 64)
        assertContains(unknown.stderr, "--fit: unknown parameter \"charm\"")
        let help = try remindersim("calibrate", "--help")
        assertExit(help, 0)
        assertContains(help.stdout, "RESULTS.csv has one row per arm")
    }
}
