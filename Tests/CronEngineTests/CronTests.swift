import CronEngine
import XCTest

/// Days an `activeDays`-th launch happens on, when the user opens once a day on consecutive days.
func activeDaysMatching(_ rule: String, mode: CronMode, days: Int = 21) throws -> [Int] {
    let table = try CronTable(rules: [rule], mode: mode)
    var counters = LaunchCounters()
    var hits: [Int] = []
    for d in 1...days {
        var matchedToday = false
        table.launch(onDay: 20_240_100 + d, counters: &counters) { _, matched in matchedToday = matched }
        if matchedToday { hits.append(counters.activeDays) }
    }
    return hits
}

/// Whether a rule matches given counters.
func matches(_ rule: String, _ mode: CronMode, total: Int = 1, today: Int = 1, active: Int = 1) throws -> Bool {
    try CronRule(parsing: rule, mode: mode).matches(
        LaunchCounters(totalLaunches: total, launchesToday: today, activeDays: active, lastLaunchDay: 1))
}

final class LaunchCounterTests: XCTestCase {
    func testFirstLaunch() {
        var c = LaunchCounters()
        c.recordLaunch(onDay: 20_240_101)
        XCTAssertEqual(c, LaunchCounters(totalLaunches: 1, launchesToday: 1, activeDays: 1, lastLaunchDay: 20_240_101))
    }

    func testSameDayCountsLaunchesToday() {
        var c = LaunchCounters()
        for _ in 0..<3 { c.recordLaunch(onDay: 20_240_101) }
        XCTAssertEqual(c, LaunchCounters(totalLaunches: 3, launchesToday: 3, activeDays: 1, lastLaunchDay: 20_240_101))
    }

    func testActiveDaysCountDistinctLaunchDaysNotCalendarDays() {
        var c = LaunchCounters()
        c.recordLaunch(onDay: 20_240_101)
        c.recordLaunch(onDay: 20_240_101)
        c.recordLaunch(onDay: 20_240_115)  // two weeks later: the second active day
        XCTAssertEqual(c, LaunchCounters(totalLaunches: 3, launchesToday: 1, activeDays: 2, lastLaunchDay: 20_240_115))
    }
}

final class DocumentedRuleTests: XCTestCase {
    func testFirstLaunchOfFirstDay() throws {
        XCTAssertTrue(try matches("1 1", .documented, today: 1, active: 1))
        XCTAssertFalse(try matches("1 1", .documented, today: 2, active: 1))
        XCTAssertFalse(try matches("1 1", .documented, today: 1, active: 2))
    }

    func testFirstLaunchOfEveryDay() throws {
        XCTAssertEqual(try activeDaysMatching("1 *", mode: .documented, days: 5), [1, 2, 3, 4, 5])
        XCTAssertFalse(try matches("1 *", .documented, today: 2, active: 9))
    }

    func testEverySeventhActiveDay() throws {
        XCTAssertEqual(try activeDaysMatching("1 */7", mode: .documented), [7, 14, 21])
    }

    func testSecondLaunchOfAnyDay() throws {
        XCTAssertTrue(try matches("2 *", .documented, today: 2, active: 5))
        XCTAssertFalse(try matches("2 *", .documented, today: 3, active: 5))
    }

    func testOneFieldRules() throws {
        XCTAssertTrue(try matches("3", .documented, total: 3))
        XCTAssertFalse(try matches("3", .documented, total: 4))
        XCTAssertTrue(try matches("*", .documented, total: 17, today: 4, active: 9))
    }

    func testDivisorOnTheTimesField() throws {
        XCTAssertEqual(try CronRule(parsing: "*/2 *", mode: .documented), .daily(times: .multipleOf(2), day: .any))
        XCTAssertTrue(try matches("*/2 *", .documented, today: 4))
        XCTAssertFalse(try matches("*/2 *", .documented, today: 3))
    }

    func testDivisorZeroMeansAnything() throws {
        XCTAssertTrue(try matches("*/0 */0", .documented, today: 3, active: 5))
    }

    func testMalformedRulesAreRefusedWithTheRuleAndAReason() {
        let cases: [(String, String)] = [
            ("", "the rule is empty"),
            ("1 2 3", "expected one field (launch number) or two (times day), got 3"),
            ("1  1", "fields must be separated by exactly one space, with none before or after"),
            (" 1", "fields must be separated by exactly one space, with none before or after"),
            ("1 ", "fields must be separated by exactly one space, with none before or after"),
            ("a 1", "times field \"a\" must be *, */N or a whole number N ≥ 0"),
            ("1 -7", "day field \"-7\" must be *, */N or a whole number N ≥ 0"),
            ("1 */x", "day field divisor \"x\" must be *, */N or a whole number N ≥ 0"),
            ("1 */", "day field divisor \"\" must be *, */N or a whole number N ≥ 0"),
            ("*/3", "a one-field rule is a launch number or *; */N needs the two-field form"),
            ("-3", "launch number \"-3\" must be *, */N or a whole number N ≥ 0"),
            ("99999999999999999999", "launch number \"99999999999999999999\" is too large"),
        ]
        for (rule, reason) in cases {
            XCTAssertThrowsError(try CronRule(parsing: rule, mode: .documented), rule) { error in
                XCTAssertEqual(error as? CronRuleError, CronRuleError(rule: rule, reason: reason), rule)
            }
        }
    }

