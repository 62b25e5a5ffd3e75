import Foundation
import ReminderSimTestSupport
import XCTest

/// Rules marked `storeReview`: the cron table's prompts shown in the report and CSV, and `trace`.
final class ReviewPromptCLITests: ReminderSimTestCase {
    /// Users back about every day for 400 days, installed on the first day; the rule `*` asks at every
    /// cold launch, `1 1` is an unmarked welcome screen.
    static let scenario = """
        {"name": "prompts", "seed": 3, "users": 200, "horizonDays": 400,
         "population": {"installSpreadDays": 0,
           "segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 1}, "dropoutPerSession": 0}]},
         "configurations": [
           {"label": "asks", "reminders": [{"messages": ["m"], "timePeriods": [7]}],
            "cronRules": ["1 1", {"rule": "*", "prompt": "storeReview"}]}]}
        """

    func testReportAndCSVGiveThePromptsShownBesideTheAsks() throws {
        try writeFile("prompts.json", Self.scenario)
        let run = try remindersim("run", "prompts.json", "--db", "runs.sqlite", "--out", "out")
        assertExit(run, 0)
        let report = try String(contentsOf: workDirectory.appendingPathComponent("out/prompts-1/report.md"), encoding: .utf8)
        assertContains(report, "| configuration | mode | rule | launches evaluated | block runs | review prompts shown | "
                       + "users shown one | else runs |", "report.md")
        let welcome = try XCTUnwrap(report.split(separator: "\n").first { $0.hasPrefix("| asks | documented | 1 1 |") })
        XCTAssertEqual(welcome.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }[5...6], ["n/a", "n/a"],
                       "an unmarked rule shows no prompt: \(welcome)")

        let csv = try String(contentsOf: workDirectory.appendingPathComponent("out/prompts-1/cron_rule_stats.csv"), encoding: .utf8)
        let rows = csv.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let column = { (name: String) in rows[0].firstIndex(of: name)! }
        let byRule = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { ($0[column("rule")], $0) })
        let marked = try XCTUnwrap(byRule["*"]), unmarked = try XCTUnwrap(byRule["1 1"])
        XCTAssertEqual(marked[column("prompt")], "storeReview")
        // Every user launches more than three times within the first 365 days, and again after them:
        // 3 shown in the first year, 1 to 3 more in days 365 to 400.
        let shown = try XCTUnwrap(Int(marked[column("shown")]))
        XCTAssertGreaterThan(shown, 200 * 3)
        XCTAssertLessThanOrEqual(shown, 200 * 6)
        XCTAssertEqual(marked[column("users_shown")], "200")
        XCTAssertGreaterThan(try XCTUnwrap(Int(marked[column("block_runs")])), shown)
        XCTAssertEqual([unmarked[column("prompt")], unmarked[column("shown")], unmarked[column("users_shown")]], ["", "", ""])

        // The stored run reads back to the same report.
        let again = try remindersim("report", "1", "--db", "runs.sqlite", "--out", "again")
        assertExit(again, 0)
        let reread = try String(contentsOf: workDirectory.appendingPathComponent("again/prompts-1/report.md"), encoding: .utf8)
        assertContains(reread, welcome.description, "report.md read back")
    }

    func testTraceShowsEachAskShownOrCapped() throws {
        try writeFile("prompts.json", Self.scenario)
        let trace = try remindersim("trace", "prompts.json", "--user", "0", "--config", "asks")
        assertExit(trace, 0)
        let asks = trace.stdout.split(separator: "\n").filter { $0.contains("asks for the App Store review prompt") }
        XCTAssertEqual(Array(asks.prefix(3).map { $0.hasSuffix("prompt: shown") }), [true, true, true], trace.stdout)
        XCTAssertTrue(asks[3].contains("capped: not shown, already shown 3 times in the last 365 days"), String(asks[3]))
        assertContains(trace.stdout, "review prompts asked (")
    }
}
