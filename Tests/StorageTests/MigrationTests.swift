import Foundation
import Simulation
@testable import Storage
import ReminderSimTestSupport
import XCTest

/// A database written by an older schema version opens, migrates to the current version and reads back.
final class MigrationTests: FolderTestCase {
    override var folderPrefix: String { "migrate" }

    func scenario() -> Scenario {
        var s = Scenario.builtInDefault
        s.users = 200
        s.horizonDays = 35
        return s
    }

    /// A database at schema `version` holding one real run: that version's tables, filled from a current database.
    func olderDatabase(version: Int = 1) throws -> (path: String, results: RunResults) {
        let s = scenario()
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let current = folder.appendingPathComponent("current.sqlite").path
        _ = try RunStore(path: current).save(RunRecord(results: results, toolVersion: "test", createdAt: "2026-12-02T00:00:00Z",
                                                       wallSeconds: 1, threads: 2))
        let old = folder.appendingPathComponent("old.sqlite").path
        try fill(old, from: current, version: version)
        return (old, results)
    }

    /// The database is closed when it goes out of scope here.
    func fill(_ old: String, from current: String, version: Int) throws {
        let db = try Database(path: old, create: true)
        for migration in Schema.migrations.prefix(version) { try db.execute(migration) }
        try db.execute("PRAGMA user_version = \(version)")
        try db.execute("ATTACH DATABASE '\(current)' AS current")
        for table in Schema.exportedTables.map(\.name) + ["tallies", "user_sums"] {
            let columns = try db.rows("SELECT name FROM pragma_table_info(?, 'main') ORDER BY cid", [.text(table)])
                .compactMap { $0.text(0) }
            guard !columns.isEmpty else { continue }
            let list = columns.joined(separator: ", ")
            try db.execute("INSERT INTO main.\(table) (\(list)) SELECT \(list) FROM current.\(table)")
        }
        try db.execute("DETACH DATABASE current")
    }

    func testAVersionOneDatabaseMigratesAndItsRunsStillRead() throws {
        let (path, results) = try olderDatabase()
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

    /// Version 4 adds the tables of tunes and nothing else.
    func testVersionFourAddsTheTuneTables() {
        XCTAssertGreaterThanOrEqual(Schema.currentVersion, 4)
        XCTAssertEqual(Schema.objects(atVersion: 4).subtracting(Schema.objects(atVersion: 3)),
                       ["tunes", "tune_stages", "tune_candidates", "tune_constraint_values"])
        XCTAssertTrue(Schema.objects(atVersion: 3).isSubset(of: Schema.objects(atVersion: 4)))
    }

    /// A version-3 database gains the tune tables, keeps its runs exactly, and takes a tune.
    func testAVersionThreeDatabaseMigratesAndTakesATune() throws {
        let (path, results) = try olderDatabase(version: 3)
        XCTAssertEqual(try Database(path: path, create: false).userVersion, 3)
        let store = try RunStore(path: path, create: false)
        XCTAssertEqual(try store.database.userVersion, Schema.currentVersion)
        let tables = Set(try store.database.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").compactMap { $0.text(0) })
        XCTAssertTrue(Schema.objects(atVersion: 4).isSubset(of: tables), "\(Schema.objects(atVersion: 4).subtracting(tables))")
        let run = try store.load(1)
        XCTAssertEqual(run.results.tallies, results.tallies, "the run and its sums over users read back exactly")
        XCTAssertFalse(try store.export(table: "pairwise_stats", run: 1).rows.isEmpty)

        var s = scenario()
        s.tune = TuneSpec(baseline: "2d", rule: DecisionRule(objective: .opensLiftPerUser),
                          space: TuneSpace(periods: TuneRange(min: 1, max: 3)))
        let tuned = try Tuner(scenario: s, threads: 2).run()
        let id = try store.save(TuneRecord(result: tuned, toolVersion: "test", createdAt: "2026-12-03T00:00:00Z",
                                           wallSeconds: 1, threads: 2))
        XCTAssertEqual(try store.database.rows("SELECT COUNT(*) FROM tune_candidates WHERE tune_id = ?", [.integer(id)])
            .first?.integer(0), Int64(tuned.candidates.count))
        XCTAssertEqual(tuned.parts.first, TunePart(name: "timePeriods", candidates: 3), "the space; the listed configurations it lacks follow")
        XCTAssertEqual(try store.list().map(\.id), [1], "a tune is not a run")
    }
}
