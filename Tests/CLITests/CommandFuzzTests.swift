import Foundation
import ReminderSimTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Every command run with generated paths, numbers and streams, as separate processes: none may end
/// by a signal (or an exit status of one, ≥ 128), hang, show Foundation's or Swift's own text, or
/// create a file outside the test's own folder.
///
/// The paths are of one to three parts, each an existing file or folder of the test, a short name
/// (accents, spaces, quotes, newlines, `-`), `.` or `..`, with or without a trailing slash, below
/// folders that may be missing; devices and the empty path too. Standard input and output are left
/// open, closed, `/dev/null`, `/dev/full`, a folder or a pipe that closes early.
///
/// Three hundred cases run with `swift test`; for more, or another sequence:
///
///     REMINDERSIM_COMMAND_FUZZ_CASES=5000 REMINDERSIM_COMMAND_FUZZ_SEED=3 swift test --filter CommandFuzzTests
final class CommandFuzzTests: ReminderSimTestCase {
    static var cases: Int {
        ProcessInfo.processInfo.environment["REMINDERSIM_COMMAND_FUZZ_CASES"].flatMap(Int.init) ?? 300
    }
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["REMINDERSIM_COMMAND_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_203
    }
    static let timeLimit: TimeInterval = 30

    /// The folder the commands run in, three levels below the test's own so that a path with up to
    /// three `..` stays inside it.
    var runDirectory: URL { workDirectory.appendingPathComponent("a/b/c") }

    /// Names a case could make outside the test's folder, checked in the folders a stray write would reach.
    static let watched = [FileManager.default.temporaryDirectory.path, "/dev", "/",
                          URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                              .deletingLastPathComponent().path]

    // MARK: Fixtures

