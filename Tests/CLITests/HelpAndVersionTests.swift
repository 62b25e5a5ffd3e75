import Foundation
import ReminderSimCLI
import ReminderSimTestSupport
import XCTest

/// `--help`, `help <subcommand>` and `--version`: exit 0, text on stdout, nothing on stderr.
final class HelpAndVersionTests: ReminderSimTestCase {
    static let subcommands = ["run", "validate", "scenario"]

    func testRootHelpListsEverySubcommand() throws {
        for flag in ["--help", "-h"] {
            let result = inProcess(flag)
            assertExit(result, 0)
            XCTAssertEqual(result.stderr, "", "\(flag) wrote to stderr")
            assertNoEscapes(result)
            XCTAssertTrue(result.stdout.hasPrefix("OVERVIEW: "), result.description)
            assertContains(result.stdout, "USAGE: remindersim <subcommand>")
            assertContains(result.stdout, "--version")
            let listed = Self.listedSubcommands(result.stdout)
            for name in Self.subcommands {
                XCTAssertTrue(listed.contains(name), "'\(name)' missing from SUBCOMMANDS in:\n\(result.stdout)")
            }
        }
    }

    func testEverySubcommandHasHelp() throws {
        let root = inProcess("--help")
        assertExit(root, 0)
        // The three required ones, plus any the help lists that this test does not know yet.
        let names = Self.subcommands + Self.listedSubcommands(root.stdout).filter { !Self.subcommands.contains($0) }
        for name in names {
            for flag in ["--help", "-h"] {
                let result = inProcess(name, flag)
                assertExit(result, 0)
                XCTAssertEqual(result.stderr, "", "\(name) \(flag) wrote to stderr")
                XCTAssertTrue(result.stdout.hasPrefix("OVERVIEW: "), result.description)
                assertContains(result.stdout, "USAGE: remindersim \(name)")
                assertContains(result.stdout, "-h, --help")
            }
            // `help <name>` is the same text.
            let viaHelp = inProcess("help", name)
            assertExit(viaHelp, 0)
            XCTAssertEqual(viaHelp.stdout, inProcess(name, "--help").stdout, "'help \(name)' differs from '\(name) --help'")
        }
    }

    func testSubcommandHelpDescribesItsArguments() throws {
        let run = inProcess("run", "--help")
        for option in ["[<scenario>]", "--users <n>", "--days <n>", "--seed <n>", "--threads <n>"] {
            assertContains(run.stdout, option, "run --help")
        }
        let validate = inProcess("validate", "--help")
        assertContains(validate.stdout, "<scenario>", "validate --help")
        let scenario = inProcess("scenario", "--help")
        assertContains(scenario.stdout, "JSON", "scenario --help")
    }

    func testHelpWinsOverOtherwiseInvalidArguments() throws {
        // Asking for help must work even when the rest of the line would be a usage error.
        let result = inProcess("run", "--users", "0", "--help")
        assertExit(result, 0)
        XCTAssertEqual(result.stderr, "")
        assertContains(result.stdout, "USAGE: remindersim run")
    }

    func testVersion() throws {
        let result = try remindersim("--version")
        assertExit(result, 0)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.stdout, ReminderSim.version + "\n")
        let version = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertNotNil(version.range(of: #"^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$"#, options: .regularExpression),
                        "not a version number: \"\(version)\"")
    }

    /// The names in the SUBCOMMANDS table of a help text.
    static func listedSubcommands(_ help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        var names: [String] = []
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            // A row starts with two spaces then the name; wrapped help continues further right.
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
            if let name = line.split(separator: " ").first { names.append(String(name)) }
        }
        return names
    }
}
