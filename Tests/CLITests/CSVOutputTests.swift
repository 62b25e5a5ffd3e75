import Foundation
import Rendering
import ReminderSimTestSupport
import XCTest

/// CSV as pandas and R read it by default: text exactly as stored, so a label joins with the
/// database; the spreadsheet-safe copy behind `--csv-safe`; a run's scenario on one line.
final class CSVOutputTests: ReminderSimTestCase {
    func labels(_ path: String) throws -> [String] {
        let rows = try CSVTable.parse(String(contentsOf: workDirectory.appendingPathComponent(path), encoding: .utf8))
        let column = try XCTUnwrap(rows.first?.firstIndex(of: "label"), "\(path) has no label column")
        return rows.dropFirst().map { $0[column] }
    }

    func testTextIsWrittenAsStoredUnlessAskedToBeSpreadsheetSafe() throws {
        var scenario = try defaultScenario()
        var configurations = try XCTUnwrap(scenario["configurations"] as? [[String: Any]])
        configurations[0]["label"] = "+2d (new)"
        scenario["configurations"] = configurations
        scenario["users"] = 60
        scenario["horizonDays"] = 35
        try writeFile("s.json", String(decoding: try JSONSerialization.data(withJSONObject: scenario), as: UTF8.self))

        assertExit(try remindersim("run", "s.json", "--db", "r.sqlite", "--out", "plain"), 0)
        XCTAssertTrue(try labels("plain/default-1/config_metrics.csv").contains("+2d (new)"))
        assertExit(try remindersim("report", "1", "--db", "r.sqlite", "--out", "safe", "--csv-safe"), 0)
        XCTAssertTrue(try labels("safe/default-1/config_metrics.csv").contains("'+2d (new)"))
        assertExit(try remindersim("export", "1", "--db", "r.sqlite", "--csv", "exported"), 0)
        XCTAssertTrue(try labels("exported/config_metrics.csv").contains("+2d (new)"))
        assertExit(try remindersim("export", "1", "--db", "r.sqlite", "--csv", "exported-safe", "--csv-safe"), 0)
        XCTAssertTrue(try labels("exported-safe/config_metrics.csv").contains("'+2d (new)"))
        let both = try remindersim("export", "1", "--db", "r.sqlite", "--csv", "x", "--csv-safe", "--csv-raw")
        assertExit(both, 64)

        // The scenario stands on one line of runs.csv, and reads back as the run's scenario.
        let runs = try String(contentsOf: workDirectory.appendingPathComponent("plain/default-1/runs.csv"), encoding: .utf8)
        XCTAssertEqual(runs.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count, 2, runs)
        let table = try CSVTable.parse(runs)
        let json = try XCTUnwrap(table[0].firstIndex(of: "scenario_json").map { table[1][$0] })
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(parsed["users"] as? Int, 60)
    }
}
