import Foundation
import Rendering
import ReminderSimTestSupport
import XCTest

/// `remindersim tune` as a user sees it: the recommendation on stdout, progress on stderr, the report
/// folder, and refusals with the field and the reason.
final class TuneCommandTests: ReminderSimTestCase {
    static let datasets = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets")

    /// `Datasets/tune-periods.json` over `days` with installs over `spread` days, and `space` when given.
    func tunePeriods(days: Int, spread: Int, space: [String: Any]? = nil) throws -> [String: Any] {
        let data = try Data(contentsOf: Self.datasets.appendingPathComponent("tune-periods.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["horizonDays"] = days
        var population = try XCTUnwrap(json["population"] as? [String: Any])
        population["installSpreadDays"] = spread
        json["population"] = population
        if let space {
            var tune = try XCTUnwrap(json["tune"] as? [String: Any])
            tune["space"] = space
            json["tune"] = tune
        }
        return json
    }

    /// `Datasets/tune-periods.json` with a smaller space and a shorter run.
    func scenario(space: [String: Any]) throws -> URL {
        try writeFile("tune.json", JSONSerialization.data(withJSONObject: try tunePeriods(days: 40, spread: 10, space: space)))
    }

    /// On a terminal the stage lines are redrawn in place and cut to its width; on one that knows no
    /// escapes (TERM=dumb) they are plain lines. Run under `script`, which gives the tool a terminal.
    func testProgressLinesFitTheTerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("no /usr/bin/script") }
        let file = try scenario(space: ["periods": ["min": 1, "max": 4]])
        let binary = try executableURL().path
        for (term, columns) in [("xterm", 30), ("dumb", 30), ("xterm", 200)] {
            let command = "stty cols \(columns); '\(binary)' tune '\(file.path)' --users 600 --threads 2 --db t-\(term)-\(columns).sqlite "
                + "--out out >/dev/null"
            let child = try ChildProcess(
                executable: URL(fileURLWithPath: "/usr/bin/script"), arguments: ["-qec", command, "/dev/null"],
                environment: environment(["TERM": term]), directory: workDirectory, spool: workDirectory)
            let result = try XCTUnwrap(child.wait(timeout: 120))
            assertExit(result, 0)
            let shown = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
            assertContains(shown, "tune: final at 600 users", "\(term) \(columns)")
            if term == "dumb" {
                XCTAssertFalse(shown.unicodeScalars.contains("\u{1B}"), "TERM=dumb: \(shown.debugDescription)")
                XCTAssertFalse(shown.contains("\r"), "TERM=dumb: \(shown.debugDescription)")
            } else {
                // Every redraw: carriage return, erase the line, then at most a terminal's width of text.
                let redraws = shown.components(separatedBy: "\r\u{1B}[K").dropFirst().map { $0.prefix { $0 != "\r" && $0 != "\n" } }
                XCTAssertFalse(redraws.isEmpty, shown.debugDescription)
                for line in redraws where line.hasPrefix("tune: ") {
                    XCTAssertLessThanOrEqual(line.count, columns, "\(term) \(columns): \(line)")
                }
            }
        }
    }

