import Foundation
import ReminderSimTestSupport
import XCTest

/// `remindersim run` on the built-in scenario, as a user sees it.
final class RunCommandTests: ReminderSimTestCase {
    /// The second line of the summary, the only one that varies between identical runs:
    /// "5 configurations and the holdout in 0.36 s (99,924 sessions, 2 threads)". Anything may
    /// follow the thread count inside the parentheses (resource figures, say).
    static let timingLine = #"^\d+ configurations? and the holdout in \d+(\.\d+)? s \([\d,]+ sessions, \d+ threads?\b.*\)$"#

    /// A terminal is told while the decision is checked, and once the run is saved, while the report is
    /// written (a Ctrl-C then leaves the line standing), and the line is erased once they are done;
    /// TERM=dumb, like a file, gets nothing. Run under `script`, which gives the tool a terminal.
    func testATerminalIsToldTheRunIsSavedWhileItsReportIsWritten() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("no /usr/bin/script") }
        let binary = try executableURL().path
        for term in ["xterm", "dumb"] {
            let command = "'\(binary)' run --users 300 --days 35 --threads 1 --db r-\(term).sqlite --out out >/dev/null"
            let child = try ChildProcess(
                executable: URL(fileURLWithPath: "/usr/bin/script"), arguments: ["-qec", command, "/dev/null"],
                environment: environment(["TERM": term]), directory: workDirectory, spool: workDirectory)
            let result = try XCTUnwrap(child.wait(timeout: 120))
            assertExit(result, 0)
            if term == "dumb" {
                XCTAssertFalse(result.stdout.contains("is saved in"), result.stdout.debugDescription)
            } else {
                // The decision is checked before the run is saved (a look that cannot be made saves nothing).
                assertContains(result.stdout, "\r\u{1B}[Kchecking the decision…\r\u{1B}[K", "the terminal")
                assertContains(result.stdout, "\r\u{1B}[Krun 1 is saved in r-xterm.sqlite; writing its report…\r\u{1B}[K", "the terminal")
            }
            // Rendered again, the run's decision is checked again: said the same way while it lasts.
            let again = try ChildProcess(
                executable: URL(fileURLWithPath: "/usr/bin/script"),
                arguments: ["-qec", "'\(binary)' report 1 --db r-\(term).sqlite --out out >/dev/null", "/dev/null"],
                environment: environment(["TERM": term]), directory: workDirectory, spool: workDirectory)
            let rendered = try XCTUnwrap(again.wait(timeout: 120))
            assertExit(rendered, 0)
            let line = "\r\u{1B}[Krun 1: checking its decision again and writing its report…\r\u{1B}[K"
            XCTAssertEqual(rendered.stdout.contains(line), term == "xterm", rendered.stdout.debugDescription)
        }
    }

    func testRunNamesEveryConfigurationAndTheHoldout() throws {
        let scenario = try defaultScenario()
        let configurations = try XCTUnwrap(scenario["configurations"] as? [[String: Any]])
        let labels = try configurations.map { try XCTUnwrap($0["label"] as? String) }
        XCTAssertFalse(labels.isEmpty, "the default scenario has no configurations")

        let result = try remindersim("run", "--users", "3000", "--days", "30", "--threads", "2")
        assertExit(result, 0)
        XCTAssertEqual(result.stderr, "", "stderr is not a terminal, so it must stay empty (no progress bar)")
        assertNoEscapes(result)

        let lines = result.stdoutLines
        XCTAssertGreaterThanOrEqual(lines.count, 3, result.description)
        assertContains(lines.first ?? "", "3,000 users, 30 days", "first line")
        assertContains(lines.first ?? "", "seed \(scenario["seed"].map { "\($0)" } ?? "?")", "first line")
        let timing = lines.count > 1 ? lines[1] : ""
        XCTAssertNotNil(timing.range(of: Self.timingLine, options: .regularExpression), "unexpected second line: \(timing)")
        assertContains(timing, "2 threads", "second line")
        if scenario["grid"] == nil {
            assertContains(timing, "\(labels.count) configuration", "second line")
        }

        // Each configuration is one ranked row: "<rank>  <label>  …".
        let rows = lines.filter { $0.range(of: #"^\d+  "#, options: .regularExpression) != nil }
        for label in labels {
            XCTAssertEqual(rows.filter { $0.contains("  \(label)  ") }.count, 1,
                           "configuration \"\(label)\" is not exactly one ranked row in:\n\(result.stdout)")
        }
        XCTAssertEqual(lines.filter { $0.hasPrefix("holdout ") }.count, 1, "no holdout row in:\n\(result.stdout)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("Holdout: ") }, "no holdout summary in:\n\(result.stdout)")
    }

    func testOutputDoesNotDependOnThreadCount() throws {
        var outputs: [Int: [String]] = [:]
        for threads in [1, 2, 5] {
            let result = try remindersim("run", "--users", "4000", "--days", "30", "--threads", "\(threads)")
            assertExit(result, 0)
            XCTAssertEqual(result.stderr, "")
            let (kept, timing) = try Self.withoutTiming(result)
            assertContains(timing, "\(threads) thread", "timing line")
            outputs[threads] = kept
        }
        XCTAssertGreaterThan(outputs[1]?.count ?? 0, 5)
        for threads in [2, 5] {
            XCTAssertEqual(outputs[threads], outputs[1],
                           "--threads \(threads) changed the results:\n\(Self.firstDifference(outputs[1] ?? [], outputs[threads] ?? []))")
        }
    }

    func testSessionCountDoesNotDependOnThreadCount() throws {
        // The session total sits on the timing line, which the comparison above leaves out.
        let one = try remindersim("run", "--users", "2000", "--days", "30", "--threads", "1")
        let three = try remindersim("run", "--users", "2000", "--days", "30", "--threads", "3")
        assertExit(one, 0)
        assertExit(three, 0)
        XCTAssertEqual(try Self.sessions(one), try Self.sessions(three))
    }

    func testSeedChangesTheNumbers() throws {
        let base = try remindersim("run", "--users", "4000", "--days", "30", "--threads", "1")
        let again = try remindersim("run", "--users", "4000", "--days", "30", "--threads", "2", "--seed", "20261202")
        let other = try remindersim("run", "--users", "4000", "--days", "30", "--threads", "2", "--seed", "7")
        for result in [base, again, other] { assertExit(result, 0) }
        assertContains(other.stdoutLines.first ?? "", "seed 7", "first line")

        let scenarioSeed = try XCTUnwrap(defaultScenario()["seed"] as? NSNumber).uint64Value
        let baseBody = try Self.withoutTiming(base).kept.dropFirst()
        let otherBody = try Self.withoutTiming(other).kept.dropFirst()
        XCTAssertNotEqual(Array(baseBody), Array(otherBody), "--seed 7 gave the same results as the scenario's seed")
        if scenarioSeed == 20_261_202 {
            // Giving the scenario's own seed explicitly changes nothing.
            XCTAssertEqual(try Self.withoutTiming(again).kept, try Self.withoutTiming(base).kept)
        }
    }

    func testUsersAndDaysOverrideTheScenario() throws {
        let result = try remindersim("run", "--users", "700", "--days", "45", "-j", "2")
        assertExit(result, 0)
        assertContains(result.stdoutLines.first ?? "", "700 users, 45 days", "first line")
    }

    func testTraceTakesTheSameOverridesAsRun() throws {
        let refused = inProcess("trace", "--user", "5", "--users", "3")
        assertExit(refused, 64)
        assertContains(refused.stderr, "--user: the scenario has 3 users (0 to 2), got 5")
        let short = inProcess("trace", "--user", "0", "--days", "10")
        assertExit(short, 65)
        assertContains(short.stderr, "(horizonDays is 10 from --days 10)")
        let traced = inProcess("trace", "--user", "0", "--users", "3", "--days", "31", "--seed", "7")
        assertExit(traced, 0)
        assertContains(traced.stdoutLines.first ?? "", "(seed 7)", "first line")
    }

    /// Horizons shorter than the default scenario's 30-day install spread: some users install
    /// after the horizon ends. Every such run must still finish and report, never crash.
    func testHorizonShorterThanTheInstallSpreadIsRefused() throws {
        // The default scenario spreads installs over 30 days: a shorter run would have users
        // installing after it ends, which is refused before anything runs.
        for days in [1, 10, 29] {
            let result = try remindersim("run", "--users", "300", "--days", "\(days)", "--threads", "1")
            assertExit(result, 65)
            XCTAssertEqual(result.stdout, "")
            assertContains(result.stderr, "population.installSpreadDays: installs are spread over 30 days but the run lasts \(days)")
        }
    }

    func testShortRunsWithAShortInstallSpread() throws {
        var scenario: Any = try defaultScenario()
        scenario = try JSONEdit.setting(2, at: "population.installSpreadDays", in: scenario)
        try writeFile("short.json", try JSONEdit.text(scenario))
        for days in [2, 3, 10] {
            let result = try remindersim("run", "short.json", "--users", "300", "--days", "\(days)", "--threads", "1")
            assertExit(result, 0)
            // Only warnings: a reminder of 7 days cannot fire in a run of 2 or 3.
            XCTAssertTrue(result.stderrLines.allSatisfy { $0.contains(": warning: ") && $0.contains("no notification can fire") },
                          result.stderr)
            XCTAssertEqual(result.stderrLines.isEmpty, days >= 10)
            assertContains(result.stdoutLines.first ?? "", "300 users, \(days) day", "first line")
            XCTAssertTrue(result.stdoutLines.contains { $0.hasPrefix("holdout ") }, result.description)
        }
    }

    func testRunsAScenarioFile() throws {
        // A scenario printed by `scenario` and given back to `run` gives the built-in scenario's results.
        let printed = try remindersim("scenario")
        assertExit(printed, 0)
        try writeFile("default.json", printed.stdout)
        let fromFile = try remindersim("run", "default.json", "--users", "1500", "--days", "30", "--threads", "2")
        let builtIn = try remindersim("run", "--users", "1500", "--days", "30", "--threads", "2")
        assertExit(fromFile, 0)
        assertExit(builtIn, 0)
        XCTAssertEqual(try Self.withoutTiming(fromFile).kept, try Self.withoutTiming(builtIn).kept)
    }

    func testUnwritableStandardOutputIsAnIOError() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full (Linux)")
        for arguments in [["scenario"], ["run", "--users", "200", "--days", "30", "--threads", "1"], ["--help"]] {
            let result = try remindersim(arguments: arguments, stdout: .path("/dev/full"))
            assertExit(result, 74)
            assertContains(result.stderr, "cannot write to standard output", "stderr of \(arguments)")
        }
    }

    // MARK: Helpers

    /// The output without its timing line (the only one that varies between identical runs), and that line.
    static func withoutTiming(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line)
        throws -> (kept: [String], timing: String)
    {
        let lines = result.stdoutLines
        let timing = lines.indices.filter { lines[$0].range(of: timingLine, options: .regularExpression) != nil }
        XCTAssertEqual(timing, [1], "expected the timing line as the second line:\n\(result)", file: file, line: line)
        let index = try XCTUnwrap(timing.first, file: file, line: line)
        var kept = lines
        kept.remove(at: index)
        // Where the run was saved names its run number, which counts the runs in the database.
        kept.removeAll { $0.hasPrefix("Saved as run ") }
        return (kept, lines[index])
    }

    static func sessions(_ result: CommandResult) throws -> String {
        let (_, timing) = try withoutTiming(result)
        let range = try XCTUnwrap(timing.range(of: #"[\d,]+ sessions"#, options: .regularExpression))
        return String(timing[range])
    }

    static func firstDifference(_ a: [String], _ b: [String]) -> String {
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : "<none>"
            let y = i < b.count ? b[i] : "<none>"
            if x != y { return "line \(i + 1):\n  \(x)\n  \(y)" }
        }
        return "(none)"
    }
}
