import Foundation
import XCTest
@testable import RecordedData

final class ImportTests: XCTestCase {
    // MARK: Empty input

    func testEmptyFileIsAnError() throws {
        let path = try temporaryFile("", in: self)
        let error = expectImportError { try RecordedLog.read(file: path, format: csvFormat) }
        XCTAssertEqual(error, .emptyFile(file: path))
        XCTAssertEqual(error?.description, "\(path) is empty: there is not even a header line")
        XCTAssertEqual(expectImportError { try RecordedLog.parse("\n  \r\n\n", format: csvFormat) }, .emptyFile(file: "<text>"))
    }

    func testHeaderOnlyHasNoEvents() throws {
        let path = try temporaryFile("user,time\n", in: self)
        let error = expectImportError { try RecordedLog.read(file: path, format: csvFormat) }
        XCTAssertEqual(error, .noEvents(file: path, rows: 0, skipped: 0, filtered: 0))
        XCTAssertTrue(error?.description.contains("no usable events") ?? false)
    }

    func testMissingFileCannotBeRead() {
        guard case .cannotRead(let file, _) = expectImportError({
            try RecordedLog.read(file: "/nonexistent/visits.csv", format: csvFormat)
        }) else { return XCTFail("expected cannotRead") }
        XCTAssertEqual(file, "/nonexistent/visits.csv")
    }

    // MARK: Visits and gaps

    func testOneUserWithOneVisitHasOnlyACensoredGap() throws {
        let log = try RecordedLog.parse("user,time\na,2024-03-01T08:00:00Z\n", format: csvFormat,
                                        observationEnd: march1(hour: 8) + 86_400)
        XCTAssertEqual(log.users, [UserVisits(id: "a", visits: [march1(hour: 8)])])
        XCTAssertEqual(log.gaps(unit: .days), [CensoredGap(duration: 1, censored: true)])
        XCTAssertEqual(log.observationEnd, march1(hour: 8) + 86_400)

        let openEnded = try RecordedLog.parse("user,time\na,2024-03-01T08:00:00Z", format: csvFormat)
        XCTAssertEqual(openEnded.observationEnd, march1(hour: 8), "without an explicit end, the last event ends observation")
        XCTAssertEqual(openEnded.gaps(unit: .hours), [CensoredGap(duration: 0, censored: true)])
    }

    func testUnsortedRowsGiveTheSameVisitsAsSortedRows() throws {
        let times = ["10:00", "08:00", "09:00", "08:10", "12:00", "08:20"]
        let unsorted = "user,time\n" + times.map { "a,2024-03-01T\($0):00Z\n" }.joined()
        let sorted = "user,time\n" + times.sorted().map { "a,2024-03-01T\($0):00Z\n" }.joined()
        let fromUnsorted = try RecordedLog.parse(unsorted, format: csvFormat)
        let fromSorted = try RecordedLog.parse(sorted, format: csvFormat)
        XCTAssertEqual(fromUnsorted.users, fromSorted.users)
        // 08:00-08:20 is one visit; 09:00 is 40 minutes after 08:20.
        XCTAssertEqual(fromUnsorted.users[0].visits, [march1(hour: 8), march1(hour: 9), march1(hour: 10), march1(hour: 12)])
        XCTAssertEqual(fromUnsorted.gaps(unit: .hours).map(\.duration), [1, 1, 2, 0])
    }

    func testDuplicateRowsCollapseAndAreCounted() throws {
        let text = """
            user,time
            a,2024-03-01T08:00:00Z
            a,2024-03-01T08:00:00Z
            b,2024-03-01T09:00:00Z
            a,2024-03-01T08:00:00Z
            b,2024-03-01T09:00:00Z
            """
        let log = try RecordedLog.parse(text, format: csvFormat)
        XCTAssertEqual(log.rows, 5)
        XCTAssertEqual(log.events, 5)
        XCTAssertEqual(log.duplicates, 3)
        XCTAssertEqual(log.visitCount, 2)
    }

