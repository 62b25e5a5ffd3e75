import Foundation
import Rendering
@testable import Reporting
import Simulation
import SimulationTestSupport
import Storage
import XCTest

/// Number formats and the terminal's text.
final class TextTests: XCTestCase {
    func testGroupingPutsCommasEveryThreeDigits() {
        XCTAssertEqual(Text.group(0), "0")
        XCTAssertEqual(Text.group(999), "999")
        XCTAssertEqual(Text.group(1_000), "1,000")
        XCTAssertEqual(Text.group(-1_234_567), "-1,234,567")
        XCTAssertEqual(Text.group(Int64.min), "-9,223,372,036,854,775,808")
    }

    func testPercentShowsTheWilsonIntervalOrNA() {
        XCTAssertEqual(Text.percent(Proportion(0, of: 0)), "n/a")
        // 1 of 4: Wilson 95% interval (Wilson 1927) is [0.0456, 0.6994].
        XCTAssertEqual(Text.percent(Proportion(1, of: 4)), "25.0% [4.6, 69.9]")
        XCTAssertEqual(Text.percent(Proportion(1, of: 4), withInterval: false), "25.0%")
    }

    func testSignedEstimatesAndPoints() {
        XCTAssertEqual(Text.signed(Estimate(value: 0.1234, low: -0.01, high: 0.25), digits: 3), "+0.123 [-0.010, 0.250]")
        XCTAssertEqual(Text.signed(nil, digits: 2), "n/a")
        XCTAssertEqual(Text.points(Estimate(value: 0.012, low: 0.005, high: 0.019)), "+1.20 pp [0.50, 1.90]")
    }

    /// A limit reads as written: one decimal of a percentage unless it needs more.
    func testLimitsKeepTheirDigits() {
        XCTAssertEqual(Text.measure(.optOutRate, 0.05), "5.0%")
        XCTAssertEqual(Text.measure(.optOutRate, 0.065), "6.5%")
        XCTAssertEqual(Text.measure(.optOutRate, 0.0001), "0.01%")
        XCTAssertEqual(Text.measure(.optOutRate, 0.0325), "3.25%")
        XCTAssertEqual(Text.measure(.deliveredPerExtraOpen, 15), "15")
    }

    func testPrintableEscapesControlsAndCutsLongText() {
        XCTAssertEqual(TerminalText.printable("a\tb\nc\u{1B}[31m"), "a\\tb\\nc\\u{1b}[31m")
        XCTAssertEqual(TerminalText.printable("bidi \u{202E}x"), "bidi \\u{202e}x")
        let long = TerminalText.printable(String(repeating: "x", count: 100), limit: 10)
        XCTAssertEqual(long, String(repeating: "x", count: 9) + "…")
    }