    func testTableReportsTheIndexOfTheBadRule() {
        XCTAssertThrowsError(try CronTable(rules: ["1 1", "1 x"], mode: .documented)) { error in
            let e = error as? CronTableError
            XCTAssertEqual(e?.index, 1)
            XCTAssertEqual(e?.description, "rule 1: cron rule \"1 x\": day field \"x\" must be *, */N or a whole number N ≥ 0")
        }
    }
}

final class OriginalRuleTests: XCTestCase {
    func testIntegerValueReadsLikeNSString() throws {
        XCTAssertTrue(try matches("\t12abc 1", .original, today: 12, active: 1))
        XCTAssertTrue(try matches("+5 1", .original, today: 5, active: 1))
        XCTAssertFalse(try matches("abc 1", .original, today: 1, active: 1))
        XCTAssertEqual(try CronRule(parsing: "abc 2x", mode: .original), .daily(times: .equals(0), day: .equals(2)))
        XCTAssertEqual(try CronRule(parsing: "99999999999999999999 1", mode: .original),
                       .daily(times: .equals(Int.max), day: .equals(1)))
    }

    /// The pod stores numbers in an `NSUInteger`: a negative one wraps to a huge value that equals no
    /// counter and, as a divisor, divides none.
    func testNegativeNumbersNeverMatch() throws {
        for rule in ["-1 *", "1 -1", "-3 -3", "*/2 -2", "-99999999999999999999 1"] {
            XCTAssertEqual(try CronRule(parsing: rule, mode: .original), .never, rule)
            for today in 1...6 {
                for active in [1, 2, 3, 6] {
                    XCTAssertFalse(try matches(rule, .original, today: today, active: active), rule)
                }
            }
        }
        // In Swift −2 divides 6; wrapped to 2^64 − 2 it does not.
        XCTAssertTrue(try matches("*/2 2", .original, today: 6, active: 2))
        XCTAssertFalse(try matches("*/2 -2", .original, today: 6, active: 2))
        // `*/-3` as a day field is read whole, as 0 (not negative): every day.
        XCTAssertEqual(try CronRule(parsing: "1 */-3", mode: .original), .daily(times: .equals(1), day: .multipleOf(0)))
        XCTAssertTrue(try matches("1 */-3", .original, today: 1, active: 5))
    }

    func testSplittingOnSingleSpaces() throws {
        XCTAssertEqual(try CronRule(parsing: "1  1", mode: .original), .never, "three parts never match")
        XCTAssertEqual(try CronRule(parsing: "1 1 1", mode: .original), .never)
        // One leading space gives an empty times field, read as 0: never equal to a counter.
        XCTAssertEqual(try CronRule(parsing: " 1", mode: .original), .daily(times: .equals(0), day: .equals(1)))
    }

    func testEmptyRuleNeverMatches() throws {
        XCTAssertEqual(try CronRule(parsing: "", mode: .original), .never)
        for total in 1...3 { XCTAssertFalse(try matches("", .original, total: total)) }
    }

    func testEverySeventhDayRunsEveryDay() throws {
        XCTAssertEqual(try activeDaysMatching("1 */7", mode: .original), Array(1...21))
    }

    func testTimesDivisorComesFromTheDayField() throws {
        // `*/2 1`: the divisor is the day field's 1, so every launch of the first active day.
        for today in 1...5 { XCTAssertTrue(try matches("*/2 1", .original, today: today, active: 1)) }
        XCTAssertFalse(try matches("*/2 1", .original, today: 1, active: 2))
        // `*/2 3`: launchesToday must be a multiple of 3 on the third active day.
        XCTAssertTrue(try matches("*/2 3", .original, today: 3, active: 3))
        XCTAssertFalse(try matches("*/2 3", .original, today: 2, active: 3))
        // With a day field of `*` or `*/y` the divisor is 0: always.
        XCTAssertTrue(try matches("*/2 *", .original, today: 3, active: 4))
        XCTAssertTrue(try matches("*/5 */7", .original, today: 3, active: 4))
    }

    func testDayDivisorIsTheNumberOfTheWholeDayText() throws {
        // `7/2` contains one slash and reads as 7: a multiple of 7.
        XCTAssertEqual(try CronRule(parsing: "1 7/2", mode: .original), .daily(times: .equals(1), day: .multipleOf(7)))
        XCTAssertTrue(try matches("1 7/2", .original, today: 1, active: 14))
        XCTAssertFalse(try matches("1 7/2", .original, today: 1, active: 2))
    }

