import Foundation
import Rendering
import Storage
import ReminderSimTestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The stored-run commands as a user chains them: run → list → report → export → compare.
final class StoreCommandTests: ReminderSimTestCase {
    static let database = "Reports/remindersim.sqlite"
    static let tables = ["runs", "configurations", "reminders", "config_metrics", "pairwise_stats", "segment_metrics", "platform_metrics",
                         "message_stats", "period_stats", "daily_stats", "retention_curve", "cron_rule_stats",
                         "cron_first_run_days", "hourly_stats"]

    func testRunListReportExportCompare() throws {
        let scenarioSeed = try XCTUnwrap(defaultScenario()["seed"] as? NSNumber).uint64Value

        // Two runs into the default database, the second with another seed.
        let first = try remindersim("run", "--users", "1500", "--days", "35", "--threads", "2")
        assertExit(first, 0)
        let second = try remindersim("run", "--users", "1500", "--days", "35", "--threads", "2", "--seed", "9")
        assertExit(second, 0)
        assertContains(first.stdout, "Saved as run 1 in \(Self.database); report: Reports/default-1/report.md")
        assertContains(second.stdout, "Saved as run 2 in \(Self.database); report: Reports/default-2/report.md")
        XCTAssertTrue(FileManager.default.fileExists(atPath: workPath(Self.database)), "no database at the default path")

        // list: both runs, each with its seed, users, days and status.
        let list = try remindersim("list")
        assertExit(list, 0)
        XCTAssertEqual(list.stderr, "")
        let rows = list.stdoutLines.dropFirst().map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(rows.count, 2, "list should show exactly two runs:\n\(list.stdout)")
        for (id, seed) in [("1", String(scenarioSeed)), ("2", "9")] {
            let row = rows.first { $0.first == id }
            XCTAssertEqual(row.map { Array($0.prefix(7)) }, [id, "default", seed, "1,500", "35", "5", "complete"],
                           "list row of run \(id):\n\(list.stdout)")
        }

        // report 1 renders the same folder again, byte for byte.
        let folder1 = workDirectory.appendingPathComponent("Reports/default-1")
        let before = try Self.files(in: folder1)
        XCTAssertNotNil(before["report.md"], "the run wrote no report.md; it wrote \(before.keys.sorted())")
        try FileManager.default.removeItem(at: folder1)
        let report = try remindersim("report", "1")
        assertExit(report, 0)
        XCTAssertEqual(report.stdout, "Report of run 1: Reports/default-1/report.md\n")
        let after = try Self.files(in: folder1)
        XCTAssertEqual(after.keys.sorted(), before.keys.sorted(), "report 1 wrote other files than run did")
        XCTAssertEqual(after["report.md"], before["report.md"], "report 1 rendered a different report.md")
        for (name, data) in before where name != "report.md" {
            XCTAssertEqual(after[name], data, "report 1 rendered a different \(name)")
        }

        // export 2: one CSV per table, equal to the database's rows.
        let export = try remindersim("export", "2", "--csv", "out/")
        assertExit(export, 0)
        let exported = try FileManager.default.contentsOfDirectory(atPath: workPath("out")).sorted()
        XCTAssertEqual(exported, Self.tables.map { $0 + ".csv" }.sorted())
        XCTAssertEqual(Set(export.stdoutLines.map { ($0 as NSString).lastPathComponent }), Set(exported),
                       "export should print the files it wrote:\n\(export)")
        let store = try RunStore(path: workPath(Self.database), create: false)
        for table in Self.tables {
            let csv = try String(contentsOfFile: workPath("out/\(table).csv"), encoding: .utf8)
            let expected = try store.export(table: table, run: 2)
            // The default scenario names no platforms: their table is empty, and its CSV is the header.
            XCTAssertEqual(expected.rows.isEmpty, table == "platform_metrics", "\(table) rows for run 2")
            StoreCSV.assertMatches(csv, expected, name: "out/\(table).csv")
            // The CSV files of the report folder are the same export.
            let inReport = try Data(contentsOf: workDirectory.appendingPathComponent("Reports/default-2/\(table).csv"))
            XCTAssertEqual(inReport, Data(csv.utf8), "Reports/default-2/\(table).csv differs from out/\(table).csv")
        }
        // Run 2 really is the seed-9 run, and run 1 is not.
        func seed(_ run: Int64) throws -> SQLValue? {
            let runs = try store.export(table: "runs", run: run)
            return try runs.rows.first?[XCTUnwrap(runs.columns.firstIndex(of: "seed"))]
        }
        XCTAssertEqual(try seed(2), .integer(9))
        XCTAssertEqual(try seed(1), .integer(Int64(bitPattern: scenarioSeed)))

        // The labels, as stored.
        func labels(_ run: Int64) throws -> [String] {
            try store.database.rows(
                "SELECT label FROM configurations WHERE run_id = ? ORDER BY config_index", [.integer(run)]
            ).map { try XCTUnwrap($0.text(0)) }
        }
        let labels1 = try labels(1)
        let labels2 = try labels(2)
        XCTAssertEqual(labels1.first, "holdout")
        XCTAssertEqual(labels1.count, 6, "the default scenario has five configurations and the holdout")

        // compare 1 2: rows per configuration and measure, holdout included; other seeds: independent.
        let compare = try remindersim("compare", "1", "2")
        assertExit(compare, 0)
        XCTAssertEqual(compare.stderr, "")
        assertContains(compare.stdout, "A = run 1:")
        assertContains(compare.stdout, "B = run 2:")
        assertContains(compare.stdout, "independent")
        for label in Set(labels1 + labels2) {
            XCTAssertTrue(compare.stdoutLines.contains { $0.hasPrefix(label + "  ") && $0.contains("D7 retention") },
                          "compare should show configuration \"\(label)\":\n\(compare.stdout)")
        }
        // CSV: tidy, one row per (label, measure), every difference B − A.
        let csvCompare = try remindersim("compare", "1", "2", "--format", "csv")
        assertExit(csvCompare, 0)
        let records = try CSVTable.parse(csvCompare.stdout)
        let header = try XCTUnwrap(records.first)
        XCTAssertEqual(Array(header.prefix(4)), ["run_a", "run_b", "label", "measure"])
        let col = { (name: String) in header.firstIndex(of: name)! }
        for r in records.dropFirst() where !r[col("a")].isEmpty && !r[col("b")].isEmpty {
            XCTAssertEqual(Double(r[col("difference")])!, Double(r[col("b")])! - Double(r[col("a")])!, accuracy: 1e-9)
            XCTAssertLessThanOrEqual(Double(r[col("difference_low")])!, Double(r[col("difference")])!)
            XCTAssertEqual(r[col("method")], "independent")
        }
        XCTAssertEqual(Set(records.dropFirst().map { $0[col("label")] }), Set(labels1 + labels2))
        // The same users on both sides (the first run again, on one thread): paired.
        assertExit(try remindersim("run", "--users", "1500", "--days", "35", "--threads", "1"), 0)
        let same = try remindersim("compare", "1", "3", "--format", "json")
        assertExit(same, 0)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(same.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["method"] as? String, "bounded")
        let compared = try XCTUnwrap(json["rows"] as? [[String: Any]])
        XCTAssertFalse(compared.isEmpty)
        // One scenario, the same users: every difference is exactly zero, with no interval around it.
        for row in compared {
            let d = try XCTUnwrap(row["difference"] as? [String: Any], "\(row)")
            XCTAssertEqual([d["value"], d["low"], d["high"]].map { $0 as? Double }, [0, 0, 0], "\(row)")
        }
        let markdownCompare = try remindersim("compare", "1", "2", "--format", "markdown")
        assertExit(markdownCompare, 0)
        MarkdownCheck.assertTablesIntact(markdownCompare.stdout)
        assertExit(try remindersim("compare", "1", "2", "--format", "xml"), 64)
        // A run against itself is no comparison.
        let itself = try remindersim("compare", "3", "latest")
        assertExit(itself, 64)
        assertContains(itself.stderr, "<run-a> and <run-b> name the same run, 3: every difference from itself is 0")

        // The report names every configuration: each one in its tables, the holdout in its summary.
        let markdown = String(decoding: after["report.md"] ?? Data(), as: UTF8.self)
        for label in labels1.dropFirst() {
            assertContains(markdown, "| \(Markdown.escapeCell(label)) |", "report.md")
        }
        assertContains(markdown, "The holdout (no reminders)", "report.md")
        MarkdownCheck.assertTablesIntact(markdown)

        // Charts, when there are any, are well-formed SVG, and every image the report shows exists.
        for (name, data) in after where name.hasSuffix(".svg") {
            if let problem = SVGInspection.svgProblem(data) { XCTFail("Reports/default-1/\(name): \(problem)") }
        }
        let images = markdown.components(separatedBy: "\n").compactMap { line -> String? in
            guard line.hasPrefix("!["), let open = line.range(of: "]("), line.hasSuffix(")") else { return nil }
            return String(line[open.upperBound..<line.index(before: line.endIndex)])
        }
        for image in images {
            XCTAssertNotNil(after[image], "report.md shows \(image), which is not in its folder")
        }
    }