    func testMixedTimeZonesAreConvertedToUTC() throws {
        let text = "user,time\na,2024-03-01T10:00:00+02:00\na,2024-03-01T08:00:00Z\nb,2024-03-01T03:00:00-05:00\n"
        var format = csvFormat
        format.sessionGapMinutes = 0
        let log = try RecordedLog.parse(text, format: format)
        XCTAssertEqual(log.users[0].visits, [march1(hour: 8)], "the same instant written in two zones is one event")
        XCTAssertEqual(log.duplicates, 1)
        XCTAssertEqual(log.users[1].visits, [march1(hour: 8)])
    }

    func testDenseIndicesFollowFirstSeenOrder() throws {
        let text = "user,time\nb,2024-03-01T08:00:00Z\na,2024-03-01T09:00:00Z\nb,2024-03-01T10:00:00Z\nc,2024-03-01T11:00:00Z\n"
        XCTAssertEqual(try RecordedLog.parse(text, format: csvFormat).users.map(\.id), ["b", "a", "c"])
    }

    // MARK: Bad rows

    func testTimestampAfterObservationEnd() throws {
        let text = "user,time\na,2024-03-01T08:00:00Z\na,2024-03-02T08:00:00Z\nb,2024-03-01T09:00:00Z\n"
        let end = march1(hour: 23)
        let issue = expectIssue { try RecordedLog.parse(text, format: csvFormat, observationEnd: end) }
        XCTAssertEqual(issue?.line, 3)
        XCTAssertTrue(issue?.reason.contains("after the end of observation") ?? false, issue?.reason ?? "")
        XCTAssertEqual(issue?.column, "time (position 1)")

        let log = try RecordedLog.parse(text, format: csvFormat, observationEnd: end, onBadRow: .skip)
        XCTAssertEqual(log.skipped, 1)
        XCTAssertEqual(log.events, 2)
        XCTAssertEqual(log.issues.map(\.line), [3])
        XCTAssertEqual(log.observationEnd, end)
        XCTAssertEqual(log.gaps(unit: .hours), [CensoredGap(duration: 15, censored: true), CensoredGap(duration: 14, censored: true)])
    }

    /// Header, then 10,000 data rows on lines 2…10,001, the last one broken.
    private func fileWithBadLine10001() throws -> String {
        var text = "user,time\n"
        for row in 1..<10_000 {
            text += "user\(row % 97),\(CivilTime.isoString(march1() + Double(row) * 3_600))\n"
        }
        text += "user5,not-a-time\n"
        return try temporaryFile(text, in: self)
    }

    func testMalformedLine10001StopsWithItsLineNumber() throws {
        let path = try fileWithBadLine10001()
        let issue = expectIssue { try RecordedLog.read(file: path, format: csvFormat, observationEnd: nil, onBadRow: .stop, chunkSize: 4_096) }
        XCTAssertEqual(issue?.line, 10_001)
        XCTAssertEqual(issue?.file, path)
        XCTAssertEqual(issue?.description, "\(path):10001: column time (position 1): cannot read timestamp 'not-a-time' as ISO 8601")
    }

    func testMalformedLine10001IsSkippedUnderSkipPolicy() throws {
        let path = try fileWithBadLine10001()
        let log = try RecordedLog.read(file: path, format: csvFormat, onBadRow: .skip)
        XCTAssertEqual(log.skipped, 1)
        XCTAssertEqual(log.rows, 10_000)
        XCTAssertEqual(log.events, 9_999)
        XCTAssertEqual(log.issues.map(\.line), [10_001])
        XCTAssertEqual(log.users.count, 97)
    }