    /// Quoted text escapes its own quotes and backslashes: a message holding `"`, a real line break and a
    /// backslash followed by n reads back unambiguously.
    func testQuotedTextEscapesQuotesAndBackslashes() {
        XCTAssertEqual(TerminalText.quoted("he said \"hi\", ok\nnew"), #""he said \"hi\", ok\nnew""#)
        XCTAssertEqual(TerminalText.quoted(#"a\nb"#), #""a\\nb""#)
        XCTAssertEqual(TerminalText.quoted("plain"), "\"plain\"")
    }

    func testTablesAlignColumns() {
        let text = TerminalText.table([["name", "n"], ["a", "1,000"], ["longer", "7"]], rightAligned: [1])
        XCTAssertEqual(text, "name        n\na       1,000\nlonger      7\n")
    }
}

/// Reports rendered from results made by hand.
final class RunReportTests: XCTestCase {
    func scenario() -> Scenario {
        var s = Scenario.builtInDefault
        s.users = 1_000
        s.horizonDays = 35
        s.response.messageWeights = [:]
        s.configurations = [
            ConfigurationSpec(label: "slow", reminders: [ReminderSpec(messages: ["A", "B"], timePeriods: [7])],
                              cronRules: ["1 1"]),
            ConfigurationSpec(label: "fast | piped", reminders: [ReminderSpec(messages: ["A"], timePeriods: [1, 3])]),
        ]
        return s
    }

    func run() -> StoredRun {
        let s = scenario()
        let results = RunResults(scenario: s, tallies: HandMadeTallies.tallies(for: s))
        return StoredRun(id: 7, record: RunRecord(results: results, toolVersion: "test", createdAt: "", wallSeconds: 1,
                                                  threads: 1))
    }

    func testResultsKeepTheHoldoutApartAndRankByLift() {
        let results = run().results
        XCTAssertTrue(results.holdout.isHoldout)
        XCTAssertNil(results.holdout.metrics.opensLiftPerUser)
        XCTAssertEqual(results.configurations.map(\.label), ["slow", "fast | piped"])
        XCTAssertEqual(results.configurations.map(\.index), [1, 2])
        // The hand-made counts give configuration k a lift of 10·k opens: the later one ranks first.
        XCTAssertEqual(results.rankedByOpensLift.map(\.label), ["fast | piped", "slow"])
        XCTAssertEqual(results.sessions, 900 + 910 + 920)
        XCTAssertEqual(results.configurations[1].periods.map(\.name), ["1 day", "3 days"])
    }

    func testMarkdownRanksEscapesAndNamesEveryTable() throws {
        let text = MarkdownReport.render(run())
        let ranking = try XCTUnwrap(text.range(of: "## Configurations against the holdout"))
        let after = text[ranking.upperBound...]
        let fast = try XCTUnwrap(after.range(of: "fast \\| piped"), "a pipe in a label is escaped in tables")
        let slow = try XCTUnwrap(after.range(of: "| slow |"))
        XCTAssertLessThan(fast.lowerBound, slow.lowerBound, "the larger lift ranks first")
        XCTAssertTrue(text.contains("| Users | 1,000 |"), text)
        for table in RunStore.exportedTables { XCTAssertTrue(text.contains("`\(table).csv`"), table) }
    }

    func testLabelsInTheLiveTestTableAreEscapedOnce() throws {
        let text = MarkdownReport.render(run())
        let live = try XCTUnwrap(text.range(of: "Live test\n"), text)
        let section = String(text[live.upperBound...].prefix(3_000))
        XCTAssertTrue(section.contains("| " + Markdown.escapeCell("fast | piped") + " |"), section)
        XCTAssertFalse(section.contains(Markdown.escapeCell(Markdown.escapeCell("fast | piped"))), section)
    }

    func testSummaryTextListsEachConfigurationOnce() {
        let text = SummaryText.render(run().results, wallSeconds: 1.25, threads: 2)
        XCTAssertTrue(text.contains("2 configurations and the holdout in 1.25 s (2,730 sessions, 2 threads)"), text)
        XCTAssertEqual(text.components(separatedBy: "Configuration \"slow\"").count, 2)
        XCTAssertEqual(text.components(separatedBy: "Configuration \"fast | piped\"").count, 2)
        XCTAssertTrue(text.contains("cron rule"), "the configuration with a rule shows it")

        // One configuration is one, not "1 configurations".
        var s = scenario()
        s.configurations.removeLast()
        let one = SummaryText.render(RunResults(scenario: s, tallies: HandMadeTallies.tallies(for: s)), wallSeconds: 1.25, threads: 1)
        XCTAssertTrue(one.contains("1 configuration and the holdout in 1.25 s"), one)
    }
    /// A live-test plan past what any test reaches says so, rather than give billions of users as a plan.
    func testAPlanNoTestCanReachSaysSo() throws {
        // With CUPED too: two arms of 1,000 users whose means differ by 0.001 opens, with a variance near 9.
        let r = try XCTUnwrap(CovariateMoments(CovariateSums(users: 1_000, x: 1_000, xx: 10_000, y: 1_001, yy: 10_000, xy: 5_000)))
        let b = try XCTUnwrap(CovariateMoments(CovariateSums(users: 1_000, x: 1_000, xx: 10_000, y: 1_000, yy: 10_000, xy: 5_000)))
        let cuped = try XCTUnwrap(CupedPlan(preDays: 14, simulatedUsers: 1_000, seed: 1, recommended: r, baseline: b,
                                            shares: [0.45, 0.45, 0.1], liveUsers: nil))
        XCTAssertGreaterThan(cuped.totalUsers, 100_000_000)
        XCTAssertTrue(LiveTestReport.cupedTotals(cuped).hasSuffix(" for them without CUPED) — more users than a live test can "
            + "reach: the arms are too alike for a test to tell apart"), LiveTestReport.cupedTotals(cuped))
        XCTAssertEqual(LiveTestReport.beyondReach(100_000_000), "")
        XCTAssertEqual(LiveTestReport.beyondReach(5_621_562_674),
                       " — more users than a live test can reach: the arms are too alike for a test to tell apart")
    }

    /// The sensitivity sentence says whether the call holds under each change, and names those
    /// where it does not.
    func testTheSensitivitySentenceSaysWhetherTheCallHolds() throws {
        let results = run().results
        let point = try XCTUnwrap(results.decision.recommended.map { results.all[$0].label })
        let other = try XCTUnwrap(results.all.dropFirst().map(\.label).first { $0 != point })
        let same = DecisionSecondLook(recheck: nil, uncertain: nil,
                                      sensitivity: [("base response halved", point), ("opt-outs doubled", point)],
                                      sensitivityUnchanged: point)
        let holds = try XCTUnwrap(SecondLookReport.sensitivityText(results, same))
        XCTAssertTrue(holds.hasSuffix("The call holds under each change."), holds)
        XCTAssertFalse(holds.contains("with the response unchanged"), holds)
        let flipped = DecisionSecondLook(recheck: nil, uncertain: nil,
                                         sensitivity: [("base response halved", point), ("base response doubled", other),
                                                       ("opt-outs doubled", nil)],
                                         sensitivityUnchanged: point)
        let text = try XCTUnwrap(SecondLookReport.sensitivityText(results, flipped))
        XCTAssertTrue(text.contains("The call does NOT hold under every change (base response doubled, opt-outs doubled)"), text)
        XCTAssertFalse(text.contains("holds under each change"), text)
        // On the fewer users of these runs the unchanged response already picks another: the changes are
        // read against that pick, and a change that repeats it changed nothing.
        let smaller = DecisionSecondLook(recheck: nil, uncertain: nil,
                                         sensitivity: [("base response halved", other), ("base response doubled", other)],
                                         sensitivityUnchanged: other)
        // On the run's own 1,000 users the pick differs for another reason: no "too close" is claimed.
        let ownUsers = try XCTUnwrap(SecondLookReport.sensitivityText(results, smaller))
        XCTAssertTrue(ownUsers.contains("with the response unchanged, these runs recommend \(other) rather than \(point), and against "
            + "that: base response halved: \(other) (same); base response doubled: \(other) (same)."), ownUsers)
        XCTAssertTrue(ownUsers.hasSuffix("Each change recommends what the unchanged response does there, so the call holds under "
            + "each change."), ownUsers)
        // On a run of more users than the sensitivity runs have, it is said.
        var larger = scenario()
        larger.users = 40_000
        let big = RunResults(scenario: larger, tallies: HandMadeTallies.tallies(for: larger))
        let bigPoint = try XCTUnwrap(big.decision.recommended.map { big.all[$0].label })
        let bigOther = try XCTUnwrap(big.all.dropFirst().map(\.label).first { $0 != bigPoint })
        let fewer = try XCTUnwrap(SecondLookReport.sensitivityText(big, DecisionSecondLook(
            recheck: nil, uncertain: nil, sensitivity: [("base response halved", bigOther)], sensitivityUnchanged: bigOther)))
        XCTAssertTrue(fewer.contains("these runs recommend \(bigOther) rather than \(bigPoint) (too close to tell apart on 20,000 "
            + "users), and against that: base response halved: \(bigOther) (same)."), fewer)
    }

}

/// The HTML page shows what the Markdown shows: hidden characters as their `\u{…}` form, never raw
/// control characters, and only ASCII punctuation taken as escaped.
final class HTMLTextTests: XCTestCase {
    func testHiddenAndControlCharactersAreShownNotWritten() {
        let label = "a\u{202E}b_c"
        let html = HTMLReport.render(markdown: "# Run\n\n" + Markdown.escapeInline(label) + "\n", charts: [:],
                                     title: "x\u{0}y\u{202E}z")
        XCTAssertTrue(html.contains("a\\u{202E}b_c"), html)
        XCTAssertFalse(html.unicodeScalars.contains("\u{0}"), "a raw NUL in the page")
        XCTAssertTrue(html.contains("x\\u{0}y\\u{202E}z"), html)
        XCTAssertFalse(html.unicodeScalars.contains("\u{202E}"), "a raw right-to-left override in the page")
    }
}

/// Which files an export may replace: an earlier export of the same table.
final class CSVFileHeaderTests: XCTestCase {
    let file = CSVFile(name: "tune_stages.csv", table: CSVTable(header: ["tune_id", "stage", "users", "candidates"]))

    func testTheTablesOwnHeaderAndAnOlderNarrowerOneQualify() {
        XCTAssertTrue(file.isHeader(of: "tune_id,stage,users,candidates"))
        XCTAssertTrue(file.isHeader(of: "tune_id,stage,users,candidates\r"))
        XCTAssertTrue(file.isHeader(of: "tune_id,users"))
    }

    func testOtherFirstLinesDoNot() {
        XCTAssertFalse(file.isHeader(of: ""))
        XCTAssertFalse(file.isHeader(of: "stage,tune_id"), "the table's first column comes first")
        XCTAssertFalse(file.isHeader(of: "tune_id,stage,notes"), "a column the table does not have")
        XCTAssertFalse(file.isHeader(of: "\"tune_id\",stage"))
        XCTAssertFalse(file.isHeader(of: "tune_id;stage"))
        XCTAssertFalse(CSVFile(name: "x.csv", table: CSVTable(header: [])).isHeader(of: ""))
    }
}

/// Paired tables name a retention difference that is zero by construction, as the ranking table does.
final class PairedZeroByConstructionTests: XCTestCase {
    func testAD7DifferenceNoNotificationCanReachReadsNotApplicable() throws {
        var s = Scenario.builtInDefault
        s.users = 400
        s.horizonDays = 35
        s.configurations = [
            ConfigurationSpec(label: "ten days", reminders: [ReminderSpec(messages: ["A"], timePeriods: [10])]),
            ConfigurationSpec(label: "twelve days", reminders: [ReminderSpec(messages: ["A"], timePeriods: [12])]),
            ConfigurationSpec(label: "two days", reminders: [ReminderSpec(messages: ["A"], timePeriods: [2])]),
        ]
        s.response.messageWeights = [:]
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 1)))
        XCTAssertTrue(DecisionReport.zeroByConstruction(results, 1, 0, .retentionD7))
        XCTAssertTrue(DecisionReport.zeroByConstruction(results, 1, 2, .retentionD7), "neither can reach day 7")
        XCTAssertFalse(DecisionReport.zeroByConstruction(results, 3, 0, .retentionD7))
        XCTAssertFalse(DecisionReport.zeroByConstruction(results, 1, 3, .retentionD7))
        XCTAssertFalse(DecisionReport.zeroByConstruction(results, 1, 0, .retentionD30))
        XCTAssertFalse(DecisionReport.zeroByConstruction(results, 1, 0, .opensPerUser))
        // The difference the run measured is exactly zero there.
        XCTAssertEqual(results.comparison(1, against: 0, .retentionD7)?.difference?.value, 0)
        let section = DecisionReport.pairwiseSection(results)
        let row = try XCTUnwrap(section.split(separator: "\n").first { $0.hasPrefix("| ten days |") })
        XCTAssertTrue(row.contains("| n/a (zero by construction) |"), String(row))
        XCTAssertFalse(row.contains("[0.00, 0.00]"), String(row))
    }
}

