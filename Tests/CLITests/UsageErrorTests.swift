import Foundation
import ReminderSimTestSupport
import XCTest

/// Malformed command lines: exit 64, a message naming what is wrong, a hint pointing at the help.
final class UsageErrorTests: ReminderSimTestCase {
    struct Case {
        let arguments: [String]
        /// Fragments the error line must contain (the option or word at fault, and the bad value).
        let mentions: [String]
        /// The command whose help the hint points at.
        let helpFor: String
    }

    static let cases: [Case] = [
        Case(arguments: ["run", "--users", "0"], mentions: ["--users", "\"0\""], helpFor: "remindersim run"),
        Case(arguments: ["run", "--users", "abc"], mentions: ["--users", "\"abc\""], helpFor: "remindersim run"),
        Case(arguments: ["run", "-n", "-3"], mentions: ["--users", "\"-3\""], helpFor: "remindersim run"),
        Case(arguments: ["run", "--users"], mentions: ["--users", "missing value"], helpFor: "remindersim run"),
        Case(arguments: ["run", "--days", "0"], mentions: ["--days", "\"0\""], helpFor: "remindersim run"),
        Case(arguments: ["run", "--days", "3651"], mentions: ["--days", "\"3651\""], helpFor: "remindersim run"),
        Case(arguments: ["run", "--threads", "0"], mentions: ["--threads", "\"0\""], helpFor: "remindersim run"),
        Case(arguments: ["run", "--seed", "-1"], mentions: ["--seed", "\"-1\""], helpFor: "remindersim run"),
        Case(arguments: ["run", "--frobnicate"], mentions: ["unknown option", "--frobnicate"], helpFor: "remindersim run"),
        Case(arguments: ["run", "--users", "10", "--users", "20"], mentions: ["--users", "more than once"],
             helpFor: "remindersim run"),
        Case(arguments: ["run", "a.json", "b.json"], mentions: ["unexpected argument", "b.json"], helpFor: "remindersim run"),
        Case(arguments: ["scenario", "extra"], mentions: ["unexpected argument", "extra"], helpFor: "remindersim scenario"),
        Case(arguments: ["frobnicate"], mentions: ["unknown subcommand", "frobnicate", "run", "validate", "scenario"],
             helpFor: "remindersim"),
        Case(arguments: [], mentions: ["missing subcommand", "run", "validate", "scenario"], helpFor: "remindersim"),
        Case(arguments: ["validate"], mentions: ["missing", "scenario"], helpFor: "remindersim validate"),
        Case(arguments: ["validate", "--strict", "x.json"], mentions: ["unknown option", "--strict"],
             helpFor: "remindersim validate"),
    ]

    func testUsageErrors() throws {
        for usage in Self.cases {
            let result = inProcess(arguments: usage.arguments)
            assertExit(result, 64)
            XCTAssertEqual(result.stdout, "", "usage error wrote to stdout:\n\(result)")
            assertNoEscapes(result)
            let lines = result.stderrLines
            XCTAssertEqual(lines.count, 2, "expected a message and a hint:\n\(result)")
            let message = lines.first ?? ""
            XCTAssertTrue(message.hasPrefix("remindersim: error: "), "message line: \(message)")
            for fragment in usage.mentions {
                assertContains(message, fragment, "error line of '\(usage.arguments.joined(separator: " "))'")
            }
            XCTAssertEqual(lines.count > 1 ? lines[1] : "", "See '\(usage.helpFor) --help'.", result.description)
        }
    }

