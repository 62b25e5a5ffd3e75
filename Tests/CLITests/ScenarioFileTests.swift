import Foundation
import ReminderSimTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `scenario`, `validate` and `run` on scenario files: good, broken, unreadable and absent.
final class ScenarioFileTests: ReminderSimTestCase {
    static let header = "remindersim: error: invalid scenario ("

    // MARK: Valid files

    func testPrintedScenarioIsJSONThatValidateAccepts() throws {
        let printed = try remindersim("scenario")
        assertExit(printed, 0)
        XCTAssertEqual(printed.stderr, "")
        XCTAssertTrue(printed.stdout.hasSuffix("}\n"), "no trailing newline after the JSON")
        let json = try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8))
        let object = try XCTUnwrap(json as? [String: Any])
        XCTAssertNotNil(object["name"] as? String)
        XCTAssertFalse((object["configurations"] as? [Any] ?? []).isEmpty)

        try writeFile("mine.json", printed.stdout)
        let result = try remindersim("validate", "mine.json")
        assertExit(result, 0)
        // Only notes on stderr: one per configuration whose reminder lists several periods.
        XCTAssertTrue(result.stderrLines.allSatisfy { $0.hasPrefix("mine.json: note: ") }, result.description)
        let several = (object["configurations"] as? [[String: Any]] ?? []).filter { c in
            (c["reminders"] as? [[String: Any]] ?? []).contains { ($0["timePeriods"] as? [Any])?.count ?? 0 > 1 }
        }
        XCTAssertEqual(result.stderrLines.count, several.count, result.description)
        XCTAssertGreaterThan(several.count, 0, "the default scenario has a reminder with several periods")
        assertContains(result.stderr, "write a \"sequence\" instead")
        XCTAssertEqual(result.stdoutLines.count, 1, result.description)
        assertContains(result.stdout, "mine.json: ok")
        let count = (object["configurations"] as? [Any])?.count ?? -1
        if object["grid"] == nil { assertContains(result.stdout, "\(count) configuration") }
    }

    func testValidateChecksEveryFileGiven() throws {
        let printed = try remindersim("scenario").stdout
        try writeFile("a.json", printed)
        try writeFile("b.json", printed)
        let good = try remindersim("validate", "a.json", "b.json")
        assertExit(good, 0)
        XCTAssertEqual(good.stdoutLines.filter { $0.contains(": ok") }.count, 2, good.description)

        try writeFile("broken.json", "[]")
        let mixed = try remindersim("validate", "a.json", "broken.json", "b.json")
        assertExit(mixed, 65)
        assertContains(mixed.stdout, "a.json: ok")
        assertContains(mixed.stdout, "b.json: ok")
        assertContains(mixed.stderr, "broken.json: expected an object, got an array")
    }

    // MARK: Invalid content: every problem, with its JSON path and the file name

    /// The brief's file "invalid in several ways at once": problems the reader finds field by field
    /// (a negative period, an unknown distribution, a misspelt field, a bad user count) together
    /// with one only a whole-scenario check finds (a malformed cron rule).
    func testFileInvalidInSeveralWaysListsEveryProblem() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting("documented", at: "configurations[0].mode", in: json)
        json = try JSONEdit.setting([7, -3], at: "configurations[0].reminders[0].timePeriods", in: json)
        json = try JSONEdit.setting(["1  1"], at: "configurations[0].cronRules", in: json)
        json = try JSONEdit.setting(["distribution": "poisson", "mean": 3], at: "population.segments[0].returns", in: json)
        json = try JSONEdit.renaming("configurations[1].reminders[0].timePeriods", to: "timePeriod", in: json)
        json = try JSONEdit.setting(-5, at: "users", in: json)
        try writeFile("broken.json", try JSONEdit.text(json))

        let expected = [
            "configurations[0].reminders[0].timePeriods[1]: must be > 0",
            "population.segments[0].returns.distribution: unknown distribution \"poisson\"",
            "configurations[1].reminders[0].timePeriod: unknown field",
            "configurations[1].reminders[0].timePeriods: required field is missing",
            "users: must be > 0",
            "configurations[0].cronRules[0]: ",
        ]
        for command in ["validate", "run"] {
            let result = try remindersim(command, "broken.json")
            assertProblems(result, file: "broken.json", expected: expected)
            assertContains(result.stderr, "\"1  1\"", "\(command) stderr")
        }
    }

    /// An empty configuration list without a grid, reported together with the other problems.
    func testEmptyConfigurationsWithoutGridIsReportedWithTheOtherProblems() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting([Any](), at: "configurations", in: json)
        json = try JSONEdit.setting(nil, at: "grid", in: json)
        json = try JSONEdit.setting(0, at: "horizonDays", in: json)
        json = try JSONEdit.renaming("seed", to: "sed", in: json)
        try writeFile("empty.json", try JSONEdit.text(json))

        let expected = [
            "configurations: at least one configuration (or a grid) is required",
            "horizonDays: must be > 0",
            "sed: unknown field",
        ]
        for command in ["validate", "run"] {
            assertProblems(try remindersim(command, "empty.json"), file: "empty.json", expected: expected)
        }
    }

    /// Problems found field by field, all reported at once.
    func testFieldProblemsAreAllReported() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting([7, -3], at: "configurations[0].reminders[0].timePeriods", in: json)
        json = try JSONEdit.setting("weekly", at: "configurations[0].reminders[0].unit", in: json)
        json = try JSONEdit.setting(["distribution": "poisson"], at: "population.segments[1].returns", in: json)
        json = try JSONEdit.renaming("configurations[2].reminders[0].circularTimePeriod", to: "circularTimePeriods", in: json)
        json = try JSONEdit.setting("many", at: "users", in: json)
        json = try JSONEdit.setting(1.5, at: "response.baseResponse", in: json)
        try writeFile("fields.json", try JSONEdit.text(json))

        let expected = [
            "configurations[0].reminders[0].timePeriods[1]: must be > 0, got -3",
            "configurations[0].reminders[0].unit: unknown value \"weekly\"",
            "population.segments[1].returns.distribution: unknown distribution \"poisson\"",
            "configurations[2].reminders[0].circularTimePeriods: unknown field",
            "users: expected a number, got a string",
            "response.baseResponse: must be a probability in [0, 1]",
        ]
        for command in ["validate", "run"] {
            assertProblems(try remindersim(command, "fields.json"), file: "fields.json", expected: expected)
        }
    }

    /// Problems only a whole-scenario check finds, all reported at once.
    func testScenarioWideProblemsAreAllReported() throws {
        var json: Any = try defaultScenario()
        let labels = try XCTUnwrap(JSONEdit.value(at: "configurations", in: json) as? [[String: Any]]).map { $0["label"] as? String }
        XCTAssertGreaterThanOrEqual(labels.count, 3)
        json = try JSONEdit.setting("documented", at: "configurations[0].mode", in: json)
        json = try JSONEdit.setting(["1 1", "1  1"], at: "configurations[0].cronRules", in: json)
        json = try JSONEdit.setting(labels[1] ?? "", at: "configurations[2].label", in: json)
        json = try JSONEdit.setting("2026-13-45", at: "startDate", in: json)
        json = try JSONEdit.setting(["start": 22, "end": 22], at: "response.quietHours", in: json)
        try writeFile("whole.json", try JSONEdit.text(json))

        let expected = [
            "configurations[0].cronRules[1]: ",
            "configurations[2].label: \"\(labels[1] ?? "")\" is already the label of configurations[1]",
            "startDate: must be a date YYYY-MM-DD",
            "response.quietHours: start and end must differ",
        ]
        for command in ["validate", "run"] {
            let result = try remindersim(command, "whole.json")
            assertProblems(result, file: "whole.json", expected: expected)
            XCTAssertFalse(result.stderr.contains("cronRules[0]"), "the valid rule \"1 1\" was refused:\n\(result)")
        }
    }

    /// A file with more problems than the error lists: the count says how many, the first hundred
    /// are listed in order, a last line says how many more and where to see them all.
    func testManyProblemsAreCountedAndTheFirstHundredListed() throws {
        var json: [String: Any] = try defaultScenario()
        for k in 0..<250 { json["unknown\(k)"] = k }
        try writeFile("many.json", try JSONEdit.text(json))
        let result = try remindersim("validate", "many.json")
        assertExit(result, 65)
        let lines = result.stderrLines
        XCTAssertEqual(lines.first, "\(Self.header)250 problems):", result.description)
        XCTAssertEqual(lines.count, 1 + 100 + 1, result.description)
        let listed = lines.dropFirst().prefix(100)
        XCTAssertTrue(listed.allSatisfy { $0.hasPrefix("many.json: unknown") && $0.contains(": unknown field") }, result.description)
        XCTAssertEqual(Set(listed).count, 100, "each problem once")
        XCTAssertEqual(lines.last, "… and 150 more (`remindersim validate --json` lists them all)")

        let all = try remindersim("validate", "--json", "many.json")
        assertExit(all, 65)
        let files = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual((files.first?["problems"] as? [Any])?.count, 250)
    }

    func testNotJSONReportsWhereItStopped() throws {
        try writeFile("notes.json", "this is not JSON\n")
        for command in ["validate", "run"] {
            let result = try remindersim(command, "notes.json")
            assertExit(result, 65)
            XCTAssertEqual(result.stdout, "")
            assertContains(result.stderr, "notes.json: not valid JSON")
            XCTAssertNotNil(result.stderr.range(of: #"line \d+, column \d+"#, options: .regularExpression),
                            "no line and column in:\n\(result.stderr)")
        }

        // The position points at the offending character: the second comma on line 3.
        try writeFile("commas.json", "{\n  \"name\": \"x\",\n  \"users\": 5,,\n}\n")
        let commas = try remindersim("validate", "commas.json")
        assertExit(commas, 65)
        assertContains(commas.stderr, "commas.json: not valid JSON: line 3, column 14")

        try writeFile("empty.json", "")
        let empty = try remindersim("validate", "empty.json")
        assertExit(empty, 65)
        assertContains(empty.stderr, "empty.json: empty (a scenario is a JSON object)")
    }

    func testNotUTF8IsBadData() throws {
        try writeFile("latin1.json", Data([0x7B, 0x22, 0x6E, 0xE9, 0x22, 0x3A, 0x31, 0x7D]))  // {"n\xE9":1}
        let result = try remindersim("validate", "latin1.json")
        assertExit(result, 65)
        assertContains(result.stderr, "latin1.json")
        assertContains(result.stderr, "UTF-8")
    }

    // MARK: Files that cannot be read

    func testMissingFileIsNoInput() throws {
        for command in ["validate", "run"] {
            let result = try remindersim(command, "absent.json")
            assertExit(result, 66)
            XCTAssertEqual(result.stdout, "")
            assertContains(result.stderr, "absent.json: no such file")
        }
    }

    /// A directory exists, so it is not missing input (66): it cannot be read as a file (74).
    func testDirectoryIsAnIOError() throws {
        try FileManager.default.createDirectory(
            at: workDirectory.appendingPathComponent("scenarios"), withIntermediateDirectories: false)
        for command in ["validate", "run"] {
            let result = try remindersim(command, "scenarios")
            assertExit(result, 74)
            XCTAssertEqual(result.stdout, "")
            assertContains(result.stderr, "scenarios: is a directory")
        }
    }

    /// A missing file must not hide the problems of the other files given to `validate`.
    func testValidateReportsOtherFilesAfterAMissingOne() throws {
        try writeFile("good.json", try remindersim("scenario").stdout)
        try writeFile("broken.json", "[]")
        let result = try remindersim("validate", "absent.json", "broken.json", "good.json")
        assertExit(result, 66)
        assertContains(result.stderr, "absent.json: no such file")
        assertContains(result.stderr, "broken.json: expected an object")
        assertContains(result.stdout, "good.json: ok")
    }

    func testUnreadableFileIsAnIOError() throws {
        let url = try writeFile("locked.json", try remindersim("scenario").stdout)
        XCTAssertEqual(chmod(url.path, 0), 0, "chmod failed")
        // Root (as in CI containers) reads files whatever their mode, so whether the file is
        // unreadable is found by trying, and the expectation follows from that.
        let probe = FileHandle(forReadingAtPath: url.path)
        try? probe?.close()
        let readable = probe != nil
        for command in ["validate", "run"] {
            let arguments = command == "run" ? ["run", "locked.json", "--users", "100", "--days", "30"] : ["validate", "locked.json"]
            let result = try remindersim(arguments: arguments)
            if readable {
                // Running as root: the permission bits do not stop the read, so the file must be read normally.
                assertExit(result, 0)
                XCTAssertFalse(result.stderr.contains("error"), result.description)
            } else {
                assertExit(result, 74)
                XCTAssertEqual(result.stdout, "")
                assertContains(result.stderr, "locked.json: cannot be read")
            }
        }
    }

    // MARK: Helpers

    /// Exit 65, nothing on stdout, a header with the right count, then one `FILE: path: reason` line
    /// per problem, each expected fragment on exactly one of them.
    func assertProblems(_ result: CommandResult, file name: String, expected: [String],
                        file: StaticString = #filePath, line: UInt = #line) {
        assertExit(result, 65, file: file, line: line)
        XCTAssertEqual(result.stdout, "", "stdout of a failed \(result.arguments.first ?? "")", file: file, line: line)
        let lines = result.stderrLines
        guard let first = lines.first, first.hasPrefix(Self.header),
            let count = Int(first.dropFirst(Self.header.count).prefix { $0.isNumber })
        else {
            XCTFail("no '\(Self.header)N problems):' header:\n\(result)", file: file, line: line)
            return
        }
        let problems = Array(lines.dropFirst())
        XCTAssertEqual(count, problems.count, "the header's count differs from the lines listed:\n\(result)", file: file, line: line)
        XCTAssertTrue(first.hasSuffix(count == 1 ? " problem):" : " problems):"), first, file: file, line: line)
        for problem in problems {
            XCTAssertTrue(problem.hasPrefix("\(name): "), "problem without the file name: \(problem)", file: file, line: line)
        }
        for fragment in expected {
            let matches = problems.filter { $0.hasPrefix("\(name): \(fragment)") }
            XCTAssertEqual(matches.count, 1, "\"\(name): \(fragment)…\" is not listed exactly once in:\n\(result.stderr)",
                           file: file, line: line)
        }
        XCTAssertGreaterThanOrEqual(problems.count, expected.count, file: file, line: line)
    }
}
