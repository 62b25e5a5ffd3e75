import Foundation
import ReminderSimZlib
import XCTest
@testable import RecordedData

/// Logs as analysts have them: either CDNOW layout, with or without a header, compressed, or damaged.
final class LogsAsFoundTests: XCTestCase {
    private let master = """
         00001 19970101  1   11.77
         00002 19970112  1   12.00
         00002 19970112  5   77.00
         00003 19970102  2   20.76
         00003 19970330  2   20.76

        """

    // MARK: CDNOW layouts and header lines

    func testCDNOWWithoutAHeaderKeepsItsFirstRow() throws {
        let log = try RecordedLog.parse(master, format: .cdnow)
        XCTAssertEqual(log.rows, 5)
        XCTAssertEqual(log.users.map(\.id), ["00001", "00002", "00003"])
        XCTAssertNil(log.headerLine)
        XCTAssertEqual(log.layout, "CDNOW master layout (customer id, date, CDs, dollars)")
        let withHeader = try RecordedLog.parse(" customer_id  date number_of_cds  dollar_value\n" + master, format: .cdnow)
        XCTAssertEqual(withHeader.rows, 5)
        XCTAssertEqual(withHeader.headerLine, ["customer_id", "date", "number_of_cds", "dollar_value"])
        XCTAssertEqual(withHeader.users.map(\.visits), log.users.map(\.visits))
    }

    func testCDNOWFiveColumnLayout() throws {
        let five = "00001 1 19970101 1 11.77\n00002 2 19970112 1 12.00\n00003 3 19970102 2 20.76\n00003 3 19970330 2 20.76\n"
        let log = try RecordedLog.parse(five, format: .cdnow)
        let plain = try RecordedLog.parse(master, format: .cdnow)
        XCTAssertEqual(log.layout, "CDNOW five-column layout (customer id, second id, date, CDs, dollars)")
        XCTAssertEqual(log.users, plain.users, "the same purchases in the other layout")
        // A file mixing the two has one layout, chosen by its first row: the other rows are bad rows.
        let mixed = expectIssue { try RecordedLog.parse(five + "00004 19970105 1 5.00\n", format: .cdnow) }
        XCTAssertEqual(mixed?.line, 5)
        XCTAssertEqual(mixed?.reason, "expected 5 fields, found 4")
        let odd = expectIssue { try RecordedLog.parse("customer_id date cds dollars\n00001 19970101 1\n", format: .cdnow) }
        XCTAssertEqual(odd?.reason, "expected 4 or 5 fields, found 3")
    }

    func testGenericLogsDetectTheirHeader() throws {
        let positional = LogFormat(userColumn: 0, timeColumn: 1)
        let data = try RecordedLog.parse("a,2024-03-01T08:00:00Z\nb,2024-03-02T08:00:00Z\n", format: positional)
        XCTAssertEqual(data.rows, 2, "a first line that reads as data is data")
        XCTAssertNil(data.headerLine)
        let headed = try RecordedLog.parse("user,time\na,2024-03-01T08:00:00Z\n", format: positional)
        XCTAssertEqual(headed.rows, 1)
        XCTAssertEqual(headed.headerLine, ["user", "time"])
        var forced = positional
        forced.hasHeader = true
        let eaten = try RecordedLog.parse("a,2024-03-01T08:00:00Z\nb,2024-03-02T08:00:00Z\n", format: forced)
        XCTAssertEqual(eaten.users.map(\.id), ["b"], "an explicit header is a header")
        XCTAssertEqual(eaten.headerLine, ["a", "2024-03-01T08:00:00Z"])
        // Columns chosen by name need a header, whatever the first line looks like.
        XCTAssertEqual(try RecordedLog.parse("user,time\na,2024-03-01T08:00:00Z\n", format: csvFormat).headerLine, ["user", "time"])
        // With detection, a first line that is neither data nor a clean header is a bad row, not a header.
        let broken = expectIssue { try RecordedLog.parse("\"a,2024-03-01T08:00:00Z\nb,2024-03-02T08:00:00Z\n", format: positional) }
        XCTAssertEqual(broken?.line, 1)
    }

