import Console
import XCTest

/// Matching command-line words against argument specs and reading typed values back.
final class ParsingTests: XCTestCase {
    /// A choice read through the `CaseIterable` default conformance.
    private enum Mode: String, CaseIterable, ArgumentValue {
        case fast, slow
    }

    private let specs: [ArgumentSpec] = [
        .option("--users", short: "u", valueName: "n", help: "Number of users.", default: "4"),
        .option("--seed", valueName: "seed", help: "Random seed."),
        .option("--rate", valueName: "r", help: "Rate.", default: "1.5"),
        .option("--mode", valueName: "mode", help: "Mode.", default: "fast"),
        .flag("--verbose", short: "v", help: "Say more."),
        .positional("input", help: "Input file."),
        .optionalPositional("output", help: "Output file.", default: "out.csv"),
        .variadic("extra", help: "More files."),
    ]

    private func parse(_ words: [String], specs: [ArgumentSpec]? = nil) throws -> ParsedArguments {
        try ParsedArguments(parsing: words, specs: specs ?? self.specs, commandPath: "tool run")
    }

    private func usageMessage(_ words: [String], specs: [ArgumentSpec]? = nil,
                              read: (ParsedArguments) throws -> Void = { _ in }) -> String? {
        do {
            try read(try parse(words, specs: specs))
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    func testDefaultsApplyWhenAbsent() throws {
        let args = try parse(["in.txt"])
        XCTAssertEqual(try args.value("--users", as: Int.self), 4)
        XCTAssertEqual(try args.value("--rate", as: Double.self), 1.5)
        XCTAssertEqual(try args.value("--mode", as: Mode.self), .fast)
        XCTAssertNil(try args.optionalValue("--seed", as: UInt64.self))
        XCTAssertFalse(try args.flag("--verbose"))
        XCTAssertEqual(try args.value("input", as: String.self), "in.txt")
        XCTAssertEqual(try args.value("output", as: String.self), "out.csv")
        XCTAssertEqual(try args.values("extra", as: String.self), [])
        XCTAssertFalse(try args.isPresent("--users"))
        XCTAssertFalse(try args.isPresent("output"))
    }

    func testLongOptionsInBothForms() throws {
        let args = try parse(["--users", "12", "--seed=18446744073709551615", "--rate=-0.25", "in.txt"])
        XCTAssertEqual(try args.value("--users", as: Int.self), 12)
        XCTAssertEqual(try args.value("--seed", as: UInt64.self), UInt64.max)
        XCTAssertEqual(try args.value("--rate", as: Double.self), -0.25)
        XCTAssertTrue(try args.isPresent("--users"))
    }

    func testShortNamesAndFlags() throws {
        let args = try parse(["-u", "7", "-v", "in.txt"])
        XCTAssertEqual(try args.value("--users", as: Int64.self), 7)
        XCTAssertTrue(try args.flag("--verbose"))
        XCTAssertEqual(try args.value("--users", as: Int.self), try parse(["-u7", "x"]).value("--users", as: Int.self))
        XCTAssertEqual(try parse(["-u=9", "x"]).value("--users", as: Int.self), 9)
    }

    func testNegativeNumberIsAValueNotAnOption() throws {
        let args = try parse(["--users", "-3", "-5"])
        XCTAssertEqual(try args.value("--users", as: Int.self), -3)
        XCTAssertEqual(try args.value("input", as: Int.self), -5)
        // Anything that starts like a negative number is a value, so the value's own check explains it
        // (`--shard -1/3` is a bad shard, not a missing one).
        XCTAssertEqual(try parse(["--users", "-1/3", "x"]).value("--users", as: String.self), "-1/3")
        XCTAssertEqual(try parse(["--users", "-.5", "x"]).value("--users", as: String.self), "-.5")
        XCTAssertThrowsError(try parse(["--users", "-u"])) { error in
            XCTAssertEqual("\(error)", "missing value for option '--users'")
        }
    }

    func testPositionalsAndVariadic() throws {
        let args = try parse(["a", "--verbose", "b", "c", "d"])
        XCTAssertEqual(try args.value("input", as: String.self), "a")
        XCTAssertEqual(try args.value("output", as: String.self), "b")
        XCTAssertEqual(try args.values("extra", as: String.self), ["c", "d"])
        XCTAssertTrue(try args.flag("--verbose"))
        XCTAssertTrue(try args.isPresent("extra"))
    }

    func testDoubleDashEndsOptions() throws {
        let args = try parse(["--", "--verbose", "-u", "-"])
        XCTAssertFalse(try args.flag("--verbose"))
        XCTAssertEqual(try args.value("input", as: String.self), "--verbose")
        XCTAssertEqual(try args.value("output", as: String.self), "-u")
        XCTAssertEqual(try args.values("extra", as: String.self), ["-"])
    }

    func testUnknownOption() {
        XCTAssertEqual(usageMessage(["--bogus", "x"]), "unknown option '--bogus'")
        XCTAssertEqual(usageMessage(["--bogus=3", "x"]), "unknown option '--bogus'")
        XCTAssertEqual(usageMessage(["-z", "x"]), "unknown option '-z'")
        XCTAssertEqual(usageMessage(["-vx", "x"]), "unknown option '-vx'")
    }

    func testMissingOptionValue() {
        XCTAssertEqual(usageMessage(["x", "--users"]), "missing value for option '--users'")
        XCTAssertEqual(usageMessage(["--users", "--verbose", "x"]), "missing value for option '--users'")
    }

    func testFlagWithValueIsRejected() {
        XCTAssertEqual(usageMessage(["--verbose=yes", "x"]), "flag '--verbose' does not take a value")
    }

    func testBadTypedValueNamesTheOption() {
        XCTAssertEqual(usageMessage(["--users", "abc", "x"]) { _ = try $0.value("--users", as: Int.self) },
                       "--users: expected a whole number, got \"abc\"")
        XCTAssertEqual(usageMessage(["--seed", "-1", "x"]) { _ = try $0.optionalValue("--seed", as: UInt64.self) },
                       "--seed: expected a non-negative whole number, got \"-1\"")
        XCTAssertEqual(usageMessage(["--rate", "nan", "x"]) { _ = try $0.value("--rate", as: Double.self) },
                       "--rate: expected a number, got \"nan\"")
        XCTAssertEqual(usageMessage(["--rate", "0x10", "x"]) { _ = try $0.value("--rate", as: Double.self) },
                       "--rate: expected a number, got \"0x10\"")
        XCTAssertEqual(usageMessage(["--mode", "medium", "x"]) { _ = try $0.value("--mode", as: Mode.self) },
                       "--mode: expected one of 'fast', 'slow', got \"medium\"")
        XCTAssertEqual(usageMessage(["x", "y", "z"]) { _ = try $0.values("extra", as: Int.self) },
                       "<extra>: expected a whole number, got \"z\"")
    }

    func testValidatedValueUsesTheGivenExpectation() throws {
        let read: (ParsedArguments) throws -> Void = {
            _ = try $0.value("--users", as: Int.self, expected: "a positive whole number", where: { $0 > 0 })
        }
        XCTAssertEqual(usageMessage(["--users", "abc", "x"], read: read),
                       "--users: expected a positive whole number, got \"abc\"")
        XCTAssertEqual(usageMessage(["--users", "0", "x"], read: read),
                       "--users: expected a positive whole number, got \"0\"")
        XCTAssertNil(usageMessage(["--users", "3", "x"], read: read))
    }

    func testRepeatedOptionIsRejectedButRepeatedFlagIsHarmless() throws {
        XCTAssertEqual(usageMessage(["--users", "1", "-u", "2", "x"]), "option '--users' given more than once")
        XCTAssertTrue(try parse(["-v", "--verbose", "x"]).flag("--verbose"))
    }

    func testMissingAndExtraPositionals() {
        XCTAssertEqual(usageMessage([]), "missing argument '<input>'")
        let noVariadic: [ArgumentSpec] = [.positional("input", help: "In.")]
        XCTAssertEqual(usageMessage(["a", "b"], specs: noVariadic), "unexpected argument 'b'")
    }

    func testRequiredOption() {
        let specs: [ArgumentSpec] = [.option("--name", valueName: "name", help: "Name.", required: true)]
        XCTAssertEqual(usageMessage([], specs: specs), "missing required option '--name <name>'")
        XCTAssertNil(usageMessage(["--name", "x"], specs: specs))
    }

    func testReadingAnUndeclaredArgumentIsASoftwareError() throws {
        let args = try parse(["x"])
        XCTAssertThrowsError(try args.flag("--users")) { error in
            XCTAssertEqual((error as? CommandError)?.code, .software)
        }
        XCTAssertThrowsError(try args.value("--nope", as: Int.self)) { error in
            XCTAssertEqual((error as? CommandError)?.code, .software)
        }
    }

    func testInconsistentDeclarationsAreSoftwareErrors() {
        let broken: [[ArgumentSpec]] = [
            [.flag("--a", help: ""), .flag("--a", help: "")],
            [.flag("--a", short: "a", help: ""), .flag("--b", short: "a", help: "")],
            [.flag("-a", help: "")],
            [.optionalPositional("a", help: ""), .positional("b", help: "")],
            [.variadic("a", help: ""), .positional("b", help: "")],
        ]
        for specs in broken {
            XCTAssertThrowsError(try parse([], specs: specs)) { error in
                XCTAssertEqual((error as? CommandError)?.code, .software, "\(specs.map(\.name))")
            }
        }
    }
}
