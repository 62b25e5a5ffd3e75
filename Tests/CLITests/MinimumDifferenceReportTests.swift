import Foundation
import ReminderSimTestSupport
import XCTest

/// `run`'s decision holds the recommendation's gain to `decision.minimumDifference` and states it.
final class MinimumDifferenceReportTests: ReminderSimTestCase {
    /// Every day against a reminder 30 days after the last session, which hardly fires in 40 days:
    /// the gain in opens is clear, and far below 100 opens per user.
    func scenario(minimum: Double?) throws -> String {
        var s = try defaultScenario()
        s["name"] = "minimum"
        s["response"] = ["optOutPerDelivery": 0.01]
        s["configurations"] = [1, 2, 30].map { d in
            ["label": "\(d)d", "reminders": [["messages": ["Come back"], "timePeriods": [d]]]] as [String: Any]
        }
        s["baseline"] = "30d"
        var decision: [String: Any] = ["objective": "opensLiftPerUser", "constraints": [:] as [String: Any]]
        if let minimum { decision["minimumDifference"] = minimum }
        s["decision"] = decision
        return try JSONEdit.text(s)
    }

    func report(minimum: Double?, folder: String) throws -> String {
        try run(minimum: minimum, folder: folder).report
    }

    /// The run's report.md and its stdout (the terminal summary), or its `run --json` document.
    func run(minimum: Double?, folder: String, json: Bool = false) throws -> (report: String, stdout: String) {
        _ = try writeFile("\(folder).json", scenario(minimum: minimum))
        let run = try remindersim(arguments: ["run", "\(folder).json", "--users", "2000", "--days", "40", "--threads", "2", "--out", folder]
            + (json ? ["--json"] : []))
        assertExit(run, 0)
        let out = workDirectory.appendingPathComponent(folder)
        let runs = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("minimum-") }
        let dir = out.appendingPathComponent(try XCTUnwrap(runs.first, "no report folder in \(folder)"))
        return (try String(contentsOf: dir.appendingPathComponent("report.md"), encoding: .utf8), run.stdout)
    }

    func testTheGainIsHeldToTheMinimumDifference() throws {
        let plain = try report(minimum: nil, folder: "plain")
        assertContains(plain, "smallest gain worth shipping 0 in opens per user vs holdout (the default", "report.md")
        assertContains(plain, "Against the baseline on opens per user: 1d is clearly better", "report.md")
        let strict = try report(minimum: 100, folder: "strict")
        assertContains(strict, "smallest gain worth shipping 100 in opens per user vs holdout", "report.md")
        assertContains(strict, "Against the baseline on opens per user: 1d is better, by less than what matters", "report.md")
    }

    /// The call itself says so wherever it is read (the report's headline, the terminal, `run --json`)
    /// when the gain over the baseline does not clear a stated minimum; with none stated it is as before.
    func testTheCallSaysWhenTheGainDoesNotClearTheMinimum() throws {
        let caveat = "; against the baseline, 30d, it is better, by less than what matters ("
        let strict = try run(minimum: 100, folder: "strict")
        assertContains(strict.report, "**Ship 1d: ", "report.md")
        assertContains(strict.report, caveat, "report.md")
        assertContains(strict.stdout, caveat, "terminal")
        assertContains(strict.stdout, "smallest gain worth shipping 100 in opens per user vs holdout)", "terminal")
        let json = try run(minimum: 100, folder: "json", json: true)
        assertContains(json.stdout, caveat, "run --json")
        let plain = try run(minimum: nil, folder: "plain")
        XCTAssertFalse(plain.report.contains("; against the baseline, "), "no minimum stated: the headline is as before")
        XCTAssertFalse(plain.stdout.contains("; against the baseline, "))
        let clear = try run(minimum: 0.001, folder: "clear")
        XCTAssertFalse(clear.stdout.contains("; against the baseline, "), "a gain that clears the minimum needs no caveat")
    }
}
