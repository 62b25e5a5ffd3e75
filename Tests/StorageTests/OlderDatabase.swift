import Foundation
import Simulation
@testable import Storage

/// Older databases holding runs saved by this build, for the tests of migrations.
enum OlderDatabase {
    /// Makes a database at `path` with the schema of `version` holding the runs of `results`, as
    /// this build saves them, in every column that version has.
    static func make(at path: String, version: Int, holding results: [RunResults], scratch: URL) throws {
        do {
            let db = try Database(path: path, create: true)
            for migration in Schema.migrations.prefix(version) { try db.execute(migration) }
            try db.execute("PRAGMA user_version = \(version)")
        }
        let current = scratch.appendingPathComponent("current-\(UUID().uuidString).sqlite").path
        let store = try RunStore(path: current)
        for r in results {
            _ = try store.save(RunRecord(results: r, toolVersion: "test", createdAt: "2026-12-03T00:00:00Z", wallSeconds: 1,
                                         threads: 2))
        }
        let db = try Database(path: path, create: false)
        try db.execute("ATTACH DATABASE '\(current)' AS current")
        for table in Schema.exportedTables.map(\.name) + ["tallies", "user_sums"] {
            let columns = try db.rows("SELECT name FROM pragma_table_info(?, 'main') ORDER BY cid", [.text(table)])
                .compactMap { $0.text(0) }.joined(separator: ", ")
            // A table of a later version than the database's is not there.
            guard !columns.isEmpty else { continue }
            try db.execute("INSERT INTO main.\(table) (\(columns)) SELECT \(columns) FROM current.\(table)")
        }
        try db.execute("DETACH DATABASE current")
    }
}