    func testSkipPolicyKeepsTenExamples() throws {
        let text = "user,time\n" + (1...25).map { "u\($0),bad\($0)\n" }.joined() + "a,2024-03-01T08:00:00Z\n"
        let log = try RecordedLog.parse(text, format: csvFormat, onBadRow: .skip)
        XCTAssertEqual(log.skipped, 25)
        XCTAssertEqual(log.issues.count, 10)
        XCTAssertEqual(log.issues.first?.line, 2)
        let allBad = "user,time\n" + (1...3).map { "u\($0),bad\n" }.joined()
        XCTAssertEqual(expectImportError { try RecordedLog.parse(allBad, format: csvFormat, onBadRow: .skip) },
                       .noEvents(file: "<text>", rows: 3, skipped: 3, filtered: 0))
    }

    func testWrongFieldCountAndEmptyUserID() {
        let extra = expectIssue { try RecordedLog.parse("user,time\na,2024-03-01T08:00:00Z,x\n", format: csvFormat) }
        XCTAssertEqual(extra?.line, 2)
        XCTAssertEqual(extra?.reason, "expected 2 fields, found 3")
        let empty = expectIssue { try RecordedLog.parse("user,time\n  ,2024-03-01T08:00:00Z\n", format: csvFormat) }
        XCTAssertEqual(empty?.reason, "empty user id")
        XCTAssertEqual(empty?.column, "user (position 0)")
        let noHeader = LogFormat(hasHeader: false, userColumn: 0, timeColumn: 2)
        let short = expectIssue { try RecordedLog.parse("a,x\n", format: noHeader) }
        XCTAssertEqual(short?.reason, "expected at least 3 fields, found 2")
    }

    /// A line of more fields than a column can be at is refused as it is split: its fields are never
    /// all kept (a line of 16 million commas took 27 times its size). The last position is still read.
    func testALineOfTooManyFieldsIsABadRow() throws {
        let commas = String(repeating: ",", count: 50_000)
        let wide = expectIssue { try RecordedLog.parse("user,time\na,2024-03-01T08:00:00Z\(commas)\n", format: csvFormat) }
        XCTAssertEqual(wide?.line, 2)
        XCTAssertEqual(wide?.reason, "more than 10001 fields (a log's columns are at positions 0 to 10000)")
        let spaced = LogFormat(delimiter: .whitespace, hasHeader: false, userColumn: 0, timeColumn: 1)
        let words = expectIssue { try RecordedLog.parse("a 2024-03-01T08:00:00Z" + String(repeating: " x", count: 10_000) + "\n", format: spaced) }
        XCTAssertEqual(words?.reason, "more than 10001 fields (a log's columns are at positions 0 to 10000)")
        // Exactly 10,001 fields, the time at the last position: read.
        let last = LogFormat(hasHeader: false, userColumn: 0, timeColumn: 10_000)
        let log = try RecordedLog.parse("a" + String(repeating: ",", count: 9_999) + ",2024-03-01T08:00:00Z\n", format: last)
        XCTAssertEqual(log.users.count, 1)
    }

    func testUnparseableTimestampShowsTheText() {
        let issue = expectIssue { try RecordedLog.parse("user,time\na,2024-02-30T00:00:00Z\n", format: csvFormat, name: "visits.csv") }
        XCTAssertEqual(issue?.description, "visits.csv:2: column time (position 1): cannot read timestamp '2024-02-30T00:00:00Z' as ISO 8601")
    }

    // MARK: Lines and CSV

    func testCRLFAndMissingFinalNewline() throws {
        let path = try temporaryFile("user,time\r\na,2024-03-01T08:00:00Z\r\n\r\nb,2024-03-01T09:00:00Z", in: self)
        let log = try RecordedLog.read(file: path, format: csvFormat)
        XCTAssertEqual(log.users, [UserVisits(id: "a", visits: [march1(hour: 8)]), UserVisits(id: "b", visits: [march1(hour: 9)])])
        XCTAssertEqual(log.rows, 2)
        let issue = expectIssue { try RecordedLog.parse("user,time\r\n\r\na,2024-03-01T08:00:00Z\r\nb,x\r\n", format: csvFormat) }
        XCTAssertEqual(issue?.line, 4, "blank lines count in line numbers")
    }

