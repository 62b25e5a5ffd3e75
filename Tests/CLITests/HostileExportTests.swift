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

    /// Directory entries that point at one entry's data (a few megabytes standing for terabytes, each
    /// entry read again) are refused before any is read; so is an entry that inflates past its stated size.
    func testEntriesSharingTheirDataAreRefused() throws {
        let content = ExportFixtures.gzip(Self.amplitude)
        var zip = ExportFixtures.zip([(name: "1/a.json.gz", content: content), (name: "1/b.json.gz", content: content)])
        func le32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(zip[at + $1]) << (8 * $1) } }
        let end = zip.count - 22, directory = le32(end + 16)
        // The second directory record's local header offset, made the first entry's.
        let second = directory + 46 + "1/a.json.gz".utf8.count
        for k in 0..<4 { zip[second + 42 + k] = 0 }
        try writeFile("shared.zip", Data(zip))
        try assertRefused("shared.zip", ["--format", "amplitude"],
                          ["shared.zip", "entries 1/a.json.gz and 1/b.json.gz share their data"])

        var small = ExportFixtures.zip([(name: "1/a.json.gz", content: content)])
        let record = (0..<4).reduce(0) { $0 | Int(small[small.count - 22 + 16 + $1]) << (8 * $1) }
        // The stated size, one byte short.
        small[record + 24] &-= 1
        try writeFile("short.zip", Data(small))
        try assertRefused("short.zip", ["--format", "amplitude"], ["short.zip entry 1/a.json.gz", "checksum (CRC-32) or size"])
    }

    func testAMissingFieldInAnArchiveNamesTheEntry() throws {
        let zip = ExportFixtures.zip([(name: "1/a.json.gz", content: ExportFixtures.gzip(#"{"event_type":"x","event_time":"2024-01-01 00:00:00.000000","session_id":1}"# + "\n"))])
        try writeFile("export.zip", Data(zip))
        try assertRefused("export.zip", ["--format", "amplitude"], ["export.zip entry 1/a.json.gz:1:", "no field 'amplitude_id'"])
    }

    static let amplitude = #"{"amplitude_id":7,"event_time":"2024-01-01 10:00:00.000000","event_type":"session_start","session_id":1704103200000}"# + "\n"
}
