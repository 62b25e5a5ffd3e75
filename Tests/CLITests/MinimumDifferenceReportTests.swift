import Foundation
import ReminderSimTestSupport
import XCTest

/// `run`'s decision holds the recommendation's gain to `decision.minimumDifference` and states it.
final class MinimumDifferenceReportTests: ReminderSimTestCase {
    /// Every day against a reminder 30 days after the last session, which hardly fires in 40 days:
    /// the gain in opens is clear, and far below 100 opens per user.
    func scenario(minimum: Double?, baseline: String = "30d", optOutLimit: Double? = nil) throws -> String {
        var s = try defaultScenario()
        s["name"] = "minimum"
        s["response"] = ["optOutPerDelivery": 0.01]
        s["configurations"] = [1, 2, 30].map { d in
            ["label": "\(d)d", "reminders": [["messages": ["Come back"], "timePeriods": [d]]]] as [String: Any]
        }
        s["baseline"] = baseline
        var decision: [String: Any] = ["objective": "opensLiftPerUser",
                                       "constraints": optOutLimit.map { ["optOutRate": ["max": $0]] } ?? [:] as [String: Any]]
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
        assertContains(plain, "smallest gain worth shipping 0 in opens per user (the default", "report.md")
        assertContains(plain, "Against the baseline on opens per user: 1d is clearly better", "report.md")
        let strict = try report(minimum: 100, folder: "strict")
        assertContains(strict, "smallest gain worth shipping 100 in opens per user", "report.md")
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
        assertContains(strict.stdout, "smallest gain worth shipping 100 in opens per user)", "terminal")
        let json = try run(minimum: 100, folder: "json", json: true)
        assertContains(json.stdout, caveat, "run --json")
        let plain = try run(minimum: nil, folder: "plain")
        XCTAssertFalse(plain.report.contains("; against the baseline, "), "no minimum stated: the headline is as before")
        XCTAssertFalse(plain.stdout.contains("; against the baseline, "))
        let clear = try run(minimum: 0.001, folder: "clear")
        XCTAssertFalse(clear.stdout.contains("; against the baseline, "), "a gain that clears the minimum needs no caveat")
    }

    /// Whatever the minimum, a recommendation that is not clearly better than the baseline says so in
    /// the call, with the constraint that rules the baseline out; and a recommendation whose interval
    /// crosses a limit is too close to call there, in the call and in `run --json`'s constraints.
    func testTheCallSaysWhenItIsWorseThanTheBaselineOrTooCloseToALimit() throws {
        // Opt-out rates at 2,000 users and 40 days: 1d about 4.3%, 2d about 2.4% [1.8, 3.2], 30d under 0.3%.
        _ = try writeFile("limit.json", scenario(minimum: nil, baseline: "1d", optOutLimit: 0.03))
        let run = try remindersim(arguments: ["run", "limit.json", "--users", "2000", "--days", "40", "--threads", "2", "--json"])
        assertExit(run, 0)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let decision = try XCTUnwrap(doc["decision"] as? [String: Any])
        XCTAssertEqual(decision["recommended"] as? String, "2d")
        let summary = try XCTUnwrap(decision["summary"] as? String)
        assertContains(summary, "Ship 2d: opens per user vs holdout ")
        assertContains(summary, "; too close to call on opt-out rate ≤ 3.0% (2.")
        assertContains(summary, "): its interval crosses the limit; against the baseline, 1d, it is clearly worse (-0.")
        XCTAssertTrue(summary.hasSuffix("), but the baseline breaks opt-out rate ≤ 3.0%."), summary)
        let constraints = try XCTUnwrap(decision["constraints"] as? [[String: Any]])
        XCTAssertEqual(constraints.first?["tooCloseToCall"] as? [String], ["2d"])
        XCTAssertEqual(constraints.first?["excludes"] as? [String], ["1d"])
    }
}
