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

    func testReportReadsTheLogFromDataAndSaysWhenItCannot() throws {
        try runFromItsFolder(["--db", "runs.db", "--out", "out"])
        let ran = try files("out/cdnow-empirical-1")
        XCTAssertTrue(String(decoding: try XCTUnwrap(ran["decision_checks.csv"]), as: UTF8.self).contains("recheck"))

        // From the working folder the log is not where the stored scenario names it.
        let lost = try remindersim("report", "latest", "--db", "runs.db", "--out", "lost")
        assertExit(lost, 0)
        assertContains(lost.stderr, "remindersim: warning: run 1: the second look at its decision is left out of the report: "
            + "its scenario's recorded data cannot be read (")
        assertContains(lost.stderr, "give that folder with --data")
        let report = String(decoding: try XCTUnwrap(try files("lost/cdnow-empirical-1")["report.md"]), as: UTF8.self)
        assertContains(report, "## Second look at the decision\n\nNot worked out for this report: its scenario's recorded data cannot be read")

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
        let lost = try remindersim("merge", "shard1.db", "shard2.db", "--into", "lost.db", "--out", "lost")
        assertExit(lost, 0)
        assertContains(lost.stderr, "the second look at its decision is left out of the report")
        let merged = try remindersim("merge", "shard1.db", "shard2.db", "--into", "merged.db", "--out", "merged", "--data", "data")
        assertExit(merged, 0)
        XCTAssertEqual(merged.stderr, "")
        XCTAssertEqual(try files("merged/cdnow-empirical-1"), try files("whole/cdnow-empirical-1"))
    }
}