    /// A small scenario, its results, a log, a database with runs and shards, a file and a folder.
    func makeFixtures() throws {
        try FileManager.default.createDirectory(at: runDirectory, withIntermediateDirectories: true)
        var scenario = try defaultScenario()
        scenario["users"] = 30
        scenario["horizonDays"] = 20
        var population = scenario["population"] as? [String: Any] ?? [:]
        population["installSpreadDays"] = 1
        scenario["population"] = population
        let text = String(decoding: try JSONSerialization.data(withJSONObject: scenario, options: [.sortedKeys]), as: UTF8.self)
        try write("s.json", text)
        try write("r.csv", "arm,users,delivered,opens,opt_outs\nholdout,1000,0,800,0\n2d,1000,3000,840,60\n")
        var log = "user,time\n"
        for u in 0..<40 { for k in 0..<(u % 4 + 1) { log += "u\(u),\(1_704_067_200 + u * 3_600 + k * 604_800)\n" } }
        try write("l.csv", log)
        try write("f", "a plain file\n")
        try FileManager.default.createDirectory(at: runDirectory.appendingPathComponent("d"), withIntermediateDirectories: false)
        for arguments in [["run", "s.json", "--db", "db.sqlite", "--out", "o"], ["run", "s.json", "--db", "db.sqlite", "--out", "o"],
                          ["run", "s.json", "--shard", "1/1", "--db", "h.sqlite"]] {
            let result = try child(arguments, stdin: .devNull, stdout: .captured)
            XCTAssertEqual(result?.status, 0, "fixture run \(arguments): \(String(describing: result))")
        }
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: runDirectory.appendingPathComponent(name))
    }

    // MARK: Generation

    static let existing = ["s.json", "r.csv", "l.csv", "f", "d", "db.sqlite", "h.sqlite", "o", "."]
    static let letters = ["a", "j", "é", "日", " ", "'", "\"", "-", "\n", ".", "x", "e\u{301}", "\\", "*"]

    /// A path of one to three parts; `climbs` counts the `..` so far (at most three in all).
    func path(_ random: inout TestRandom) -> String {
        switch random.next() % 20 {
        case 0: return ""
        case 1: return "/dev/null"
        case 2: return "/dev/full"
        case 3: return "-"
        default: break
        }
        var parts: [String] = []
        var climbs = 0
        for _ in 0...(random.next() % 3) {
            switch random.next() % 4 {
            case 0: parts.append(Self.existing[Int(random.next() % UInt64(Self.existing.count))])
            case 1:
                if climbs < 3 { parts.append(".."); climbs += 1 } else { parts.append(".") }
            default:
                parts.append((0...(random.next() % 3)).map { _ in Self.letters[Int(random.next() % UInt64(Self.letters.count))] }.joined())
            }
        }
        return parts.joined(separator: "/") + (random.next() % 4 == 0 ? "/" : "")
    }

    static let numbers = ["0", "1", "2", "3", "7", "-1", "0.5", "1e3", "", "abc", "nan", "inf", "-0", " 4", "0x10",
                          "9007199254740992", "18446744073709551616", "99999999999999999999999", "١٢", "30", "1/1", "2/1"]

    func number(_ random: inout TestRandom) -> String {
        Self.numbers[Int(random.next() % UInt64(Self.numbers.count))]
    }

    /// One command line: the command, then its arguments, each slot a fixture or a generated value.
    func commandLine(_ random: inout TestRandom) -> [String] {
        // Mostly valid values, so that most cases get past the argument checks to the files and streams.
        func pick(_ valid: String, _ generated: String) -> String { random.next() % 4 != 0 ? valid : generated }
        var p: String { path(&random) }
        var n: String { number(&random) }
        let small = random.next() % 4 == 0 ? ["--users", pick("30", n), "--days", pick("20", n)] : ["--users", "30"]
        switch random.next() % 13 {
        case 0: return ["run", pick("s.json", p), "--db", pick("db.sqlite", p), "--out", pick("o", p), "--threads", pick("1", n)] + small
        case 1: return ["validate", pick("s.json", p)]
        case 2: return ["trace", pick("s.json", p), "--user", pick("3", n)] + small
        case 3: return ["tune", pick("s.json", p), "--budget", pick("5", n), "--db", pick("t.sqlite", p), "--out", p] + small
        case 4: return ["calibrate", pick("s.json", p), pick("r.csv", p), "--users", pick("100", n), "--out", p]
        case 5: return ["fit", pick("l.csv", p), "--timestamp", "epochSeconds", "--out", p, "--predict", pick("4", n)]
        case 6: return ["import", pick("l.csv", p), "--timestamp", pick("epochSeconds", p)]
        case 7: return ["list", "--db", pick("db.sqlite", p)]
        case 8: return ["report", pick("1", n), "--db", pick("db.sqlite", p), "--out", p]
        case 9: return ["export", pick("latest", n), "--db", pick("db.sqlite", p), "--csv", p]
        case 10: return ["compare", pick("1", n), pick("2", n), "--db", pick("db.sqlite", p)]
        case 11: return ["merge", pick("h.sqlite", p), "--into", p, "--out", p]
        default: return ["scenario"] + (random.next() % 2 == 0 ? [] : [p])
        }
    }

    enum Input: CaseIterable { case devNull, closed, folder, scenario }
    enum Output: CaseIterable { case captured, devNull, full, closed, earlyClosingPipe }

    /// Runs the tool through `bash` (for streams a `Process` cannot set up), in `runDirectory`.
    func child(_ arguments: [String], stdin: Input, stdout: Output) throws -> CommandResult? {
        let input = switch stdin {
        case .devNull: "</dev/null"
        case .closed: "<&-"
        case .folder: "<d"
        case .scenario: "<s.json"
        }
        let script: String
        switch stdout {
        case .captured: script = "exec \"$0\" \"$@\" \(input)"
        case .devNull: script = "exec \"$0\" \"$@\" \(input) >/dev/null"
        case .full: script = "exec \"$0\" \"$@\" \(input) >/dev/full"
        case .closed: script = "exec \"$0\" \"$@\" \(input) >&-"
        // The tool's own status, through the pipe's reader that stops at the first byte.
        case .earlyClosingPipe: script = "\"$0\" \"$@\" \(input) | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}"
        }
        let process = try ChildProcess(
            executable: URL(fileURLWithPath: "/bin/bash"), arguments: ["-c", script, try executableURL().path] + arguments,
            environment: environment(["TMPDIR": workDirectory.path]), directory: runDirectory, spool: spoolDirectory)
        return process.wait(timeout: Self.timeLimit)
    }

    /// The names in the folders a stray write would reach.
    func outsideEntries() -> Set<String> {
        var names: Set<String> = []
        for folder in Self.watched {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] { names.insert("\(folder)|\(entry)") }
        }
        return names
    }

    // MARK: The test

    func testEveryCommandEndsWithItsOwnStatusAndWritesOnlyInside() throws {
        try makeFixtures()
        var random = TestRandom(seed: Self.seed)
        var statuses: [Int32: Int] = [:]
        let started = Date()
        for index in 0..<Self.cases {
            let arguments = commandLine(&random)
            let stdin = Input.allCases[Int(random.next() % UInt64(Input.allCases.count))]
            let stdout = random.next() % 3 == 0 ? Output.allCases[Int(random.next() % UInt64(Output.allCases.count))] : .captured
            let what = "case \(index) (seed \(Self.seed)): remindersim \(arguments.map(\.debugDescription).joined(separator: " ")), "
                + "stdin \(stdin), stdout \(stdout)"
            let before = outsideEntries()
            guard let result = try child(arguments, stdin: stdin, stdout: stdout) else {
                XCTFail("\(what): did not finish within \(Int(Self.timeLimit)) s")
                continue
            }
            statuses[result.status, default: 0] += 1
            XCTAssertFalse(result.crashed, "\(what): killed by signal \(result.status)\n\(result.stderr.prefix(2_000))")
            XCTAssertLessThan(result.status, 128, "\(what): the status of a signal\n\(result.stderr.prefix(2_000))")
            for leak in FuzzTests.leaks {
                XCTAssertFalse(result.stderr.contains(leak), "\(what): \"\(leak)\" reached the user:\n\(result.stderr.prefix(2_000))")
            }
            // Only entries that this case's names could have made count: other programs use these folders too.
            let names = Set(arguments.flatMap { $0.split(separator: "/").map(String.init) }.filter { !$0.isEmpty })
            let stray = outsideEntries().subtracting(before).filter { entry in
                let name = String(entry.split(separator: "|", maxSplits: 1).last ?? "")
                return names.contains { name == $0 || name.hasPrefix($0 + "-") || name.hasPrefix(".\($0)") }
                    || name.hasSuffix("-journal") || name.hasSuffix("-wal") || name.hasSuffix("-shm")
            }
            XCTAssertEqual(stray, [], "\(what): created outside the test's folder")
            for entry in stray {
                let parts = entry.split(separator: "|", maxSplits: 1).map(String.init)
                try? FileManager.default.removeItem(atPath: parts[0] == "/" ? "/" + parts[1] : parts[0] + "/" + parts[1])
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print("command fuzz: \(Self.cases) cases in \(String(format: "%.1f", seconds)) s; statuses "
            + statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
    }
}
