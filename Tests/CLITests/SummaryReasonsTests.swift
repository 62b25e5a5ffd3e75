import Foundation
import ReminderSimTestSupport
import XCTest

/// The terminal summary and the report say why: the opt-out rate beside its limit, notification
/// outcomes that add up with the capped ones, no baseline-minus-itself table, and retention notes
/// that name the notification they mean.
final class SummaryReasonsTests: ReminderSimTestCase {
    /// "today 3d" shipped today, a capped 1/3/7 sequence and a capped 3/7/14-day reminder with its
    /// messages drawn at random, under an opt-out limit of 5%.
    func cappedScenario() throws -> String {
        var s = try defaultScenario()
        s["name"] = "capped"
        s["response"] = ["optOutPerDelivery": 0.01]
        let cap: [String: Any] = ["frequencyCap": ["max": 1, "perDays": 7]]
        s["configurations"] = [
            ["label": "today 3d", "reminders": [["messages": ["Come back"], "timePeriods": [3]]]],
            ["label": "seq 1/3/7", "sequence": ["afterDays": [1, 3, 7], "messages": ["Come back"]], "delivery": cap],
            ["label": "3/7/14d random", "delivery": cap,
             "reminders": [["messages": ["A", "B"], "timePeriods": [3, 7, 14], "randomMessage": true]]],
        ] as [[String: Any]]
        s["baseline"] = "today 3d"
        s["decision"] = ["objective": "opensLiftPerUser", "constraints": ["optOutRate": ["max": 0.05]]]
        return try JSONEdit.text(s)
    }

    func runCapped() throws -> CommandResult {
        _ = try writeFile("capped.json", try cappedScenario())
        let run = try remindersim("run", "capped.json", "--users", "1500", "--days", "40", "--threads", "2")
        assertExit(run, 0)
        return run
    }

    /// The ranked table shows the opt-out rate, as the limit states it, not a count of users.
    func testTheTableShowsTheOptOutRateBesideItsLimit() throws {
        let run = try runCapped()
        assertContains(run.stdout, "opt-out rate ≤ 5.0%")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.first { $0.hasPrefix("#") && $0.contains("configuration") })
        assertContains(header, "opt-out rate")
        XCTAssertFalse(header.contains("opt-outs"), header)
        // Every ranked row holds a rate with its interval, such as "1.23% [0.80, 1.70]" (the other rates
        // carry one decimal).
        for label in ["today 3d", "seq 1/3/7", "3/7/14d random"] {
            let row = try XCTUnwrap(lines.first { $0.first?.isNumber == true && $0.contains("  \(label)  ") }, label)
            XCTAssertNotNil(row.range(of: #"  \d+\.\d\d% \[\d+\.\d\d, \d+\.\d\d\]  "#, options: .regularExpression), row)
        }
    }

    /// Each configuration's outcomes add up to the notifications it scheduled; a capped configuration
    /// names its capped ones.
    func testTheOutcomesAddUpWithTheCappedOnes() throws {
        let run = try runCapped()
        let lines = run.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  notifications: ") }
        XCTAssertEqual(lines.count, 3, run.stdout)
        var capped = 0
        for line in lines {
            // "  notifications: 9,000 scheduled: 5,000 cancelled, 2,000 delivered, …, 300 censored"
            let parts = line.dropFirst("  notifications: ".count).split(separator: ":").map(String.init)
            XCTAssertEqual(parts.count, 2, line)
            func number(_ text: Substring?) -> Int { text.flatMap { Int($0.filter(\.isNumber)) } ?? -1 }
            let scheduled = number(parts.first.map { Substring($0) })
            let outcomes = (parts.last ?? "").components(separatedBy: ", ").map { $0.trimmingCharacters(in: .whitespaces) }
            let sum = outcomes.map { number($0.split(separator: " ").first) }.reduce(0, +)
            XCTAssertEqual(sum, scheduled, "the outcomes do not add up: \(line)")
            if let c = outcomes.first(where: { $0.hasSuffix(" capped") }) { capped += number(c.split(separator: " ").first) }
        }
        XCTAssertEqual(lines.filter { $0.contains(" capped, ") }.count, 2, "the two capped configurations name their capped ones")
        XCTAssertGreaterThan(capped, 0)
        // The report's table of outcomes adds up as well: its capped column is one of them.
        let report = try String(contentsOf: workDirectory.appendingPathComponent("Reports/capped-1/report.md"), encoding: .utf8)
        let section = try XCTUnwrap(report.components(separatedBy: "## Notifications and returns\n\n").last)
        let table = section.split(separator: "\n").prefix { $0.hasPrefix("|") }.map { line in
            line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let header = try XCTUnwrap(table.first)
        XCTAssertEqual(Array(header.prefix(8)), ["configuration", "scheduled", "cancelled", "delivered", "foreground",
                                                 "suppressed", "censored", "capped"])
        XCTAssertEqual(table.count, 2 + 3, section)
        var reportCapped = 0
        for row in table.dropFirst(2) {
            let n = row.dropFirst().prefix(7).map { Int($0.filter(\.isNumber)) ?? -1 }
            XCTAssertEqual(n.dropFirst().reduce(0, +), n[0], "the report's outcomes do not add up: \(row)")
            reportCapped += n[6]
        }
        XCTAssertEqual(reportCapped, capped)
        assertContains(section, "Scheduled = cancelled + delivered + foreground + suppressed + censored + capped.")
    }

    /// A period of 7 days flags D7 naming the notification that uses it: the third step of the
    /// sequence. "3/7/14d random" is not flagged: its 7-day period is used only once its 3-day
    /// notification has fired, so it fires on day 10 at the earliest.
    func testTheRetentionNoteNamesTheNotification() throws {
        let run = try runCapped()
        let report = try String(contentsOf: workDirectory.appendingPathComponent("Reports/capped-1/report.md"), encoding: .utf8)
        for text in [run.stdout, report] {
            assertContains(text, "seq 1/3/7, D7 vs holdout: step 3 of the sequence fires 7 days after the last session")
            XCTAssertFalse(text.contains("3/7/14d random, D7 vs holdout"), text)
        }
    }

    /// When the baseline itself is recommended, the reasons hold no "X − X" column of "(same)".
    func testNoBaselineMinusItselfWhenTheBaselineWins() throws {
        var s = try defaultScenario()
        s["name"] = "baseline wins"
        s["response"] = ["optOutPerDelivery": 0.01]
        s["configurations"] = [
            ["label": "daily", "reminders": [["messages": ["Come back"], "timePeriods": [1]]]],
            ["label": "monthly", "reminders": [["messages": ["Come back"], "timePeriods": [30]]]],
        ] as [[String: Any]]
        s["baseline"] = "daily"
        s["decision"] = ["objective": "opensLiftPerUser"]
        _ = try writeFile("wins.json", try JSONEdit.text(s))
        let run = try remindersim("run", "wins.json", "--users", "1000", "--days", "40", "--threads", "2")
        assertExit(run, 0)
        assertContains(run.stdout, "Ship daily")
        let report = try String(contentsOf: workDirectory.appendingPathComponent("Reports/baseline-wins-1/report.md"), encoding: .utf8)
        XCTAssertFalse(report.contains("daily − daily"), report)
        XCTAssertFalse(report.contains("| (same) |"), report)
        assertContains(report, "It is the baseline itself.")
        assertContains(report, "| measure | daily − monthly (runner-up) |")
    }
}