/// Differences between two runs are cut to what a difference of shares can be.
final class RunComparisonBoundsTests: XCTestCase {
    func testADifferenceOfSharesStaysWithinItsRange() {
        let wide = Estimate(value: 0.797, low: 0.516, high: 1.078)
        XCTAssertEqual(RunComparison.bounded(wide, .optOutRate), Estimate(value: 0.797, low: 0.516, high: 1))
        XCTAssertEqual(RunComparison.bounded(Estimate(value: -1.5, low: -2.4, high: -0.6), .liftD7),
                       Estimate(value: -1.5, low: -2, high: -0.6))
        XCTAssertEqual(RunComparison.bounded(Estimate(value: 3, low: 1, high: 5), .opensLiftPerUser),
                       Estimate(value: 3, low: 1, high: 5), "opens per user have no bound")
    }

    /// CUPED's change to the variance carries one sign: a shrink with a minus, a growth with a plus and
    /// the reason it is no help.
    func testCupedVarianceChangeHasOneSign() {
        XCTAssertEqual(LiveTestReport.varianceChange(0.25), "−25%")
        XCTAssertEqual(LiveTestReport.varianceChange(-0.0938), "+9%, so CUPED does not help here")
        XCTAssertEqual(LiveTestReport.varianceChange(0.001), "±0%")
        XCTAssertEqual(LiveTestReport.varianceChange(-0.004), "±0%")
    }

    /// `fit`'s amounts of time and predicted counts read as the observed ones do.
    func testFitAmountsAndPredictedCounts() {
        XCTAssertEqual(FitText.amount(1, "days"), "1 day")
        XCTAssertEqual(FitText.amount(1, "weeks"), "1 week")
        XCTAssertEqual(FitText.amount(7, "days"), "7 days")
        XCTAssertEqual(FitText.amount(0.5, "weeks"), "0.5 weeks")
        XCTAssertEqual(FitText.count(16_874.4), "16,874")
        XCTAssertEqual(FitText.count(0.6), "1")
        XCTAssertEqual(FitText.count(2e20), "2e+20")
    }
}
