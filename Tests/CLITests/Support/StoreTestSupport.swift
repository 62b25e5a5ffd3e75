import Dispatch
import Foundation
import Rendering
import Simulation
import Storage
import ReminderSimTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ReminderSimTestCase {
    /// `name` inside the working directory.
    func workPath(_ name: String) -> String { workDirectory.appendingPathComponent(name).path }

    /// Every file and folder below the working directory, as relative paths, sorted.
    func workTree() -> [String] {
        let items = FileManager.default.enumerator(atPath: workDirectory.path)?.compactMap { $0 as? String } ?? []
        return items.sorted()
    }

    /// Opens a database in the working directory read-write without creating it (so SQLite may
    /// recover a crashed writer's journal, as the next user of the file would).
    func openDatabase(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Database {
        let path = workPath(name)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "no database at \(path)", file: file, line: line)
        return try Database(path: path, create: false)
    }

    func assertIntegrity(_ database: Database, file: StaticString = #filePath, line: UInt = #line) throws {
        let rows = try database.rows("PRAGMA integrity_check")
        XCTAssertEqual(rows.map { $0.text(0) ?? "?" }, ["ok"], "integrity_check of \(database.path)", file: file, line: line)
        let keys = try database.rows("PRAGMA foreign_key_check")
        XCTAssertTrue(keys.isEmpty, "foreign_key_check of \(database.path) found \(keys.count) rows", file: file, line: line)
    }

    /// The runs stored in `database`, oldest first.
    func runIDs(_ database: Database) throws -> [Int64] {
        try database.rows("SELECT run_id FROM runs ORDER BY run_id").compactMap { $0.integer(0) }
    }

    /// Checks that every run in `database` is whole: as many configurations as its scenario has
    /// (the holdout included), and for each of them a metrics row, a tally and one daily row per day.
    func assertEveryRunComplete(_ database: Database, file: StaticString = #filePath, line: UInt = #line) throws {
        for row in try database.rows("SELECT run_id, scenario_json, horizon_days, status FROM runs ORDER BY run_id") {
            let id = try XCTUnwrap(row.integer(0), file: file, line: line)
            XCTAssertEqual(row.text(3), "complete", "run \(id) status", file: file, line: line)
            let scenario = try Scenario.decode(row.text(1) ?? "", source: "run \(id)")
            let expected = scenario.expandedConfigurations.count + 1
            let days = try XCTUnwrap(row.integer(2), file: file, line: line)

            func perConfiguration(_ table: String) throws -> [Int64: Int64] {
                var counts: [Int64: Int64] = [:]
                for r in try database.rows(
                    "SELECT config_index, count(*) FROM \(table) WHERE run_id = ? GROUP BY config_index", [.integer(id)]) {
                    counts[r.integer(0) ?? -1] = r.integer(1) ?? 0
                }
                return counts
            }
            let all = Dictionary(uniqueKeysWithValues: (0..<Int64(expected)).map { ($0, Int64(1)) })
            for table in ["configurations", "config_metrics", "tallies"] {
                XCTAssertEqual(try perConfiguration(table), all,
                               "run \(id): \(table) must hold exactly one row for each of its \(expected) configurations",
                               file: file, line: line)
            }
            XCTAssertEqual(try perConfiguration("daily_stats"), all.mapValues { _ in days },
                           "run \(id): daily_stats must hold \(days) days for each of its \(expected) configurations",
                           file: file, line: line)
        }
    }
}

/// Comparing exported CSV files with the database they came from.
enum StoreCSV {
    /// Text as the CSV export must write it: as stored, or with `safe` (`--csv-safe`) a leading `=`
    /// or `@` (which a spreadsheet would evaluate), or a leading `+` or `-` not followed by a plain
    /// number, gets a single quote put before it, anything else unchanged.
    static func expectedText(_ text: String, safe: Bool = false) -> String {
        guard safe, let first = text.first else { return text }
        if first == "=" || first == "@" || first == "\t" || first == "\r" { return "'" + text }
        guard first == "+" || first == "-" else { return text }
        let rest = text.dropFirst()
        if rest.allSatisfy({ $0 == " " }) || Double(rest) != nil && rest.allSatisfy({ "0123456789.eE+-".contains($0) }) {
            return text
        }
        return "'" + text
    }

