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

    /// `folder`/cdnow holding the log with every third line left out: the same name, other visits.
    func otherLog(in folder: String) throws {
        try FileManager.default.createDirectory(atPath: workPath(folder + "/cdnow"), withIntermediateDirectories: true)
        let log = try String(contentsOf: TuneCommandTests.datasets.appendingPathComponent("cdnow/CDNOW_master.txt"), encoding: .utf8)
        // Its records end in CRLF (one Character in Swift).
        let kept = log.components(separatedBy: "\r\n").enumerated().filter { $0.offset % 3 != 2 }.map(\.element)
        try kept.joined(separator: "\r\n").write(toFile: workPath(folder + "/cdnow/CDNOW_master.txt"), atomically: true, encoding: .utf8)
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
        // A log of the same name with other visits would work out other figures: refused, nothing written.
        try otherLog(in: "other")
        let other = try remindersim("report", "latest", "--db", "runs.db", "--out", "out", "--data", "other")
        assertExit(other, 65)
        assertContains(other.stderr, "run 1: the recorded logs read from --data other are not the ones it read (their visits differ)")
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
        // Without the log the merged run's second look cannot be made: nothing is saved, and the error says
        // where the log was looked for.
        let lost = try remindersim("merge", "shard1.db", "shard2.db", "--into", "lost.db", "--out", "lost")
        assertExit(lost, 66)
        assertContains(lost.stderr, "the shards' scenario \"cdnow-empirical\": its second look cannot be worked out again")
        assertContains(lost.stderr, "give that folder with --data")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("lost.db")), "nothing saved")
        // A shard that read another log is no part of the run.
        try otherLog(in: "other")
        try FileManager.default.copyItem(atPath: workPath("data/cdnow-empirical.json"), toPath: workPath("other/cdnow-empirical.json"))
        let stray = try remindersim(arguments: ["run", "other/cdnow-empirical.json", "--users", "400", "--shard", "2/2", "--db", "stray.db"])
        assertExit(stray, 0)
        let mixed = try remindersim("merge", "shard1.db", "stray.db", "--into", "mixed.db", "--out", "mixed", "--data", "data")
        assertExit(mixed, 65)
        assertContains(mixed.stderr, "stray.db run 1: read other recorded logs than shard1.db run 1 (their visits differ)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("mixed.db")), "nothing saved")
        let merged = try remindersim("merge", "shard1.db", "shard2.db", "--into", "merged.db", "--out", "merged", "--data", "data")
        assertExit(merged, 0)
        XCTAssertEqual(merged.stderr, "")
        XCTAssertEqual(try files("merged/cdnow-empirical-1"), try files("whole/cdnow-empirical-1"))
    }
}
