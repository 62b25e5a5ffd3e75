import FilePaths
import Foundation
import Rendering
import Simulation
import Storage

/// Writes a stored run's tables as CSV files, one per table.
public enum CSVExport {
    /// The CSV text of one table of one run, straight from the database.
    public static func table(_ name: String, run: Int64, store: RunStore) throws -> CSVTable {
        let (columns, rows) = try store.export(table: name, run: run)
        var table = CSVTable(header: columns, rows: rows.map { $0.map(field) })
        // The scenario in one line, not a cell of hundreds of lines.
        if let c = columns.firstIndex(of: "scenario_json") {
            for r in table.rows.indices {
                guard case let .text(json) = table.rows[r][c], let scenario = try? Scenario.decodeStored(json),
                      let compact = try? scenario.compactJSON() else { continue }
                table.rows[r][c] = .text(compact)
            }
        }
        return table
    }

    static func field(_ value: SQLValue) -> CSVField {
        switch value {
        case .null: return .null
        case let .integer(v): return .integer(v)
        case let .real(v): return .decimal(v)
        case let .text(v): return .text(v)
        case let .blob(v): return .text(v.map { String(format: "%02x", $0) }.joined())
        }
    }

    /// Writes every exported table of `run` into `folder` as `<table>.csv`; returns the file names.
    /// `raw` (the default) writes text exactly as stored; false puts a `'` before text a spreadsheet
    /// would run as a formula (`--csv-safe`).
    @discardableResult
    public static func write(run: Int64, store: RunStore, to folder: String, raw: Bool = true) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var names: [String] = []
        for table in RunStore.exportedTables {
            let name = "\(table).csv"
            try ReportFiles.write(try Self.table(table, run: run, store: store).encoded(neutralizeFormulas: !raw),
                                  to: Path.join(folder, name))
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
