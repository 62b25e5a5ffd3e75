import Foundation
import Simulation
@testable import Storage
import XCTest

/// `docs/schema.md` names every table, view and column the current schema has.
final class SchemaDocumentationTests: XCTestCase {
    static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/schema.md")

    /// Every name the document sets in code (between backticks), outside its fenced examples.
    func documentedNames() throws -> Set<String> {
        var text = try String(contentsOf: Self.document, encoding: .utf8)
        while let open = text.range(of: "```"), let close = text.range(of: "```", range: open.upperBound..<text.endIndex) {
            text.removeSubrange(open.lowerBound..<close.upperBound)
        }
        let pieces = text.components(separatedBy: "`")
        return Set(stride(from: 1, to: pieces.count, by: 2).map { pieces[$0] })
    }

    /// A column is documented by its own name, or, for interval bounds, by the column they bound
    /// (`x` (+ `_low`, `_high`)), or by a pattern over days such as `retention_dK`.
    func testEveryTableViewAndColumnIsDocumented() throws {
        let names = try documentedNames()
        let database = try Database(path: ":memory:")
        for migration in Schema.migrations { try database.execute(migration) }
        let objects = Schema.objects(atVersion: Schema.currentVersion)
        XCTAssertEqual(objects.subtracting(names), [], "tables or views docs/schema.md does not name")
        var undocumented: [String] = []
        for table in objects.sorted() {
            let columns = try database.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0.text(0) }
            XCTAssertFalse(columns.isEmpty, table)
            for column in columns {
                var bounded = column
                for suffix in ["_low", "_high"] where bounded.hasSuffix(suffix) { bounded.removeLast(suffix.count) }
                let pattern = bounded.replacingOccurrences(of: #"\d+"#, with: "K", options: .regularExpression)
                if names.isDisjoint(with: [column, bounded, pattern]) { undocumented.append("\(table).\(column)") }
            }
        }
        XCTAssertEqual(undocumented, [], "columns docs/schema.md does not name")
    }

    /// Every column of the described tables (`ResultTables`) is named in the document, as the schema's are.
    func testEveryDescribedColumnIsDocumented() throws {
        let names = try documentedNames()
        var undocumented: [String] = []
        for table in ResultTables.all {
            if !names.contains(table.name) { undocumented.append(table.name) }
            for column in table.columns {
                var bounded = column.name
                for suffix in ["_low", "_high"] where bounded.hasSuffix(suffix) { bounded.removeLast(suffix.count) }
                let pattern = bounded.replacingOccurrences(of: #"\d+"#, with: "K", options: .regularExpression)
                if names.isDisjoint(with: [column.name, bounded, pattern]) { undocumented.append("\(table.name).\(column.name)") }
            }
        }
        XCTAssertEqual(undocumented, [], "described columns docs/schema.md does not name")
    }

    func testTheDocumentGivesTheCurrentVersion() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        XCTAssertTrue(text.contains("(currently \(Schema.currentVersion);"), "docs/schema.md states another schema version")
        XCTAssertTrue(text.contains("### Migration to version \(Schema.currentVersion)"))
    }
}
