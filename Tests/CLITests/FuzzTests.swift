import Console
import Foundation
import ReminderSimCLI
import Storage
import Synchronization
import ReminderSimTestSupport
import XCTest

/// Hostile inputs, generated: the example scenarios and a small log mutated at random (with a fixed
/// seed), each run through the tool's own entry point. Every case must be refused cleanly (65 with a
/// JSON path or a file and line, no Foundation or Swift text) or finish in time with a sound database.
///
/// A few hundred cases run with `swift test`; to run many more, or another sequence:
///
///     REMINDERSIM_FUZZ_CASES=20000 REMINDERSIM_FUZZ_SEED=7 swift test --filter FuzzTests
///
/// A failure names its case number and seed and keeps the input in the printed folder.
final class FuzzTests: FolderTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static var cases: Int { ProcessInfo.processInfo.environment["REMINDERSIM_FUZZ_CASES"].flatMap(Int.init) ?? 250 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["REMINDERSIM_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_203 }
    /// A debug build on a loaded 2-core machine; a small run takes well under a second.
    static let timeLimit: TimeInterval = 20

    /// Text no user should ever see: Foundation's error descriptions and Swift's own spellings of values.
    static let leaks = ["NSCocoaErrorDomain", "Error Domain=", "The operation could not be completed", "Optional(",
                        "Swift.", "DecodingError", "CocoaError", "NSPOSIXErrorDomain", "Fatal error"]

    override var folderPrefix: String { "fuzz" }
    override var keepsFolderOnFailure: Bool { true }

    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the tool in this process with a time limit; nil when it did not finish in time.
    func remindersim(_ arguments: [String]) -> Outcome? {
        let out = MemoryWriter(), err = MemoryWriter()
        let done = DispatchSemaphore(value: 0)
        let status = Mutex(Int32(-1))
        Thread {
            let code = ReminderSim.main(arguments: arguments, io: ConsoleIO(stdout: out, stderr: err))
            status.withLock { $0 = code }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + Self.timeLimit) == .success else { return nil }
        return Outcome(status: status.withLock { $0 }, stdout: out.text, stderr: err.text)
    }

    func assertClean(_ outcome: Outcome, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for leak in Self.leaks {
            XCTAssertFalse(outcome.stderr.contains(leak) || outcome.stdout.contains(leak),
                           "\(what): \"\(leak)\" reached the user:\n\(outcome.stderr.prefix(2_000))", file: file, line: line)
        }
    }

    // MARK: Scenarios

    func testMutatedScenariosAreRefusedOrRunSoundly() throws {
        let examples = try ["default-scenario", "daily-habit", "weekly-rate-app", "cdnow-bgnbd"].map { name in
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.root.appendingPathComponent("Datasets/\(name).json")))
        }
        var random = TestRandom(seed: Self.seed)
        let database = folder.appendingPathComponent("fuzz.sqlite").path
        let reports = folder.appendingPathComponent("reports").path
        var counts: [Int32: Int] = [:]
        let started = Date()
        for index in 0..<Self.cases {
            var json = examples[Int(random.next() % UInt64(examples.count))]
            var raw: [String: String] = [:]
            for _ in 0...(random.next() % 3) { json = Mutation.apply(to: json, random: &random, raw: &raw) }
            var text = String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
            for (token, replacement) in raw { text = text.replacingOccurrences(of: "\"\(token)\"", with: replacement) }
            let path = folder.appendingPathComponent("case-\(index).json").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let what = "scenario case \(index) (seed \(Self.seed), \(path))"

            guard let validated = remindersim(["validate", path]) else {
                return XCTFail("\(what): validate did not finish within \(Self.timeLimit) s")
            }
            assertClean(validated, what)
            counts[validated.status, default: 0] += 1
            if validated.status == 65 {
                assertRefusedWithPaths(validated, path: path, what)
                continue
            }
            XCTAssertEqual(validated.status, 0, "\(what): validate exited \(validated.status):\n\(validated.stderr)")
            guard let run = remindersim(["run", path, "--users", "20", "--days", "35", "--threads", "2",
                                         "--db", database, "--out", reports]) else {
                return XCTFail("\(what): run did not finish within \(Self.timeLimit) s")
            }
            assertClean(run, what)
            // A valid scenario may still not fit 35 days (its install spread) or reach the session limit.
            if run.status == 65 {
                assertRefusedWithPaths(run, path: path, what)
            } else {
                XCTAssertEqual(run.status, 0, "\(what): run exited \(run.status):\n\(run.stderr)")
            }
        }
        if FileManager.default.fileExists(atPath: database) {
            let check = try Database(path: database, create: false).rows("PRAGMA integrity_check")
            XCTAssertEqual(check.first?.text(0), "ok")
        }
        print("scenario fuzz: \(Self.cases) cases in \(String(format: "%.1f", Date().timeIntervalSince(started))) s, "
              + "exit statuses \(counts.sorted { $0.key < $1.key })")
        XCTAssertGreaterThan(counts[0, default: 0], Self.cases / 20, "too few mutated scenarios were valid to run")
        XCTAssertGreaterThan(counts[65, default: 0], Self.cases / 5, "too few mutated scenarios were refused")
    }

    /// A refusal of a scenario: exit 65, and every problem line is `FILE: PATH: REASON` (or `FILE: REASON`
    /// for the file as a whole), naming the file.
    func assertRefusedWithPaths(_ outcome: Outcome, path: String, _ what: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        let lines = outcome.stderr.split(separator: "\n").map(String.init)
        XCTAssertFalse(lines.isEmpty, "\(what): refused without a message", file: file, line: line)
        for text in lines where !text.hasPrefix("remindersim: error: invalid scenario") {
            let body = text.hasPrefix("remindersim: error: ") ? String(text.dropFirst(20)) : text
            XCTAssertTrue(body.hasPrefix("\(path): "), "\(what): a problem without its file: \(text)", file: file, line: line)
        }
    }

    // MARK: Logs

    func testMutatedLogsAreImportedOrRefusedWithALine() throws {
        var random = TestRandom(seed: Self.seed &+ 1)
        var counts: [Int32: Int] = [:]
        let started = Date()
        for index in 0..<Self.cases {
            let bytes = LogMutation.log(random: &random)
            let path = folder.appendingPathComponent("log-\(index).csv").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let what = "log case \(index) (seed \(Self.seed &+ 1), \(path))"
            for skip in [false, true] {
                let arguments = ["import", path, "--user", "user", "--time", "time", "--timestamp", "epochSeconds"]
                    + (skip ? ["--skip-bad-rows"] : [])
                guard let outcome = remindersim(arguments) else {
                    return XCTFail("\(what): import did not finish within \(Self.timeLimit) s")
                }
                assertClean(outcome, what)
                counts[outcome.status, default: 0] += 1
                switch outcome.status {
                case 0:
                    XCTAssertTrue(outcome.stdout.hasPrefix("\(path): "), "\(what): \(outcome.stdout.prefix(300))")
                case 65:
                    XCTAssertTrue(outcome.stderr.hasPrefix("remindersim: error: \(path)"),
                                  "\(what): the error does not name the file: \(outcome.stderr.prefix(500))")
                    let namesALine = outcome.stderr.contains(":") && outcome.stderr.range(of: #"line \d+|:\d+:"#, options: .regularExpression) != nil
                    let wholeFile = ["is empty", "no usable events", "header", "column"].contains { outcome.stderr.contains($0) }
                    XCTAssertTrue(namesALine || wholeFile, "\(what): neither a line nor the whole file: \(outcome.stderr.prefix(500))")
                default:
                    XCTFail("\(what): import exited \(outcome.status):\n\(outcome.stderr.prefix(500))")
                }
            }
        }
        print("log fuzz: \(Self.cases) cases in \(String(format: "%.1f", Date().timeIntervalSince(started))) s, "
              + "exit statuses \(counts.sorted { $0.key < $1.key })")
        XCTAssertGreaterThan(counts[0, default: 0], Self.cases / 10)
        XCTAssertGreaterThan(counts[65, default: 0], Self.cases / 10)
    }
}

