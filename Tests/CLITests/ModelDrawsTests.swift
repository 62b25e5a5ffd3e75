import Foundation
import ReminderSimTestSupport
import Simulation
@testable import ReminderSimCLI
import XCTest

/// `run` under an uncertain response model: the probabilities it prints against runs of each of the
/// same parameter draws on its own, and a range of no width against today's point decision.
final class ModelDrawsTests: ReminderSimTestCase {
    /// Two paces of the same reminder under an opt-out limit: at the range's low end the daily one
    /// keeps within 5% of users opting out and wins on opens; at its high end it does not, and the
    /// one every four days wins.
    static func scenario(optOut: String) -> String {
        """
        {"name": "two paces", "seed": 11, "users": 1500, "horizonDays": 30,
         "population": {"segments": [{"name": "weekly", "returns": {"distribution": "exponential", "mean": 5, "unit": "days"}}]},
         "response": {"baseResponse": 0.1, "optOutPerDelivery": \(optOut)},
         "configurations": [
           {"label": "daily", "reminders": [{"messages": ["Come back"], "timePeriods": [1], "unit": "days", "circularTimePeriod": true}]},
           {"label": "every 4 days", "reminders": [{"messages": ["Come back"], "timePeriods": [4], "unit": "days", "circularTimePeriod": true}]}
         ],
         "decision": {"objective": "opensLiftPerUser", "constraints": {"optOutRate": {"max": 0.05}}}}
        """
    }

    static let range = #"{"value": 0.006, "low": 0.002, "high": 0.02}"#

