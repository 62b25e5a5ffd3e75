import Foundation
import ReminderSimTestSupport
import XCTest

/// `Reports/example/` is what the tool writes today, so a reader sees current output.
///
/// Its bytes are those of Linux on x86-64 (glibc's math library), where `scripts/update-example-report.sh`
/// writes them: results are exact for one platform's `log` and `exp`, but another math library may round
/// a last bit differently and so draw different users.
final class ExampleReportTests: ReminderSimTestCase {
    func testCommittedExampleReportIsCurrent() throws {
        #if !(os(Linux) && arch(x86_64))
        throw XCTSkip("the example report's bytes hold on Linux x86-64 (glibc's libm), where it is written")
        #endif
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
