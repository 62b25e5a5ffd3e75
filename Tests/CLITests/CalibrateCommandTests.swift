import Foundation
import Simulation
import ReminderSimTestSupport
import XCTest

/// `calibrate` from a user's point of view: a past test's results in, a calibrated scenario out.
final class CalibrateCommandTests: ReminderSimTestCase {
    private func experiment(baseResponse: Double) -> Scenario { CalibrationFixture.experiment(baseResponse: baseResponse) }

    func testCalibrateRecoversTheBaseResponseAndWritesARunnableScenario() throws {
        // The past test: 4,000 users per arm with a base response of 0.15, at a seed of its own.
        var truth = experiment(baseResponse: 0.15)
        truth.users = 4_000
        truth.seed = 77
        let csv = try CalibrationFixture.results(of: truth)
        try writeFile("past-test.csv", csv)
        try writeFile("app.json", try experiment(baseResponse: 0.05).canonicalJSON())

        let result = try remindersim("calibrate", "app.json", "past-test.csv", "--fit", "baseResponse", "--users", "2000",
                                     "--threads", "2")
        assertExit(result, 0)
        assertContains(result.stdout, "Calibrating the response of \"default\" on 3 arms of past-test.csv")
        assertContains(result.stdout, "Goodness of fit: J = ")
        // Under 40,000 users the search runs on all of them: no Gauss–Newton steps, the schedule says so.
        assertContains(result.stdout, "Schedule: Nelder–Mead on 2,000 users per arm (")
        assertContains(result.stdout, "then the slopes and the covariance at the fit on 2,000 users per arm (")
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
        // The file says what it is: its description names the results and the fitted values, as printed.
        let own = experiment(baseResponse: 0.05).description
        let note = "Response calibrated on past-test.csv: baseResponse \(line.split(separator: " ")[2]) "
            + "(\(line.split(separator: " ")[3])–\(line.split(separator: " ")[5]))."
        XCTAssertEqual(calibrated.description, [own, note].compactMap { $0 }.joined(separator: " "))
        // Calibrated again, the earlier note gives way to the new one.
        assertExit(try remindersim("calibrate", "app-calibrated.json", "past-test.csv", "--fit", "baseResponse", "--users", "2000",
                                   "--out", "again.json"), 0)
        let again = try Scenario.decode(String(contentsOf: workDirectory.appendingPathComponent("again.json"), encoding: .utf8))
        XCTAssertEqual(again.description?.components(separatedBy: "Response calibrated on").count, 2, again.description ?? "")
    }

    /// A scenario whose segment reads a recorded log by a relative path, calibrated into another folder,
    /// still finds its log there (by an absolute path); calibrated beside itself, the path stays as written.
    func testACalibratedScenarioInAnotherFolderStillFindsItsRecordedLog() throws {
        var truth = experiment(baseResponse: 0.15)
        truth.users = 2_000
        try writeFile("results/past-test.csv", try CalibrationFixture.results(of: truth))
        var log = "user,time\n"
        for user in 0..<40 {
            for visit in 0..<6 { log += "u\(user),2024-01-\(String(format: "%02d", 1 + (user + visit * 5) % 28))T10:00:00Z\n" }
        }
        try writeFile("app/logs/visits.csv", log)
        var app = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try experiment(baseResponse: 0.05).canonicalJSON().utf8))
            as? [String: Any])
        var population = try XCTUnwrap(app["population"] as? [String: Any])
        population["segments"] = [["name": "recorded", "returns": [
            "distribution": "empirical", "data": "logs/visits.csv", "format": ["user": "user", "time": "time"]]]]
        app["population"] = population
        try writeFile("app/app.json", String(decoding: try JSONSerialization.data(withJSONObject: app), as: UTF8.self))

        func data(_ file: String) throws -> String? {
            let written = try Scenario.decode(String(contentsOf: workDirectory.appendingPathComponent(file), encoding: .utf8))
            guard case let .recordedGaps(source) = written.population.segments.first?.returns else { return nil }
            return source.path
        }
        let fit = ["--fit", "baseResponse", "--users", "500", "--threads", "2"]
        assertExit(try remindersim(arguments: ["calibrate", "app/app.json", "results/past-test.csv", "--out", "results/cal.json"] + fit), 0)
        XCTAssertEqual(try data("results/cal.json"), workDirectory.appendingPathComponent("app/logs/visits.csv").standardizedFileURL.path)
        assertExit(try remindersim("validate", "results/cal.json"), 0)
        // Written beside the scenario (the default place), the relative path is kept.
        assertExit(try remindersim(arguments: ["calibrate", "app/app.json", "results/past-test.csv"] + fit), 0)
        XCTAssertEqual(try data("app/app-calibrated.json"), "logs/visits.csv")
        assertExit(try remindersim("validate", "app/app-calibrated.json"), 0)
    }

    func testRefusalsAndUsage() throws {
        try writeFile("app.json", try experiment(baseResponse: 0.05).canonicalJSON())
        try writeFile("bad.csv", "arm,users,delivered,opens,opt_outs\n2d,100,x,3,1\n")
        let bad = try remindersim("calibrate", "app.json", "bad.csv")
        assertExit(bad, 65)
        assertContains(bad.stderr, "bad.csv:2: column 3 (delivered): expected a whole number from 0 to 9007199254740991, got 'x'")
        // An arm the scenario does not have is named as the file's other problems are: file:line.
        try writeFile("arms.csv", "arm,users,delivered,opens,opt_outs\nholdout,100,0,800,0\nweekly,100,300,840,6\n")
        for command in ["calibrate", "readout"] {
            let unknown = try remindersim(command, "app.json", "arms.csv")
            assertExit(unknown, 65)
            assertContains(unknown.stderr, "arms.csv:3: arm \"weekly\" is not a configuration of the scenario")
        }
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
