import Foundation
import ReminderSimTestSupport
import XCTest

/// `validate --json`, `list --json` and `tune --json`: one JSON document on stdout and nothing else
/// there, texts escaped whatever they hold, exit statuses as without `--json`.
final class JSONOutputTests: ReminderSimTestCase {
    /// A name that breaks JSON written by hand: quotes, a backslash, a slash and text outside ASCII.
    static let awkwardName = "Größe \"quoted\" back\\slash a/b"

    /// Parses the whole of stdout as one JSON document.
    func document(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        } catch {
            XCTFail("stdout is not one JSON document:\n\(result)", file: file, line: line)
            throw error
        }
    }

    func writeScenario(_ name: String, _ edit: (inout [String: Any]) -> Void) throws -> URL {
        var json = try defaultScenario()
        edit(&json)
        return try writeFile(name, JSONSerialization.data(withJSONObject: json))
    }

    func testValidateJSONListsEachFileWithItsProblems() throws {
        let good = try writeScenario("good.json") { $0["name"] = Self.awkwardName }
        // A name a message would escape is given back as it is: JSON escapes what it must.
        let bad = try writeScenario("b\nad\u{1B}[31m" + String(repeating: "x", count: 200) + ".json") {
            $0["users"] = -1
            $0["horizonDays"] = 0
        }
        let result = try remindersim("validate", "--json", good.path, bad.path)
        assertExit(result, 65)
        let files = try XCTUnwrap(try document(result) as? [[String: Any]])
        XCTAssertEqual(files.count, 2)
        XCTAssertEqual(files[0]["file"] as? String, good.path)
        XCTAssertEqual(files[0]["valid"] as? Bool, true)
        XCTAssertEqual((files[0]["problems"] as? [Any])?.count, 0)
        XCTAssertEqual(files[0]["configurations"] as? Int, try XCTUnwrap(defaultScenario()["configurations"] as? [Any]).count)
        XCTAssertNotNil(files[0]["warnings"] as? [Any])
        XCTAssertEqual(files[1]["file"] as? String, bad.path)
        XCTAssertEqual(files[1]["valid"] as? Bool, false)
        XCTAssertTrue(files[1]["configurations"] is NSNull)
        let problems = try XCTUnwrap(files[1]["problems"] as? [[String: String]])
        XCTAssertEqual(Set(problems.compactMap { $0["path"] }), ["users", "horizonDays"], "\(problems)")
        XCTAssertTrue(problems.allSatisfy { !($0["reason"] ?? "").isEmpty })
        // The error is still named on stderr, as without --json.
        assertContains(result.stderr, "remindersim: error: invalid scenario", "stderr")

        let alone = try remindersim("validate", "--json", good.path)
        assertExit(alone, 0)
        XCTAssertEqual(try XCTUnwrap(try document(alone) as? [[String: Any]]).count, 1)
    }

    func testValidateJSONNamesAMissingFileAndKeepsItsStatus() throws {
        let result = try remindersim("validate", "--json", "missing.json")
        assertExit(result, 66)
        let files = try XCTUnwrap(try document(result) as? [[String: Any]])
        let problems = try XCTUnwrap(files.first?["problems"] as? [[String: String]])
        XCTAssertEqual(problems.first?["path"], "")
        XCTAssertFalse(problems.first?["reason"]?.hasPrefix("missing.json") ?? true, "the file is named once, in file: \(problems)")
        XCTAssertEqual(files.first?["valid"] as? Bool, false)
    }

    func testListJSONShowsTheColumnsOfTheTable() throws {
        let scenario = try writeScenario("awkward.json") { $0["name"] = Self.awkwardName }
        let run = try remindersim("run", scenario.path, "--users", "300", "--days", "35", "--threads", "2",
                                  "--db", "runs.sqlite", "--out", "out")
        assertExit(run, 0)
        let result = try remindersim("list", "--json", "--db", "runs.sqlite")
        assertExit(result, 0)
        XCTAssertEqual(result.stderr, "")
        let runs = try XCTUnwrap(try document(result) as? [[String: Any]])
        XCTAssertEqual(runs.count, 1)
        let row = try XCTUnwrap(runs.first)
        XCTAssertEqual(Set(row.keys), ["id", "scenario", "seed", "users", "days", "configurations", "status", "finished",
                                       "wallSeconds"])
        XCTAssertEqual(row["id"] as? Int, 1)
        XCTAssertEqual(row["scenario"] as? String, Self.awkwardName)
        XCTAssertEqual(row["users"] as? Int, 300)
        XCTAssertEqual(row["days"] as? Int, 35)
        XCTAssertEqual(row["status"] as? String, "complete")
        XCTAssertNotNil(row["wallSeconds"] as? Double)
        XCTAssertNotNil(ISO8601DateFormatter().date(from: try XCTUnwrap(row["finished"] as? String)))
    }

    func testTuneJSONHoldsTheSummaryAndTheRecommendation() throws {
        let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets")
        var json = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: datasets.appendingPathComponent("tune-periods.json"))) as? [String: Any])
        json["horizonDays"] = 30
        json["name"] = Self.awkwardName
        var tune = try XCTUnwrap(json["tune"] as? [String: Any])
        tune["space"] = ["periods": ["min": 1, "max": 4], "sequenceLength": ["min": 1, "max": 1]]
        json["tune"] = tune
        let file = try writeFile("tune.json", JSONSerialization.data(withJSONObject: json))

        let result = try remindersim("tune", file.path, "--json", "--users", "600", "--threads", "2", "--db", "t.sqlite",
                                     "--out", "out")
        assertExit(result, 0)
        let root = try XCTUnwrap(try document(result) as? [String: Any])
        XCTAssertEqual(root["tuneID"] as? Int, 1)
        XCTAssertEqual(root["database"] as? String, "t.sqlite")
        assertContains(try XCTUnwrap(root["summary"] as? String), "Tune of \"\(Self.awkwardName)\"", "summary")
        let report = try XCTUnwrap(root["report"] as? String)
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath(report)), report)
        // The recommendation is the report folder's recommendation.json, whole.
        let recommendation = try XCTUnwrap(root["recommendation"] as? NSDictionary)
        let folder = String(report.dropLast("/report.md".count))
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: workPath(folder + "/recommendation.json"))))
        XCTAssertEqual(recommendation, saved as? NSDictionary)
        XCTAssertEqual(recommendation["scenario"] as? String, Self.awkwardName)
        // Progress stays on stderr.
        assertContains(result.stderr, "tune: ", "stderr")
    }

    func testEachJSONFlagIsDescribedInItsHelp() throws {
        for command in ["validate", "list", "tune"] {
            let help = try remindersim(command, "--help")
            assertExit(help, 0)
            assertContains(help.stdout, "--json", "\(command) --help")
            assertContains(help.stdout, "With --json, stdout holds one JSON", "\(command) --help")
        }
    }
}