    /// A tune refused for its budget leaves no new database behind.
    func testATuneOverItsBudgetLeavesNoDatabase() throws {
        let file = try scenario(space: ["periods": ["min": 1, "max": 8]])
        let refused = try remindersim("tune", file.path, "--users", "100000000", "--budget", "1", "--db", "t.sqlite")
        assertExit(refused, 65)
        assertContains(refused.stderr, "over the budget")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("t.sqlite")))
    }

    /// `validate` lays a tune block out as `tune` does: a space it would refuse is refused there too.
    func testValidateRefusesATuneSpaceTheTuneWould() throws {
        let huge = try scenario(space: ["periods": ["min": 1, "max": 1000], "sequenceLength": ["min": 1, "max": 3]])
        let refused = try remindersim("validate", huge.path)
        assertExit(refused, 65)
        assertContains(refused.stderr, "tune.space: holds 1,001,001,000 candidates before alike ones are merged")
        let fine = try scenario(space: ["periods": ["min": 1, "max": 8]])
        assertExit(try remindersim("validate", fine.path), 0)
    }

    /// Listed configurations counted as they are: in the space, added, or the same as another listed one.
    func testTheSummaryCountsListedConfigurationsTheSameAsAnother() throws {
        let data = try Data(contentsOf: try scenario(space: ["periods": ["min": 3, "max": 3], "unit": "days"]))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var configurations = try XCTUnwrap(json["configurations"] as? [[String: Any]])
        var copy = try XCTUnwrap(configurations.first { $0["label"] as? String == "7 days" })
        copy["label"] = "7 days copy"
        configurations.append(copy)
        json["configurations"] = configurations
        let file = try writeFile("copies.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim("tune", file.path, "--users", "600", "--threads", "2", "--out", "out")
        assertExit(result, 0)
        // The space holds 3 days only; 1, 2, 5 and 7 days and the sequence are added; the copy is 7 days'.
        assertContains(result.stdout, "space: 1 timePeriods lists; 7 listed configurations in the race "
                       + "(1 of them in the space, 5 added, 1 the same as another listed one)")
        assertContains(result.stdout, "\"7 days copy\" (the same as \"7 days\")")
        assertContains(result.stdout, "\"3 days\" (in the space as \"3d\")")
        // candidates.csv names both listed labels of the one candidate.
        let csv = try CSVTable.parse(try String(contentsOf: workDirectory.appendingPathComponent("out/tune-periods-tune-1/candidates.csv"),
                                                encoding: .utf8))
        let column = try XCTUnwrap(csv.first?.firstIndex(of: "listed_label"))
        XCTAssertTrue(csv.dropFirst().contains { $0[column] == "7 days;7 days copy" }, "\(csv.map { $0[column] })")
    }

    func testTuneWritesTheRecommendationAndItsReport() throws {
        let file = try scenario(space: ["periods": ["min": 1, "max": 8], "sequenceLength": ["min": 1, "max": 2]])
        let result = try remindersim("tune", file.path, "--users", "1200", "--threads", "2", "--out", "out")
        assertExit(result, 0)
        assertNoEscapes(result)
        // 64 in the space; of the listed configurations only the sequence is not among them.
        assertContains(result.stdout, "Tune of \"tune-periods\": 65 candidates against the baseline \"3 days\"")
        assertContains(result.stdout, "space: 64 timePeriods lists; 6 listed configurations in the race (5 of them in the space, 1 added)")
        assertContains(result.stdout, "stage 1: 300 users, 65 evaluated")
        assertContains(result.stderr, "tune: 65 candidates, stages of 300 → 1,200 users", "stderr")
        assertContains(result.stderr, "tune: stage 1/2 at 300 users", "stderr")
        let folder = workDirectory.appendingPathComponent("out/tune-periods-tune-1")
        let recommendation = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: folder.appendingPathComponent("recommendation.json"))) as? [String: Any])
        XCTAssertEqual(recommendation["candidates"] as? Int, 65)
        XCTAssertEqual(recommendation["users"] as? Int, 1200)
        // Each racing stage gives the quantile its differences from the leader cleared; the final stage none.
        let raced = try XCTUnwrap(recommendation["stages"] as? [[String: Any]])
        XCTAssertEqual(raced.count, 2)
        // Split over the stage's candidates, it lies beyond the one-sided 5% quantile (checked below against the database).
        let jsonWorseZ = try XCTUnwrap(raced[0]["worseZ"] as? Double)
        XCTAssertGreaterThan(jsonWorseZ, 1.645)
        XCTAssertNil(raced[1]["worseZ"])
        // The baseline on the final users, whatever stage it left at as a candidate: the figures the summary reads.
        let baseline = try XCTUnwrap(recommendation["baselineAtFinal"] as? [String: Any])
        XCTAssertEqual(baseline["users"] as? Int, 1200)
        let constraints = try XCTUnwrap(baseline["constraints"] as? [String: Any])
        XCTAssertEqual(Set(constraints.keys), ["optOutRate", "deliveredPerExtraOpen"])
        // Each constraint says whether its interval crosses the limit, as the text's "too close to call".
        for case let (name, c as [String: Any]) in constraints {
            let e = try XCTUnwrap(c["estimate"] as? [String: Any], name)
            let (low, high) = (e["low"] as? Double ?? .nan, e["high"] as? Double ?? .nan)
            let crossed = [c["min"] as? Double, c["max"] as? Double].contains { l in l.map { low < $0 && $0 < high } ?? false }
            XCTAssertEqual(c["tooCloseToCall"] as? Bool, crossed, name)
        }
        XCTAssertEqual(constraints.values.compactMap { ($0 as? [String: Any])?["tooCloseToCall"] as? Bool }.count, 2)
        let value = try XCTUnwrap((baseline["objectiveEstimate"] as? [String: Any])?["value"] as? Double)
        assertContains(try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8),
                       "| – | baseline 3 days | \(String(format: "%.3f", value)) [", "report.md")
        if let configuration = recommendation["configuration"] as? [String: Any] {
            // Ready to paste: the configuration reads back as a scenario's configuration.
            let label = try XCTUnwrap(configuration["label"] as? String)
            assertContains(result.stdout, "Recommendation: \"\(label)\"")
            let recheck = try XCTUnwrap(recommendation["recheck"] as? [String: Any])
            assertContains(result.stdout, "Sensitivity, base response halved")
            // Firm when every check after the race bears the winner out, as `run --json` says of its call;
            // the summary says "Not firm" under the recommendation otherwise.
            let doubts = try XCTUnwrap(recommendation["doubts"] as? [String])
            XCTAssertEqual(recommendation["firm"] as? Bool, doubts.isEmpty)
            let sensitivity = try XCTUnwrap(recommendation["sensitivity"] as? [[String: Any]])
            XCTAssertEqual(doubts.contains("it does not hold under every change of the response model"),
                           sensitivity.contains { $0["sameWinner"] as? Bool == false })
            if recheck["admissible"] as? Bool == false {
                XCTAssertTrue(doubts.contains("the re-check on other users does not bear it out"), "\(doubts)")
            }
            let lines = result.stdout.components(separatedBy: "\n")
            let at = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("Recommendation: ") })
            XCTAssertEqual(lines[at + 1].hasPrefix("  Not firm: "), !doubts.isEmpty, result.stdout)
        } else {
            assertContains(result.stdout, "nothing to recommend")
        }
        let report = try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8)
        for heading in ["## Stages", "## Finalists", "## Sensitivity", "## Pareto front"] { assertContains(report, heading, "report.md") }
        // The front's table says, beside the plotted limit, whether each candidate meets every constraint, and
        // lists the recommendation after the front when it is not on it.
        let front = "| configuration | stage | users | opens per user vs holdout | opt-out rate | within this limit | meets every constraint |"
        assertContains(report, front, "report.md")
        if let label = (recommendation["configuration"] as? [String: Any])?["label"] as? String {
            let table = try XCTUnwrap(report.components(separatedBy: front).last?.components(separatedBy: "\n\n").first)
            let row = try XCTUnwrap(table.components(separatedBy: "\n").first {
                $0.hasPrefix("| \(label) |") || $0.hasPrefix("| recommendation: \(label) |")
            }, table)
            XCTAssertTrue(row.hasSuffix("| yes |"), row)
        }
        // The finalists' columns are named as the measures are described everywhere else.
        assertContains(report, "| rank | configuration | opens per user vs holdout | opt-out rate | notifications delivered per extra open | admissible |",
                       "report.md")
        let csv = try String(contentsOf: folder.appendingPathComponent("candidates.csv"), encoding: .utf8)
        let parsed = try CSVTable.parse(csv)
        XCTAssertEqual(parsed.count, 66, "one row per candidate and a header")
        let header = try XCTUnwrap(parsed.first)
        let rows = parsed.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0).map { ($0, $1) }) }
        // The winner, the baseline and the listed configurations by the scenario's labels, and the final ranking.
        let winnerLabel = (recommendation["configuration"] as? [String: Any])?["label"] as? String
        XCTAssertEqual(rows.filter { $0["is_winner"] == "1" }.map { $0["label"] }, winnerLabel.map { [$0] } ?? [])
        XCTAssertEqual(rows.filter { $0["is_baseline"] == "1" }.map { $0["listed_label"] }, ["3 days"])
        XCTAssertEqual(Set(rows.compactMap { $0["listed_label"] }.filter { !$0.isEmpty }),
                       ["1 day", "2 days", "3 days", "5 days", "7 days", "1/3/7d sequence"])
        let ranks = rows.compactMap { Int($0["final_rank"] ?? "") }.sorted()
        XCTAssertEqual(ranks, Array(1...max(ranks.count, 1)).prefix(ranks.count).map { $0 })
        XCTAssertFalse(ranks.isEmpty)
        if let winner = rows.first(where: { $0["is_winner"] == "1" }) {
            // The winner is the best of the final stage that meets every constraint.
            let better = rows.filter { Int($0["final_rank"] ?? "") ?? .max < Int(winner["final_rank"] ?? "")! }
            XCTAssertTrue(better.allSatisfy { $0["meets_constraints"] == "0" }, "\(better)")
            XCTAssertEqual(winner["meets_constraints"], "1")
        }

        // The report's stage table shows every count the database keeps of each stage.
        assertExit(try remindersim("export", "tune:1", "--csv", "exported"), 0)
        let stages = try CSVTable.parse(String(contentsOf: workDirectory.appendingPathComponent("exported/tune_stages.csv"), encoding: .utf8))
        let columns = try XCTUnwrap(stages.first)
        let markdown = try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8)
        let stagesSection = try XCTUnwrap(markdown.components(separatedBy: "## Stages").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        let stageRows = stagesSection.components(separatedBy: "\n").filter { $0.hasPrefix("| 1 |") || $0.hasPrefix("| 2 (final) |") }
        XCTAssertEqual(stageRows.count, stages.count - 1, markdown)
        for (row, cells) in zip(stages.dropFirst(), stageRows) {
            let stored = Dictionary(uniqueKeysWithValues: zip(columns, row))
            let shown = cells.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "") }
            // stage, users, entered, left out beforehand, evaluated, clearly infeasible, clearly worse, z′, go on
            XCTAssertEqual(shown[1], stored["users"], cells)
            XCTAssertEqual(shown[3], stored["left_out"], cells)
            XCTAssertEqual(shown[4], stored["evaluated"], cells)
            XCTAssertEqual(shown[5], stored["clearly_infeasible"], cells)
            XCTAssertEqual(shown[6], stored["clearly_worse"], cells)
            let worseZ = try XCTUnwrap(stored["worse_z"])
            XCTAssertEqual(shown[7], worseZ.isEmpty ? "–" : String(format: "%.3f", try XCTUnwrap(Double(worseZ))), cells)
            if !worseZ.isEmpty { XCTAssertEqual(Double(worseZ), jsonWorseZ, "recommendation.json's z′ is the stored one") }
            XCTAssertEqual(shown[8], stored["went_on"].map { $0.isEmpty ? "–" : $0 }, cells)
        }

        // A second tune goes to the next folder; the same seed gives the same recommendation.
        let again = try remindersim("tune", file.path, "--users", "1200", "--threads", "1", "--out", "out")
        assertExit(again, 0)
        let second = try Data(contentsOf: workDirectory.appendingPathComponent("out/tune-periods-tune-2/recommendation.json"))
        XCTAssertEqual(second, try Data(contentsOf: folder.appendingPathComponent("recommendation.json")))
    }

    /// `candidates.csv` is RFC 4180 as every other CSV file: CRLF records, quotes doubled, and a label
    /// whose quotes carry a combining mark (one Character, two scalars) still quoted; `--csv-safe`
    /// neutralises a label a spreadsheet would run, and leaves a signed number alone.
    func testCandidatesCSVReadsBackWhateverTheLabels() throws {
        let file = try scenario(space: ["periods": ["min": 1, "max": 4], "sequenceLength": ["min": 1, "max": 1]])
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var configurations = try XCTUnwrap(json["configurations"] as? [[String: Any]])
        let odd = "=SUM(1;2) \"\u{301}once\"\u{301}"
        // Listed configurations outside the space keep their labels.
        configurations[3]["label"] = odd
        configurations[4]["label"] = "-2"
        configurations[5]["label"] = "-3 days, then more"
        json["configurations"] = configurations
        let renamed = try writeFile("renamed.json", JSONSerialization.data(withJSONObject: json))
        for (safe, folder) in [(false, "plain"), (true, "safe")] {
            let result = try remindersim(arguments: ["tune", renamed.path, "--users", "400", "--threads", "2", "--out", folder, "--db", "\(folder).sqlite"]
                + (safe ? ["--csv-safe"] : []))
            assertExit(result, 0)
            let text = try String(contentsOf: workDirectory.appendingPathComponent("\(folder)/tune-periods-tune-1/candidates.csv"),
                                  encoding: .utf8)
            XCTAssertTrue(text.hasSuffix("\r\n"))
            XCTAssertFalse(text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every record ends in CRLF")
            let records = try CSVTable.parse(text)
            XCTAssertEqual(records.first?.prefix(11), ["tune_id", "candidate_index", "label", "listed_label", "is_baseline", "is_winner",
                                                        "final_rank", "meets_constraints", "stage", "users", "dropped"])
            // The measures by the names every table gives them.
            XCTAssertEqual(records.first?.dropFirst(11).prefix(3), ["opens_lift_per_user", "opens_lift_per_user_low", "opens_lift_per_user_high"])
            XCTAssertEqual(Set(records.map(\.count)).count, 1, "every record as wide as the header")
            XCTAssertEqual(Set(records.dropFirst().map { $0[0] }), ["1"])
            XCTAssertEqual(records.dropFirst().map { $0[1] }, (0..<(records.count - 1)).map(String.init))
            let labels = records.dropFirst().map { $0[2] }
            XCTAssertTrue(labels.contains(safe ? "'" + odd : odd), "\(labels)")
            XCTAssertTrue(labels.contains(safe ? "'-3 days, then more" : "-3 days, then more"), "\(labels)")
            XCTAssertTrue(labels.contains("-2"), "a signed number is not a formula: \(labels)")
            XCTAssertTrue(labels.contains("1d"), "a plain label stays as it is")
        }
    }

    func testRefusals() throws {
        let plain = try remindersim("tune", "--users", "100")
        assertExit(plain, 65)
        assertContains(plain.stderr, "tune: the scenario has no \"tune\" block", "stderr")

        let large = try scenario(space: ["periods": ["min": 1, "max": 20], "sequenceLength": ["min": 1, "max": 3]])
        let overBudget = try remindersim("tune", large.path, "--users", "100000", "--budget", "1")
        assertExit(overBudget, 65)
        assertContains(overBudget.stderr, "tune.space: its 8,001 candidates would take about", "stderr")
        assertContains(overBudget.stderr, "over the budget of 1 s (--budget)", "stderr")

        let huge = try scenario(space: ["periods": ["min": 1, "max": 60], "sequenceLength": ["min": 1, "max": 3]])
        let absurd = try remindersim("tune", huge.path)
        assertExit(absurd, 65)
        assertContains(absurd.stderr, "tune.json: tune.space: holds 219,660 candidates before alike ones are merged, most of them "
                       + "timePeriods lists; at most 50,000 can be raced: narrow space.periods or space.sequenceLength", "stderr")
        // A mix of huge periods is named as what it is.
        let mixes = try scenario(space: ["sequences": ["steps": ["min": 1, "max": 2], "afterDays": ["min": 1, "max": 5]],
                                         "mix": ["periods": ["min": 1, "max": 1_000_000_000]]])
        let mixed = try remindersim("tune", mixes.path)
        assertExit(mixed, 65)
        assertContains(mixed.stderr, "most of them sequences and mixes; at most 50,000 can be raced: narrow space.sequences or space.mix",
                       "stderr")

        let empty = try scenario(space: ["periods": ["min": 3, "max": 1]])
        let refused = try remindersim("tune", empty.path)
        assertExit(refused, 65)
        assertContains(refused.stderr, "tune.space.periods: min 3 is above max 1", "stderr")

        let bad = try remindersim("tune", large.path, "--budget", "soon")
        assertExit(bad, 64)

        let badDays = try remindersim("tune", large.path, "--days", "0")
        assertExit(badDays, 64)
        assertContains(badDays.stderr, "--days: expected a whole number of days from 1 to 3650, got \"0\"", "stderr")
    }

    /// A space reaching past the horizon is a warning: candidates that wait that long measure as the holdout.
    func testASpacePastTheHorizonIsAWarning() throws {
        var json = try tunePeriods(days: 10, spread: 5)
        try writeFile("short.json", JSONSerialization.data(withJSONObject: json))
        let result = try remindersim("validate", "short.json")
        assertExit(result, 0)
        assertContains(result.stderr, "tune.space.periods: periods of 10 days and more (up to 14) are no shorter than the run's 10 days "
                       + "(horizonDays): a candidate whose first period is one of them cannot fire, and measures as the holdout")
        var tune = try XCTUnwrap(json["tune"] as? [String: Any]), space = try XCTUnwrap(tune["space"] as? [String: Any])
        space["periods"] = ["min": 10, "max": 12]
        space["sequences"] = ["steps": ["min": 1, "max": 1], "afterDays": ["min": 2, "max": 11]]
        tune["space"] = space
        json["tune"] = tune
        try writeFile("none.json", JSONSerialization.data(withJSONObject: json))
        let none = try remindersim("validate", "none.json")
        assertExit(none, 0)
        assertContains(none.stderr, "tune.space.periods: every period of the space (10 to 12 days) is no shorter than the run's 10 days "
                       + "(horizonDays): no candidate's notification can fire")
        assertContains(none.stderr, "tune.space.sequences.afterDays: steps 10 days and more after the last session (up to 11) cannot "
                       + "fire in a run of 10 days (horizonDays): they are never delivered")
        space["mix"] = ["periods": ["min": 5, "max": 12]]
        tune["space"] = space
        json["tune"] = tune
        try writeFile("mix.json", JSONSerialization.data(withJSONObject: json))
        let mix = try remindersim("validate", "mix.json")
        assertContains(mix.stderr, "tune.space.mix.periods: a mix's reminder of 10 days or more (up to 12) is no shorter than the run's "
                       + "10 days (horizonDays): it cannot fire, and the mix measures as its sequence alone")
        // run ignores the tune block, and says nothing of it.
        let run = try remindersim("run", "none.json", "--users", "50", "--db", "r.sqlite", "--out", "out")
        assertExit(run, 0)
        XCTAssertFalse(run.stderr.contains("tune.space"), run.stderr)
        // Within the horizon: no such warning.
        let fine = try remindersim("validate", TuneCommandTests.datasets.appendingPathComponent("tune-periods.json").path)
        XCTAssertFalse(fine.stderr.contains("tune.space"), fine.stderr)
    }
}
