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

    /// Tune `tune`'s rows of the tables that hold tunes, one file per table, every column as stored.
    public static func files(tune: Int64, store: RunStore) throws -> [CSVFile] {
        try RunStore.tuneTables.map { name in
            let table = try store.tuneTable(name, tune: tune)
            return CSVFile(name: "\(name).csv", table: CSVTable(header: table.columns, rows: table.rows.map { $0.map(field) }))
        }
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
        try write(files(run), to: folder, raw: raw)
    }

    /// Every exported table of the loaded `run`, one file per table.
    public static func files(_ run: StoredRun) -> [CSVFile] {
        ResultTables.all.map { CSVFile(name: "\($0.name).csv", table: Self.table($0, of: run)) }
    }

    /// Writes `files` into `folder` (made if missing), all or none of them (`ReportFiles.writeAll`);
    /// returns their names. `raw` (the default) writes text exactly as stored; false puts a `'`
    /// before text a spreadsheet would run as a formula (`--csv-safe`).
    @discardableResult
    public static func write(_ files: [CSVFile], to folder: String, raw: Bool = true) throws -> [String] {
        try ReportFiles.writeAll(files.map { ($0.name, Data($0.table.encoded(neutralizeFormulas: !raw).utf8)) }, into: folder)
        return files.map(\.name)
    }
}

/// One table as a CSV file: its name in the folder and its contents.
public struct CSVFile {
    public let name: String
    public let table: CSVTable

    public init(name: String, table: CSVTable) {
        (self.name, self.table) = (name, table)
    }

    /// Whether `firstLine`, the first line of a file already at this file's place, is the header of
    /// an export of the same table: its first column is this table's (`run_id`, `tune_id`), and
    /// every column it names is one of this table's. An export by a release that wrote fewer
    /// columns qualifies; a file of other columns that only shares the name does not.
    public func isHeader(of firstLine: String) -> Bool {
        guard let first = table.header.first else { return false }
        let line = firstLine.hasSuffix("\r") ? String(firstLine.dropLast()) : firstLine
        let names = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return names.first == first && Set(names).isSubset(of: Set(table.header))
    }
}

/// Writing report files.
public enum ReportFiles {
    /// Writes `files` (name, contents) into `folder`, all or none: each goes to a hidden
    /// `.NAME.partial-PID` beside its place first, and only once every one is written are they renamed
    /// into place. When one cannot be written (a full disk), those written are removed, and so are
    /// the folders made for them, so that the folder holds what it held before.
    /// Partial files of these names that a process no longer running left (see `isLeftover`) are
    /// removed first.
    public static func writeAll(_ files: [(name: String, contents: Data)], into folder: String) throws {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard files.contains(where: { entry.hasPrefix(".\($0.name).partial-") }) else { continue }
            let path = Path.join(folder, entry)
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, isLeftover(entry, at: path) else { continue }
            unlink(path)
        }
        var made: [String] = []
        var missing = folder
        while !missing.isEmpty, !FileManager.default.fileExists(atPath: missing) {
            made.append(missing)
            let parent = Path.folder(of: missing)
            if parent == missing { break }
            missing = parent
        }
        var written: [String] = []
        func undo() {
            for path in written { unlink(path) }
            for path in made { rmdir(path) }
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for file in files {
                let partial = Path.join(folder, ".\(file.name).partial-\(getpid())")
                written.append(partial)
                try file.contents.write(to: URL(fileURLWithPath: partial))
            }
        } catch {
            undo()
            throw error
        }
        for (file, partial) in zip(files, written) {
            guard rename(partial, Path.join(folder, file.name)) == 0 else {
                let code = errno
                undo()
                throw CocoaError(.fileWriteUnknown, userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code))])
            }
        }
    }

    /// The process id in the name of what a writing process works in beside its destination
    /// (`.NAME.partial-PID`, `.NAME.old-PID`), or nil for any other name.
    public static func workingProcess(_ entry: String) -> pid_t? {
        guard entry.hasPrefix(".") else { return nil }
        for marker in [".partial-", ".old-"] {
            guard let range = entry.range(of: marker, options: .backwards), range.lowerBound > entry.index(after: entry.startIndex)
            else { continue }
            let digits = entry[range.upperBound...]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let pid = pid_t(digits), pid > 0 else {
                continue
            }
            return pid
        }
        return nil
    }

    /// How long a working file or folder stays untouched before it may be taken for a leftover.
    public static let leftoverAge: Double = 600

    /// Whether `entry` (at `path`) is what a writing process left and no longer needs: named by a
    /// process that is not running here, and not modified for `leftoverAge` seconds. The age keeps
    /// the work of a live process that this one cannot see (another machine writing to a shared
    /// folder, another container) from being taken for a dead one's: a partial file or folder being
    /// written is fresh.
    public static func isLeftover(_ entry: String, at path: String) -> Bool {
        guard let pid = workingProcess(entry), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { return false }
        guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return false }
        return Date().timeIntervalSince(modified) >= leftoverAge
    }

    /// Writes text as UTF-8, replacing the file atomically so a reader never sees half of it.
    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
