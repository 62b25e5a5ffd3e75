import Console
import Foundation
import XCTest

/// Echoes its arguments, for checking dispatch and output.
private struct Echo: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "echo",
        abstract: "Repeat the words given.",
        discussion: "Prints WORDS separated by spaces.",
        arguments: [
            .option("--separator", short: "s", valueName: "text", help: "Placed between words.", default: " "),
            .flag("--loud", help: "Print in capitals."),
            .variadic("words", help: "The words to print."),
        ])

    let words: [String]
    let separator: String
    let loud: Bool

    init(arguments: ParsedArguments) throws {
        words = try arguments.values("words")
        separator = try arguments.value("--separator")
        loud = try arguments.flag("--loud")
    }

    func run(context: CommandContext) throws {
        let line = words.joined(separator: separator)
        context.stdout.writeLine(loud ? line.uppercased() : line)
    }
}

/// Fails in the requested way.
private struct Fail: RunnableCommand {
    /// The ways to fail.
    enum Kind: String, CaseIterable, ArgumentValue {
        case data, io, usage, other, silent
    }

    /// An error the runner knows nothing about.
    struct Unexpected: Error, CustomStringConvertible {
        var description: String { "something odd" }
    }

    static let configuration = CommandConfiguration(
        name: "fail",
        abstract: "Fail on purpose.",
        arguments: [.positional("kind", help: "How to fail.")])

    let kind: Kind

    init(arguments: ParsedArguments) throws {
        kind = try arguments.value("kind")
    }

    func run(context: CommandContext) throws {
        context.stdout.writeLine("partial output")
        switch kind {
        case .data: throw CommandError.dataError("line 3: malformed record")
        case .io: throw CommandError.ioError("cannot read 'x.csv'")
        case .usage: throw UsageError("--from must come before --to")
        case .other: throw Unexpected()
        case .silent: throw CommandError(.failure, "")
        }
    }
}

/// A nested leaf, two levels down.
private struct Migrate: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "migrate",
        abstract: "Upgrade the schema.",
        arguments: [.option("--to", valueName: "version", help: "Target version.", required: true)])

    let target: Int

    init(arguments: ParsedArguments) throws {
        target = try arguments.value("--to")
    }

    func run(context: CommandContext) throws {
        context.stdout.writeLine("migrated to \(target) by \(context.commandPath)")
    }
}

/// A group in the middle of the tree.
private enum Database: Command {
    static let configuration = CommandConfiguration(
        name: "db", abstract: "Manage the database.", subcommands: [Migrate.self])
}

/// Declared but neither a group nor runnable: a programming mistake.
private enum Hollow: Command {
    static let configuration = CommandConfiguration(name: "hollow", abstract: "Nothing here.")
}

/// The root of the test tool.
private enum Tool: Command {
    static let configuration = CommandConfiguration(
        name: "tool",
        abstract: "A tool for tests.",
        discussion: "Longer words about the tool.",
        subcommands: [Echo.self, Fail.self, Database.self, Hollow.self])
}

/// The top-level function: exit statuses and which stream gets what.
final class RunnerTests: XCTestCase {
    /// What one run produced.
    private struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    private func run(_ arguments: [String], root: any Command.Type = Tool.self) -> Outcome {
        let out = MemoryWriter()
        let err = MemoryWriter()
        let status = CommandRunner.main(root: root, arguments: arguments, version: "tool 1.2.3",
                                        io: ConsoleIO(stdout: out, stderr: err))
        return Outcome(status: status, stdout: out.text, stderr: err.text)
    }

