import Foundation
import XCTest
@testable import RecordedData

/// JSON-lines logs: fields by dotted path, key/value records, escapes, numbers as ids, event types and
/// UTC offsets.
final class JSONLinesTests: XCTestCase {
    let mixpanel = LogFormat(
        delimiter: .jsonLines, userColumn: "properties.distinct_id", timeColumn: "properties.time",
        timestamp: .epochSeconds, eventTypeColumn: "event")

    /// The values the reader finds on one line, as text ("<absent>", "<null>" where there is none).
    func found(_ line: String, _ paths: [String]) -> [String]? {
        var reader = JSONLineReader(paths: paths)
        var bytes = Array(line.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer -> [String]? in
            let line = UnsafeBufferPointer(buffer)
            guard reader.read(line) == nil else { return nil }
            return reader.values.map { value in
                switch value {
                case .absent: return "<absent>"
                case .null: return "<null>"
                case .string, .number: return JSONLineReader.withContent(of: value, in: line) { String(decoding: $0, as: UTF8.self) }
                default: return "<\(value.kind)>"
                }
            }
        }
    }

    func testPathsFindNestedMembersAndKeyValueRecords() {
        let line = #"{"a":{"b":[1,{"c":2}],"d":"x"},"event_params":[{"value":{"string_value":null,"int_value":"17"},"key":"ga_session_id"},"#
            + #"{"key":"page","value":{"string_value":"home","int_value":null}},{"key":"n","value":3.5}],"z":null}"#
        XCTAssertEqual(found(line, ["a.d", "event_params.ga_session_id", "event_params.page", "event_params.n", "z", "a.q", "a"]),
                       ["x", "17", "home", "3.5", "<null>", "<absent>", "<an object>"])
    }