    func testByteOrderMarkIsIgnored() throws {
        let log = try RecordedLog.parse("\u{FEFF}user,time\na,2024-03-01T08:00:00Z\n", format: csvFormat)
        XCTAssertEqual(log.users.map(\.id), ["a"])
    }

    func testQuotedCSVFields() throws {
        let text = #"""
            "user","time"
            "Smith, John",2024-03-01T08:00:00Z
            "say ""hi""","2024-03-01T09:00:00Z"
            plain,2024-03-01T10:00:00Z
            """#
        let log = try RecordedLog.parse(text, format: csvFormat)
        XCTAssertEqual(log.users.map(\.id), ["Smith, John", "say \"hi\"", "plain"])
        XCTAssertEqual(log.users[1].visits, [march1(hour: 9)])
    }

    func testQuotedLineBreakIsRejectedClearly() throws {
        let issue = expectIssue { try RecordedLog.parse("user,time\n\"two\nlines\",2024-03-01T08:00:00Z\n", format: csvFormat) }
        XCTAssertEqual(issue?.line, 2)
        XCTAssertTrue(issue?.reason.contains("line breaks inside quoted fields are not supported") ?? false, issue?.reason ?? "")
        // Quoted fields never span lines in a log: the open quote makes its own row bad, and the
        // next line is read afresh (before, every later line was taken for the quote's continuation).
        let skipped = try RecordedLog.parse(
            "user,time\n\"u8,1735689600\nb,2024-03-01T09:00:00Z\nc,2024-03-01T10:00:00Z\n", format: csvFormat, onBadRow: .skip)
        XCTAssertEqual(skipped.users.map(\.id), ["b", "c"], "only the row with the open quote is bad")
        XCTAssertEqual(skipped.skipped, 1)
        XCTAssertEqual(skipped.issues.map(\.line), [2])
        // A stray quote in the middle of a long log costs one row, not the rest of the file.
        var long = "user,time\n"
        for i in 0..<1_000 { long += "u\(i % 7),\(1_735_689_600 + i * 3_600)\n" }
        long += "\"u8,1735689600,open\n"
        for i in 0..<1_000 { long += "v\(i % 5),\(1_735_689_600 + i * 3_600)\n" }
        let stray = try RecordedLog.parse(long, format: LogFormat(userColumn: "user", timeColumn: "time", timestamp: .epochSeconds),
                                          onBadRow: .skip)
        XCTAssertEqual(stray.skipped, 1)
        XCTAssertEqual(stray.rows, 2_001)
        XCTAssertEqual(stray.users.count, 12)
        let trailing = expectIssue { try RecordedLog.parse("user,time\n\"a\"b,2024-03-01T08:00:00Z\n", format: csvFormat) }
        XCTAssertEqual(trailing?.reason, "unexpected character after the closing quote of field 1")
    }

    func testOtherDelimiters() throws {
        let tab = LogFormat(delimiter: .tab, userColumn: "user", timeColumn: "time")
        XCTAssertEqual(try RecordedLog.parse("user\ttime\na b\t2024-03-01T08:00:00Z\n", format: tab).users.map(\.id), ["a b"])
        let semicolon = LogFormat(delimiter: .character(";"), userColumn: "user", timeColumn: "time", timestamp: .dateTime)
        XCTAssertEqual(try RecordedLog.parse("user;time\n\"x;y\";2024-03-01 08:00:00\n", format: semicolon).users.map(\.id), ["x;y"])
        let spaces = LogFormat(delimiter: .whitespace, userColumn: "user", timeColumn: "time", timestamp: .epochSeconds)
        XCTAssertEqual(try RecordedLog.parse("  user   time \n\t a \t 1709280000  \n", format: spaces).users[0].visits, [march1(hour: 8)])
        XCTAssertThrowsError(try RecordedLog.parse("", format: LogFormat(delimiter: .character("é"), userColumn: 0, timeColumn: 1)))
    }

    func testChunkBoundariesDoNotChangeTheResult() throws {
        var text = "user,time\r\n"
        for row in 0..<500 {
            text += "\"u\((row * 37) % 23)\",\(CivilTime.isoString(march1() + Double((row * 7_919) % 100_000)))\r\n"
        }
        let path = try temporaryFile(text, in: self)
        let reference = try RecordedLog.read(file: path, format: csvFormat)
        for chunkSize in [1, 2, 3, 7, 64, 1_000] {
            let log = try RecordedLog.read(file: path, format: csvFormat, observationEnd: nil, onBadRow: .stop, chunkSize: chunkSize)
            XCTAssertEqual(log.users, reference.users, "chunk size \(chunkSize)")
            XCTAssertEqual(log.rows, 500)
        }
    }

    // MARK: Columns

    func testColumnsByPositionAndByName() throws {
        let noHeader = LogFormat(hasHeader: false, userColumn: 1, timeColumn: 0)
        XCTAssertEqual(try RecordedLog.parse("2024-03-01T08:00:00Z,a\n", format: noHeader).users.map(\.id), ["a"])
        let byName = LogFormat(userColumn: "User_ID", timeColumn: "Timestamp")
        let log = try RecordedLog.parse("extra,user_id,timestamp\nx,a,2024-03-01T08:00:00Z\n", format: byName)
        XCTAssertEqual(log.users.map(\.id), ["a"], "header names match without regard to case")
    }

    func testANameTheHeaderHoldsTwiceIsAmbiguous() throws {
        let byName = LogFormat(userColumn: "user", timeColumn: "time")
        XCTAssertEqual(expectImportError { try RecordedLog.parse("user,user,time\na,b,2024-03-01T08:00:00Z\n", format: byName) },
                       .ambiguousColumn(file: "<text>", name: "user", positions: [0, 1]))
        // Twice without regard to case, and no exact match: as ambiguous.
        XCTAssertEqual(expectImportError { try RecordedLog.parse("User,USER,time\na,b,2024-03-01T08:00:00Z\n", format: byName) },
                       .ambiguousColumn(file: "<text>", name: "user", positions: [0, 1]))
        // One exact match among others that differ in case only: the exact one.
        XCTAssertEqual(try RecordedLog.parse("User,user,time\na,b,2024-03-01T08:00:00Z\n", format: byName).users.map(\.id), ["b"])
    }

    func testMissingAndImpossibleColumns() {
        XCTAssertEqual(expectImportError { try RecordedLog.parse("id,when\na,1\n", format: csvFormat) },
                       .missingColumn(file: "<text>", name: "user", header: ["id", "when"]))
        let tooFar = LogFormat(userColumn: 0, timeColumn: 5)
        XCTAssertEqual(expectImportError { try RecordedLog.parse("id,when\na,1\n", format: tooFar) },
                       .columnOutOfRange(file: "<text>", position: 5, fieldCount: 2))
        let namedWithoutHeader = LogFormat(hasHeader: false, userColumn: "user", timeColumn: 1)
        guard case .invalidFormat = expectImportError({ try RecordedLog.parse("a,1\n", format: namedWithoutHeader) }) else {
            return XCTFail("a named column without a header is a format error")
        }
    }

    // MARK: Timestamp formats in files

    func testEpochSecondsAndMillisecondsFiles() throws {
        let seconds = LogFormat(userColumn: "user", timeColumn: "time", timestamp: .epochSeconds)
        XCTAssertEqual(try RecordedLog.parse("user,time\na,1709280000\n", format: seconds).users[0].visits, [march1(hour: 8)])
        let millis = LogFormat(userColumn: "user", timeColumn: "time", timestamp: .epochMilliseconds)
        let visits = try RecordedLog.parse("user,time\na,1709280000000\na,1709283600500\n", format: millis).users[0].visits
        XCTAssertEqual(visits, [march1(hour: 8), march1(hour: 9) + 0.5])
    }

    func testCustomPatternFile() throws {
        let format = LogFormat(userColumn: "user", timeColumn: "time", timestamp: .custom("dd.MM.yyyy HH:mm"),
                               defaultUTCOffsetSeconds: 3_600)
        let log = try RecordedLog.parse("user,time\na,01.03.2024 09:00\n", format: format)
        XCTAssertEqual(log.users[0].visits, [march1(hour: 8)])
    }

    // MARK: Visit grouping

    func testSessionGapCollapse() throws {
        let text = "user,time\n" + ["08:00", "08:29", "08:58", "09:28", "10:30"].map { "a,2024-03-01T\($0):00Z\n" }.joined()
        let log = try RecordedLog.parse(text, format: csvFormat)
        // 08:00→08:29→08:58 chain within 30 minutes; 09:28 is exactly 30 minutes on, which is not closer than the gap.
        XCTAssertEqual(log.users[0].visits, [march1(hour: 8), march1(hour: 9, minute: 28), march1(hour: 10, minute: 30)])
        var fiveMinutes = csvFormat
        fiveMinutes.sessionGapMinutes = 5
        XCTAssertEqual(try RecordedLog.parse(text, format: fiveMinutes).visitCount, 5)
        var invalid = csvFormat
        invalid.sessionGapMinutes = -1
        XCTAssertThrowsError(try RecordedLog.parse(text, format: invalid))
    }

    func testSessionColumnDefinesVisits() throws {
        let format = LogFormat(userColumn: "user", timeColumn: "time", sessionColumn: "session")
        let text = """
            user,session,time
            a,s1,2024-03-01T08:05:00Z
            a,s1,2024-03-01T08:00:00Z
            a,s2,2024-03-01T08:10:00Z
            a,s1,2024-03-01T15:00:00Z
            b,s1,2024-03-01T09:00:00Z
            a,s2,2024-03-01T08:10:00Z
            """
        let log = try RecordedLog.parse(text, format: format)
        XCTAssertEqual(log.users[0].visits, [march1(hour: 8), march1(hour: 8, minute: 10)],
                       "a session id is one visit however far apart or close its events are")
        XCTAssertEqual(log.users[1].visits, [march1(hour: 9)], "session ids belong to their user")
        XCTAssertEqual(log.duplicates, 1)
        let issue = expectIssue { try RecordedLog.parse("user,session,time\na,,2024-03-01T08:00:00Z\n", format: format) }
        XCTAssertEqual(issue?.reason, "empty session id")
    }

    func testEventTypeFilter() throws {
        let format = LogFormat(userColumn: "user", timeColumn: "time", eventTypeColumn: "event", keptEventTypes: ["app_open"])
        let text = """
            user,time,event
            a,2024-03-01T08:00:00Z,app_open
            a,2024-03-01T12:00:00Z,push_received
            b,not-a-time,push_received
            a,2024-03-01T13:00:00Z,app_open
            """
        let log = try RecordedLog.parse(text, format: format)
        XCTAssertEqual(log.filtered, 2)
        XCTAssertEqual(log.events, 2)
        XCTAssertEqual(log.users.map(\.id), ["a"], "users seen only in filtered rows do not appear")
        XCTAssertEqual(log.users[0].visits, [march1(hour: 8), march1(hour: 13)])
    }

    func testCalendarDayVisitsUseTheDefaultOffset() throws {
        var format = csvFormat
        format.visitsByCalendarDay = true
        let text = "user,time\na,2024-03-01T01:00:00Z\na,2024-03-01T23:00:00Z\na,2024-03-02T00:30:00Z\n"
        XCTAssertEqual(try RecordedLog.parse(text, format: format).users[0].visits, [march1(), march1() + 86_400])
        format.defaultUTCOffsetSeconds = 7_200
        // At +02:00 the last two events are both on 2 March, local time.
        XCTAssertEqual(try RecordedLog.parse(text, format: format).users[0].visits, [march1() - 7_200, march1() + 86_400 - 7_200])
    }
}
