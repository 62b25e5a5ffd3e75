import Foundation
import XCTest
@testable import RecordedData

/// Temporary files for import tests, removed when the test case ends.
func temporaryFile(_ contents: String, in testCase: XCTestCase, name: String = "log.csv") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent(name)
    try Data(contents.utf8).write(to: url)
    return url.path
}

/// 2024-03-01T00:00:00Z plus the given hours and minutes.
func march1(hour: Int = 0, minute: Int = 0) -> Double {
    CivilTime.epochSeconds(year: 2024, month: 3, day: 1, hour: hour, minute: minute)
}

let csvFormat = LogFormat(delimiter: .comma, userColumn: "user", timeColumn: "time")

/// Runs `body`, expecting it to throw an `ImportIssue`, and returns that issue.
func expectIssue(
    _ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line
) -> ImportIssue? {
    do {
        _ = try body()
        XCTFail("expected an ImportIssue, got a result", file: file, line: line)
    } catch let issue as ImportIssue {
        return issue
    } catch {
        XCTFail("expected an ImportIssue, got \(error)", file: file, line: line)
    }
    return nil
}

func expectImportError(
    _ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line
) -> ImportError? {
    do {
        _ = try body()
        XCTFail("expected an ImportError, got a result", file: file, line: line)
    } catch let error as ImportError {
        return error
    } catch {
        XCTFail("expected an ImportError, got \(error)", file: file, line: line)
    }
    return nil
}
