import Foundation
import ReminderSimTestSupport
import XCTest

/// Small things a hostile or hurried user runs into: each gets a clear message and the right status.
final class SmallerReliabilityTests: ReminderSimTestCase {
    static let foundationText = ["NSCocoaErrorDomain", "Error Domain=", "The operation could not be completed",
                                 "The file “", "CocoaError", "NSPOSIXErrorDomain"]

    func assertNoFoundationText(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line) {
        for text in Self.foundationText {
            XCTAssertFalse(result.stderr.contains(text) || result.stdout.contains(text),
                           "Foundation's text reached the user:\n\(result)", file: file, line: line)
        }
    }

    func testAReplayLogThatIsADirectoryIsNamedPlainly() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting(["distribution": "replay", "data": "logs", "format": "cdnow"],
                                    at: "population.segments[0].returns", in: json)
        try writeFile("replay.json", try JSONEdit.text(json))
        try FileManager.default.createDirectory(at: workDirectory.appendingPathComponent("logs"), withIntermediateDirectories: false)
        for command in ["validate", "run"] {
            let result = try remindersim(command, "replay.json")
            assertExit(result, 74)
            assertContains(result.stderr, "is a directory")
            assertNoFoundationText(result)
        }
        let imported = try remindersim("import", "logs")
        assertExit(imported, 74)
        assertContains(imported.stderr, "logs: ")
        assertContains(imported.stderr, "is a directory")
        assertNoFoundationText(imported)
    }

    func testAnUnwritableCSVFolderGetsTheSystemsReason() throws {
        assertExit(try remindersim("run", "--users", "200", "--days", "35"), 0)
        try writeFile("taken", "a file where the folder should go\n")
        let result = try remindersim("export", "latest", "--csv", "taken/inside")
        assertExit(result, 74)
        assertNoFoundationText(result)
    }

    func testADashReadsTheScenarioFromStandardInput() throws {
        let text = try remindersim("scenario").stdout
        let validated = try remindersim("validate", "-", stdin: text)
        assertExit(validated, 0)
        assertContains(validated.stdout, "<stdin>: ok — 5 configurations and the holdout, 100,000 users, 90 days")
        let run = try remindersim("run", "-", "--users", "300", "--days", "35", stdin: text)
        assertExit(run, 0)
        assertContains(run.stdout, "Scenario \"default\": 300 users")

        let bad = try remindersim("validate", "-", stdin: text.replacingOccurrences(of: "\"users\" : 100000", with: "\"users\" : 0"))
        assertExit(bad, 65)
        assertContains(bad.stderr, "<stdin>: users: ")
    }

    func testBlankNamesLabelsAndEmptyMessagesAreRefused() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting("   ", at: "name", in: json)
        json = try JSONEdit.setting(" \t ", at: "population.segments[1].name", in: json)
        json = try JSONEdit.setting("  ", at: "configurations[0].label", in: json)
        json = try JSONEdit.setting("", at: "configurations[1].reminders[0].messages[0]", in: json)
        json = try JSONEdit.setting("   ", at: "configurations[1].reminders[0].messages[1]", in: json)
        try writeFile("blank.json", try JSONEdit.text(json))
        let result = try remindersim("validate", "blank.json")
        assertExit(result, 65)
        for line in ["blank.json: name: must not be only spaces",
                     "blank.json: population.segments[1].name: must not be only spaces",
                     "blank.json: configurations[0].label: must not be only spaces",
                     "blank.json: configurations[1].reminders[0].messages[0]: must not be empty",
                     "blank.json: configurations[1].reminders[0].messages[1]: must not be only spaces"] {
            assertContains(result.stderr, line)
        }
    }

    /// A grid of 200,001 combinations is refused at once, with the limit, instead of exhausting memory.
    func testAHugeGridIsRefusedWithTheLimit() throws {
        var json: Any = try defaultScenario()
        json = try JSONEdit.setting([
            "messages": ["m"], "timePeriods": (1...200_001).map { [$0] },
        ] as [String: Any], at: "grid", in: json)
        try writeFile("grid.json", try JSONEdit.text(json))
        let started = Date()
        let result = try remindersim("validate", "grid.json", timeout: 60)
        assertExit(result, 65)
        assertContains(result.stderr, "grid.json: grid: expands to 200,001 configurations")
        assertContains(result.stderr, "at most 1,000")
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
    }

    func testANegativeShardIsABadShardNotAMissingValue() throws {
        let result = try remindersim("run", "--shard", "-1/3")
        assertExit(result, 64)
        assertContains(result.stderr, "--shard: expected k/n with whole numbers 1 ≤ k ≤ n, such as 2/8, got \"-1/3\"")
    }

    func testAProblemCausedByDaysSaysSo() throws {
        let result = try remindersim("run", "--days", "7")
        assertExit(result, 65)
        assertContains(result.stderr, "population.installSpreadDays: ")
        assertContains(result.stderr, "from --days 7")
    }
}
