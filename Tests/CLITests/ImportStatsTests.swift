import Foundation
import ReminderSimTestSupport
import XCTest

/// `import --stats` reports the process's real peak memory: the figure is read at the very end, after
/// the gap analysis, not after reading the log.
final class ImportStatsTests: ReminderSimTestCase {
    /// The child's own peak resident memory, from the kernel when it is reaped, in MB, and its stderr.
    func runMeasured(_ arguments: [String]) throws -> (status: Int32, peakMB: Double, stderr: String) {
        guard case let .success(executable) = ReminderSimExecutable.located else {
            throw XCTSkip("the executable was not found")
        }
        let errorPath = workPath("stderr.txt")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw XCTSkip("cannot start the executable: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { throw XCTSkip("cannot wait for the child") }
        #if os(Linux)
        let peak = Double(usage.ru_maxrss) * 1_024 / 1e6
        #else
        let peak = Double(usage.ru_maxrss) / 1e6
        #endif
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
        return (exit, peak, (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    func testReportedPeakIsTheProcesssPeak() throws {
        // 600,000 visits: the gap analysis after reading needs memory of its own.
        var text = "user,time\n"
        text.reserveCapacity(16 << 20)
        for user in 0..<60_000 {
            for visit in 0..<10 { text += "u\(user),\(1_700_000_000 + visit * 86_400 + user % 3_600)\n" }
        }
        try writeFile("visits.csv", text)
        let result = try runMeasured(["import", workPath("visits.csv"), "--user", "user", "--time", "time", "--timestamp", "epochSeconds", "--stats"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.hasPrefix("stats:") }, result.stderr)
        let reported = try XCTUnwrap(line.split(separator: " ").firstIndex(of: "RSS").map { Double(line.split(separator: " ")[$0 + 1]) } ?? nil,
                                     String(line))
        // The report is taken a moment before exit, so it may be a little lower, never much.
        XCTAssertGreaterThan(reported, result.peakMB * 0.97 - 1, "reported \(reported) MB, the process peaked at \(result.peakMB) MB")
        XCTAssertLessThanOrEqual(reported, result.peakMB + 0.5)
    }
}
