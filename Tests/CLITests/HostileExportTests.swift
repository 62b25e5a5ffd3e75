import Foundation
import ReminderSimTestSupport
import XCTest

/// Damaged or hostile exports: each stops the import with exit 65 and a message naming the file, the
/// archive entry, the line and the reason; none crashes.
final class HostileExportTests: ReminderSimTestCase {
    static let good = #"{"event":"app_open","properties":{"time":1704067200,"distinct_id":"u1"}}"# + "\n"
        + #"{"event":"app_open","properties":{"time":1704153600,"distinct_id":"u1"}}"# + "\n"

    /// Imports `file` and checks the exit and that stderr holds every fragment.
    func assertRefused(_ file: String, _ options: [String], _ fragments: [String], line: UInt = #line) throws {
        let result = try remindersim(arguments: ["import", file] + options, line: line)
        XCTAssertFalse(result.crashed, "crashed: \(result.stderr)", line: line)
        assertExit(result, 65, line: line)
        for fragment in fragments { assertContains(result.stderr, fragment, "stderr", line: line) }
    }

    func testALineThatIsNotAnObjectNamesItsLine() throws {
        try writeFile("events.json", Self.good + "[1, 2]\n")
        try assertRefused("events.json", ["--format", "mixpanel"], ["events.json:3:", "not a JSON object", "an array"])
    }

    func testAMissingFieldNamesItsPath() throws {
        try writeFile("events.json", Self.good + #"{"event":"app_open","properties":{"time":1704067200}}"# + "\n")
        try assertRefused("events.json", ["--format", "mixpanel"], ["events.json:3:", "no field 'properties.distinct_id'"])
    }

    func testAnObjectWhereAnIdBelongsIsRefused() throws {
        try writeFile("events.json", #"{"event":"app_open","properties":{"time":1704067200,"distinct_id":{"a":1}}}"# + "\n")
        try assertRefused("events.json", ["--format", "mixpanel"], ["events.json:1:", "properties.distinct_id", "an object"])
    }

    func testBrokenJSONIsRefusedStrictly() throws {
        for (n, text) in [#"{"event":"a","properties":{"time":1,"distinct_id":"u"},}"#, #"{"event":'a'}"#,
                          #"{"event":"a\q"}"#, #"{"event":"a"} x"#, #"{"event":01}"#, #"{"event":"a"#].enumerated() {
            try writeFile("broken\(n).json", Self.good + text + "\n")
            try assertRefused("broken\(n).json", ["--format", "mixpanel"], ["broken\(n).json:3:"])
        }
    }

    func testDeepNestingIsRefusedWithoutExhaustingTheStack() throws {
        let deep = #"{"event":"a","x":"# + String(repeating: "[", count: 200_000) + "\n"
        try writeFile("deep.json", Self.good + deep)
        try assertRefused("deep.json", ["--format", "mixpanel"], ["deep.json:3:", "nested more than 256 levels"])
    }

    func testAnOverlongLineIsRefused() throws {
        let padding = String(repeating: "a", count: 17 << 20)
        try writeFile("long.json", Self.good + #"{"event":"\#(padding)"}"# + "\n")
        try assertRefused("long.json", ["--format", "mixpanel"], ["long.json:3:", "line longer than 16 MiB"])
    }

    func testATruncatedArchiveIsRefused() throws {
        let zip = ExportFixtures.zip([(name: "1/1_2024-01-01_0#0.json.gz", content: ExportFixtures.gzip(Self.amplitude))])
        try writeFile("export.zip", Data(zip.prefix(zip.count / 2)))
        try assertRefused("export.zip", ["--format", "amplitude"], ["export.zip", "cut short"])
    }

    func testAnArchiveCutInsideAnEntryIsRefused() throws {
        let content = ExportFixtures.gzip(Self.amplitude)
        var zip = ExportFixtures.zip([(name: "1/a.json.gz", content: content)])
        // Damage the entry's compressed bytes, keeping the directory whole.
        for i in 40..<min(60, zip.count) { zip[i] = 0xFF }
        try writeFile("export.zip", Data(zip))
        try assertRefused("export.zip", ["--format", "amplitude"], ["export.zip entry 1/a.json.gz", "cannot decompress"])
    }

    func testAGzipMemberThatIsNotJSONNamesTheEntryAndLine() throws {
        let zip = ExportFixtures.zip([
            (name: "1/good.json.gz", content: ExportFixtures.gzip(Self.amplitude)),
            (name: "1/bad.json.gz", content: ExportFixtures.gzip(Self.amplitude + "user,time\nu1,2024-01-01\n")),
        ])
        try writeFile("export.zip", Data(zip))
        try assertRefused("export.zip", ["--format", "amplitude"], ["export.zip entry 1/bad.json.gz:2:", "not a JSON object"])
    }

    func testAnEntryThatIsNotGzipButClaimsToBeIsRefused() throws {
        var member = ExportFixtures.gzip(Self.amplitude)
        member.removeLast(12)
        let zip = ExportFixtures.zip([(name: "1/cut.json.gz", content: member)])
        try writeFile("export.zip", Data(zip))
        try assertRefused("export.zip", ["--format", "amplitude"], ["export.zip entry 1/cut.json.gz", "ends before its last block"])
    }

    func testAMissingFieldInAnArchiveNamesTheEntry() throws {
        let zip = ExportFixtures.zip([(name: "1/a.json.gz", content: ExportFixtures.gzip(#"{"event_type":"x","event_time":"2024-01-01 00:00:00.000000","session_id":1}"# + "\n"))])
        try writeFile("export.zip", Data(zip))
        try assertRefused("export.zip", ["--format", "amplitude"], ["export.zip entry 1/a.json.gz:1:", "no field 'amplitude_id'"])
    }

    static let amplitude = #"{"amplitude_id":7,"event_time":"2024-01-01 10:00:00.000000","event_type":"session_start","session_id":1704103200000}"# + "\n"
}
