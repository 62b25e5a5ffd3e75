import Foundation
import XCTest

/// `Reports/example/` is what the tool writes today, so a reader sees current output.
final class ExampleReportTests: RemindersimTestCase {
    func testCommittedExampleReportIsCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let example = root.appendingPathComponent("Reports/example")
        // The same command as scripts/update-example-report.sh.
        let result = try remindersim("run", "--users", "20000", "--threads", "2", "--db", "example.sqlite", "--out", "out")
        assertExit(result, 0)
        let fresh = workDirectory.appendingPathComponent("out/default-1")
        let names = try FileManager.default.contentsOfDirectory(atPath: fresh.path).sorted()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: example.path).sorted(), names,
                       "run scripts/update-example-report.sh")
        for name in names {
            let expected = try Data(contentsOf: example.appendingPathComponent(name))
            let actual = try Data(contentsOf: fresh.appendingPathComponent(name))
            XCTAssertEqual(actual, expected, "\(name) differs: run scripts/update-example-report.sh")
        }
    }
}
