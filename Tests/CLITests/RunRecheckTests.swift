import Foundation
import ReminderSimTestSupport
import XCTest

/// `run` re-checks its recommendation against the runner-up on other users, and says whether the
/// call survives in the terminal summary, the report (Markdown and HTML) and `--json`.
final class RunRecheckTests: ReminderSimTestCase {
    /// Two reminders a day apart: on 100 users the better one changes with the users.
    static let scenario = """
        {"name": "close paces", "users": 100, "horizonDays": 30,
         "population": {"segments": [{"name": "weekly", "returns": {"distribution": "exponential", "mean": 5, "unit": "days"}}]},
         "response": {"baseResponse": 0.1, "optOutPerDelivery": 0.006},
         "configurations": [
           {"label": "every 6 days", "reminders": [{"messages": ["Come back"], "timePeriods": [6], "unit": "days", "circularTimePeriod": true}]},
           {"label": "every 7 days", "reminders": [{"messages": ["Come back"], "timePeriods": [7], "unit": "days", "circularTimePeriod": true}]}
         ]}
        """

    func runJSON(seed: UInt64) throws -> [String: Any] {
        let result = try remindersim("run", "close.json", "--seed", String(seed), "--json", "--db", "runs.db", "--out", "out")
        assertExit(result, 0)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.description)
    }

    static func opensVersusHoldout(_ doc: [String: Any], _ label: String) -> Double? {
        let pairs = doc["versusBaseline"] as? [[String: Any]] ?? []
        let pair = pairs.first { $0["label"] as? String == label && $0["measure"] as? String == "opens_per_user" }
        return (pair?["difference"] as? [String: Any])?["value"] as? Double
    }

    /// At seed 1 the call survives, at seed 5 it does not; either way the re-check agrees with a run
    /// of the same scenario at the re-check's seed, whose difference of the two is the re-check's.
    func testRecheckAgreesWithARunOnTheOtherUsers() throws {
        try writeFile("close.json", Self.scenario)
        var outcomes: [Bool] = []
        for seed: UInt64 in [1, 5] {
            let doc = try runJSON(seed: seed)
            let decision = try XCTUnwrap(doc["decision"] as? [String: Any])
            let recheck = try XCTUnwrap(decision["recheck"] as? [String: Any], "\(decision)")
            let recommended = try XCTUnwrap(decision["recommended"] as? String)
            let runnerUp = try XCTUnwrap(decision["runnerUp"] as? String)
            XCTAssertEqual(recheck["recommended"] as? String, recommended)
            XCTAssertEqual(recheck["runnerUp"] as? String, runnerUp)
            let other = seed ^ (1 << 52)
            XCTAssertEqual((recheck["seed"] as? NSNumber)?.uint64Value, other)

            let there = try runJSON(seed: other)
            let thereDecision = try XCTUnwrap(there["decision"] as? [String: Any])
            let survives = try XCTUnwrap(recheck["survives"] as? Bool)
            XCTAssertEqual(survives, thereDecision["recommended"] as? String == recommended, "seed \(seed)")
            let a = try XCTUnwrap(Self.opensVersusHoldout(there, recommended))
            let b = try XCTUnwrap(Self.opensVersusHoldout(there, runnerUp))
            let difference = try XCTUnwrap((recheck["difference"] as? [String: Any])?["value"] as? Double)
            XCTAssertEqual(difference, a - b, accuracy: 1e-12)
            XCTAssertEqual(recheck["measure"] as? String, "opens_per_user")
            // The call is firm only when every second look bears it out; a re-check that does not is a doubt.
            let doubts = try XCTUnwrap(decision["doubts"] as? [String])
            XCTAssertEqual(doubts.contains("the re-check on other users does not bear it out"), !survives)
            let sensitivityChanged = (decision["sensitivity"] as? [[String: Any]] ?? []).contains { $0["sameAsUnchanged"] as? Bool == false }
            XCTAssertEqual(doubts.contains("it does not hold under every change of the response model"), sensitivityChanged)
            XCTAssertEqual(decision["firm"] as? Bool, doubts.isEmpty)
            // A call that survives with an interval holding zero survives narrowly, and says so.
            if survives {
                let interval = try XCTUnwrap(recheck["difference"] as? [String: Any])
                let (low, high) = (try XCTUnwrap(interval["low"] as? Double), try XCTUnwrap(interval["high"] as? Double))
                let summary = try XCTUnwrap(recheck["summary"] as? String)
                XCTAssertTrue(summary.hasSuffix(low > 0 || high < 0 ? "; the call survives."
                                                : "; the call survives, narrowly: still ahead, but not told apart there."), summary)
            } else {
                // Overtaken: said as narrowly when the interval of the difference holds zero.
                let interval = try XCTUnwrap(recheck["difference"] as? [String: Any])
                let (low, high) = (try XCTUnwrap(interval["low"] as? Double), try XCTUnwrap(interval["high"] as? Double))
                let summary = try XCTUnwrap(recheck["summary"] as? String)
                XCTAssertTrue(summary.hasSuffix(low > 0 || high < 0 ? "; the call does not survive: \(runnerUp) ranks first there."
                                                : "; the call does not survive: \(runnerUp) ranks first there, though the two are not told apart."),
                              summary)
            }
            outcomes.append(survives)
        }
        XCTAssertEqual(outcomes, [true, false], "the scenario should show a call that survives and one that does not")
    }

    /// A runner-up ahead on the objective only by breaking a constraint on the other users does not
    /// overtake the recommendation: the re-check agrees with what the rule picks there. Two paces a
    /// couple of hours apart under an opt-out limit they both sit close to (the built-in population).
    static let potion = "Hey - This potion's really odd. Come and See"

    /// One user, one day, everyone installing at the start: no notification can fire, every
    /// configuration is level, and the call stands on the order the rule breaks ties in; said so.
    func testATieOnTheOtherUsersIsCalledATie() throws {
        let result = try remindersim("run", "--users", "1", "--days", "1", "--install-spread", "0", "--db", "t.db", "--out", "out")
        assertExit(result, 0)
        assertContains(result.stdout, "; the call survives, tied: no difference there, ahead only by its place in the scenario's order.")
        assertContains(result.stdout, "Scenario \"default\": 1 user, 1 day from ")
        // One user has no per-user variance: the live test says so, not that the run lacks its stored sums.
        assertContains(result.stdout, "Live test: no size, the run has fewer than two users, so no per-user variance to size a test from")
        let checks = try String(contentsOfFile: workPath("out/default-1/decision_checks.csv"), encoding: .utf8)
        assertContains(checks, "survives, tied: no difference there, ahead by its place in the scenario's order")
    }

    func testARunnerUpThatBreaksAConstraintThereDoesNotOvertake() throws {
        let printed = try remindersim("scenario")
        assertExit(printed, 0)
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any])
        func pace(_ label: String, _ period: Int, _ unit: String) -> [String: Any] {
            ["label": label, "reminders": [["messages": [Self.potion], "timePeriods": [period], "unit": unit]]]
        }
        json["configurations"] = [pace("A", 2, "days"), pace("B", 46, "hours")]
        json["decision"] = ["objective": "opensLiftPerUser", "constraints": ["optOutRate": ["max": 0.065]]]
        json["users"] = 1000
        var response = try XCTUnwrap(json["response"] as? [String: Any])
        response["messageWeights"] = [Self.potion: 1.2]
        json["response"] = response
        try writeFile("paces.json", JSONSerialization.data(withJSONObject: json))
        var sawBreak = false
        for seed: UInt64 in [26, 62, 7] {
            let doc = try remindersim("run", "paces.json", "--seed", String(seed), "--json", "--db", "p.db", "--out", "out")
            assertExit(doc, 0)
            let decision = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(doc.stdout.utf8)) as? [String: Any])?["decision"]
                as? [String: Any])
            guard let recheck = decision["recheck"] as? [String: Any] else { continue }
            let there = try remindersim("run", "paces.json", "--seed", String(seed ^ (1 << 52)), "--json", "--db", "p.db", "--out", "out")
            assertExit(there, 0)
            let thereDoc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(there.stdout.utf8)) as? [String: Any])
            let thereDecision = try XCTUnwrap(thereDoc["decision"] as? [String: Any])
            let recommended = try XCTUnwrap(decision["recommended"] as? String)
            let runnerUp = try XCTUnwrap(decision["runnerUp"] as? String)
            XCTAssertEqual(recheck["survives"] as? Bool, thereDecision["recommended"] as? String == recommended, "seed \(seed)")
            // Whether the runner-up broke the limit there, ahead of the recommendation on the objective.
            let configurations = try XCTUnwrap(thereDoc["configurations"] as? [[String: Any]])
            func measure(_ label: String, _ name: String) -> Double? {
                let c = configurations.first { $0["label"] as? String == label }
                return ((c?["measures"] as? [String: Any])?[name] as? [String: Any])?["value"] as? Double
            }
            if let o = measure(runnerUp, "optOutRate"), o > 0.065,
               let x = measure(runnerUp, "opensLiftPerUser"), let y = measure(recommended, "opensLiftPerUser"), x > y {
                sawBreak = true
                // Said as what keeps the call, not as a lead the recommendation does not have there.
                let summary = try XCTUnwrap(recheck["summary"] as? String)
                // With the constraint it misses and its value there, so that a reader sees by how much.
                let there = String(format: "%.2f%% [", o * 100)
                XCTAssertTrue(summary.contains("; the call survives: \(runnerUp) misses opt-out rate ≤ 6.5% (\(there)"), summary)
                XCTAssertTrue(summary.hasSuffix("]) there."), summary)
            }
        }
        XCTAssertTrue(sawBreak, "a seed whose runner-up leads there only by breaking the limit")
    }

    func testEveryOutputSaysWhetherTheCallSurvives() throws {
        try writeFile("close.json", Self.scenario)
        let result = try remindersim("run", "close.json", "--seed", "5", "--db", "runs.db", "--out", "out")
        assertExit(result, 0)
        let line = try XCTUnwrap(result.stdoutLines.first { $0.hasPrefix("Re-check on other users") }, result.stdout)
        assertContains(line, "the call does not survive: every 7 days ranks first there")
        // The terminal says the call is not firm right under the decision, as the report does under its headline.
        let decisionLine = try XCTUnwrap(result.stdoutLines.firstIndex { $0.hasPrefix("Decision (") }, result.stdout)
        XCTAssertTrue(result.stdoutLines[decisionLine + 1].hasPrefix("Not firm: the re-check on other users does not bear it out"),
                      result.stdout)
        let reportLine = try XCTUnwrap(result.stdoutLines.first { $0.contains("; report: ") }, result.stdout)
        let reportPath = String(try XCTUnwrap(reportLine.components(separatedBy: "; report: ").last))
        let report = workDirectory.appendingPathComponent(reportPath)
        let markdown = try String(contentsOf: report, encoding: .utf8)
        assertContains(markdown, "## Second look at the decision")
        // Said again under the headline, where a reader who stops there sees it.
        let headline = try XCTUnwrap(markdown.range(of: "**Ship every 6 days"), markdown)
        let caveat = try XCTUnwrap(markdown.range(of: "\nNot firm: the re-check on other users does not bear it out"))
        XCTAssertLessThan(headline.lowerBound, caveat.lowerBound)
        XCTAssertLessThan(caveat.lowerBound, try XCTUnwrap(markdown.range(of: "## Second look at the decision")).lowerBound)
        assertContains(markdown, "the call does not survive: every 7 days ranks first there")
        let html = try String(contentsOf: report.deletingLastPathComponent().appendingPathComponent("report.html"), encoding: .utf8)
        assertContains(html, "the call does not survive")

        // `report` works the re-check out again from the stored run: the same report.
        let again = try remindersim("report", "1", "--db", "runs.db", "--out", "again")
        assertExit(again, 0)
        let againPath = String(try XCTUnwrap(again.stdout.components(separatedBy: ": ").last).dropLast())
        let rendered = try String(contentsOf: workDirectory.appendingPathComponent(againPath), encoding: .utf8)
        XCTAssertEqual(rendered, markdown)
    }

    /// A recommendation outside the five best by the objective (they break a constraint) is among the
    /// sensitivity runs, with the five best that meet every constraint: on the run's own users the unchanged
    /// response then picks it again, and the changes are read against it.
    func testTheSensitivityRunsHoldTheRecommendation() throws {
        let data = try Data(contentsOf: TuneCommandTests.datasets.appendingPathComponent("which-period.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["decision"] = ["objective": "opensLiftPerUser", "constraints": ["optOutRate": ["max": 0.02]]]
        try writeFile("strict.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim("run", "strict.json", "--users", "2000", "--json", "--db", "s.db", "--out", "out")
        assertExit(result, 0)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let decision = try XCTUnwrap(doc["decision"] as? [String: Any])
        let recommended = try XCTUnwrap(decision["recommended"] as? String)
        let configurations = try XCTUnwrap(doc["configurations"] as? [[String: Any]]).filter { $0["label"] as? String != "holdout" }
        let lifts = configurations.map { ($0["label"] as? String ?? "", (($0["measures"] as? [String: Any])?["opensLiftPerUser"]
            as? [String: Any])?["value"] as? Double ?? 0) }
        let rank = lifts.sorted { $0.1 > $1.1 }.firstIndex { $0.0 == recommended }
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(rank), 5, "the scenario should recommend one outside the five best by the objective")
        let sensitivity = try XCTUnwrap(decision["sensitivity"] as? [[String: Any]])
        XCTAssertEqual(sensitivity.first?["change"] as? String, "unchanged")
        XCTAssertEqual(sensitivity.first?["recommended"] as? String, recommended, "the same users, the same configuration")
        XCTAssertNil(sensitivity.first?["sameAsUnchanged"] as? Bool, "the control is not read against itself")
        // Each change says whether it recommends what the control does, as the sentence reads it.
        for change in sensitivity.dropFirst() {
            XCTAssertEqual(change["sameAsUnchanged"] as? Bool, change["recommended"] as? String == recommended, "\(change)")
        }
        XCTAssertEqual(sensitivity.count, 4)
        let text = try remindersim("run", "strict.json", "--users", "2000", "--db", "s.db", "--out", "out")
        assertExit(text, 0)
        assertContains(text.stdout, "Response sensitivity (the best five, the five best that meet every constraint and the baseline "
            + "re-run on 2,000 users): base response halved: ")
        XCTAssertFalse(text.stdout.contains("with the response unchanged"), text.stdout)
    }
}

/// Without a call there is nothing to re-check, and the report says so rather than speak of a runner-up.
final class SecondLookWithoutACallTests: ReminderSimTestCase {
    func testNoCallNoRecheck() throws {
        let printed = try remindersim("scenario")
        assertExit(printed, 0)
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any])
        // Every configuration delivers something: none meets a limit of none delivered.
        json["decision"] = ["objective": "opensLiftPerUser", "constraints": ["deliveredPerUser": ["max": 0]]]
        json["users"] = 300
        try writeFile("none.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim("run", "none.json", "--db", "n.db", "--out", "out")
        assertExit(result, 0)
        let report = try String(contentsOfFile: workPath("out/default-1/report.md"), encoding: .utf8)
        assertContains(report, "No re-check: no configuration meets every constraint, so there is no call to check.")
        XCTAssertFalse(report.contains("runner-up to check"), report)
        XCTAssertFalse(result.stdout.contains("Not firm"), result.stdout)
    }
}