    /// `run --json` of `file` with `extra` arguments, parsed.
    func runJSON(_ file: String, _ extra: String...) throws -> [String: Any] {
        let result = try remindersim(arguments: ["run", file, "--json", "--db", "runs.db", "--out", "out"] + extra)
        assertExit(result, 0)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.description)
    }

    /// The report.md of run `id` in the folder `runJSON` writes to.
    func reportOfRun(_ id: Int) throws -> String {
        let folders = try FileManager.default.contentsOfDirectory(atPath: workPath("out"))
        let folder = try XCTUnwrap(folders.first { $0.hasSuffix("-\(id)") }, "\(folders)")
        return try String(contentsOfFile: workPath("out/\(folder)/report.md"), encoding: .utf8)
    }

    static func configurations(_ doc: [String: Any]) -> [String: [String: Any]] {
        let list = doc["configurations"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: list.compactMap { c in (c["label"] as? String).map { ($0, c) } })
    }

    static func measure(_ c: [String: Any], _ name: String) -> Double? {
        ((c["measures"] as? [String: Any])?[name] as? [String: Any])?["value"] as? Double
    }

    func testProbabilitiesEqualThoseOfEachDrawRunOnItsOwn() throws {
        let draws = 12
        try writeFile("uncertain.json", Self.scenario(optOut: Self.range))
        let doc = try runJSON("uncertain.json", "--model-draws", String(draws))
        let printed = Self.configurations(doc)

        // Each draw of the parameters, written as plain numbers and run on its own with today's point decision.
        let scenario = try Scenario.decode(Self.scenario(optOut: Self.range))
        var best: [String: Int] = [:], feasible: [String: Int] = [:], loss: [String: Double] = [:], lossDraws: [String: Int] = [:]
        for k in 0..<draws {
            var s = scenario
            s.response = scenario.response.draw(k, seed: scenario.seed)
            XCTAssertNil(s.response.uncertainty)
            try writeFile("draw.json", s.canonicalJSON())
            let one = try runJSON("draw.json")
            let decision = try XCTUnwrap(one["decision"] as? [String: Any])
            let configurations = Self.configurations(one)
            if let r = decision["recommended"] as? String { best[r, default: 0] += 1 }
            let top = try XCTUnwrap(decision["recommended"] as? String, "every draw here has a feasible configuration")
            let topValue = try XCTUnwrap(Self.measure(try XCTUnwrap(configurations[top]), "opensLiftPerUser"))
            for label in ["daily", "every 4 days"] {
                let c = try XCTUnwrap(configurations[label])
                // The loss against the draw's best feasible configuration, in the draws where this one is feasible.
                guard try XCTUnwrap(Self.measure(c, "optOutRate")) <= 0.05 else { continue }
                feasible[label, default: 0] += 1
                loss[label, default: 0] += max(0, topValue - (try XCTUnwrap(Self.measure(c, "opensLiftPerUser"))))
                lossDraws[label, default: 0] += 1
            }
        }
        var total = 0.0
        for label in ["daily", "every 4 days"] {
            let c = try XCTUnwrap(printed[label])
            let pBest = try XCTUnwrap(c["probabilityBest"] as? Double, "\(c)")
            XCTAssertEqual(pBest, Double(best[label] ?? 0) / Double(draws), label)
            XCTAssertEqual(try XCTUnwrap(c["probabilityFeasible"] as? Double), Double(feasible[label] ?? 0) / Double(draws), label)
            XCTAssertEqual(try XCTUnwrap(c["expectedLoss"] as? Double), (loss[label] ?? 0) / Double(lossDraws[label] ?? 0),
                           accuracy: 1e-12, label)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(c["expectedLoss"] as? Double), 0, label)
            // P(feasible)'s Monte Carlo interval: the exact 90% one over the draws.
            let interval = try XCTUnwrap(c["probabilityFeasibleInterval"] as? [String: Double], label)
            let exact = try XCTUnwrap(Proportion(Int64(feasible[label] ?? 0), of: Int64(draws)).clopperPearson(level: 0.9))
            XCTAssertEqual(interval["low"] ?? -1, exact.low, accuracy: 1e-12, label)
            XCTAssertEqual(interval["high"] ?? -1, exact.high, accuracy: 1e-12, label)
            // The range's ends favour different configurations: each is the best in some draws.
            XCTAssertGreaterThan(pBest, 0, label)
            total += pBest
        }
        XCTAssertEqual(total, 1, accuracy: 1e-12)
        XCTAssertNil(printed["holdout"]?["probabilityBest"])
        let summary = try XCTUnwrap((doc["decision"] as? [String: Any])?["modelDraws"] as? [String: Any])
        XCTAssertEqual(summary["draws"] as? Int, draws)
        XCTAssertEqual(summary["noneFeasible"] as? Double, 0)
        // The daily reminder breaks the limit in some draws: its loss is over the others only.
        XCTAssertLessThan(feasible["daily"] ?? 0, draws)
        XCTAssertGreaterThan(feasible["daily"] ?? 0, 0)
        let report = try reportOfRun(1)
        XCTAssertFalse(report.contains("negative expected loss"), report)
        assertContains(report, "averaged over the draws in which this one meets every constraint itself")
    }

    /// A lower-is-better objective that a configuration may have no value for in a draw (notifications
    /// per extra open, where it gains nothing): the rule reads "lowest", and a configuration's expected
    /// objective is the mean over every draw, or n/a when some draw has no value for it (its loss is over
    /// the draws in which it meets the constraint, which all have one); each
    /// checked against the draws run one by one.
    func testAnObjectiveWithoutAValueInSomeDrawHasNoExpectation() throws {
        let printed = try remindersim("scenario")
        assertExit(printed, 0)
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any])
        json["decision"] = ["objective": "deliveredPerExtraOpen", "constraints": ["deliveredPerExtraOpen": ["max": 30]]]
        var response = try XCTUnwrap(json["response"] as? [String: Any])
        response["baseResponse"] = ["value": 0.05, "low": 0.005, "high": 0.3]
        json["response"] = response
        json["users"] = 30
        let text = try JSONSerialization.data(withJSONObject: json)
        try writeFile("lower.json", text)
        let draws = 16
        let doc = try runJSON("lower.json", "--model-draws", String(draws))
        let summary = try XCTUnwrap((doc["decision"] as? [String: Any])?["modelDraws"] as? [String: Any])
        assertContains(try XCTUnwrap(summary["rule"] as? String), "the lowest expected notifications delivered per extra open")
        let scenario = try Scenario.decode(String(decoding: text, as: UTF8.self))
        var values: [String: [Double?]] = [:]
        for k in 0..<draws {
            var s = scenario
            s.response = scenario.response.draw(k, seed: scenario.seed)
            try writeFile("draw.json", s.canonicalJSON())
            for (label, c) in Self.configurations(try runJSON("draw.json")) where label != "holdout" {
                values[label, default: []].append(Self.measure(c, "deliveredPerExtraOpen"))
            }
        }
        var missing = 0
        for (label, c) in Self.configurations(doc) where label != "holdout" {
            let list = try XCTUnwrap(values[label])
            XCTAssertEqual(list.count, draws)
            if list.contains(where: { $0 == nil }) {
                missing += 1
                XCTAssertNil(c["expectedObjective"] as? Double, label)
                // The loss is over the draws where it meets the constraint, which have a value.
                if let loss = c["expectedLoss"] as? Double { XCTAssertGreaterThanOrEqual(loss, 0, label) }
                XCTAssertNotEqual(summary["recommended"] as? String, label, "no expectation, no recommendation")
            } else {
                let mean = list.compactMap { $0 }.reduce(0, +) / Double(draws)
                XCTAssertEqual(try XCTUnwrap(c["expectedObjective"] as? Double, label), mean, accuracy: 1e-9 * max(1, mean), label)
            }
        }
        XCTAssertGreaterThan(missing, 0, "a configuration gains nothing in some draw on 30 users")
    }

    /// A response given without uncertainty has nothing to draw: `--model-draws` is ignored with a
    /// warning, and the run takes its sensitivity runs, as without the option (and as its report,
    /// rendered again later, does).
    func testDrawsOfAModelWithoutUncertaintyAreIgnoredWithAWarning() throws {
        try writeFile("point.json", Self.scenario(optOut: "0.006"))
        let asked = try remindersim(arguments: ["run", "point.json", "--json", "--db", "runs.db", "--out", "out", "--model-draws", "5"])
        assertExit(asked, 0)
        assertContains(asked.stderr, "remindersim: warning: --model-draws: the scenario gives its response without uncertainty")
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(asked.stdout.utf8)) as? [String: Any])
        XCTAssertNil((doc["decision"] as? [String: Any])?["modelDraws"], "no draws of a model without uncertainty")
        let plain = try remindersim(arguments: ["run", "point.json", "--json", "--db", "runs.db", "--out", "out"])
        XCTAssertFalse(plain.stderr.contains("--model-draws"), plain.stderr)
        // Compared as dictionaries: their printed order of keys changes from one process to the next.
        func sensitivity(_ text: String) throws -> [[String: String]] {
            let d = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let entries = try XCTUnwrap((d["decision"] as? [String: Any])?["sensitivity"] as? [[String: Any]], text)
            return entries.map { $0.mapValues { "\($0)" } }
        }
        XCTAssertEqual(try sensitivity(asked.stdout).count, 4, "unchanged, base response halved, doubled, opt-outs doubled")
        XCTAssertEqual(try sensitivity(asked.stdout), try sensitivity(plain.stdout))
    }

    func testRangeOfNoWidthDecidesAsThePointValue() throws {
        try writeFile("point.json", Self.scenario(optOut: "0.006"))
        try writeFile("flat.json", Self.scenario(optOut: #"{"value": 0.006, "low": 0.006, "high": 0.006}"#))
        let point = try runJSON("point.json")
        let flat = try runJSON("flat.json", "--model-draws", "4")
        let decision = try XCTUnwrap(point["decision"] as? [String: Any])
        let recommended = try XCTUnwrap(decision["recommended"] as? String)
        let draws = try XCTUnwrap((flat["decision"] as? [String: Any])?["modelDraws"] as? [String: Any])
        XCTAssertEqual(draws["recommended"] as? String, recommended)
        XCTAssertEqual((flat["decision"] as? [String: Any])?["recommended"] as? String, recommended)
        for (label, c) in Self.configurations(flat) where label != "holdout" {
            XCTAssertEqual(c["probabilityBest"] as? Double, label == recommended ? 1 : 0, label)
            if label == recommended { XCTAssertEqual(c["expectedLoss"] as? Double, 0, label) }
            let pointValue = Self.measure(try XCTUnwrap(Self.configurations(point)[label]), "opensLiftPerUser")
            XCTAssertEqual(c["expectedObjective"] as? Double, pointValue, label)
        }
        XCTAssertFalse(Self.configurations(flat).values.contains { ($0["expectedLoss"] as? Double ?? 0) < 0 })
    }

    /// The summary names what the draws cannot settle: a recommendation whose P(feasible) interval holds 90%
    /// (its bounds rounded outwards: 28 feasible draws of 28 give a low bound of 89.85%, shown as 89, not 90),
    /// and, when nothing is recommended, each configuration whose interval holds it.
    func testTheSummarySaysWhatTooFewDrawsCannotSettle() throws {
        let always = Self.scenario(optOut: Self.range).replacingOccurrences(of: #"{"max": 0.05}"#, with: #"{"max": 0.9}"#)
        try writeFile("always.json", always)
        let summary = { (doc: [String: Any]) in
            ((doc["decision"] as? [String: Any])?["modelDraws"] as? [String: Any])?["summary"] as? String ?? ""
        }
        let many = try runJSON("always.json", "--model-draws", "28")
        assertContains(summary(many), "is too close to tell with 28 (100% [89, 100]): more draws would settle it")
        let enough = try runJSON("always.json", "--model-draws", "29")
        XCTAssertFalse(summary(enough).contains("too close to tell"), summary(enough))
        let never = Self.scenario(optOut: Self.range).replacingOccurrences(of: #"{"max": 0.05}"#, with: #"{"max": 0.0001}"#)
        try writeFile("never.json", never)
        let none = summary(try runJSON("never.json", "--model-draws", "1"))
        assertContains(none, "no configuration meets every constraint in at least 90% of the draws; too close to tell with 1 for "
            + "daily (0% [0, 95]), every 4 days (0% [0, 95]): more draws would settle it.")
    }

    /// Two configurations alike in every way tie in every draw: they share its probability best, as neither
    /// is better; unit-level, on results whose values are known.
    func testATieAtTheTopSharesTheDraw() throws {
        var s = try Scenario.decode(Self.scenario(optOut: "0.006"))
        s.users = 300
        func results(_ s: Scenario) throws -> RunResults {
            RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 1)))
        }
        // A copy of the configuration the rule recommends: the two tie at the top.
        let best = try XCTUnwrap(try results(s).decision.recommended)
        var copy = s.configurations[best - 1]
        copy.label = "copy"
        s.configurations.append(copy)
        let all = try results(s).all
        let u = UncertainDecision(rule: s.decision ?? DecisionRule.defaultRule, baseline: 0, draws: [all, all, all])
        let original = try XCTUnwrap(u.standing(best)), twin = try XCTUnwrap(u.standing(all.count - 1))
        XCTAssertEqual(all[best].estimate(.opensLiftPerUser)?.value, all[all.count - 1].estimate(.opensLiftPerUser)?.value)
        XCTAssertEqual(original.probabilityBest, 0.5, accuracy: 1e-12)
        XCTAssertEqual(twin.probabilityBest, 0.5, accuracy: 1e-12)
        XCTAssertEqual(u.standings.map(\.probabilityBest).reduce(0, +) + u.noneFeasible, 1, accuracy: 1e-12)
        XCTAssertEqual(original.expectedLoss, 0)
    }

    func testUncertainScenarioDrawsByDefaultAndAPlainOneDoesNot() throws {
        try writeFile("uncertain.json", Self.scenario(optOut: Self.range))
        try writeFile("point.json", Self.scenario(optOut: "0.006"))
        let uncertain = try runJSON("uncertain.json")
        let draws = (uncertain["decision"] as? [String: Any])?["modelDraws"] as? [String: Any]
        XCTAssertEqual(draws?["draws"] as? Int, 32)
        let point = try runJSON("point.json")
        let decision = try XCTUnwrap(point["decision"] as? [String: Any])
        XCTAssertNil(decision["modelDraws"])
        let sensitivity = try XCTUnwrap(decision["sensitivity"] as? [[String: Any]])
        XCTAssertEqual(sensitivity.compactMap { $0["change"] as? String },
                       ["unchanged", "base response halved", "base response doubled", "opt-outs doubled"])
        XCTAssertNil(Self.configurations(point)["daily"]?["probabilityBest"])
    }

    /// A report rendered again, and a merge of shards, decide with the draws the run asked for.
    func testReportAndMergeKeepTheRunsModelDraws() throws {
        try writeFile("uncertain.json", Self.scenario(optOut: Self.range))
        for (draws, expected) in [("4", "Under 4 draws"), ("0", "Response sensitivity")] {
            try? FileManager.default.removeItem(atPath: workPath("runs.db"))
            try? FileManager.default.removeItem(atPath: workPath("out"))
            _ = try runJSON("uncertain.json", "--model-draws", draws)
            let first = try reportOfRun(1)
            assertContains(first, expected)
            assertExit(try remindersim("report", "1", "--db", "runs.db", "--out", "again"), 0)
            let folders = try FileManager.default.contentsOfDirectory(atPath: workPath("again"))
            let again = try String(contentsOfFile: workPath("again/\(try XCTUnwrap(folders.first))/report.md"), encoding: .utf8)
            XCTAssertEqual(again, first, "--model-draws \(draws): the report rendered again")
        }
        // Shards run alike merge into the whole run's decision; shards asked for different draws are refused.
        for k in 1...2 {
            assertExit(try remindersim("run", "uncertain.json", "--shard", "\(k)/2", "--model-draws", "4", "--db", "s\(k).db",
                                       "--out", "out"), 0)
        }
        assertExit(try remindersim("merge", "s1.db", "s2.db", "--into", "m.db", "--out", "merged"), 0)
        let merged = try FileManager.default.contentsOfDirectory(atPath: workPath("merged"))
        assertContains(try String(contentsOfFile: workPath("merged/\(try XCTUnwrap(merged.first))/report.md"), encoding: .utf8),
                       "Under 4 draws")
        assertExit(try remindersim("run", "uncertain.json", "--shard", "2/2", "--db", "s3.db", "--out", "out"), 0)
        let refused = try remindersim("merge", "s1.db", "s3.db", "--into", "m2.db", "--out", "merged2")
        assertExit(refused, 65)
        assertContains(refused.stderr, "ran with the default model draws, but s1.db run 1 with --model-draws 4")
    }

    /// The draws a merged run records do not depend on the shards' order: the default beside the
    /// number it stands for records that number; numbers for a response with nothing to draw, none.
    func testTheMergedRunsDrawsDoNotDependOnTheShardsOrder() {
        for draws in [[nil, 32], [32, nil]] as [[Int?]] { XCTAssertEqual(MergeCommand.storedDraws(draws, effective: 32), 32) }
        for draws in [[5, nil], [nil, 5]] as [[Int?]] { XCTAssertNil(MergeCommand.storedDraws(draws, effective: 0)) }
        XCTAssertEqual(MergeCommand.storedDraws([4, 4], effective: 4), 4)
        XCTAssertNil(MergeCommand.storedDraws([nil, nil], effective: 32), "alike: as a whole run of the default records it")
        XCTAssertEqual(MergeCommand.storedDraws([5, 5], effective: 0), 5, "alike: as a whole run asked for 5 records it")
    }

    func testBadRangesAreRefusedNamingTheField() throws {
        for (range, reason) in [
            (#"{"value": 0.03, "low": 0.05, "high": 0.1}"#, "needs low ≤ value ≤ high"),
            (#"{"value": 0.03, "low": 0, "high": 0.1}"#, "log-odds scale"),
            (#"{"value": 0.03, "low": 0.01}"#, "required field is missing"),
        ] {
            try writeFile("bad.json", Self.scenario(optOut: range))
            let result = try remindersim("validate", "bad.json")
            assertExit(result, 65)
            assertContains(result.stderr, "response.optOutPerDelivery")
            assertContains(result.stderr, reason)
        }
        let notPositive = Self.scenario(optOut: "0.006").replacingOccurrences(
            of: #""baseResponse": 0.1,"#,
            with: #""baseResponse": 0.1, "uncertainty": {"parameters": ["baseResponse"], "mean": [-2], "covariance": [[-1]]},"#)
        try writeFile("joint.json", notPositive)
        let joint = try remindersim("validate", "joint.json")
        assertExit(joint, 65)
        assertContains(joint.stderr, "response.uncertainty.covariance: must be symmetric and positive semi-definite")
    }
}