    func testEscapesAreUndoneAndNumbersAreTheirText() {
        XCTAssertEqual(found(#"{"id":"caf\u00e9 \ud83d\ude00 \"q\" a\/b\\","n":-12.5e3}"#, ["id", "n"]),
                       ["café 😀 \"q\" a/b\\", "-12.5e3"])
        XCTAssertEqual(found(#"{"a\u0062":1}"#, ["ab"]), ["1"], "member names are compared with escapes undone")
    }

    func testStrictGrammar() {
        for bad in [#"{"a":1,}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":tru}"#, #"{'a':1}"#, #"{"a":"\x"}"#, "{\"a\":\"\t\"}",
                    #"{"a":1} {}"#, #"{"a":[1,2}"#, #"{"a""#, "[]", "\"s\"", "12", "{\"a\":\"\\u12\"}"] {
            XCTAssertNil(found(bad, ["a"]), bad)
        }
        XCTAssertNotNil(found(" \t{ \"a\" : [ ] , \"b\" : { } } ", ["a"]))
    }

    /// A field a path reads, given twice in one object (or reached twice through a repeated parent or
    /// key/value record), is refused rather than read as one of its values; repeated names the paths do
    /// not read are left alone.
    func testAFieldGivenTwiceIsRefused() {
        for line in [#"{"u":1,"u":2}"#, #"{"p":{"u":1},"p":{"u":2}}"#, #"{"p":[{"key":"u","value":1},{"key":"u","value":2}]}"#] {
            var reader = JSONLineReader(paths: line.contains("p") ? ["p.u"] : ["u"])
            let failure = Array(line.utf8).withUnsafeBufferPointer { reader.read($0) }
            XCTAssertEqual(failure?.reason, "the field '\(line.contains("p") ? "p.u" : "u")' is given more than once", line)
        }
        XCTAssertEqual(found(#"{"u":1,"x":2,"x":3}"#, ["u"]), ["1"])
    }

    func testNumbersAndStringsNameTheSameUser() throws {
        let log = try RecordedLog.parse(
            #"{"event":"open","properties":{"time":1704067200,"distinct_id":42}}"# + "\n"
                + #"{"event":"open","properties":{"time":1704153600,"distinct_id":"42"}}"# + "\n",
            format: mixpanel)
        XCTAssertEqual(log.users, [UserVisits(id: "42", visits: [1_704_067_200, 1_704_153_600])])
    }

    /// A number id is read by its value, worked out on its digits: a whole number written with a
    /// fraction or an exponent is the same user; a fraction (however small) keeps its text.
    func testWholeNumbersWrittenAsFloatsNameTheSameUser() throws {
        let ids = ["42", "42.0", "4.2e1", "420E-1", "\"42\"", "42.5", "-0", "0", "1e300", "1e16", "10000000000000000",
                   "1e-400", "9007199254740993.0", "9007199254740993", "42.000000000000001"]
        let text = ids.enumerated().map { i, id in
            #"{"event":"open","properties":{"time":\#(1_704_067_200 + i * 86_400),"distinct_id":\#(id)}}"#
        }.joined(separator: "\n")
        let log = try RecordedLog.parse(text, format: mixpanel)
        XCTAssertEqual(Set(log.users.map(\.id)), ["42", "42.5", "0", "1e300", "10000000000000000", "1e-400",
                                                   "9007199254740993", "42.000000000000001"])
        XCTAssertEqual(log.users.first { $0.id == "9007199254740993" }?.visits.count, 2)
        XCTAssertEqual(log.users.first { $0.id == "10000000000000000" }?.visits.count, 2)
        XCTAssertEqual(log.users.first { $0.id == "42" }?.visits.count, 5)
        XCTAssertEqual(log.users.first { $0.id == "0" }?.visits.count, 2)
    }

    /// Leading zeros, however many, are dropped in one step: an id of a million zeros is read at once.
    func testAnIdOfManyZerosIsReadInLinearTime() throws {
        let zeros = String(repeating: "0", count: 1_000_000)
        let text = #"{"event":"open","properties":{"time":1704067200,"distinct_id":0.\#(zeros)}}"# + "\n"
            + #"{"event":"open","properties":{"time":1704153600,"distinct_id":0.\#(zeros)5}}"#
        let started = Date()
        let log = try RecordedLog.parse(text, format: mixpanel)
        // The first is zero; the second a fraction, which keeps its text.
        XCTAssertEqual(log.users.map(\.id).sorted(), ["0", "0.\(zeros)5"])
        // Dropped one at a time, the zeros took minutes; in one step, milliseconds.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    /// An offset field holds whole seconds: written plainly, with a sign, or as a float (`3600.0`, `36e2`);
    /// a fraction is not whole, and a whole number past UTC+14 is out of range, whatever its length.
    func testOffsetsWrittenAsFloatsAreTheirValue() {
        func read(_ text: String) -> String {
            Array(text.utf8).withUnsafeBufferPointer { bytes in
                switch UTCOffsetTally.seconds(bytes) {
                case let .success(seconds): return String(seconds)
                case let .failure(bad): return bad.reason
                }
            }
        }
        for (text, seconds) in [("3600", "3600"), ("+3600", "3600"), ("-3600", "-3600"), ("3600.0", "3600"), ("36e2", "3600"),
                                ("+36E2", "3600"), ("-3.6e3", "-3600"), ("-0.0", "0"), ("360000e-2", "3600"),
                                ("00000003600", "3600"), ("-000000000000", "0")] {
            XCTAssertEqual(read(text), seconds, text)
        }
        for text in ["3600.5", "1e5x", "1.e5", ".5", "e5", "36e", "--1", "1+1", "", "+", "3600.0.0"] {
            XCTAssertEqual(read(text), "UTC offset \(Excerpt.quoted(text)) is not a whole number of seconds", text)
        }
        XCTAssertEqual(read("9999999999999"), "UTC offset '9999999999999' s is outside UTC−12 to UTC+14")
        XCTAssertEqual(read("1e5"), "UTC offset 100000 s is outside UTC−12 to UTC+14")
    }

    func testEventTypesAreCountedAndFiltered() throws {
        var format = mixpanel
        format.excludedEventTypes = ["purchase"]
        let text = ["open", "purchase", "open", "view"].enumerated().map { i, name in
            #"{"event":"\#(name)","properties":{"time":\#(1_704_067_200 + i * 86_400),"distinct_id":"u"}}"#
        }.joined(separator: "\n")
        let log = try RecordedLog.parse(text, format: format)
        XCTAssertEqual(log.visitCount, 3)
        XCTAssertEqual(log.filtered, 1)
        XCTAssertEqual(log.eventTypes, [
            EventTypeCount(name: "open", rows: 2, kept: true), EventTypeCount(name: "purchase", rows: 1, kept: false),
            EventTypeCount(name: "view", rows: 1, kept: true),
        ])
    }

    func testAPositionIsNoPath() {
        let format = LogFormat(delimiter: .jsonLines, userColumn: 0, timeColumn: "t")
        XCTAssertThrowsError(try RecordedLog.parse(#"{"t":"2024-01-01"}"#, format: format))
    }

    func testMicrosecondsAreExactForWholeSeconds() throws {
        XCTAssertEqual(try TimestampFormat.epochMicroseconds.seconds(from: "1704067200000000"), 1_704_067_200)
        XCTAssertEqual(try TimestampFormat.epochMicroseconds.seconds(from: "1704067200250000"), 1_704_067_200.25)
    }

    func testOffsetsComeFromZonesOrAColumnAtEachUsersEarliestEvent() throws {
        let zoned = try RecordedLog.parse(
            "user,time\na,2024-03-02T10:00:00+02:00\na,2024-03-01T10:00:00+01:00\nb,2024-03-01T10:00:00Z\nc,2024-03-01T10:00:00\n",
            format: csvFormat)
        XCTAssertEqual(zoned.utcOffsets, UTCOffsetTally(users: [3_600: 1, 0: 1], unknown: 1))

        var format = LogFormat(delimiter: .comma, userColumn: "user", timeColumn: "time", timestamp: .epochSeconds)
        format.utcOffsetColumn = "tz"
        let columns = try RecordedLog.parse("user,time,tz\na,1704067200,19800\nb,1704067300,\nb,1704067400,-18000\n", format: format)
        XCTAssertEqual(columns.utcOffsets, UTCOffsetTally(users: [19_800: 1, -18_000: 1], unknown: 0))
        let issue = expectIssue { try RecordedLog.parse("user,time,tz\na,1704067200,99999\n", format: format) }
        XCTAssertEqual(issue?.reason, "UTC offset 99999 s is outside UTC−12 to UTC+14")
        let plain = try RecordedLog.parse("user,time\na,2024-03-01T10:00:00\n", format: csvFormat)
        XCTAssertTrue(plain.utcOffsets.isEmpty)
        // A timestamp's own offset is held to the same range (fit writes the tally into a scenario): a bad row,
        // unless an offset column gives the row's offset.
        let stated = expectIssue { try RecordedLog.parse("user,time\na,2024-01-01T00:00:00-23:59\n", format: csvFormat) }
        XCTAssertEqual(stated?.reason, "timestamp '2024-01-01T00:00:00-23:59' states the UTC offset −23:59, outside UTC−12 to UTC+14")
        XCTAssertNotNil(expectIssue { try RecordedLog.parse("user,time\na,2024-01-01T00:00:00+14:30\n", format: csvFormat) })
        let edges = try RecordedLog.parse("user,time\na,2024-01-01T00:00:00-12:00\nb,2024-01-01T00:00:00+14:00\n", format: csvFormat)
        XCTAssertEqual(edges.utcOffsets, UTCOffsetTally(users: [-43_200: 1, 50_400: 1], unknown: 0))
        var overridden = LogFormat(delimiter: .comma, userColumn: "user", timeColumn: "time")
        overridden.utcOffsetColumn = "tz"
        let column = try RecordedLog.parse("user,time,tz\na,2024-01-01T00:00:00-23:59,3600\n", format: overridden)
        XCTAssertEqual(column.utcOffsets, UTCOffsetTally(users: [3_600: 1], unknown: 0))
    }
}