    /// An argument echoed in an error is escaped and kept to one line, whatever it holds.
    func testArgumentsInErrorsAreEscaped() {
        let unknown = run(["echo", "--\u{1B}[2J\nfake"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.hasPrefix("tool: error: unknown option '--\\u{1b}[2J\\nfake'\n"), unknown.stderr)
        let subcommand = run(["\u{202E}echo"])
        XCTAssertEqual(subcommand.status, 64)
        XCTAssertTrue(subcommand.stderr.contains("unknown subcommand '\\u{202e}echo'"), subcommand.stderr)
        let bad = run(["fail", "da\u{1B}ta"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertFalse(bad.stderr.unicodeScalars.contains("\u{1B}"), bad.stderr)
        let long = run(["echo", "--" + String(repeating: "x", count: 100_000)])
        XCTAssertLessThan(long.stderr.count, 300, "one quoted argument makes one short line")
    }

    func testSuccessWritesStdoutOnly() {
        let outcome = run(["echo", "-s", ",", "--loud", "a", "b"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, "A,B\n")
        XCTAssertEqual(outcome.stderr, "")
    }

    func testSubcommandHelpGoesToStdout() {
        for arguments in [["echo", "--help"], ["echo", "a", "-h"], ["help", "echo"]] {
            let outcome = run(arguments)
            XCTAssertEqual(outcome.status, 0, "\(arguments)")
            XCTAssertEqual(outcome.stderr, "", "\(arguments)")
            XCTAssertEqual(outcome.stdout, """
                OVERVIEW: Repeat the words given.

                Prints WORDS separated by spaces.

                USAGE: tool echo [--separator <text>] [--loud] [<words> ...]

                ARGUMENTS:
                  <words> ...             The words to print.

                OPTIONS:
                  -s, --separator <text>  Placed between words. (default: " ")
                  --loud                  Print in capitals.
                  -h, --help              Show help information.

                """, "\(arguments)")
        }
    }

    func testRootHelpListsSubcommandsAndVersion() {
        let outcome = run(["--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stdout.hasPrefix("OVERVIEW: A tool for tests.\n\nLonger words about the tool.\n\nUSAGE: tool <subcommand>\n"))
        XCTAssertTrue(outcome.stdout.contains("  --version               Show the version.\n"))
        XCTAssertTrue(outcome.stdout.contains("SUBCOMMANDS:\n  echo                    Repeat the words given.\n"))
        XCTAssertTrue(outcome.stdout.contains("  db                      Manage the database.\n"))
        XCTAssertTrue(outcome.stdout.hasSuffix("See 'tool help <subcommand>' for detailed help.\n"))
        XCTAssertEqual(run(["help"]).stdout, outcome.stdout)
        XCTAssertEqual(run(["-h"]).stdout, outcome.stdout)
    }

    func testNestedHelp() {
        let expected = run(["db", "migrate", "--help"])
        XCTAssertEqual(expected.status, 0)
        XCTAssertTrue(expected.stdout.contains("USAGE: tool db migrate --to <version>\n"))
        XCTAssertFalse(expected.stdout.contains("--version"))
        XCTAssertEqual(run(["help", "db", "migrate"]).stdout, expected.stdout)
        XCTAssertEqual(run(["db", "help", "migrate"]).stdout, expected.stdout)
        XCTAssertTrue(run(["help", "db"]).stdout.contains("USAGE: tool db <subcommand>\n"))
    }

    func testVersion() {
        let outcome = run(["--version"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, "tool 1.2.3\n")
        XCTAssertEqual(outcome.stderr, "")
        XCTAssertEqual(run(["echo", "--version"]).status, 64, "--version belongs to the root only")
    }

    func testVersionOnASingleCommandRoot() {
        XCTAssertEqual(run(["a", "--version"], root: Echo.self).stdout, "tool 1.2.3\n")
        XCTAssertEqual(run(["a", "b"], root: Echo.self).stdout, "a b\n")
        XCTAssertTrue(run(["--help"], root: Echo.self).stdout.contains("  --version               Show the version.\n"))
    }

    func testUsageErrorGoesToStderrWithHint() {
        let outcome = run(["echo", "--bogus"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertEqual(outcome.stderr, "tool: error: unknown option '--bogus'\nSee 'tool echo --help'.\n")
    }

    func testUsageErrorsAtEachLevelPointAtTheRightHelp() {
        XCTAssertEqual(run([]).stderr,
                       "tool: error: missing subcommand; expected one of: echo, fail, db, hollow\nSee 'tool --help'.\n")
        XCTAssertEqual(run(["nope"]).stderr,
                       "tool: error: unknown subcommand 'nope'; expected one of: echo, fail, db, hollow\nSee 'tool --help'.\n")
        XCTAssertEqual(run(["db", "migrate"]).stderr,
                       "tool: error: missing required option '--to <version>'\nSee 'tool db migrate --help'.\n")
        XCTAssertEqual(run(["db", "migrate", "--to", "x"]).stderr,
                       "tool: error: --to: expected a whole number, got \"x\"\nSee 'tool db migrate --help'.\n")
        XCTAssertEqual(run(["help", "echo", "more"]).status, 64)
    }

    func testNestedDispatch() {
        let outcome = run(["db", "migrate", "--to=5"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, "migrated to 5 by tool db migrate\n")
    }

    func testUsageErrorThrownWhileRunning() {
        let outcome = run(["fail", "usage"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertEqual(outcome.stderr, "tool: error: --from must come before --to\nSee 'tool fail --help'.\n")
    }

    func testDataError() {
        let outcome = run(["fail", "data"])
        XCTAssertEqual(outcome.status, 65)
        XCTAssertEqual(outcome.stdout, "partial output\n")
        XCTAssertEqual(outcome.stderr, "tool: error: line 3: malformed record\n")
    }

    func testIOError() {
        let outcome = run(["fail", "io"])
        XCTAssertEqual(outcome.status, 74)
        XCTAssertEqual(outcome.stderr, "tool: error: cannot read 'x.csv'\n")
    }

    func testOtherErrorsExitOne() {
        let outcome = run(["fail", "other"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stderr, "tool: error: something odd\n")
    }

    func testEmptyMessagePrintsNothing() {
        let outcome = run(["fail", "silent"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stderr, "")
    }

    func testCommandWithNothingToRunIsASoftwareError() {
        let outcome = run(["hollow"])
        XCTAssertEqual(outcome.status, 70)
        XCTAssertEqual(outcome.stderr, "tool: error: 'tool hollow' has neither subcommands nor anything to run\n")
    }

    func testFailedStdoutFlushIsAnIOError() throws {
        let path = NSTemporaryDirectory() + "console-tests-\(UUID().uuidString)"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let readOnly = try XCTUnwrap(FileHandle(forReadingAtPath: path))
        let err = MemoryWriter()
        let status = CommandRunner.main(root: Tool.self, arguments: ["echo", "hi"], version: "1",
                                        io: ConsoleIO(stdout: FileHandleWriter(handle: readOnly, buffered: true),
                                                      stderr: err))
        XCTAssertEqual(status, 74)
        XCTAssertTrue(err.text.hasPrefix("tool: error: cannot write to standard output"), err.text)
    }

    func testFileHandleWriterBuffersUntilFlush() throws {
        let pipe = Pipe()
        let writer = FileHandleWriter(handle: pipe.fileHandleForWriting, buffered: true)
        writer.write("one ")
        writer.writeLine("two")
        try writer.flush()
        try pipe.fileHandleForWriting.close()
        XCTAssertEqual(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "one two\n")
    }
}
