import Foundation
import ReminderSimTestSupport
import XCTest

/// A run of many configurations keeps the pairs its decision needs, reports its best configurations
/// and points to the CSV files for the rest; split into shards and merged, it is the same run to the byte.
final class ManyConfigurationsTests: ReminderSimTestCase {
    /// Thirty one-period configurations, "3d" the baseline.
    func write() throws {
        var s = try defaultScenario()
        s["name"] = "thirty periods"
        s["response"] = ["optOutPerDelivery": 0.01]
        s["configurations"] = (1...30).map { d in
            ["label": "\(d)d", "reminders": [["messages": ["Come back"], "timePeriods": [d]]]] as [String: Any]
        }
        s["baseline"] = "3d"
        _ = try writeFile("many.json", try JSONEdit.text(s))
    }

    func files(in folder: String) throws -> [String: Data] {
        let url = workDirectory.appendingPathComponent(folder)
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            out[name] = try Data(contentsOf: url.appendingPathComponent(name))
        }
        return out
    }

    /// Lines of a CSV file (CRLF line ends).
    func lines(_ csv: String) -> Int { csv.utf8.filter { $0 == 10 }.count }

    func testTheReportShowsTheBestAndTheCSVHoldsTheKeptPairs() throws {
        try write()
        assertExit(try remindersim("run", "many.json", "--users", "900", "--days", "30", "--db", "run.sqlite", "--out", "out"), 0)
        let report = try String(contentsOf: workDirectory.appendingPathComponent("out/thirty-periods-1/report.md"), encoding: .utf8)
        assertContains(report, "This run has 30 configurations: the report's tables and charts show")
        assertContains(report, "`run --all-pairs` keeps every pair")
        XCTAssertFalse(report.contains("Every pair, opens per user"))
        let csv = try String(contentsOf: workDirectory.appendingPathComponent("out/thirty-periods-1/pairwise_stats.csv"), encoding: .utf8)
        let rows = lines(csv) - 1
        // Against 2 to 4 references of 31: far fewer than the 31 · 30 ordered pairs, 5 measures each.
        XCTAssertGreaterThanOrEqual(rows, (2 * 30 + 2 * 29) * 5 - 10)
        XCTAssertLessThanOrEqual(rows, (31 * 30 - 27 * 26) * 5)
        let config = try String(contentsOf: workDirectory.appendingPathComponent("out/thirty-periods-1/config_metrics.csv"), encoding: .utf8)
        XCTAssertEqual(lines(config), 32, "every configuration is in the CSV")

        assertExit(try remindersim("run", "many.json", "--users", "900", "--days", "30", "--all-pairs", "--db", "all.sqlite",
                                   "--out", "all"), 0)
        let every = try String(contentsOf: workDirectory.appendingPathComponent("all/thirty-periods-1/pairwise_stats.csv"), encoding: .utf8)
        XCTAssertEqual(lines(every) - 1, 31 * 30 * 5)
    }

    func testMergedShardsEqualTheWholeRun() throws {
        try write()
        assertExit(try remindersim("run", "many.json", "--users", "700", "--days", "30", "--threads", "2",
                                   "--db", "whole.sqlite", "--out", "whole"), 0)
        var dbs: [String] = []
        for k in 1...3 {
            assertExit(try remindersim("run", "many.json", "--users", "700", "--days", "30", "--threads", "1",
                                       "--shard", "\(k)/3", "--db", "s\(k).sqlite"), 0)
            dbs.append("s\(k).sqlite")
        }
        assertExit(try remindersim(arguments: ["merge"] + dbs + ["--into", "merged.sqlite", "--out", "merged"]), 0)
        let whole = try files(in: "whole/thirty-periods-1"), merged = try files(in: "merged/thirty-periods-1")
        XCTAssertEqual(Set(merged.keys), Set(whole.keys))
        for (name, data) in whole { XCTAssertEqual(merged[name], data, "\(name) differs") }
    }
}