    /// Two runs of the same users are compared with intervals bounded whatever their correlation, and the
    /// note says so rather than promise a paired (narrower) interval; two runs of one scenario at other
    /// user counts or seeds are named as such, not as different scenarios.
    func testCompareSaysWhatItsIntervalsAreAndWhatDiffers() throws {
        for users in ["1200", "1200", "800"] {
            assertExit(try remindersim("run", "--users", users, "--days", "30", "--db", "n.sqlite", "--out", "n"), 0)
        }
        let same = try remindersim("compare", "1", "2", "--db", "n.sqlite")
        assertExit(same, 0)
        assertContains(same.stdout, "Differences are B − A over the same users (same seed, user count, population and holdout): "
            + "the runs keep no per-user data, so each interval is bounded to hold whatever the runs' correlation, "
            + "se(B − A) ≤ se(A) + se(B), and is wider than independent runs' would be. These two runs are alike, so every "
            + "difference is exact: the same users give the same figures.")
        XCTAssertFalse(same.stdout.contains("scenario"), same.stdout)
        XCTAssertFalse(same.stdout.contains("+0.00 pp ["), "an exact difference has no interval:\n\(same.stdout)")
        let sizes = try remindersim("compare", "1", "3", "--db", "n.sqlite")
        assertExit(sizes, 0)
        assertContains(sizes.stdout, "Differences are B − A, treated as independent: the runs share 800 of their users (the same "
            + "seed and population) but not all, so without per-user data they cannot be paired; a user answering alike in both, "
            + "the shared users make these intervals wider than they need be, not narrower. Both runs are of one scenario, "
            + "at 1,200 and 800 users.")
        XCTAssertFalse(sizes.stdout.contains("different scenarios"), sizes.stdout)
        assertExit(try remindersim("run", "--users", "800", "--days", "30", "--seed", "5", "--db", "n.sqlite", "--out", "n"), 0)
        let seeds = try remindersim("compare", "1", "4", "--db", "n.sqlite")
        assertContains(seeds.stdout, "Both runs are of one scenario, at seeds 20261202 and 5, 1,200 and 800 users.")
        assertExit(try remindersim("run", "--users", "800", "--days", "31", "--db", "n.sqlite", "--out", "n"), 0)
        assertContains(try remindersim("compare", "3", "5", "--db", "n.sqlite").stdout,
                       "The runs come from different scenarios; rows are matched by label only.")
        // Other configurations over the same users: the holdout's differences are exact, and so are those of a
        // configuration both scenarios list unchanged; a configuration changed under its label is bounded.
        let scenario = try remindersim("scenario")
        // A run of the default's first two configurations (the second's periods changed to `periods`, when given).
        func runFirstTwo(_ file: String, name: String, secondPeriods periods: [Int]? = nil) throws {
            var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(scenario.stdout.utf8)) as? [String: Any])
            var two = try XCTUnwrap((json["configurations"] as? [[String: Any]]).map { Array($0.prefix(2)) })
            if let periods {
                var reminders = try XCTUnwrap(two[1]["reminders"] as? [[String: Any]])
                reminders[0]["timePeriods"] = periods
                two[1]["reminders"] = reminders
            }
            json["configurations"] = two
            json["name"] = name
            try writeFile(file, String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self))
            assertExit(try remindersim("run", file, "--users", "1200", "--days", "30", "--db", "n.sqlite", "--out", "n"), 0)
        }
        try runFirstTwo("two.json", name: "two of the default", secondPeriods: [5, 10])
        let other = try remindersim("compare", "1", "6", "--db", "n.sqlite")
        assertExit(other, 0)
        assertContains(other.stdout, "The differences shown as exact are: the same users give the same figures there.")
        let holdout = other.stdoutLines.filter { $0.hasPrefix("holdout  ") }
        XCTAssertFalse(holdout.isEmpty, other.stdout)
        for line in holdout { assertContains(line, " exactly") }
        let kept = other.stdoutLines.filter { $0.hasPrefix("README 7/10d  ") }
        XCTAssertFalse(kept.isEmpty, other.stdout)
        for line in kept { assertContains(line, " exactly") }
        let changed = other.stdoutLines.filter { $0.hasPrefix("README 7/10d released 1.0.2  ") }
        XCTAssertFalse(changed.isEmpty, other.stdout)
        for line in changed { XCTAssertFalse(line.contains(" exactly"), line) }
        // The CSV and JSON say which rows are exact.
        let csv = try remindersim("compare", "1", "6", "--db", "n.sqlite", "--format", "csv")
        assertExit(csv, 0)
        let records = try CSVTable.parse(csv.stdout)
        let col = { (name: String) in records[0].firstIndex(of: name)! }
        for r in records.dropFirst() {
            // Configurations only run 1 lists have no difference at all.
            let exact = ["holdout", "README 7/10d"].contains(r[col("label")])
            XCTAssertEqual(r[col("method")], exact ? "exact" : "bounded", "\(r)")
            if exact { XCTAssertEqual(r[col("difference_low")], r[col("difference_high")], "\(r)") }
        }
        // Run 1's configurations that the other run lists unchanged, and others that it lacks: every difference
        // shown is exact, but the runs are not alike.
        try runFirstTwo("same2.json", name: "the first two of the default")
        let fewer = try remindersim("compare", "1", "7", "--db", "n.sqlite")
        assertExit(fewer, 0)
        assertContains(fewer.stdout, "Every difference shown is exact: the same users give the same figures.")
        XCTAssertFalse(fewer.stdout.contains("alike"), fewer.stdout)
        let compared = try remindersim("compare", "1", "6", "--db", "n.sqlite", "--format", "json")
        let rows = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(compared.stdout.utf8)) as? [String: Any])?["rows"]
            as? [[String: Any]])
        XCTAssertFalse(rows.isEmpty)
        for row in rows {
            XCTAssertEqual(row["exact"] as? Bool, ["holdout", "README 7/10d"].contains(row["label"] as? String ?? ""), "\(row)")
        }
    }

    /// A shard run holds a share of its scenario's users: `compare` says which shard and how many.
    func testCompareNamesAShardAndItsUsers() throws {
        let run = ["run", "--users", "300", "--days", "20", "--install-spread", "10", "--threads", "1", "--db", "c.sqlite", "--out", "out"]
        assertExit(try remindersim(arguments: run), 0)
        assertExit(try remindersim(arguments: run + ["--shard", "2/2"]), 0)
        let compare = try remindersim("compare", "1", "2", "--db", "c.sqlite")
        assertExit(compare, 0)
        let a = try XCTUnwrap(compare.stdoutLines.first { $0.hasPrefix("A = run 1:") }, compare.stdout)
        let b = try XCTUnwrap(compare.stdoutLines.first { $0.hasPrefix("B = run 2:") }, compare.stdout)
        assertContains(a, ", 300 users, ")
        assertContains(b, ", shard 2 of 2: 150 of its 300 users (150..<300), ")
    }

    /// An empty file is an empty database: `list` shows nothing in it and leaves it empty.
    func testListOfAnEmptyFileIsEmpty() throws {
        try writeFile("empty.sqlite", "")
        let json = try remindersim("list", "--json", "--db", "empty.sqlite")
        assertExit(json, 0)
        XCTAssertEqual(json.stdout, "[]\n")
        let text = try remindersim("list", "--db", "empty.sqlite")
        assertExit(text, 0)
        assertContains(text.stdout, "No runs in empty.sqlite yet")
        XCTAssertEqual(try Data(contentsOf: workDirectory.appendingPathComponent("empty.sqlite")).count, 0)
        // So is an SQLite file without tables (one whose tables were dropped): nothing in it, and left as it is.
        do {
            let database = try Database(path: workPath("bare.sqlite"))
            try database.execute("CREATE TABLE x (a); DROP TABLE x;")
        }
        let before = try Data(contentsOf: workDirectory.appendingPathComponent("bare.sqlite"))
        XCTAssertGreaterThan(before.count, 0)
        let bare = try remindersim("list", "--json", "--db", "bare.sqlite")
        assertExit(bare, 0)
        XCTAssertEqual(bare.stdout, "[]\n")
        XCTAssertEqual(try Data(contentsOf: workDirectory.appendingPathComponent("bare.sqlite")), before)
        // Other commands that read a run still say there is none.
        assertExit(try remindersim("report", "1", "--db", "bare.sqlite"), 66)
    }

    /// `-` reads a log from standard input, as it reads a scenario, and names it `<stdin>` as every
    /// command names standard input: in its summary and in its problems.
    func testImportReadsStandardInputAsDash() throws {
        let result = try remindersim(arguments: ["import", "-"], stdin: "user,time\nu1,2024-01-01T00:00:00Z\nu1,2024-01-05T00:00:00Z\n")
        assertExit(result, 0)
        assertContains(result.stdout, "<stdin>: 2 rows, 2 events kept")
        assertContains(result.stderr, "<stdin>: read the first line as a header")
        let bad = try remindersim(arguments: ["import", "-"], stdin: "user,time\nu1,yesterday\n")
        assertExit(bad, 65)
        XCTAssertEqual(bad.stderr, "remindersim: error: <stdin>:2: column time (position 1): cannot read timestamp 'yesterday' as ISO 8601\n")
        let empty = try remindersim(arguments: ["fit", "-", "--out", "f"], stdin: "user,time\n")
        assertExit(empty, 65)
        assertContains(empty.stderr, "error: <stdin> holds no usable events")
        // Named by its path, the device is named as given.
        let named = try remindersim(arguments: ["import", "/dev/stdin"], stdin: "user,time\nu1,yesterday\n")
        assertExit(named, 65)
        assertContains(named.stderr, "error: /dev/stdin:2: column time")
    }

    func testLatestNamesTheLastRun() throws {
        assertExit(try remindersim("run", "--users", "300", "--days", "35", "--threads", "1"), 0)
        assertExit(try remindersim("run", "--users", "300", "--days", "35", "--threads", "1", "--seed", "3"), 0)
        let report = try remindersim("report", "latest", "--out", "again")
        assertExit(report, 0)
        XCTAssertEqual(report.stdout, "Report of run 2: again/default-2/report.md\n")
        XCTAssertEqual(try Data(contentsOf: workDirectory.appendingPathComponent("again/default-2/report.md")),
                       try Data(contentsOf: workDirectory.appendingPathComponent("Reports/default-2/report.md")))
    }

    /// Every regular file directly in `folder`, by name.
    static func files(in folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            out[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return out
    }
}