    /// A log format given on the command line that cannot be used is the command line's fault (64);
    /// the same format in a scenario is the scenario's (65).
    func testUnusableLogFormatsOnTheCommandLineAreUsageErrors() throws {
        try writeFile("a.csv", "user,time\nu1,2024-01-01T00:00:00Z\n")
        for (arguments, mention) in [
            (["import", "a.csv", "--format", "\""], "delimiter '\"'"),
            (["import", "a.csv", "--format", "\r"], "delimiter '\\x0D'"),
            (["fit", "a.csv", "--user", "-1"], "column position -1 is negative"),
            (["import", "a.csv", "--event-field", "user", "--event", "X", "--exclude-event", "X"],
             "--event and --exclude-event both name 'X'"),
            // Once an arithmetic overflow (a trap) in the count of fields a line needs.
            (["import", "a.csv", "--user", "9223372036854775807"], "column position 9223372036854775807 is beyond 10000"),
            (["fit", "a.csv", "--time", "10001"], "column position 10001 is beyond 10000"),
            (["import", "a.csv", "--user", "1", "--time", "1"], "--time: names the same column as user"),
            (["import", "a.csv", "--user", "user", "--time", "USER"], "--time: names the same column as user"),
            (["import", "a.csv", "--event-field", "1"], "--event-field: names the same column as time"),
            // A name and a position that are one column are found once the header is read.
            (["import", "a.csv", "--user", "time"], "the user column and the time column are both 'time' (position 1) of a.csv"),
            (["import", "a.csv", "--session", "user"], "the user column and the session column are both 'user' (position 0) of a.csv"),
            (["fit", "a.csv", "--user", "time"], "the user column and the time column are both 'time' (position 1) of a.csv"),
        ] {
            let result = try remindersim(arguments: arguments)
            assertExit(result, 64)
            assertContains(result.stderr, mention)
        }
        var scenario = try defaultScenario()
        var population = try XCTUnwrap(scenario["population"] as? [String: Any])
        var segments = try XCTUnwrap(population["segments"] as? [[String: Any]])
        segments[0]["returns"] = ["distribution": "empirical", "data": "a.csv", "format": ["delimiter": "\""]]
        population["segments"] = segments
        scenario["population"] = population
        try writeFile("s.json", String(decoding: try JSONSerialization.data(withJSONObject: scenario), as: UTF8.self))
        let run = try remindersim("run", "s.json", "--users", "100", "--db", "s.sqlite")
        assertExit(run, 65)
        // In a scenario, a name and a position naming one column are the scenario's error too.
        segments[0]["returns"] = ["distribution": "empirical", "data": "a.csv", "format": ["user": "time", "time": 1]]
        population["segments"] = segments
        scenario["population"] = population
        try writeFile("s.json", String(decoding: try JSONSerialization.data(withJSONObject: scenario), as: UTF8.self))
        let clash = try remindersim("run", "s.json", "--users", "100", "--db", "s.sqlite")
        assertExit(clash, 65)
        assertContains(clash.stderr, "the user column and the time column are both 'time' (position 1) of")
    }

    /// A log behind a loop of symbolic links cannot be read (74), in the system's words; it is not missing.
    func testALoopOfLinksIsUnreadableNotMissing() throws {
        try FileManager.default.createSymbolicLink(atPath: workPath("loop1"), withDestinationPath: "loop2")
        try FileManager.default.createSymbolicLink(atPath: workPath("loop2"), withDestinationPath: "loop1")
        for command in ["import", "fit"] {
            let result = try remindersim(arguments: [command, "loop1"] + (command == "fit" ? ["--out", "fitted"] : []))
            assertExit(result, 74)
            assertContains(result.stderr, "loop1")
            XCTAssertFalse(result.stderr.contains("no such file"), result.stderr)
        }
        // A path through a file names nothing there: missing (66), as before.
        try writeFile("log.csv", "user,time\nu1,2024-01-01T00:00:00Z\n")
        let through = try remindersim("import", "log.csv/x")
        assertExit(through, 66)
        assertContains(through.stderr, "log.csv/x: no such file")
    }

    /// The hint must lead somewhere: the command it names has help.
    func testHintsPointAtWorkingHelp() throws {
        for helpFor in Set(Self.cases.map(\.helpFor)) {
            let words = helpFor.split(separator: " ").dropFirst().map(String.init)
            let result = inProcess(arguments: words + ["--help"])
            assertExit(result, 0)
            assertContains(result.stdout, "USAGE: \(helpFor)")
        }
    }

    func testValuesWithEqualsAndShortForms() throws {
        // The accepted spellings of a valid line; a usage failure here would be a parser regression.
        let result = try remindersim("run", "--users=300", "--days=31", "-j", "1", "--seed", "3")
        assertExit(result, 0)
        assertContains(result.stdoutLines.first ?? "", "300 users, 31 days", "first line")
        assertContains(result.stdoutLines.first ?? "", "seed 3", "first line")
    }
}
