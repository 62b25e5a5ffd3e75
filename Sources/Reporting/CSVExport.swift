import FilePaths
import Foundation
import Rendering
import Simulation
import Storage

/// Writes a run's tables as CSV files, one per table, from its results in memory through the
/// tables' descriptions (`ResultTables`): the files and the report rendered from the same loaded run
/// agree on every number, whichever release stored the run.
public enum CSVExport {
    /// The CSV text of one table of a run: `run_id`, then the table's exported columns.
    public static func table(_ table: RunTable, of run: StoredRun) -> CSVTable {
        let columns = table.exportedColumns
        return CSVTable(
            header: ["run_id"] + columns.map(\.column.name),
            rows: table.rows(run.record.facts).map { row in [.integer(run.id)] + columns.map { field(row[$0.index]) } })
    }

    static func field(_ value: ResultValue) -> CSVField {
        switch value {
        case .null: return .null
        case let .integer(v): return .integer(v)
        case let .real(v): return .decimal(v)
        case let .text(v): return .text(v)
        }
    }

    /// Writes every exported table of run `run` of `store` into `folder` as `<table>.csv`; returns the
    /// file names. `raw` (the default) writes text exactly as stored; false puts a `'` before text a
    /// spreadsheet would run as a formula (`--csv-safe`).
    @discardableResult
    public static func write(run: Int64, store: RunStore, to folder: String, raw: Bool = true) throws -> [String] {
        try write(store.load(run), to: folder, raw: raw)
    }

    /// Writes tune `tune`'s rows of the tables that hold tunes into `folder` as `<table>.csv`, every
    /// column as stored; returns the file names. `raw` as for a run.
    @discardableResult
    public static func write(tune: Int64, store: RunStore, to folder: String, raw: Bool = true) throws -> [String] {
        let tables = try RunStore.tuneTables.map { name in (name, try store.tuneTable(name, tune: tune)) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, table) in tables {
            let csv = CSVTable(header: table.columns, rows: table.rows.map { $0.map(field) })
            try ReportFiles.write(csv.encoded(neutralizeFormulas: !raw), to: Path.join(folder, "\(name).csv"))
        }
        return tables.map { "\($0.0).csv" }
    }

    static func field(_ value: SQLValue) -> CSVField {
        switch value {
        case .null, .blob: return .null
        case let .integer(v): return .integer(v)
        case let .real(v): return .decimal(v)
        case let .text(v): return .text(v)
        }
    }

    /// Writes every exported table of the loaded `run` into `folder`; returns the file names.
    @discardableResult
    public static func write(_ run: StoredRun, to folder: String, raw: Bool = true) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var names: [String] = []
        for table in ResultTables.all {
            let name = "\(table.name).csv"
            try ReportFiles.write(Self.table(table, of: run).encoded(neutralizeFormulas: !raw), to: Path.join(folder, name))
            names.append(name)
        }
        return names
    }
}

/// Writing report files.
enum ReportFiles {
    /// Writes text as UTF-8, replacing the file atomically so a reader never sees half of it.
    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
