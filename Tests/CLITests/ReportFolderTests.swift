import Foundation
import ReminderSimTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Report folders are written whole or not at all, and one run's report never replaces another's.
final class ReportFolderTests: ReminderSimTestCase {
    func contents(_ folder: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: workPath(folder)) {
            out[name] = try Data(contentsOf: workDirectory.appendingPathComponent(folder).appendingPathComponent(name))
        }
        return out
    }

    /// Two databases each hold a run 1 of the default scenario, with different results, rendered
    /// into one `--out`: the second goes beside the first instead of over it.
    func testTwoDatabasesIntoOneOutputDoNotOverwriteEachOther() throws {
        let first = try remindersim("run", "--users", "300", "--days", "35", "--db", "a.sqlite")
        assertExit(first, 0)
        assertContains(first.stdout, "report: Reports/default-1/report.md")
        let before = try contents("Reports/default-1")
        let second = try remindersim("run", "--users", "400", "--days", "35", "--db", "b.sqlite")
        assertExit(second, 0)
        assertContains(second.stdout, "report: Reports/default-1-2/report.md")
        XCTAssertEqual(try contents("Reports/default-1"), before, "the first database's report was overwritten")

        // Rendering again finds each run's own folder, and replaces it with the same files.
        let again = try remindersim("report", "1", "--db", "b.sqlite")
        assertExit(again, 0)
        assertContains(again.stdout, "Reports/default-1-2/report.md")
        assertExit(try remindersim("report", "1", "--db", "a.sqlite"), 0)
        XCTAssertEqual(try contents("Reports/default-1"), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: workPath("Reports")).sorted(),
                       ["default-1", "default-1-2"], "no partial or old folders are left")
    }

    /// `report` killed at moments spread over its life leaves either no folder or the whole report.
    /// Kills spread over a render's life, one in each sixth of it.
    static let kills = 6

    func testAKilledRenderLeavesNoHalfFolder() throws {
        var scenario: Any = try defaultScenario()
        scenario = try JSONEdit.setting(1, at: "population.installSpreadDays", in: scenario)
        scenario = try JSONEdit.setting([
            "labelPrefix": "grid ", "messages": (0..<10).map { "message \($0)" }, "timePeriods": (1...10).map { [$0] },
            "mode": ["documented", "original"], "cronRules": ["1 1", "2 *"],
        ] as [String: Any], at: "grid", in: scenario)
        try writeFile("wide.json", try JSONEdit.text(scenario))
        assertExit(try remindersim("run", "wide.json", "--users", "20", "--days", "1000", "--db", "wide.sqlite",
                                   "--out", "whole", timeout: 120), 0)
        let whole = try contents("whole/default-1")

        let calibration = try startRemindersim(["report", "1", "--db", "wide.sqlite", "--out", "timed"])
        _ = try XCTUnwrap(calibration.wait(timeout: 120))
        let life = calibration.elapsed
        var random = TestRandom(seed: 11)
        var killedWhileWriting = 0
        for i in 0..<Self.kills {
            let out = "killed-\(i)"
            let run = try startRemindersim(["report", "1", "--db", "wide.sqlite", "--out", out])
            Thread.sleep(forTimeInterval: life * (Double(i) + random.unit()) / Double(Self.kills))
            let killed = run.killNow()
            _ = try XCTUnwrap(run.wait(timeout: 60))
            let folder = "\(out)/default-1"
            if FileManager.default.fileExists(atPath: workPath(folder)) {
                XCTAssertEqual(try contents(folder), whole, "a half report in \(folder) (killed: \(killed))")
            } else if killed {
                killedWhileWriting += 1
            }
        }
        print("report kills: \(killedWhileWriting) of \(Self.kills) left no folder; the render lives \(String(format: "%.2f", life)) s")
        // After a kill, the next render clears the killed one's partial folder (once it is old enough
        // not to be a live writer's on another machine) and writes the report.
        for i in 0..<Self.kills {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: workPath("killed-\(i)"))) ?? [] where entry.hasPrefix(".") {
                var times = [timespec(tv_sec: time(nil) - 86_400, tv_nsec: 0), timespec(tv_sec: time(nil) - 86_400, tv_nsec: 0)]
                XCTAssertEqual(utimensat(AT_FDCWD, workPath("killed-\(i)/\(entry)"), &times, AT_SYMLINK_NOFOLLOW), 0)
            }
            assertExit(try remindersim("report", "1", "--db", "wide.sqlite", "--out", "killed-\(i)"), 0)
            XCTAssertEqual(try contents("killed-\(i)/default-1"), whole)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: workPath("killed-\(i)")), ["default-1"])
        }
    }
}