/// Random edits of a scenario's JSON tree.
enum Mutation {
    static let numbers: [Double] = [0, -1, 1, 0.5, 1e308, -1e308, 1e-300, 1e19, -9_223_372_036_854_775_808, 3_650,
                                    3_651, 100_000_000]
    /// Values that JSON text can hold but JSONSerialization cannot write: placed as tokens, swapped in after.
    static let rawNumbers = ["1e999", "-1e999", "NaN", "Infinity", "-0", "1e-400", "123456789012345678901234567890",
                             "9007199254740993", "5e-324"]
    static let strings = ["", "   ", "\u{0}", "a\u{1B}[31mred\u{1B}[0m", "line\nbreak\r\n", "\u{202E}evil", "🚀",
                          String(repeating: "x", count: 70_000), "\"quoted\"", "holdout", "*/0 */0", "1 1 1", "-"]

    static func apply(to json: Any, random: inout TestRandom, raw: inout [String: String]) -> Any {
        var paths: [[PathStep]] = []
        collect(json, [], into: &paths)
        guard !paths.isEmpty else { return json }
        let path = paths[Int(random.next() % UInt64(paths.count))]
        let kind = random.next() % 5
        return edit(json, path[...]) { value in
            switch kind {
            case 0: return nil  // removed
            case 1:  // retyped
                let choices: [Any] = ["text", 3, true, NSNull(), [Any](), [String: Any]()]
                return choices[Int(random.next() % UInt64(choices.count))]
            case 2:
                if random.next() % 3 == 0 {
                    let token = "__raw_\(raw.count)__"
                    raw[token] = rawNumbers[Int(random.next() % UInt64(rawNumbers.count))]
                    return token
                }
                return numbers[Int(random.next() % UInt64(numbers.count))]
            case 3: return strings[Int(random.next() % UInt64(strings.count))]
            default:  // a list doubled, or an object emptied
                if let list = value as? [Any] { return list + list }
                if value is [String: Any] { return [String: Any]() }
                return value
            }
        }
    }

