import Foundation
import Simulation
import ReminderSimTestSupport
import XCTest

/// Input that is closed, unreadable, endless, empty or oddly made: every case ends with an exit code and
/// a short message, within bounded memory and time, never with a trap.
final class HostileInputTests: ReminderSimTestCase {
    /// The memory a run below may use, in KiB: far below what reading /dev/zero whole would take.
    static let memoryLimit = 4_000_000

    /// Runs `remindersim` through `/bin/sh` with `ulimit -v` and `redirection` (shell syntax, e.g. `<&-`)
    /// applied to it; `arguments` are passed as they are.
    func limited(_ arguments: [String], redirection: String = "", timeout: TimeInterval = 60,
                 file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        let executable = try executableURL(file: file, line: line)
        let script = "ulimit -v \(Self.memoryLimit); exec \"$@\" \(redirection)"
        let child = try ChildProcess(
            executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script, "sh", executable.path] + arguments,
            environment: environment([:]), directory: workDirectory, spool: spoolDirectory)
        guard let result = child.wait(timeout: timeout) else {
            XCTFail("remindersim \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s",
                    file: file, line: line)
            throw XCTSkip("the run timed out")
        }
        return result
    }

    /// The default scenario with one recorded segment reading `data`.
    func scenario(readingLog data: String) throws -> String {
        var scenario = try defaultScenario()
        var population = try XCTUnwrap(scenario["population"] as? [String: Any])
        population["segments"] = [["name": "recorded", "returns": [
            "distribution": "empirical", "data": data, "format": ["user": "user", "time": "time"]]]]
        scenario["population"] = population
        return String(decoding: try JSONSerialization.data(withJSONObject: scenario), as: UTF8.self)
    }

    /// `calibrate --out` naming the recorded log its scenario reads is refused (64), the log untouched.
    func testCalibrateNeverWritesOverARecordedLog() throws {
        var log = "user,time\n"
        for u in 0..<30 {
            for k in 0..<4 { log += "u\(u),2024-01-\(String(format: "%02d", 1 + k * 3 + u % 3))T10:00:00Z\n" }
        }
        try writeFile("data/log.csv", log)
        var scenario = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(try CalibrationFixture.experiment(baseResponse: 0.05).canonicalJSON().utf8)) as? [String: Any])
        var population = try XCTUnwrap(scenario["population"] as? [String: Any])
        population["segments"] = [["name": "recorded", "returns": [
            "distribution": "empirical", "data": "log.csv", "format": ["user": "user", "time": "time"]]]]
        scenario["population"] = population
        try writeFile("data/app.json", try JSONSerialization.data(withJSONObject: scenario))
        var truth = CalibrationFixture.experiment(baseResponse: 0.05)
        truth.users = 300
        try writeFile("past.csv", try CalibrationFixture.results(of: truth))
        let result = try remindersim("calibrate", "data/app.json", "past.csv", "--users", "200", "--out", "data/log.csv")
        assertExit(result, 64)
        assertContains(result.stderr, "data/log.csv: is an input of this command")
        XCTAssertEqual(try String(contentsOfFile: workPath("data/log.csv"), encoding: .utf8), log)
    }

    // MARK: Text from the command line

    /// Arguments and paths shown in errors cannot drive the terminal, keep the error on one line, and
    /// a long one does not make a long line: escaped and cut, whichever command names them.
    func testArgumentsAndPathsInErrorsAreEscaped() throws {
        let cases: [([String], Int32, String)] = [
            (["run", "--users", "1\u{1B}[2J"], 64, "got \"1\\u{1b}[2J\""),
            (["list", "--db", "no\nsuch\u{1B}[1m.db"], 66, "no\\nsuch\\u{1b}[1m.db: no such database"),
            (["validate", "we\nird\u{1B}[31m.json"], 66, "we\\nird\\u{1b}[31m.json: no such file"),
            (["compare", "1\n\u{1B}[2J", "2"], 64, "got \"1\\n\\u{1b}[2J\""),
            (["trace", "--user\n5"], 64, "unknown option '--user\\n5'"),
            (["trace", "--user", "0", "--config", "\u{1B}[31mred\rX"], 64, "no configuration \"\\u{1b}[31mred\\rX\""),
            (["trace", "--user", "0", "--config", String(repeating: "x", count: 100_000)], 64, "xxx…\""),
        ]
        for (arguments, status, shown) in cases {
            let result = try remindersim(arguments: arguments)
            assertExit(result, status)
            assertContains(result.stderr, shown)
            XCTAssertFalse(result.stderr.unicodeScalars.contains("\u{1B}"), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("\r"), "\(arguments): \(result.stderr)")
            XCTAssertLessThanOrEqual(result.stderr.split(separator: "\n").count, 2, "\(arguments): \(result.stderr)")
            XCTAssertLessThan(result.stderr.count, 1_000, "\(arguments)")
        }
        // A log file whose name holds a line break is named on one line by the problems found in it.
        try writeFile("lo\ng.csv", "user,date\n")
        let log = try remindersim("fit", "lo\ng.csv")
        assertExit(log, 65)
        assertContains(log.stderr, "lo\\ng.csv holds no usable events")
        XCTAssertEqual(log.stderr.split(separator: "\n").count, 1, log.stderr)
        // So is a log a scenario names in its `data` field, whether it is missing or holds nothing usable.
        var scenario = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(try CalibrationFixture.experiment(baseResponse: 0.05).canonicalJSON().utf8)) as? [String: Any])
        var population = try XCTUnwrap(scenario["population"] as? [String: Any])
        for (file, problem) in [("ab\nsent\u{1B}[1m.csv", "ab\\nsent\\u{1b}[1m.csv: no such file"), ("lo\ng.csv", "lo\\ng.csv: ")] {
            population["segments"] = [["name": "recorded", "returns": ["distribution": "empirical", "data": file]]]
            scenario["population"] = population
            try writeFile("named.json", try JSONSerialization.data(withJSONObject: scenario))
            for arguments in [["validate", "named.json"], ["run", "named.json", "--users", "10"]] {
                let result = try remindersim(arguments: arguments)
                XCTAssertNotEqual(result.status, 0, result.description)
                assertContains(result.stderr, "population.segments[0].returns.data: " + problem)
                XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
                XCTAssertFalse(result.stderr.unicodeScalars.contains("\u{1B}"), result.stderr)
            }
        }
        // A scenario of a thousand configurations names the first twenty.
        let many = try remindersim("trace", TuneCommandTests.datasets.appendingPathComponent("thousand-periods.json").path, "--user", "0", "--config", "nope")
        assertExit(many, 64)
        assertContains(many.stderr, " and 980 more (see the scenario)")
    }

    /// Paths a command's results name on stdout (the saved run's database, the files written) are
    /// escaped there as in its errors: a line break or an escape sequence in a name cannot start a line
    /// or drive the terminal, and a command shown to run next names the file as the shell reads it.
    func testPathsInResultsAreEscaped() throws {
        let db = "d\nb\u{1B}[31m.sqlite", out = "o\nut\u{1B}[2J"
        let shownDB = #"d\nb\u{1b}[31m.sqlite"#, shownOut = #"o\nut\u{1b}[2J"#
        try writeFile("e\nmpty.sqlite", "")
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.05).canonicalJSON())
        var truth = CalibrationFixture.experiment(baseResponse: 0.15)
        truth.users = 4_000
        try writeFile("past.csv", try CalibrationFixture.results(of: truth))
        let cases: [([String], String)] = [
            (["run", "--users", "200", "--db", db, "--out", out], "Saved as run 1 in \(shownDB); report: \(shownOut)/"),
            (["report", "1", "--db", db, "--out", out + "2"], "Report of run 1: \(shownOut)2/"),
            (["export", "1", "--db", db, "--csv", out + "3"], "\(shownOut)3/"),
            (["list", "--db", "e\nmpty.sqlite"], #"No runs in e\nmpty.sqlite yet"#),
            (["calibrate", "app.json", "past.csv", "--fit", "baseResponse", "--users", "2000", "--out", "c\n\u{1B}[31m.json"],
             #"Calibrated scenario: c\n\u{1b}[31m.json (run it with: remindersim run $'c\n\x1b[31m.json')"#),
        ]
        for (arguments, shown) in cases {
            let result = try remindersim(arguments: arguments)
            assertExit(result, 0)
            assertContains(result.stdout, shown)
            XCTAssertFalse(result.stdout.unicodeScalars.contains("\u{1B}"), "\(arguments): \(result.stdout)")
            XCTAssertFalse(result.stdout.split(separator: "\n").contains { $0.hasPrefix("ut") || $0.hasPrefix("b\u{1B}") },
                           "\(arguments): \(result.stdout)")
        }
    }

    // MARK: Standard input

    func testClosedStandardInputIsNoInput() throws {
        for command in ["validate", "run"] {
            let result = try limited([command, "-"], redirection: "<&-")
            assertExit(result, 66)
            XCTAssertEqual(result.stderr, "remindersim: error: <stdin>: standard input is closed\n", result.description)
        }
    }

    /// The results of a past test read from a closed standard input: 66, whatever files the command
    /// opened before reading them.
    func testClosedStandardInputForResultsIsNoInput() throws {
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.05).canonicalJSON())
        for command in [["readout", "app.json", "-"], ["calibrate", "app.json", "-", "--out", "c.json"]] {
            let result = try limited(command, redirection: "<&-")
            assertExit(result, 66)
            XCTAssertEqual(result.stderr, "remindersim: error: <stdin>: standard input is closed\n", result.description)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("c.json")))
    }

    /// Results read from standard input are named `<stdin>` in their problems, as a scenario is.
    func testResultsOnStandardInputAreNamedAsStandardInput() throws {
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.05).canonicalJSON())
        for command in [["readout", "app.json", "-"], ["calibrate", "app.json", "-", "--out", "c.json"]] {
            let result = try remindersim(arguments: command, stdin: "arm,users\nholdout,12\nholdout,13\n")
            assertExit(result, 65)
            assertContains(result.stderr, "remindersim: error: <stdin>:")
            XCTAssertFalse(result.stderr.contains("error: -:"), result.stderr)
        }
    }

    func testAFolderAsStandardInputIsAnIOError() throws {
        let result = try limited(["validate", "-"], redirection: "< \"$HOME\"")
        assertExit(result, 74)
        XCTAssertEqual(result.stderr, "remindersim: error: <stdin>: is a directory, not a scenario file\n", result.description)
    }

    func testStandardInputNamedTwiceIsAUsageError() throws {
        let valid = try remindersim("scenario").stdout
        let twice = try remindersim("validate", "-", "-", stdin: valid)
        assertExit(twice, 64)
        assertContains(twice.stderr, "'-' (standard input) is named more than once")
        try writeFile("results.csv", "arm,users,delivered,opens,opt_outs\nholdout,10,0,5,0\n")
        let calibrate = try remindersim("calibrate", "-", "-", stdin: valid)
        assertExit(calibrate, 64)
        assertContains(calibrate.stderr, "'-' (standard input) is named more than once")
        assertExit(try remindersim("validate", "-", stdin: valid), 0)
    }

    // MARK: Logs through a pipe

    /// Runs `remindersim import /dev/stdin` with `producer`'s output piped in (a shell command line).
    func importThroughPipe(_ producer: String, _ options: [String] = [], file: StaticString = #filePath,
                           line: UInt = #line) throws -> CommandResult {
        let executable = try executableURL(file: file, line: line)
        let script = "\(producer) | \"$0\" import /dev/stdin \"$@\""
        let child = try ChildProcess(
            executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script, executable.path] + options,
            environment: environment([:]), directory: workDirectory, spool: spoolDirectory)
        return try XCTUnwrap(child.wait(timeout: 60), "the import through a pipe did not finish", file: file, line: line)
    }

    func testALogThroughAPipeIsReadWhole() throws {
        let visits = "user000001,2024-01-01T00:00:00Z\nuser000001,2024-01-03T00:00:00Z\nuser000001,2024-01-05T00:00:00Z\n"
        try writeFile("visits.csv", visits)
        let fromFile = try remindersim("import", "visits.csv", "--no-header")
        assertExit(fromFile, 0)
        assertContains(fromFile.stdout, "users: 1")
        // The first bytes are not lost to a look at whether the log is compressed.
        let piped = try importThroughPipe("cat visits.csv", ["--no-header"])
        assertExit(piped, 0)
        assertContains(piped.stdout, "users: 1")
        assertContains(piped.stdout, "visits: 3")
        try writeFile("header.csv", "user_id,time\n" + visits)
        let header = try importThroughPipe("cat header.csv", ["--user", "user_id", "--time", "time"])
        assertExit(header, 0)
        assertContains(header.stderr, "'user_id', 'time'", "stderr")

        let gzip = try importThroughPipe("gzip -c visits.csv", ["--no-header"])
        try XCTSkipIf(gzip.stderr.contains("gzip: not found"), "gzip is not available")
        assertExit(gzip, 0)
        assertContains(gzip.stdout, "visits: 3")
    }

    func testAZipArchiveThroughAPipeIsRefusedWithTheReason() throws {
        try writeFile("archive.zip", "PK\u{03}\u{04}" + String(repeating: "x", count: 100))
        let result = try importThroughPipe("cat archive.zip")
        assertExit(result, 74)
        assertContains(result.stderr, "/dev/stdin: a ZIP archive is read from its directory at its end, which a pipe cannot reach")
    }

    // MARK: Endless and huge input

    func testAnEndlessLogIsRefusedAtTheLineLimit() throws {
        let started = Date()
        let result = try limited(["import", "/dev/zero"])
        assertExit(result, 65)
        XCTAssertEqual(result.stderr, "remindersim: error: /dev/zero:1: line longer than 16 MiB (the limit for one line)\n",
                       result.description)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "the read stops at the limit")
    }

    func testACompressedLogWithoutLineBreaksIsRefusedAtTheLineLimit() throws {
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "head -c 17000000 /dev/zero | gzip -1 > zeros.csv.gz"]
        gzip.currentDirectoryURL = workDirectory
        try gzip.run()
        gzip.waitUntilExit()
        try XCTSkipUnless(gzip.terminationStatus == 0, "gzip is not available")
        let result = try limited(["import", "zeros.csv.gz"])
        assertExit(result, 65)
        assertContains(result.stderr, "zeros.csv.gz:1: line longer than 16 MiB (the limit for one line)")
    }

    func testAScenarioReadingAnEndlessLogIsRefused() throws {
        try writeFile("endless.json", try scenario(readingLog: "/dev/zero"))
        let result = try limited(["validate", "endless.json"])
        assertExit(result, 65)
        assertContains(result.stderr, "population.segments[0].returns.data: /dev/zero:1: line longer than 16 MiB")
    }

    func testAnEndlessScenarioIsRefusedAtTheFileLimit() throws {
        let result = try limited(["validate", "-"], redirection: "< /dev/zero")
        assertExit(result, 65)
        XCTAssertEqual(result.stderr, "remindersim: error: <stdin>: longer than 64 MiB (the limit for a scenario file)\n",
                       result.description)
        let named = try limited(["validate", "/dev/zero"])
        assertExit(named, 65)
        assertContains(named.stderr, "/dev/zero: longer than 64 MiB")
    }

    func testHelpStatesTheLineLimit() throws {
        for command in ["import", "fit"] {
            let help = try remindersim(command, "--help")
            assertExit(help, 0)
            assertContains(help.stdout.replacingOccurrences(of: "\n", with: " "), "at most 16 MiB long")
        }
    }

    // MARK: Empty scenarios

    func testAnEmptyScenarioIsBadData() throws {
        try writeFile("empty.json", "")
        try writeFile("blank.json", " \n\t\n")
        for path in ["/dev/null", "empty.json", "blank.json"] {
            let result = try remindersim("validate", path)
            assertExit(result, 65)
            XCTAssertEqual(result.stderr, "remindersim: error: \(path): empty (a scenario is a JSON object)\n", result.description)
        }
        let piped = try remindersim("validate", "-", stdin: "")
        assertExit(piped, 65)
        assertContains(piped.stderr, "<stdin>: empty (a scenario is a JSON object)")
    }

    // MARK: Logs

    func testALogWithCarriageReturnLineEndsIsExplained() throws {
        try writeFile("old-mac.csv", "user,time\ra,2024-01-01T00:00:00Z\rb,2024-01-02T00:00:00Z\r")
        for extra in [[], ["--user", "user", "--time", "time"], ["--no-header", "--skip-bad-rows"]] {
            let result = try remindersim(arguments: ["import", "old-mac.csv"] + extra)
            assertExit(result, 65)
            XCTAssertEqual(result.stderr, "remindersim: error: old-mac.csv: the file's lines end in CR only; "
                + "convert them to LF or CRLF (e.g. tr '\\r' '\\n')\n", result.description)
        }
        // CRLF is read as always.
        try writeFile("windows.csv", "user,time\r\na,2024-01-01T00:00:00Z\r\nb,2024-01-02T00:00:00Z\r\n")
        assertExit(try remindersim("import", "windows.csv"), 0)
    }

    func testATimestampBeyondTheCalendarIsABadRow() throws {
        try writeFile("far.csv", "user,time\na,1709280000\nb,9223372036854\n")
        let result = try remindersim("import", "far.csv", "--timestamp", "epochSeconds")
        assertExit(result, 65)
        XCTAssertEqual(result.stderr, "remindersim: error: far.csv:3: column time (position 1): "
            + "timestamp '9223372036854' is outside the years 0000 to 9999\n", result.description)
        let skipped = try remindersim("import", "far.csv", "--timestamp", "epochSeconds", "--skip-bad-rows")
        assertExit(skipped, 0)
        assertContains(skipped.stdout, "bad rows skipped: 1")
    }

    func testAnImplausibleYearIsAnOutlierInASmallLog() throws {
        // 9223372036854 ms is in 2262: a year no app log holds.
        try writeFile("ms.csv", "user,time\na,1709280000000\na,1709380000000\nb,1709480000000\nb,9223372036854\n")
        let result = try remindersim("import", "ms.csv", "--timestamp", "epochMilliseconds")
        assertExit(result, 0)
        assertContains(result.stderr, "ms.csv: 1 visit outside 1990-01-01T00:00:00Z to 2099-12-31T23:59:59Z left out as outliers")
        assertContains(result.stderr, "ms.csv:5: column time (position 1): timestamp 2262-04-11T23:47:16Z is an outlier")
        assertContains(result.stdout, "observation end 2024-03-03")
        try writeFile("only.csv", "user,time\na,9223372036854\n")
        let only = try remindersim("import", "only.csv", "--timestamp", "epochMilliseconds")
        assertExit(only, 65)
        assertContains(only.stderr, "only.csv: its only visit is an outlier")
        assertExit(try remindersim("import", "only.csv", "--timestamp", "epochMilliseconds", "--keep-outliers"), 0)
    }

    // MARK: Quoting

    func testAHugeUnknownKeyIsQuotedShort() throws {
        var scenario = try defaultScenario()
        scenario[String(repeating: "k\n", count: 500_000)] = 1
        try writeFile("key.json", String(decoding: try JSONSerialization.data(withJSONObject: scenario), as: UTF8.self))
        let result = try remindersim("validate", "key.json")
        assertExit(result, 65)
        XCTAssertLessThan(result.stderr.utf8.count, 1_000, result.description)
        assertContains(result.stderr, "key.json: k\\nk\\n")
        assertContains(result.stderr, "…: unknown field")
    }

    func testAHugeArmNameIsQuotedShort() throws {
        try writeFile("app.json", try remindersim("scenario").stdout)
        let arm = String(repeating: "a\u{1B}", count: 1_000_000)
        try writeFile("results.csv", "arm,users,delivered,opens,opt_outs\nholdout,100,0,50,0\n\(arm),100,50,60,1\n")
        let result = try remindersim("calibrate", "app.json", "results.csv", "--users", "100")
        assertExit(result, 65)
        XCTAssertLessThan(result.stderr.utf8.count, 2_000, result.description)
        assertContains(result.stderr, "arm \"a\\x1Ba\\x1B")
        assertNoEscapes(result)
    }
}
