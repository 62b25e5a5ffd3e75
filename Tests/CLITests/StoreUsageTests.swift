import Foundation
import ReminderSimTestSupport
import XCTest

/// Malformed command lines of the stored-run commands: exit 64, a message and a hint, nothing touched.
final class StoreUsageTests: ReminderSimTestCase {
    static let cases: [(arguments: [String], mentions: [String], helpFor: String)] = [
        (["export", "1"], ["--csv"], "remindersim export"),
        (["report", "abc"], ["run", "\"abc\""], "remindersim report"),
        (["report", "0"], ["run", "\"0\""], "remindersim report"),
        (["compare", "1"], ["missing", "run-b"], "remindersim compare"),
        (["compare", "abc", "1"], ["\"abc\""], "remindersim compare"),
        (["export", "abc", "--csv", "out"], ["\"abc\""], "remindersim export"),
        (["report"], ["missing", "run"], "remindersim report"),
        (["list", "extra"], ["unexpected argument", "extra"], "remindersim list"),
    ]

    func checkUsageErrors(file: StaticString = #filePath, line: UInt = #line) throws {
        for usage in Self.cases {
            let tree = workTree()
            let result = try remindersim(arguments: usage.arguments, file: file, line: line)
            assertExit(result, 64, file: file, line: line)
            guard result.status == 64 else { continue }  // the failure above says it all
            XCTAssertEqual(result.stdout, "", "usage error wrote to stdout:\n\(result)", file: file, line: line)
            let lines = result.stderrLines
            XCTAssertEqual(lines.count, 2, "expected a message and a hint:\n\(result)", file: file, line: line)
            let message = lines.first ?? ""
            XCTAssertTrue(message.hasPrefix("remindersim: error: "), "message line: \(message)", file: file, line: line)
            for fragment in usage.mentions {
                assertContains(message, fragment, "error line of '\(usage.arguments.joined(separator: " "))'",
                               file: file, line: line)
            }
            XCTAssertEqual(lines.count > 1 ? lines[1] : "", "See '\(usage.helpFor) --help'.", result.description,
                           file: file, line: line)
            let now = workTree()
            XCTAssertEqual(now, tree, "'\(usage.arguments.joined(separator: " "))' changed the working directory: added "
                           + "\(now.filter { !tree.contains($0) })", file: file, line: line)
        }
    }

    /// With a database holding a run, so nothing but the command line can be at fault.
    func testUsageErrorsWithADatabase() throws {
        assertExit(try remindersim("run", "--users", "200", "--days", "35", "--threads", "1"), 0)
        try checkUsageErrors()
    }

    /// In a fresh folder: the command line is wrong whether or not a database exists, so it is a
    /// usage error (64), not a missing database (66).
    func testUsageErrorsWithoutADatabase() throws {
        try checkUsageErrors()
    }
}
