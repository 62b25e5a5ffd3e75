import Foundation
import Simulation
@testable import Storage
import ReminderSimTestSupport
import XCTest

/// A database written by schema version 1 opens, migrates to the current version and reads back.
final class MigrationTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func scenario() -> Scenario {
        var s = Scenario.builtInDefault
        s.users = 200
        s.horizonDays = 35
        return s
    }

    /// A version-1 database holding one real run: the version-1 tables, filled from a current database.
    func versionOneDatabase() throws -> (path: String, results: RunResults) {
        let s = scenario()
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let current = folder.appendingPathComponent("current.sqlite").path
        _ = try RunStore(path: current).save(RunRecord(results: results, toolVersion: "test", createdAt: "2026-12-02T00:00:00Z",
                                                       wallSeconds: 1, threads: 2))
        let old = folder.appendingPathComponent("old.sqlite").path
        try fill(old, from: current)
        return (old, results)
    }

    /// The database is closed when it goes out of scope here.
    func fill(_ old: String, from current: String) throws {
        let db = try Database(path: old, create: true)
        try db.execute(Schema.migrations[0])
        try db.execute("PRAGMA user_version = 1")
        try db.execute("ATTACH DATABASE '\(current)' AS current")
        for table in Schema.exportedTables.map(\.name) + ["tallies"] {
            let columns = try db.rows("SELECT name FROM pragma_table_info(?, 'main') ORDER BY cid", [.text(table)])
                .compactMap { $0.text(0) }
            guard !columns.isEmpty else { continue }
            let list = columns.joined(separator: ", ")
            try db.execute("INSERT INTO main.\(table) (\(list)) SELECT \(list) FROM current.\(table)")
        }
        try db.execute("DETACH DATABASE current")
    }

    func testAVersionOneDatabaseMigratesAndItsRunsStillRead() throws {
        let (path, results) = try versionOneDatabase()
        let store = try RunStore(path: path, create: false)
        XCTAssertEqual(try store.database.userVersion, RunStore.schemaVersion)
        let run = try store.load(1)
        // The exact counts survive; the sums over users were never kept, so there are no pairs or segments.
        XCTAssertEqual(run.results.tallies.tallies, results.tallies.tallies)
        XCTAssertNil(run.results.tallies.sums)
        XCTAssertTrue(run.results.pairwise.isEmpty)
        XCTAssertEqual(run.results.configurations.map(\.metrics.opensLiftPerUser), results.configurations.map(\.metrics.opensLiftPerUser))
        // New columns are filled for old rows: labels beside config_index, the opt-out rate.
        let labels = try store.database.rows("SELECT DISTINCT label FROM daily_stats WHERE run_id = 1 ORDER BY config_index")
        XCTAssertEqual(labels.compactMap { $0.text(0) }, results.all.map(\.label))
        let optOut = try store.database.rows("SELECT opt_out_rate, opt_outs, users FROM config_metrics WHERE config_index = 1")
        let row = try XCTUnwrap(optOut.first)
        XCTAssertEqual(try XCTUnwrap(row.real(0)), Double(row.integer(1)!) / Double(row.integer(2)!), accuracy: 1e-15)
        let export = try store.export(table: "message_stats", run: 1)
        XCTAssertEqual(Array(export.columns.prefix(3)), ["run_id", "config_index", "label"])
        // A new run beside the old one has everything.
        let id = try store.save(RunRecord(results: results, toolVersion: "test", createdAt: "2026-12-02T00:00:00Z", wallSeconds: 1, threads: 2))
        XCTAssertEqual(try store.load(id).results.tallies, results.tallies)
        XCTAssertFalse(try store.export(table: "pairwise_stats", run: id).rows.isEmpty)
    }
}
