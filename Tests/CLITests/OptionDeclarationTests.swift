import Console
import Foundation
@testable import ReminderSimCLI
import XCTest

/// What a command declares (and so shows in its help) is exactly what it reads: every option group
/// reads each argument it declares, every command reads each argument it lists, a read of an argument
/// the command did not declare fails with an internal error, and no option name is spelled twice.
final class OptionDeclarationTests: XCTestCase {
    /// The fewest words each command is built from without an error; a new command needs its line here.
    static let sampleWords: [String: [String]] = [
        "run": [], "validate": ["a.json"], "scenario": [], "list": [], "report": ["1"], "export": ["1", "--csv", "out"],
        "compare": ["1", "2"], "merge": ["a.sqlite", "--into", "b.sqlite"], "trace": ["--user", "0"], "tune": [],
        "fit": ["log.csv"], "import": ["log.csv"], "calibrate": ["s.json", "r.csv"], "readout": ["s.json", "r.csv"],
    ]

    /// Every command that runs, with the words of its path, found through the tool's own command tree.
    static func runnableCommands() -> [(path: String, type: any RunnableCommand.Type)] {
        var found: [(String, any RunnableCommand.Type)] = []
        func visit(_ command: any Command.Type, _ path: [String]) {
            let path = path + [command.configuration.name]
            if let runnable = command as? any RunnableCommand.Type { found.append((path.joined(separator: " "), runnable)) }
            for sub in command.configuration.subcommands { visit(sub, path) }
        }
        for sub in ReminderSim.configuration.subcommands { visit(sub, []) }
        return found
    }

    func testEveryCommandReadsEveryArgumentItDeclares() throws {
        let commands = Self.runnableCommands()
        XCTAssertGreaterThanOrEqual(commands.count, 13, "the commands were not found")
        for (path, type) in commands {
            guard let words = Self.sampleWords[path] else {
                XCTFail("no sample words for '\(path)': add the fewest words it runs with to sampleWords")
                continue
            }
            let parsed = try ParsedArguments(parsing: words, specs: type.configuration.arguments, commandPath: "remindersim \(path)")
            XCTAssertNoThrow(try type.init(arguments: parsed), path)
            XCTAssertEqual(parsed.unreadArguments, [], "'\(path)' declares arguments it never reads")
        }
    }

    /// Each group, built from what it declares alone, reads all of it and needs nothing else.
    func testEveryOptionGroupReadsExactlyWhatItDeclares() throws {
        let groups: [(any OptionGroup.Type, [String])] = [
            (ScenarioFileArgument.self, []), (ScenarioOverrides.self, ["--users", "5", "--days", "3", "--seed", "2"]),
            (ThreadsOption.self, []), (DatabaseOption.self, []), (ReportFolderOption.self, []), (SimulationArguments.self, []),
            (StoredRunSelection.self, ["latest"]), (LogOptions.self, []),
        ]
        for (group, words) in groups {
            let parsed = try ParsedArguments(parsing: words, specs: group.specs, commandPath: "remindersim test")
            XCTAssertNoThrow(try group.init(parsed), "\(group)")
            XCTAssertEqual(parsed.unreadArguments, [], "\(group) declares arguments it never reads")
        }
        let overrides = try ScenarioOverrides(
            ParsedArguments(parsing: ["-n", "5", "--days", "3", "--seed", "2"], specs: ScenarioOverrides.specs, commandPath: "t"))
        XCTAssertEqual([overrides.users, overrides.days, overrides.seed.map(Int.init)], [5, 3, 2])
    }

    /// A command that reads a group it did not list fails with an internal error (exit 70) naming
    /// the argument, on the first run that reaches the read.
    func testReadingAGroupThatIsNotDeclaredFailsLoudly() throws {
        let parsed = try ParsedArguments(parsing: [], specs: ThreadsOption.specs, commandPath: "remindersim broken")
        XCTAssertThrowsError(try SimulationArguments(parsed)) { error in
            let failure = error as? CommandError
            XCTAssertEqual(failure?.code, .software, "\(error)")
            XCTAssertEqual(failure?.message, "'remindersim broken' reads undeclared argument 'scenario'")
        }
        XCTAssertThrowsError(try ScenarioOverrides(parsed)) { error in
            XCTAssertEqual((error as? CommandError)?.message, "'remindersim broken' reads undeclared argument '--users'")
        }
    }

    /// The shared options keep one name and one reading wherever they are listed: `--users` is range
    /// checked the same in `run`, `tune` and `trace`.
    func testSharedOptionsAreReadTheSameByEveryCommand() {
        for command in ["run", "tune", "trace"] {
            let words = [command] + (command == "trace" ? ["--user", "0"] : []) + ["--users", "0"]
            let out = MemoryWriter(), err = MemoryWriter()
            let status = ReminderSim.main(arguments: words, io: ConsoleIO(stdout: out, stderr: err))
            XCTAssertEqual(status, 64, command)
            XCTAssertTrue(err.text.contains("--users: expected a whole number from 1 to 1125899906842624, got \"0\""),
                          "\(command): \(err.text)")
            let help = helpText(command)
            for name in ["--users", "--days", "--seed"] { XCTAssertTrue(help.contains(name), "\(command) --help lacks \(name)") }
        }
    }

    private func helpText(_ command: String) -> String {
        let out = MemoryWriter(), err = MemoryWriter()
        _ = ReminderSim.main(arguments: [command, "--help"], io: ConsoleIO(stdout: out, stderr: err))
        return out.text
    }

    /// An option name is written once in the sources, in its spec: commands read it through the spec
    /// and name it in messages through `spec.name`.
    func testNoOptionNameIsWrittenTwice() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ReminderSimCLI")
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 10, "the sources were not found at \(sources.path)")
        let literal = try NSRegularExpression(pattern: "\"(--[a-z][a-z-]*)\"")
        var places: [String: [String]] = [:]
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in literal.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                places[String(text[range]), default: []].append(file)
            }
        }
        XCTAssertGreaterThan(places.count, 20, "too few option names found")
        // Options of different commands that mean different things and share only their name: the
        // format of a log read (fit, import) and of a comparison printed; a log's user column and the
        // user a trace follows. Each is still declared once and read through its spec.
        let unrelated: [String: [String]] = [
            "--format": ["CompareCommand.swift", "LogOptions.swift"], "--user": ["LogOptions.swift", "TraceCommand.swift"],
        ]
        let twice = places.filter { $0.value.count > 1 && unrelated[$0.key] != $0.value.sorted() }.map { "\($0.key) in \($0.value.sorted().joined(separator: ", "))" }
        XCTAssertEqual(twice.sorted(), [], "option names written more than once")
    }
}