    /// Checks that `csv` (the text of an exported file) parses and holds exactly `table`: the same
    /// header, then one record per row with integers as written, reals reading back as the same
    /// Double, text exactly (see `expectedText`) and NULL as an empty field.
    /// The scenario, stored indented, is written on one line: compared as the JSON value it is.
    static func assertMatches(_ csv: String, _ table: (columns: [String], rows: [[SQLValue]]), name: String, safe: Bool = false,
                              file: StaticString = #filePath, line: UInt = #line) {
        let records: [[String]]
        do {
            records = try CSVTable.parse(csv)
        } catch {
            XCTFail("\(name): does not parse as CSV: \(error)", file: file, line: line)
            return
        }
        XCTAssertEqual(records.first, table.columns, "\(name): header", file: file, line: line)
        XCTAssertEqual(records.count, table.rows.count + 1, "\(name): number of records (header included)",
                       file: file, line: line)
        var failures = 0
        for (r, row) in table.rows.enumerated() where r + 1 < records.count {
            let record = records[r + 1]
            guard record.count == row.count else {
                XCTFail("\(name): record \(r + 2) has \(record.count) fields, expected \(row.count)", file: file, line: line)
                failures += 1
                continue
            }
            for (c, value) in row.enumerated() {
                let field = record[c]
                let where_ = "\(name): record \(r + 2), column \(table.columns[c])"
                var ok = true
                switch value {
                case .null: ok = field == ""
                case let .integer(v): ok = field == String(v)
                case let .real(v): ok = Double(field) == v
                case let .text(v) where table.columns[c] == "scenario_json":
                    ok = !field.contains("\n") && sameJSON(field, v)
                case let .text(v): ok = field == expectedText(v, safe: safe)
                case let .blob(v): ok = field == v.map { String(format: "%02x", $0) }.joined()
                }
                if !ok {
                    failures += 1
                    if failures <= 10 {
                        XCTFail("\(where_): CSV has \(field.debugDescription.prefix(300)), database has \(String(describing: value).prefix(300))",
                                file: file, line: line)
                    }
                }
            }
        }
        if failures > 10 { XCTFail("\(name): \(failures) mismatching fields in all", file: file, line: line) }
    }
}

/// Whether two JSON texts hold the same value.
func sameJSON(_ a: String, _ b: String) -> Bool {
    guard let x = try? JSONSerialization.jsonObject(with: Data(a.utf8)),
          let y = try? JSONSerialization.jsonObject(with: Data(b.utf8)) else { return false }
    return (x as? NSObject)?.isEqual(y) ?? false
}

/// Markdown checks that do not need a Markdown parser.
enum MarkdownCheck {
    /// The number of `|` in `line` not escaped by a backslash.
    static func unescapedPipes(_ line: String) -> Int {
        var count = 0
        var backslashes = 0
        for scalar in line.unicodeScalars {
            if scalar == "\\" {
                backslashes += 1
                continue
            }
            if scalar == "|" && backslashes % 2 == 0 { count += 1 }
            backslashes = 0
        }
        return count
    }

    /// Every table of `text`: each block of consecutive lines starting with `|`, with its first line number (1-based).
    static func tables(_ text: String) -> [(line: Int, rows: [String])] {
        var tables: [(Int, [String])] = []
        var current: [String] = []
        var start = 0
        let lines = text.components(separatedBy: "\n")
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("|") {
                if current.isEmpty { start = i + 1 }
                current.append(line)
            } else if !current.isEmpty {
                tables.append((start, current))
                current = []
            }
        }
        if !current.isEmpty { tables.append((start, current)) }
        return tables
    }

    /// Checks that no table of `text` is broken: each has a delimiter row second, every row has as
    /// many unescaped `|` as the header, and the line after it is blank (a raw line break inside a
    /// cell would continue the table on a line that does not start with `|`).
    static func assertTablesIntact(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let lines = text.components(separatedBy: "\n")
        let tables = tables(text)
        XCTAssertFalse(tables.isEmpty, "the report has no table", file: file, line: line)
        for table in tables {
            let header = table.rows[0]
            let pipes = unescapedPipes(header)
            XCTAssertGreaterThanOrEqual(pipes, 2, "table at line \(table.line): header \(header)", file: file, line: line)
            let delimiter = table.rows.count > 1 ? table.rows[1] : ""
            XCTAssertNotNil(delimiter.range(of: #"^\|( ?:?-{3,}:? ?\|)+$"#, options: .regularExpression),
                            "table at line \(table.line): the second line is not a delimiter row: \(delimiter.prefix(200))",
                            file: file, line: line)
            for (offset, row) in table.rows.enumerated() {
                XCTAssertEqual(unescapedPipes(row), pipes,
                               "table at line \(table.line), row at line \(table.line + offset) has another number of cells than its header:\n\(row.prefix(500))",
                               file: file, line: line)
            }
            // A table right after a paragraph's line is no table to stricter Markdown readers.
            if table.line >= 2 {
                XCTAssertEqual(lines[table.line - 2], "", "line \(table.line - 1), right before a table, is not blank: "
                               + "\(lines[table.line - 2].prefix(200))", file: file, line: line)
            }
            let after = table.line - 1 + table.rows.count
            if after < lines.count {
                XCTAssertEqual(lines[after], "", "line \(after + 1), right after a table, continues it: \(lines[after].prefix(200))",
                               file: file, line: line)
            }
        }
    }
}