    enum PathStep {
        case key(String)
        case index(Int)
    }

    static func collect(_ json: Any, _ path: [PathStep], into paths: inout [[PathStep]]) {
        if !path.isEmpty { paths.append(path) }
        if let object = json as? [String: Any] {
            for (key, value) in object.sorted(by: { $0.key < $1.key }) { collect(value, path + [.key(key)], into: &paths) }
        } else if let list = json as? [Any] {
            for (i, value) in list.enumerated().prefix(8) { collect(value, path + [.index(i)], into: &paths) }
        }
    }

    /// `json` with the value at `path` replaced by `change(value)`, or removed when it returns nil.
    static func edit(_ json: Any, _ path: ArraySlice<PathStep>, _ change: (Any) -> Any?) -> Any {
        guard let step = path.first else { return change(json) ?? NSNull() }
        switch step {
        case let .key(key):
            guard var object = json as? [String: Any], let child = object[key] else { return json }
            if path.count == 1 {
                object[key] = change(child)
            } else {
                object[key] = edit(child, path.dropFirst(), change)
            }
            return object
        case let .index(i):
            guard var list = json as? [Any], i < list.count else { return json }
            if path.count == 1 {
                if let value = change(list[i]) { list[i] = value } else { list.remove(at: i) }
            } else {
                list[i] = edit(list[i], path.dropFirst(), change)
            }
            return list
        }
    }
}

/// Random logs: a valid CSV of visits with random damage.
enum LogMutation {
    static func log(random: inout TestRandom) -> [UInt8] {
        var lines: [[UInt8]] = [Array("user,time".utf8)]
        let rows = Int(random.next() % 200)
        for i in 0..<rows {
            lines.append(Array("u\(random.next() % 20),\(1_735_689_600 + Int(random.next() % 31_536_000) + i)".utf8))
        }
        let damages = Int(random.next() % 6)
        for _ in 0..<damages where !lines.isEmpty {
            let at = Int(random.next() % UInt64(lines.count))
            switch random.next() % 9 {
            case 0: lines[at] = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1: lines[at] = Array(lines[at].prefix(Int(random.next() % UInt64(lines[at].count + 1))))
            case 2: lines[at].insert(UInt8(ascii: "\""), at: Int(random.next() % UInt64(lines[at].count + 1)))
            case 3: lines[at].insert(0, at: Int(random.next() % UInt64(lines[at].count + 1)))
            case 4: lines[at] += Array(",".utf8) + [UInt8](repeating: UInt8(ascii: "9"), count: 200_000)
            case 5: lines[at] = Array("\"u,1\",\"\"\"".utf8)
            case 6: lines[at] += [13]  // CRLF
            case 7: lines[at] = [0xEF, 0xBB, 0xBF] + lines[at]
            default: lines[at] = [0xC3, 0x28, 0xFF] + lines[at]  // invalid UTF-8
            }
        }
        var bytes: [UInt8] = lines.reduce(into: []) { $0 += $1 + [10] }
        if random.next() % 4 == 0 { bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1)))) }
        return bytes
    }
}
