import Console
import XCTest

/// Option groups: arguments declared and read in one type, read through their specs, with the
/// arguments a command declares but never reads found by `unreadArguments`.
final class OptionGroupTests: XCTestCase {
    /// A group as a command would write one.
    private struct Sizes: OptionGroup {
        static let count = ArgumentSpec.option("--count", short: "c", valueName: "n", help: "How many.", default: "3")
        static let label = ArgumentSpec.option("--label", valueName: "text", help: "A label.")
        static let loud = ArgumentSpec.flag("--loud", help: "Say it loudly.")
        static let specs = [count, label, loud]

        let count: Int
        let label: String?
        let loud: Bool

        init(_ arguments: ParsedArguments) throws {
            count = try arguments.value(Self.count, expected: "a whole number from 1 to 9", where: { (1...9).contains($0) })
            label = try arguments.optionalValue(Self.label)
            loud = try arguments.flag(Self.loud)
        }
    }

    private func parse(_ words: [String], _ specs: [ArgumentSpec]) throws -> ParsedArguments {
        try ParsedArguments(parsing: words, specs: specs, commandPath: "tool go")
    }

    func testAGroupReadsItsValuesThroughItsSpecs() throws {
        let sizes = try Sizes(parse(["-c", "7", "--label=x", "--loud"], Sizes.specs))
        XCTAssertEqual(sizes.count, 7)
        XCTAssertEqual(sizes.label, "x")
        XCTAssertTrue(sizes.loud)
        XCTAssertEqual(try Sizes(parse([], Sizes.specs)).count, 3)
        XCTAssertThrowsError(try Sizes(parse(["--count", "10"], Sizes.specs))) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--count: expected a whole number from 1 to 9, got \"10\"")
        }
    }

    func testUnreadArgumentsNamesWhatWasDeclaredButNeverRead() throws {
        let extra = ArgumentSpec.option("--extra", valueName: "x", help: "Never read.")
        let parsed = try parse(["--loud"], Sizes.specs + [extra])
        XCTAssertEqual(parsed.unreadArguments, ["--count", "--label", "--loud", "--extra"])
        _ = try Sizes(parsed)
        XCTAssertEqual(parsed.unreadArguments, ["--extra"])
        // Asking whether it was given counts as reading it; so does reading through a copy.
        let copy = parsed
        XCTAssertFalse(try copy.isPresent(extra))
        XCTAssertEqual(parsed.unreadArguments, [])
    }

    func testReadingAGroupTheCommandDidNotDeclareIsAnInternalError() throws {
        let parsed = try parse([], [Sizes.count])
        XCTAssertThrowsError(try Sizes(parsed)) { error in
            XCTAssertEqual((error as? CommandError)?.code, .software)
            XCTAssertEqual((error as? CommandError)?.message, "'tool go' reads undeclared argument '--label'")
        }
    }

    func testDescribedKeepsTheNameAndChangesTheRest() throws {
        let file = Sizes.count.described("How many files.", valueName: "files", default: "1")
        XCTAssertEqual(file.name, "--count")
        XCTAssertEqual(file.shortName, "c")
        XCTAssertEqual(file.valueName, "files")
        XCTAssertEqual(file.defaultValue, "1")
        XCTAssertEqual(try parse([], [file]).value(file, as: Int.self), 1)
        let required = ArgumentSpec.option("--name", valueName: "n", help: "Name.", required: true)
        XCTAssertTrue(required.described("The name.").isRequired)
        XCTAssertFalse(required.described("The name.", default: "x").isRequired)
    }

    func testValueIfPresentChecksOnlyWhatWasGiven() throws {
        let days = ArgumentSpec.option("--days", valueName: "n", help: "Days.")
        XCTAssertNil(try parse([], [days]).valueIfPresent(days, as: Int.self, expected: "1 to 9", where: { (1...9).contains($0) }))
        XCTAssertEqual(try parse(["--days", "4"], [days]).valueIfPresent(days, as: Int.self, expected: "1 to 9", where: { _ in true }), 4)
        XCTAssertThrowsError(try parse(["--days", "0"], [days]).valueIfPresent(days, as: Int.self, expected: "1 to 9",
                                                                                where: { (1...9).contains($0) }))
    }
}