    func testAFieldWithTwoSlashesIsANumber() throws {
        XCTAssertEqual(try CronRule(parsing: "1 */2/3", mode: .original), .daily(times: .equals(1), day: .equals(0)))
    }

    /// The pod's `shouldExecuteCronJob` has no one-field branch (only the demo app's copy has one).
    func testOneFieldRulesNeverMatchInThePod() throws {
        for rule in ["*", "3", "1", "*/3", "abc"] {
            XCTAssertEqual(try CronRule(parsing: rule, mode: .original), .never, rule)
            for total in 1...12 {
                XCTAssertFalse(try matches(rule, .original, total: total, today: total, active: 1), "\(rule) at \(total)")
            }
        }
        // Documented mode reads them as the README says.
        XCTAssertTrue(try matches("*", .documented, total: 9))
        XCTAssertTrue(try matches("3", .documented, total: 3))
        XCTAssertFalse(try matches("3", .documented, total: 4))
    }

    /// `shouldExecuteCronJob` returns NO for a rule without a block, so its else-block runs at every launch.
    func testABlocklessRuleRunsItsElseBlockAtEveryLaunch() throws {
        for mode in CronMode.allCases {
            var elseRuns = 0
            var jobs = CronJobs(mode: mode)
            try jobs.add("1 *", elseBlock: { elseRuns += 1 })
            for day in 1...3 {
                for _ in 0..<2 { jobs.launch(onDay: day) }
            }
            // Six launches on three days; "1 *" matches the first of each day.
            XCTAssertEqual(elseRuns, mode == .original ? 6 : 3, "\(mode)")
        }
    }

    func testOriginalModeNeverRefusesARule() throws {
        XCTAssertNoThrow(try CronTable(rules: ["", "x y z", "1  1", "*/3", "-2 -2"], mode: .original))
    }
}

final class ReadmeTableTests: XCTestCase {
    /// The Crontab-IOS README example: five rules, four launches on one day. Documented mode gives the
    /// README's table; the pod never runs the one-field rule `3`, so the original mode has no `3` at launch 3.
    func testReadmeTableInBothModes() throws {
        for mode in CronMode.allCases {
            var log: [String] = []
            var jobs = CronJobs(mode: mode)
            try jobs.add("1 1", block: { log.append("1 1") })
            try jobs.add("2 1", block: { log.append("2 1") })
            try jobs.add("1 *", block: { log.append("1 *") })
            try jobs.add("2 *", block: { log.append("2 *") }, elseBlock: { log.append("else 2 *") })
            try jobs.add("3", block: { log.append("3") })
            var launches: [[String]] = []
            for _ in 0..<4 {
                log = []
                jobs.launch(onDay: 20_240_301)
                launches.append(log)
            }
            let third = mode == .documented ? ["else 2 *", "3"] : ["else 2 *"]
            XCTAssertEqual(
                launches, [["1 1", "1 *", "else 2 *"], ["2 1", "2 *"], third, ["else 2 *"]], "\(mode)")
            XCTAssertEqual(jobs.counters.totalLaunches, 4)
        }
    }

    func testTableEvaluatesInRegistrationOrder() throws {
        let table = try CronTable(rules: ["*", "1", "2 *"], mode: .documented)
        var counters = LaunchCounters()
        var results: [(Int, Bool)] = []
        table.launch(onDay: 1, counters: &counters) { results.append(($0, $1)) }
        XCTAssertEqual(results.map(\.0), [0, 1, 2])
        XCTAssertEqual(results.map(\.1), [true, true, false])
    }

    func testDocumentedJobsRefuseAMalformedRule() {
        var jobs = CronJobs(mode: .documented)
        XCTAssertThrowsError(try jobs.add("1 1 1"))
    }
}

/// A rule asking for a count of 0 reads as one that could match, but no launch has a count of 0: the
/// counters count the launch being made. It is said to never match exactly when it never does over
/// every counter a run of launches reaches.
final class CountZeroTests: XCTestCase {
    func testARuleAskingForACountOfZeroNeverMatchesAndSaysSo() throws {
        for (rule, mode, zero) in [("0", CronMode.documented, true), ("0 0", .documented, true), ("* 0", .documented, true),
                                   ("0 *", .documented, true), ("1 0", .original, true), ("1 */0", .documented, false),
                                   ("1", .documented, false), ("1 */7", .documented, false), ("3", .original, false),
                                   ("* *", .documented, false)] {
            let parsed = try CronRule(parsing: rule, mode: mode)
            XCTAssertEqual(parsed.asksForCountZero, zero, "\(rule) in \(mode)")
            var counters = LaunchCounters(), matchedOnce = false
            for day in 1...40 {
                for _ in 0..<(day % 3 + 1) {
                    counters.recordLaunch(onDay: 20_240_100 + day)
                    matchedOnce = matchedOnce || parsed.matches(counters)
                }
            }
            if zero { XCTAssertFalse(matchedOnce, "\(rule) in \(mode) matched a launch") }
        }
    }
}