    // MARK: Hostile bytes

    func testNULInAUserIDIsABadRow() throws {
        let text = "u1,2024-03-01T08:00:00Z\nu1\u{0},2024-03-02T08:00:00Z\n"
        let format = LogFormat(hasHeader: false, userColumn: 0, timeColumn: 1)
        let issue = expectIssue { try RecordedLog.parse(text, format: format) }
        XCTAssertEqual(issue?.line, 2)
        XCTAssertEqual(issue?.reason, "user id 'u1\\x00' contains a NUL byte")
        let skipped = try RecordedLog.parse(text, format: format, onBadRow: .skip)
        XCTAssertEqual(skipped.users.count, 1, "the NUL row made no second user")
        XCTAssertEqual(skipped.skipped, 1)
    }

    func testExcerptsEscapeWhatATerminalWouldObey() {
        XCTAssertEqual(Excerpt.quoted("plain text"), "'plain text'")
        XCTAssertEqual(Excerpt.quoted("\u{1B}[31mred"), "'\\x1B[31mred'")
        XCTAssertEqual(Excerpt.quoted([0x61, 0xFF, 0xC3, 0xA9, 0x00]), "'a\\xFFé\\x00'")
        XCTAssertEqual(Excerpt.quoted("a\u{202E}b"), "'a\\u{202E}b'", "a bidirectional override is shown, not obeyed")
        XCTAssertEqual(Excerpt.quoted([0xC0, 0x80]), "'\\xC0\\x80'", "an overlong NUL is not UTF-8")
        XCTAssertEqual(Excerpt.quoted(String(repeating: "x", count: 100)), "'" + String(repeating: "x", count: 40) + "…'")
        XCTAssertEqual(Excerpt.name("time"), "time")
        XCTAssertEqual(Excerpt.name("ti\tme"), "'ti\\x09me'")
    }

    func testOneLineEscapesBreaksAndWhatItIsAskedTo() {
        let digits: (Unicode.Scalar) -> Bool = { $0.properties.numericType != nil }
        XCTAssertEqual(Excerpt.oneLine("plain", uppercaseHex: true, escaping: digits), "plain")
        XCTAssertEqual(Excerpt.oneLine("a\nb\r\tc", uppercaseHex: true) { _ in false }, "a\\nb\\r\\tc",
                       "line breaks and tabs are always escaped, by name")
        XCTAssertEqual(Excerpt.oneLine("x1\u{1B}", uppercaseHex: true, escaping: digits), "x\\u{31}\u{1B}",
                       "only what the predicate picks is written as a code point")
        XCTAssertEqual(Excerpt.oneLine("\u{202E}", uppercaseHex: true) { _ in true }, "\\u{202E}")
        XCTAssertEqual(Excerpt.oneLine("\u{202E}", uppercaseHex: false) { _ in true }, "\\u{202e}")
    }

    func testAHeaderOfBinaryBytesIsShownEscaped() {
        let text = "\u{1B}]0;owned\u{07},\u{202E}when\na,2024-03-01T08:00:00Z\n"
        let error = expectImportError { try RecordedLog.parse(text, format: csvFormat) }
        XCTAssertEqual(error?.description,
                       "<text>: no column named 'user' in the header (columns: '\\x1B]0;owned\\x07', '\\u{202E}when')")
    }

