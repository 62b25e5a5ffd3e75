import Foundation
import Simulation
@testable import Storage
import ReminderSimTestSupport
import XCTest

/// The described tables (`ResultTables`) and the schema agree: the same columns, the same SQL types,
/// in the order CSV export has always given them.
final class ResultTablesSchemaTests: FolderTestCase {
    override var folderPrefix: String { "tables" }

    /// The columns of `table` in a database made by every migration, without `run_id`, `label` moved
    /// next to `config_index` as export puts it.
    func schemaColumns(_ table: String, in database: Database) throws -> [(name: String, type: String)] {
        var columns = try database.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
            .map { (name: $0.text(0) ?? "", type: $0.text(1) ?? "") }
            .filter { $0.name != "run_id" }
        if let c = columns.firstIndex(where: { $0.name == "config_index" }), let l = columns.firstIndex(where: { $0.name == "label" }),
           l != c + 1 {
            let label = columns.remove(at: l)
            columns.insert(label, at: c + 1)
        }
        return columns
    }

    func testEveryDescribedTableHasTheSchemasColumnsAndTypes() throws {
        let database = try Database(path: ":memory:")
        for migration in Schema.migrations { try database.execute(migration) }
        XCTAssertEqual(ResultTables.all.map(\.name), RunStore.exportedTables)
        for table in ResultTables.all {
            let schema = try schemaColumns(table.name, in: database)
            XCTAssertEqual(table.columns.map(\.name), schema.map(\.name), table.name)
            XCTAssertEqual(table.columns.map(\.type.rawValue), schema.map(\.type), table.name)
        }
    }

    func testEveryColumnSaysWhatItIs() {
        for table in ResultTables.all {
            XCTAssertEqual(Set(table.columns.map(\.name)).count, table.columns.count, "\(table.name) names a column twice")
            for column in table.columns {
                XCTAssertFalse(column.meaning.isEmpty, "\(table.name).\(column.name)")
                XCTAssertFalse(column.unit.isEmpty, "\(table.name).\(column.name)")
                XCTAssertEqual(column.name, column.name.lowercased(), "\(table.name).\(column.name) is not snake_case")
            }
        }
    }

    /// A statement given more or fewer values than it has parameters fails instead of binding NULL
    /// or shifting columns.
    func testBindingRefusesTheWrongNumberOfValues() throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (a INTEGER, b INTEGER)")
        XCTAssertThrowsError(try database.run("INSERT INTO t (a, b) VALUES (?, ?)", [.integer(1)])) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .invalid)
            XCTAssertTrue("\(error)".contains("1 values for 2 parameters"), "\(error)")
        }
        XCTAssertThrowsError(try database.insert("t", key: ("a", .integer(1)), ["b"], [[.integer(2), .integer(3)]]))
        try database.insert("t", key: ("a", .integer(1)), ["b"], [[.integer(2)]])
        XCTAssertEqual(try database.rows("SELECT a, b FROM t").first?.values, [.integer(1), .integer(2)])
    }

    /// Every described row saved is what the description gives for the run, value for value.
    func testSavedRowsAreTheDescribedValues() throws {
        var s = Scenario.builtInDefault
        s.users = 400
        s.horizonDays = 35
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let record = RunRecord(results: results, toolVersion: "test", createdAt: "2026-01-01T00:00:00Z", wallSeconds: 1, threads: 2)
        let store = try RunStore(path: folder.appendingPathComponent("run.sqlite").path)
        let id = try store.save(record)
        for table in ResultTables.all {
            let exported = try store.export(table: table.name, run: id)
            XCTAssertEqual(exported.columns, ["run_id"] + table.columns.filter(\.exported).map(\.name), table.name)
            let described = table.rows(record.facts).map { row in
                [SQLValue.integer(id)] + zip(table.columns, row).filter { $0.0.exported }.map { SQLValue($0.1) }
            }
            XCTAssertEqual(exported.rows, described, table.name)
        }
    }
}
