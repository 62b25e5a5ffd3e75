import Foundation
import Rendering
import ReminderSimTestSupport
import XCTest

/// `compare --format csv` and `--format json` name a measure as the run's tables name its column.
final class CompareMeasureNameTests: ReminderSimTestCase {
    func testComparedMeasuresAreNamedAsTheTablesColumns() throws {
        for seed in ["1", "2"] {
            assertExit(try remindersim("run", "--users", "300", "--days", "35", "--seed", seed, "--db", "runs.sqlite", "--out", "out"), 0)
        }
        assertExit(try remindersim("export", "1", "--db", "runs.sqlite", "--csv", "csv"), 0)
        let metrics = try CSVTable.parse(String(contentsOf: workDirectory.appendingPathComponent("csv/config_metrics.csv"), encoding: .utf8))
        let columns = Set(try XCTUnwrap(metrics.first))

        let csv = try remindersim("compare", "1", "2", "--db", "runs.sqlite", "--format", "csv")
        assertExit(csv, 0)
        let records = try CSVTable.parse(csv.stdout)
        let measure = try XCTUnwrap(records.first?.firstIndex(of: "measure"))
        let named = Set(records.dropFirst().map { $0[measure] })
        XCTAssertTrue(named.contains("retention_d7"), "\(named)")
        XCTAssertEqual(named.subtracting(columns), [], "measures config_metrics.csv has no column for")

        let json = try remindersim("compare", "1", "2", "--db", "runs.sqlite", "--format", "json")
        assertExit(json, 0)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try XCTUnwrap(document["rows"] as? [[String: Any]])
        XCTAssertEqual(Set(rows.compactMap { $0["measure"] as? String }), named)
    }
}