    func testBinaryTimestampIsQuotedEscaped() {
        var bytes = Array("user,time\na,".utf8)
        bytes += [0x1B, 0x5B, 0x32, 0x4A, 0xFF, 0x00, 0x07] + Array(repeating: UInt8(0x41), count: 200) + [0x0A]
        let issue = expectIssue { try RecordedLog.parse(String(decoding: bytes, as: UTF8.self), format: csvFormat) }
        let reason = issue?.reason ?? ""
        XCTAssertTrue(reason.hasPrefix("cannot read timestamp '\\x1B[2J"), reason)
        XCTAssertTrue(reason.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }, reason)
        XCTAssertLessThan(reason.count, 120)
    }

    // MARK: Outliers

    private func dailyLog(extra: String = "") -> String {
        var lines = ["user,time"]
        for day in 0..<300 {
            lines.append("u\(day % 40),\(CivilTime.isoString(CivilTime.epochSeconds(year: 2024, month: 1, day: 1) + Double(day) * 86_400))")
        }
        return lines.joined(separator: "\n") + "\n" + extra
    }

    func testAFarTimestampIsReportedAndLeftOut() throws {
        let log = try RecordedLog.parse(dailyLog(extra: "u3,2999-01-01T00:00:00Z\n"), format: csvFormat, name: "v.csv")
        let report = try XCTUnwrap(log.outliers)
        XCTAssertEqual(report.visits, 1)
        XCTAssertTrue(report.excluded)
        XCTAssertEqual(report.examples.map(\.line), [302])
        XCTAssertEqual(report.examples.first?.description, "v.csv:302: column time (position 1): timestamp 2999-01-01T00:00:00Z is an outlier")
        XCTAssertEqual(log.lastVisit, CivilTime.epochSeconds(year: 2024, month: 10, day: 26), "day 299 of 2024")
        XCTAssertEqual(log.observationEnd, log.lastVisit, "the observation ends with the data, not in 2999")
        XCTAssertEqual(log.visitCount, 300)

        // In JSON lines the time's field is named by its path.
        let jsonLines = dailyLog(extra: "u3,2999-01-01T00:00:00Z\n").split(separator: "\n").dropFirst().map { row in
            let parts = row.split(separator: ",")
            return #"{"who":"\#(parts[0])","when":"\#(parts[1])"}"#
        }.joined(separator: "\n") + "\n"
        let json = try RecordedLog.parse(jsonLines, format: LogFormat(delimiter: .jsonLines, userColumn: "who", timeColumn: "when"),
                                         name: "v.json")
        XCTAssertEqual(json.outliers?.examples.first?.description, "v.json:301: column when: timestamp 2999-01-01T00:00:00Z is an outlier")
        XCTAssertEqual(expectImportError { try RecordedLog.parse("\n", format: LogFormat(delimiter: .jsonLines, userColumn: "who",
                                                                                             timeColumn: "when")) }?.description,
                       "<text> is empty: it holds no JSON line")

        let kept = try RecordedLog.parse(dailyLog(extra: "u3,2999-01-01T00:00:00Z\n"), format: csvFormat, outliers: .keep)
        XCTAssertEqual(kept.outliers?.excluded, false)
        XCTAssertEqual(kept.visitCount, 301)
        XCTAssertEqual(kept.lastVisit, CivilTime.epochSeconds(year: 2999, month: 1, day: 1))
        // Early outliers too, and a user left with no visit is gone.
        let early = try RecordedLog.parse(dailyLog(extra: "lonely,1970-01-02T00:00:00Z\n"), format: csvFormat)
        XCTAssertEqual(early.outliers?.visits, 1)
        XCTAssertFalse(early.users.contains { $0.id == "lonely" })
    }

    func testOrdinaryDataHasNoOutliers() throws {
        XCTAssertNil(try RecordedLog.parse(dailyLog(), format: csvFormat).outliers)
        // Heavy-tailed but genuine: a tenth of the visits spread over the year before the rest.
        var lines = ["user,time"]
        let start = CivilTime.epochSeconds(year: 2023, month: 1, day: 1)
        for i in 0..<2_000 {
            let t = i % 10 == 0 ? start + Double(i / 10) * 86_400 * 1.8 : start + 365 * 86_400 + Double(i) * 3_600
            lines.append("u\(i % 97),\(CivilTime.isoString(t))")
        }
        XCTAssertNil(try RecordedLog.parse(lines.joined(separator: "\n"), format: csvFormat).outliers)
    }

    // MARK: Compressed logs

    private func gzip(_ parts: [String], to path: String) throws {
        let file = try XCTUnwrap(gzopen(path, "wb"))
        for part in parts {
            // Each part its own gzip member, as `cat a.gz b.gz` makes.
            var bytes = Array(part.utf8)
            XCTAssertEqual(Int(gzwrite(file, &bytes, UInt32(bytes.count))), bytes.count)
            XCTAssertEqual(gzflush(file, Z_FINISH), Z_OK)
        }
        XCTAssertEqual(gzclose(file), Z_OK)
    }

    func testGzipLogsReadLikeTheirText() throws {
        let plainPath = try temporaryFile(dailyLog(), in: self)
        let path = plainPath + ".gz"
        try gzip([dailyLog()], to: path)
        let plain = try RecordedLog.read(file: plainPath, format: csvFormat)
        let compressed = try RecordedLog.read(file: path, format: csvFormat, observationEnd: nil, onBadRow: .stop, chunkSize: 97)
        XCTAssertEqual(compressed.users, plain.users)
        XCTAssertEqual(compressed.rows, 300)
        // Two members, split in the middle of a line.
        let text = dailyLog()
        let middle = text.index(text.startIndex, offsetBy: text.count / 2 + 3)
        let twoPath = plainPath + ".two.gz"
        try gzip([String(text[..<middle]), String(text[middle...])], to: twoPath)
        XCTAssertEqual(try RecordedLog.read(file: twoPath, format: csvFormat).users, plain.users)
    }

    func testDamagedGzipIsBadDataNamedByItsFile() throws {
        let plainPath = try temporaryFile(dailyLog(), in: self)
        let path = plainPath + ".gz"
        try gzip([dailyLog()], to: path)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = plainPath + ".cut.gz"
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        XCTAssertEqual(expectImportError { try RecordedLog.read(file: cut, format: csvFormat) },
                       .corruptCompression(file: cut, reason: "the compressed data ends before its last block"))
        var garbled = Array(whole)
        for i in 12..<min(60, garbled.count) { garbled[i] ^= 0x5A }
        let bad = plainPath + ".bad.gz"
        try Data(garbled).write(to: URL(fileURLWithPath: bad))
        guard case let .corruptCompression(file, reason) = expectImportError({ try RecordedLog.read(file: bad, format: csvFormat) }) else {
            return XCTFail("a garbled stream is damaged compressed data")
        }
        XCTAssertEqual(file, bad)
        XCTAssertFalse(reason.contains(bad), "the file is named once, by the caller")
    }

    /// zlib's own file functions stop without a word at bytes after a member that do not start
    /// another: the visits in a damaged second member, or after padding, were left out silently.
    func testBytesAfterAMemberThatAreNotGzipAreAnError() throws {
        let plainPath = try temporaryFile(dailyLog(), in: self)
        let first = plainPath + ".first.gz", second = plainPath + ".second.gz"
        try gzip(["user,time\n"], to: first)
        try gzip([String(dailyLog().drop { $0 != "\n" }.dropFirst())], to: second)
        let head = try Data(contentsOf: URL(fileURLWithPath: first))
        var tail = try Data(contentsOf: URL(fileURLWithPath: second))
        let both = plainPath + ".both.gz"
        try (head + tail).write(to: URL(fileURLWithPath: both))
        XCTAssertEqual(try RecordedLog.read(file: both, format: csvFormat).rows, 300, "two sound members read whole")
        tail[1] = 0x8C  // the second member's magic bytes damaged
        for (name, appended) in [("damaged", tail), ("padded", Data(count: 512))] {
            let path = plainPath + ".\(name).gz"
            try (head + appended).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(expectImportError { try RecordedLog.read(file: path, format: csvFormat) },
                           .corruptCompression(file: path, reason: "the \(appended.count) bytes from byte \(head.count) on are not "
                               + "gzip data (a damaged member, or something appended)"), name)
        }
    }
}
