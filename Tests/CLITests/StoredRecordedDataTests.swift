import Foundation
import ReminderSimTestSupport
import XCTest

/// A stored scenario that reads a recorded log names it relative to its file's folder, which the store
/// does not keep: `report` and `merge` read it from `--data` (the working folder by default), and say
/// so when they cannot, rather than leave the second look out unsaid.
final class StoredRecordedDataTests: ReminderSimTestCase {
    /// The CDNOW scenario copied with its log's folder under `data/`, run from the working folder.
    func runFromItsFolder(_ extra: [String]) throws {
        let data = workPath("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TuneCommandTests.datasets.appendingPathComponent("cdnow-empirical.json"),
                                         to: URL(fileURLWithPath: data + "/cdnow-empirical.json"))
        try FileManager.default.copyItem(at: TuneCommandTests.datasets.appendingPathComponent("cdnow"),
                                         to: URL(fileURLWithPath: data + "/cdnow"))
        let run = try remindersim(arguments: ["run", "data/cdnow-empirical.json", "--users", "400"] + extra)
        assertExit(run, 0)
    }

    func files(_ folder: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: workPath(folder)) {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: workPath(folder + "/" + name)))
        }
        return out
    }

    func testReportReadsTheLogFromDataAndRefusesWithoutIt() throws {
        try runFromItsFolder(["--db", "runs.db", "--out", "out"])
        let ran = try files("out/cdnow-empirical-1")
        XCTAssertTrue(String(decoding: try XCTUnwrap(ran["decision_checks.csv"]), as: UTF8.self).contains("recheck"))

        // From the working folder the log is not where the stored scenario names it: the report cannot be the
        // run's, and the one `run` wrote is left as it is.
        let lost = try remindersim("report", "latest", "--db", "runs.db", "--out", "out")
        assertExit(lost, 66)
        assertContains(lost.stderr, "remindersim: error: run 1: its second look cannot be worked out again: ")
        assertContains(lost.stderr, "give that folder with --data")
        XCTAssertEqual(try files("out/cdnow-empirical-1"), ran)
        let elsewhere = try remindersim("report", "latest", "--db", "runs.db", "--out", "out", "--data", "out")
        assertExit(elsewhere, 66)
        assertContains(elsewhere.stderr, "its recorded logs were looked for under --data out")
        for (data, code, message) in [("missing", 66, "--data missing: no such folder"), ("runs.db", 66, "--data runs.db: not a folder"),
                                      ("", 64, "--data: expected a folder, got an empty path")] {
            let bad = try remindersim("report", "latest", "--db", "runs.db", "--out", "out", "--data", data)
            assertExit(bad, Int32(code))
            assertContains(bad.stderr, message)
        }
        XCTAssertEqual(try files("out/cdnow-empirical-1"), ran)

        // With --data, the report `run` wrote, byte for byte.
        let found = try remindersim("report", "latest", "--db", "runs.db", "--out", "found", "--data", "data")
        assertExit(found, 0)
        XCTAssertEqual(found.stderr, "")
        XCTAssertEqual(try files("found/cdnow-empirical-1"), ran)
    }

    func testMergeReadsTheLogFromData() throws {
        try runFromItsFolder(["--db", "whole.db", "--out", "whole"])
        for k in 1...2 {
            let shard = try remindersim(arguments: ["run", "data/cdnow-empirical.json", "--users", "400", "--shard", "\(k)/2",
                                                    "--db", "shard\(k).db"])
            assertExit(shard, 0)
        }
        // Without the log the merged run is saved, and the error says how to render its report.
        let lost = try remindersim("merge", "shard1.db", "shard2.db", "--into", "lost.db", "--out", "lost")
        assertExit(lost, 66)
        assertContains(lost.stderr, "its second look cannot be worked out again")
        assertContains(lost.stderr, "run 1 is saved in lost.db: `remindersim report 1 --db lost.db` renders it again")
        let merged = try remindersim("merge", "shard1.db", "shard2.db", "--into", "merged.db", "--out", "merged", "--data", "data")
        assertExit(merged, 0)
        XCTAssertEqual(merged.stderr, "")
        XCTAssertEqual(try files("merged/cdnow-empirical-1"), try files("whole/cdnow-empirical-1"))
    }
}
