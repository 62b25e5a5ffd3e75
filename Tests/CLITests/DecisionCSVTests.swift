import Foundation
import Rendering
import ReminderSimTestSupport
import XCTest

/// The report folder's `decision.csv`, `decision_constraints.csv`, `decision_checks.csv` and `live_test.csv` say what the
/// report and `run --json` say of the decision, its second looks and its live test.
final class DecisionCSVTests: ReminderSimTestCase {
    /// `run --json` of `file`, with the report folder it names.
    func run(_ file: String?, _ extra: [String] = []) throws -> (doc: [String: Any], folder: String) {
        let result = try remindersim(arguments: ["run"] + (file.map { [$0] } ?? []) + ["--json", "--db", "runs.db", "--out", "out"] + extra)
        assertExit(result, 0)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.description)
        let report = try XCTUnwrap(doc["report"] as? String)
        return (doc, String(report.dropLast("/report.md".count)))
    }

    /// A CSV file of the folder as records of named fields; the header is checked against `header`.
    func records(_ folder: String, _ name: String) throws -> (header: [String], rows: [[String: String]]) {
        let text = try String(contentsOfFile: workPath(folder + "/" + name), encoding: .utf8)
        let parsed = try CSVTable.parse(text)
        let header = try XCTUnwrap(parsed.first)
        for row in parsed.dropFirst() { XCTAssertEqual(row.count, header.count, "\(name): \(row)") }
        return (header, parsed.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0).map { ($0, $1) }) })
    }

    static func number(_ s: String?) -> Double? { s.flatMap(Double.init) }

    func testTheDecisionFilesSayWhatTheJSONSays() throws {
        try writeFile("close.json", RunRecheckTests.scenario)
        var firmness: [Bool] = [], changes: [String] = []
        // Two seeds of two close paces (the re-check bears the call out at one and not at the other),
        // and the built-in scenario on 2,000 users (where a change of the response moves the call).
        for (file, extra) in [("close.json", ["--seed", "1"]), ("close.json", ["--seed", "5"]), (nil, ["--users", "2000"])] {
            let (doc, folder) = try run(file, extra)
            let decision = try XCTUnwrap(doc["decision"] as? [String: Any])
            let configurations = try XCTUnwrap(doc["configurations"] as? [[String: Any]])

            let (header, rows) = try records(folder, "decision.csv")
            XCTAssertEqual(Array(header.prefix(3)), ["run_id", "config_index", "label"])
            XCTAssertEqual(rows.map { $0["label"] }, configurations.map { $0["label"] as? String })
            XCTAssertEqual(rows.first { $0["role"] == "recommendation" }?["label"], decision["recommended"] as? String)
            XCTAssertEqual(rows.first { $0["role"] == "runner-up" }?["label"], decision["runnerUp"] as? String)
            XCTAssertEqual(rows.filter { $0["is_recommendation"] == "1" }.map { $0["label"] }, [decision["recommended"] as? String])
            XCTAssertEqual(rows.filter { $0["is_runner_up"] == "1" }.map { $0["label"] }, [decision["runnerUp"] as? String])
            XCTAssertEqual(rows.filter { $0["is_baseline"] == "1" }.map { $0["label"] }, [doc["baseline"] as? String])
            // Ranked by the objective, best first; the holdout is not a candidate.
            let candidates = rows.filter { $0["is_holdout"] == "0" }
            let byRank = candidates.sorted { Int($0["rank"]!)! < Int($1["rank"]!)! }
            XCTAssertEqual(byRank.map { Self.number($0["objective_value"])! },
                           candidates.map { Self.number($0["objective_value"])! }.sorted(by: >))
            XCTAssertEqual(rows.first { $0["is_holdout"] == "1" }?["rank"], "")
            for row in rows {
                let c = try XCTUnwrap(configurations.first { $0["label"] as? String == row["label"] })
                let lift = ((c["measures"] as? [String: Any])?["opensLiftPerUser"] as? [String: Any])?["value"] as? Double
                // The holdout's lift over itself is left empty, as in config_metrics.
                XCTAssertEqual(Self.number(row["objective_value"]), lift, "\(row)")
                if row["is_baseline"] == "0" {
                    XCTAssertEqual(Self.number(row["versus_baseline"]),
                                   RunRecheckTests.opensVersusHoldout(doc, row["label"]!), "\(row)")
                }
            }

            let checks = try records(folder, "decision_checks.csv").rows
            let recheck = try XCTUnwrap(decision["recheck"] as? [String: Any])
            let recheckRow = try XCTUnwrap(checks.first { $0["check"] == "recheck" })
            XCTAssertEqual(recheckRow["bears_out"], (recheck["survives"] as? Bool) == true ? "1" : "0")
            XCTAssertEqual(Self.number(recheckRow["difference"]), (recheck["difference"] as? [String: Any])?["value"] as? Double)
            XCTAssertEqual(recheckRow["seed"], (recheck["seed"] as? NSNumber)?.stringValue)
            XCTAssertEqual(recheckRow["compared_with"], decision["runnerUp"] as? String)
            XCTAssertEqual(recheckRow["read_against"], decision["recommended"] as? String)
            let summary = try XCTUnwrap(recheck["summary"] as? String)
            if (recheck["survives"] as? Bool) == true {
                XCTAssertEqual(recheckRow["told_apart"] == "1", summary.hasSuffix("; the call survives."), summary)
            } else {
                XCTAssertTrue(summary.hasSuffix("the call does not survive: \(recheckRow["reason"] ?? "")."), summary)
            }
            let sensitivity = try XCTUnwrap(decision["sensitivity"] as? [[String: Any]])
            let sensitivityRows = checks.filter { $0["check"] == "sensitivity" }
            XCTAssertEqual(sensitivityRows.map { $0["change"] }, sensitivity.map { $0["change"] as? String })
            XCTAssertEqual(sensitivityRows.map { $0["recommends"] }, sensitivity.map { $0["recommended"] as? String ?? "" })
            XCTAssertEqual(sensitivityRows.map { $0["bears_out"] },
                           sensitivity.map { ($0["sameAsUnchanged"] as? Bool).map { $0 ? "1" : "0" } ?? "" })
            // The call is firm when every check bears it out.
            changes += sensitivityRows.filter { $0["bears_out"] == "0" }.compactMap { $0["change"] }
            let firm = !checks.contains { $0["bears_out"] == "0" }
            XCTAssertEqual(decision["firm"] as? Bool, firm)
            XCTAssertTrue(checks.allSatisfy { $0["call_firm"] == (firm ? "1" : "0") })
            // A change is read against the control, the control against nothing.
            let control = try XCTUnwrap(sensitivityRows.first)
            XCTAssertEqual(control["read_against"], "")
            XCTAssertTrue(sensitivityRows.dropFirst().allSatisfy { $0["read_against"] == control["recommends"] })
            firmness.append(firm)

            let plan = try XCTUnwrap(decision["liveTest"] as? [String: Any])
            let arms = try XCTUnwrap(plan["arms"] as? [[String: Any]])
            let armRows = try records(folder, "live_test.csv").rows
            XCTAssertEqual(armRows.map { $0["label"] }, arms.map { $0["label"] as? String })
            // The CSV joins a list by ";" ("baseline;holdout" for an arm that is both), the JSON's words by ", ".
            XCTAssertEqual(armRows.map { $0["role"] }, arms.map { ($0["role"] as? String)?.replacingOccurrences(of: ", ", with: ";") })
            XCTAssertFalse(armRows.contains { $0["role"]?.contains(",") == true })
            XCTAssertEqual(armRows.map { Int64($0["users"] ?? "") }, arms.map { ($0["users"] as? NSNumber)?.int64Value })
            let cuped = try XCTUnwrap(plan["cuped"] as? [String: Any])
            let perArm = try XCTUnwrap(cuped["usersPerArm"] as? [NSNumber])
            XCTAssertEqual(armRows.map { Int64($0["cuped_users"] ?? "") }, perArm.map(\.int64Value))
            let without = (cuped["totalUsersWithout"] as? NSNumber)?.int64Value
            XCTAssertTrue(armRows.allSatisfy { Int64($0["cuped_total_users_without"] ?? "") == without })
            XCTAssertEqual(armRows.compactMap { Int64($0["cuped_users_without"] ?? "") }.reduce(0, +), without)
            // Foundation's JSON reader may miss the last digit or two of a double: compared to 1e-12.
            let rho = armRows.compactMap { Self.number($0["cuped_correlation"]) }, printed = try XCTUnwrap(cuped["correlation"] as? [Double])
            XCTAssertEqual(rho.count, printed.count)
            for (x, y) in zip(rho, printed) { XCTAssertEqual(x, y, accuracy: 1e-12) }
            XCTAssertTrue(armRows.allSatisfy { Int64($0["total_users"] ?? "") == (plan["totalUsers"] as? NSNumber)?.int64Value })
            XCTAssertTrue(armRows.allSatisfy { $0["metric"] == plan["metric"] as? String })

            // `report` works the second looks out again: the same files, byte for byte.
            let again = try remindersim("report", "last", "--db", "runs.db", "--out", "again")
            assertExit(again, 0)
            let againFolder = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: workPath("again")).first)
            for name in ["decision.csv", "decision_constraints.csv", "decision_checks.csv", "live_test.csv"] {
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: workPath("again/\(againFolder)/\(name)"))),
                               try Data(contentsOf: URL(fileURLWithPath: workPath(folder + "/" + name))), name)
            }
            try FileManager.default.removeItem(atPath: workPath("again"))
        }
        XCTAssertTrue(firmness.contains(false), "seed 5's call does not survive its re-check")
        XCTAssertFalse(changes.isEmpty, "the built-in scenario's call moves with the response on 2,000 users")
    }

    /// `decision_constraints.csv`: per configuration and constraint, the estimate the constraint reads with
    /// its interval (delivered per extra open's too, which no table keeps), as `--json` gives it, and
    /// whether it meets the limit and is too close to call, as `decision.csv` lists them.
    func testEveryConstraintWithItsInterval() throws {
        let data = try Data(contentsOf: TuneCommandTests.datasets.appendingPathComponent("which-period.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["decision"] = ["objective": "opensLiftPerUser",
                            "constraints": ["optOutRate": ["max": 0.03], "deliveredPerExtraOpen": ["max": 15]]]
        try writeFile("two.json", JSONSerialization.data(withJSONObject: json))
        let (doc, folder) = try run("two.json", ["--users", "3000"])
        let configurations = try XCTUnwrap(doc["configurations"] as? [[String: Any]])
        let (header, rows) = try records(folder, "decision_constraints.csv")
        XCTAssertEqual(header, ["run_id", "config_index", "label", "measure", "min", "max", "value", "value_low", "value_high",
                                "meets", "too_close_to_call"])
        let decisionRows = try records(folder, "decision.csv").rows.filter { $0["is_holdout"] == "0" }
        XCTAssertEqual(rows.count, decisionRows.count * 2, "one row per configuration and constraint")
        XCTAssertEqual(Set(rows.map { $0["measure"] ?? "" }), ["optOutRate", "deliveredPerExtraOpen"])
        for row in rows {
            let label = try XCTUnwrap(row["label"]), measure = try XCTUnwrap(row["measure"])
            let c = try XCTUnwrap(configurations.first { $0["label"] as? String == label })
            let e = try XCTUnwrap((c["measures"] as? [String: Any])?[measure] as? [String: Any], "\(label) \(measure)")
            for (column, key) in [("value", "value"), ("value_low", "low")] {
                XCTAssertEqual(try XCTUnwrap(Self.number(row[column])), try XCTUnwrap(e[key] as? Double), accuracy: 1e-12, "\(row)")
            }
            if let high = e["high"] as? Double { XCTAssertEqual(try XCTUnwrap(Self.number(row["value_high"])), high, accuracy: 1e-12) }
            XCTAssertEqual(row["max"].flatMap(Double.init), measure == "optOutRate" ? 0.03 : 15)
            XCTAssertEqual(row["min"], "")
            let d = try XCTUnwrap(decisionRows.first { $0["label"] == label })
            let breaks = Set((d["breaks"] ?? "").split(separator: ";").map(String.init))
            let close = Set((d["too_close_to_call"] ?? "").split(separator: ";").map(String.init))
            XCTAssertEqual(row["meets"] == "0", breaks.contains(measure), "\(row)")
            XCTAssertEqual(row["too_close_to_call"] == "1", close.contains(measure), "\(row)")
            // Meets on the estimate: the value lies within the limit.
            XCTAssertEqual(row["meets"] == "1", try XCTUnwrap(Self.number(row["value"])) <= (measure == "optOutRate" ? 0.03 : 15))
        }
        XCTAssertTrue(rows.contains { $0["meets"] == "0" } && rows.contains { $0["meets"] == "1" }, "some meet a limit, some break one")
    }

    /// The charts' data: each configuration's retention and daily active users minus the holdout's,
    /// the same differences as the tables' counts give, inside their paired intervals.
    func testCurveDifferencesAgreeWithTheTables() throws {
        let (_, folder) = try run(nil, ["--users", "2000"])
        let curve = try records(folder, "retention_curve.csv").rows
        func retention(_ label: String?, _ day: String?) throws -> (retained: Double, eligible: Double) {
            let row = try XCTUnwrap(curve.first { $0["label"] == label && $0["day_since_install"] == day })
            return (try XCTUnwrap(Self.number(row["retained"])), try XCTUnwrap(Self.number(row["eligible"])))
        }
        let retentionRows = try records(folder, "retention_difference.csv").rows
        XCTAssertEqual(retentionRows.count, 5 * 30, "five configurations, days 1 to 30")
        XCTAssertFalse(retentionRows.contains { $0["label"] == "holdout" })
        for row in retentionRows {
            let here = try retention(row["label"], row["day_since_install"]), there = try retention("holdout", row["day_since_install"])
            XCTAssertEqual(Self.number(row["eligible"]), here.eligible)
            let value = try XCTUnwrap(Self.number(row["difference"]))
            XCTAssertEqual(value, (here.retained - there.retained) / here.eligible, accuracy: 1e-12, "\(row)")
            XCTAssertLessThan(try XCTUnwrap(Self.number(row["difference_low"])), value + 1e-12)
            XCTAssertGreaterThan(try XCTUnwrap(Self.number(row["difference_high"])), value - 1e-12)
        }
        let daily = try records(folder, "daily_stats.csv").rows
        let dailyRows = try records(folder, "daily_active_difference.csv").rows
        XCTAssertEqual(dailyRows.count, 5 * 90)
        for row in dailyRows {
            func active(_ label: String?) throws -> Double {
                let match = try XCTUnwrap(daily.first { $0["label"] == label && $0["day"] == row["day"] })
                XCTAssertEqual(match["date"], row["date"])
                return try XCTUnwrap(Self.number(match["active_users"]))
            }
            let value = try XCTUnwrap(Self.number(row["difference"]))
            XCTAssertEqual(value, try active(row["label"]) - active("holdout"), "\(row)")
            // A paired interval of a count of users: no wider than every user on either side.
            let (low, high) = (try XCTUnwrap(Self.number(row["difference_low"])), try XCTUnwrap(Self.number(row["difference_high"])))
            XCTAssertTrue(low <= value && value <= high && low >= -2000 && high <= 2000, "\(row)")
            XCTAssertGreaterThan(high - low, 0, "a paired interval keeps a width: \(row)")
        }
    }

    /// Under the response model's draws each configuration's standing is on its row, and the check
    /// row says whether the draws recommend the run's call.
    func testModelDrawsStandingsAreOnTheRows() throws {
        try writeFile("uncertain.json", ModelDrawsTests.scenario(optOut: ModelDrawsTests.range))
        let (doc, folder) = try run("uncertain.json", ["--model-draws", "8"])
        let rows = try records(folder, "decision.csv").rows
        let configurations = ModelDrawsTests.configurations(doc)
        for row in rows {
            let c = try XCTUnwrap(configurations[row["label"]!])
            XCTAssertEqual(Self.number(row["probability_best"]), c["probabilityBest"] as? Double, "\(row)")
            XCTAssertEqual(Self.number(row["expected_loss"]), c["expectedLoss"] as? Double, "\(row)")
        }
        let total = rows.compactMap { Self.number($0["probability_best"]) }.reduce(0, +)
        XCTAssertLessThanOrEqual(total, 1 + 1e-12)
        let checks = try records(folder, "decision_checks.csv").rows
        XCTAssertFalse(checks.contains { $0["check"] == "sensitivity" }, "the draws replace the sensitivity runs")
        let draws = try XCTUnwrap(checks.first { $0["check"] == "model_draws" })
        XCTAssertEqual(draws["draws"], "8")
        let under = ((doc["decision"] as? [String: Any])?["modelDraws"] as? [String: Any])?["recommended"] as? String
        XCTAssertEqual(draws["recommends"], under ?? "")
        XCTAssertEqual(draws["bears_out"], under == draws["run_recommends"] ? "1" : "0")
    }

    /// With no configuration meeting the constraints there is no call: no role, no check to bear it out
    /// and no live test.
    func testNoCallLeavesTheFilesWithoutOne() throws {
        let strict = RunRecheckTests.scenario.replacingOccurrences(
            of: #""configurations""#, with: #""decision": {"constraints": {"deliveredPerUser": {"max": 0.01}}}, "configurations""#)
        try writeFile("strict.json", strict)
        let (doc, folder) = try run("strict.json")
        XCTAssertNil((doc["decision"] as? [String: Any])?["recommended"] as? String)
        let rows = try records(folder, "decision.csv").rows
        XCTAssertTrue(rows.allSatisfy { $0["role"] == "" && $0["feasible_rank"] == "" && $0["is_recommendation"] == "0" })
        XCTAssertTrue(rows.filter { $0["is_holdout"] == "0" }.allSatisfy { $0["meets_constraints"] == "0" && $0["breaks"] == "deliveredPerUser" })
        XCTAssertTrue(try records(folder, "decision_checks.csv").rows.allSatisfy { $0["bears_out"] == "" && $0["call_firm"] == "" })
        let live = try records(folder, "live_test.csv")
        XCTAssertEqual(live.rows.count, 0)
        XCTAssertEqual(live.header.first, "run_id")
    }
}
