import Foundation
import ReminderSimTestSupport
import XCTest

/// Reports and traces show the delays the original modes really used, and name the versions.
final class OriginalModeDisplayTests: ReminderSimTestCase {
    /// 1.0.0 with `[7, 10]`, circular, early wiring: index 0 (reached by the wrap) waits 1 day.
    static let scenario = """
        {"name": "released", "seed": 5, "users": 300, "horizonDays": 60,
         "population": {"installSpreadDays": 5,
           "segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 12}}]},
         "configurations": [
           {"label": "v100", "mode": "original-1.0.0", "wiring": "early",
            "reminders": [{"messages": ["m"], "timePeriods": [7, 10], "circularTimePeriod": true,
                           "appDomain": "com.mydomain.appName"}],
            "cronRules": ["3", "1 1"]},
           {"label": "v102", "mode": "original",
            "reminders": [{"messages": ["m"], "timePeriods": [7, 10], "appDomain": "com.mydomain.appName"}]}]}
        """

    func testReportShowsTheDelaysReallyUsedAndTheVersions() throws {
        try writeFile("released.json", Self.scenario)
        let run = try remindersim("run", "released.json", "--db", "runs.sqlite", "--out", "out")
        assertExit(run, 0)
        let report = try String(
            contentsOf: workDirectory.appendingPathComponent("out/released-1/report.md"), encoding: .utf8)
        // Per period: index 0 of 1.0.0 is named by the delay it used.
        assertContains(report, "| v100 | 0 | 1 | 1 day (timePeriods says 7 days) |", "report.md")
        assertContains(report, "| v100 | 0 | 2 | 10 days |", "report.md")
        assertContains(report, "| v102 | 0 | 1 | 7 days |", "report.md")
        // The configuration description: versions, wiring, delays used.
        assertContains(report, "| v100 | original-1.0.0 (ACPReminder 1.0.0, Crontab-IOS 1.0 pod) | early |", "report.md")
        assertContains(report, "| v102 | original (ACPReminder 1.0.2, Crontab-IOS 1.0 pod) | readme |", "report.md")
        let v100 = try XCTUnwrap(report.split(separator: "\n").first { $0.hasPrefix("| v100 | original-1.0.0") })
        XCTAssertNotNil(v100.range(of: #"\| 1 day \([0-9.]+%\), 10 days \([0-9.]+%\) \|"#, options: .regularExpression),
                        "delays used, in index order: \(v100)")
        // The README-wired 1.0.2 never leaves its first period.
        assertContains(report, "| 7 days (100.0%) |", "report.md")
        // The pod never runs the one-field rule.
        let rule = try XCTUnwrap(report.split(separator: "\n").first { $0.hasPrefix("| v100 | original-1.0.0 | 3 |") })
        XCTAssertTrue(rule.contains("| 0 | "), "rule 3 ran in original mode: \(rule)")

        let csv = try String(contentsOf: workDirectory.appendingPathComponent("out/released-1/period_stats.csv"), encoding: .utf8)
        let rows = csv.split(whereSeparator: \.isNewline).map { $0.split(separator: ",").map(String.init) }
        let column = { (name: String) in rows[0].firstIndex(of: name)! }
        XCTAssertEqual(rows.dropFirst().filter { $0[column("config_index")] == "1" }
                           .map { [$0[column("period_index")], $0[column("period_value")], $0[column("period_unit")]] },
                       [["0", "1", "days"], ["1", "10", "days"]])
    }

    func testTraceShowsTheDelayReallyUsed() throws {
        try writeFile("released.json", Self.scenario)
        var sawOneDay = false
        for user in 0..<20 where !sawOneDay {
            let trace = try remindersim("trace", "released.json", "--user", "\(user)", "--config", "v100")
            assertExit(trace, 0)
            assertContains(trace.stdout, "(original-1.0.0 mode: ACPReminder 1.0.0, Crontab-IOS 1.0 pod, early wiring)")
            XCTAssertFalse(trace.stdout.contains("(period 1: 7 days)"), "index 0 never waits 7 days in 1.0.0")
            sawOneDay = trace.stdout.contains("(period 1: 1 day)")
        }
        XCTAssertTrue(sawOneDay, "no user of 20 wrapped back to index 0")

        let readme = try remindersim("trace", "released.json", "--user", "0", "--config", "v102")
        assertExit(readme, 0)
        assertContains(readme.stdout, "(original mode: ACPReminder 1.0.2, Crontab-IOS 1.0 pod, readme wiring)")
        assertContains(readme.stdout, "open (install), cold launch\n                    reminder 0 checked unconfigured (README wiring): ")
        // Every open after a fire is a cold launch, which keeps the index: 7 days every time.
        XCTAssertFalse(readme.stdout.contains("(period 2: 10 days)"), "a README-wired [7, 10] stays on 7 days")
        assertContains(readme.stdout, "(period 1: 7 days)")
    }
}
