import Foundation
import Storage
import ReminderSimTestSupport
import XCTest

/// Several `run` processes writing to one database at the same time.
final class ConcurrentRunTests: ReminderSimTestCase {
    func testTwoRunsAtOnceBothSaveWholeRuns() throws {
        let arguments = ["run", "--users", "20000", "--days", "40", "--threads", "1", "--db", "shared.sqlite"]
        let runs = try [startRemindersim(arguments), startRemindersim(arguments)]
        let results = runs.compactMap { $0.wait(timeout: 120) }
        XCTAssertEqual(results.count, 2, "a run did not finish within 120 s")
        for result in results {
            assertExit(result, 0)
            XCTAssertEqual(result.stderr, "", result.description)
        }
        let saved = results.compactMap { result -> String? in
            guard let range = result.stdout.range(of: #"Saved as run \d+ "#, options: .regularExpression) else { return nil }
            return String(result.stdout[range])
        }
        XCTAssertEqual(Set(saved), ["Saved as run 1 ", "Saved as run 2 "], "each process should report its own run id")

        let list = try remindersim("list", "--db", "shared.sqlite")
        assertExit(list, 0)
        let rows = list.stdoutLines.dropFirst().map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(rows.map { $0.first ?? "" }, ["1", "2"], list.stdout)
        for row in rows {
            XCTAssertEqual(Array(row.dropFirst(3).prefix(4)), ["20,000", "40", "5", "complete"], list.stdout)
        }

        let database = try openDatabase("shared.sqlite")
        try assertIntegrity(database)
        XCTAssertEqual(try runIDs(database), [1, 2])
        try assertEveryRunComplete(database)
        // The same scenario, seed and users: the two runs must have stored the same results.
        let metrics = try database.rows(
            "SELECT run_id, count(*), sum(opens), sum(delivered) FROM config_metrics GROUP BY run_id ORDER BY run_id")
        XCTAssertEqual(metrics.count, 2)
        if metrics.count == 2 {
            XCTAssertEqual(Array(metrics[0].values.dropFirst()), Array(metrics[1].values.dropFirst()))
        }
        for id in [1, 2] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("Reports/default-\(id)/report.md")),
                          "no report for run \(id)")
        }
    }

    /// Six processes creating the same new database at once: creation, WAL set-up and the first
    /// migration race one another.
    func testRunsCreatingTheDatabaseTogether() throws {
        let arguments = ["run", "--users", "500", "--days", "35", "--threads", "1", "--db", "fresh/new.sqlite"]
        let runs = try (0..<6).map { _ in try startRemindersim(arguments) }
        for run in runs {
            guard let result = run.wait(timeout: 60) else {
                XCTFail("a run did not finish within 60 s")
                continue
            }
            assertExit(result, 0)
            // A run that waits over a second for another's write says so, as documented; nothing else is said.
            let other = result.stderrLines.filter { !$0.contains("waiting up to 60 s for another process writing") }
            XCTAssertEqual(other, [], result.description)
        }
        let database = try openDatabase("fresh/new.sqlite")
        try assertIntegrity(database)
        XCTAssertEqual(try runIDs(database), [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(try database.userVersion, RunStore.schemaVersion)
        try assertEveryRunComplete(database)
    }
}
