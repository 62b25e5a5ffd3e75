import Foundation
import XCTest
@testable import RecordedData

final class TimestampTests: XCTestCase {
    private func parse(_ text: String, _ format: TimestampFormat, offset: Int = 0) throws -> Double? {
        try format.seconds(from: text, defaultUTCOffsetSeconds: offset)
    }

    func testDaysFromCivilKnownDates() {
        XCTAssertEqual(CivilTime.daysFromCivil(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(CivilTime.daysFromCivil(year: 1969, month: 12, day: 31), -1)
        XCTAssertEqual(CivilTime.daysFromCivil(year: 2000, month: 3, day: 1), 11_017)
        XCTAssertEqual(CivilTime.daysFromCivil(year: 2024, month: 2, day: 29), 19_782)
    }

    func testDaysFromCivilRoundTripsAndMatchesFoundation() {
        for days in stride(from: -800_000, through: 800_000, by: 7) {
            let (y, m, d) = CivilTime.civilFromDays(days)
            XCTAssertEqual(CivilTime.daysFromCivil(year: y, month: m, day: d), days, "day \(days)")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for (y, m, d) in [(1700, 3, 1), (1900, 2, 28), (1999, 12, 31), (2000, 2, 29), (2038, 1, 19), (2400, 12, 31)] {
            let date = calendar.date(from: DateComponents(year: y, month: m, day: d))!
            XCTAssertEqual(CivilTime.epochSeconds(year: y, month: m, day: d), date.timeIntervalSince1970, "\(y)-\(m)-\(d)")
        }
    }

    func testISOStringFormatsUTC() {
        XCTAssertEqual(CivilTime.isoString(march1(hour: 8, minute: 5) + 7), "2024-03-01T08:05:07Z")
        XCTAssertEqual(CivilTime.isoString(-1), "1969-12-31T23:59:59Z")
    }

    func testISO8601ZonesAllMeanTheSameInstant() throws {
        let instant = march1(hour: 8)
        XCTAssertEqual(instant, 1_709_280_000)
        XCTAssertEqual(try parse("2024-03-01T08:00:00Z", .iso8601), instant)
        XCTAssertEqual(try parse("2024-03-01T10:00:00+02:00", .iso8601), instant)
        XCTAssertEqual(try parse("2024-03-01T13:30:00+0530", .iso8601), instant)
        XCTAssertEqual(try parse("2024-03-01T03:00:00-05", .iso8601), instant)
        XCTAssertEqual(try parse("2024-02-29T23:00:00-09:00", .iso8601), instant)
        XCTAssertEqual(try parse("2024-03-01 08:00:00z", .iso8601), instant)
        XCTAssertEqual(try parse("2024-03-01T08:00Z", .iso8601), instant)
    }

    func testISO8601WithoutZoneUsesTheDefaultOffset() throws {
        XCTAssertEqual(try parse("2024-03-01T08:00:00", .iso8601), march1(hour: 8))
        XCTAssertEqual(try parse("2024-03-01T09:00:00", .iso8601, offset: 3_600), march1(hour: 8))
        XCTAssertEqual(try parse("2024-03-01", .iso8601, offset: -3_600), march1(hour: 1))
        XCTAssertEqual(try parse("2024-03-01T09:00:00Z", .iso8601, offset: 3_600), march1(hour: 9), "an explicit zone wins")
    }

    func testISO8601Fractions() throws {
        XCTAssertEqual(try parse("2024-03-01T08:00:00.250Z", .iso8601), march1(hour: 8) + 0.25)
        XCTAssertEqual(try XCTUnwrap(parse("2024-03-01T08:00:00,123456789+00:00", .iso8601)), march1(hour: 8) + 0.123456789, accuracy: 1e-6)
    }

    func testImpossibleOrMalformedTimestampsAreRejected() throws {
        for text in ["2024-02-30", "2023-02-29", "2024-13-01", "2024-00-10", "2024-03-01T24:00:00Z",
                     "2024-03-01T10:60:00Z", "2024-03-01T10:00:00+2", "2024-03-01T10:00:00+02:0",
                     "2024-03-01T10:00:00.Z", "2024-03-01T10:00:00 Z", "2024/03/01", "garbage", "", "2024-3-1"] {
            XCTAssertNil(try parse(text, .iso8601), text)
        }
        XCTAssertNil(try parse("2024-03-01T08:00:00", .dateTime))
        XCTAssertNil(try parse("1997011", .compactDate))
        XCTAssertNil(try parse("199701123", .compactDate))
        XCTAssertNil(try parse("12a", .epochSeconds))
        XCTAssertNil(try parse("", .epochMilliseconds))
    }

    func testFixedFormats() throws {
        XCTAssertEqual(try parse("2024-03-01 08:00:00", .dateTime), march1(hour: 8))
        XCTAssertEqual(try parse("2024-03-01 10:00:00", .dateTime, offset: 7_200), march1(hour: 8))
        XCTAssertEqual(try parse("19970112", .compactDate), CivilTime.epochSeconds(year: 1997, month: 1, day: 12))
    }

    func testEpochSecondsAndMilliseconds() throws {
        XCTAssertEqual(try parse("1709280000", .epochSeconds), march1(hour: 8))
        XCTAssertEqual(try parse("1709280000.5", .epochSeconds), march1(hour: 8) + 0.5)
        XCTAssertEqual(try parse("-86400", .epochSeconds), -86_400)
        XCTAssertEqual(try XCTUnwrap(parse("1709280000123", .epochMilliseconds)), march1(hour: 8) + 0.123, accuracy: 1e-6)
    }

    func testCustomPatterns() throws {
        XCTAssertEqual(try parse("01/03/2024 08:00", .custom("dd/MM/yyyy HH:mm")), march1(hour: 8))
        XCTAssertEqual(try parse("2024-03-01T08:00:00.500", .custom("yyyy-MM-dd'T'HH:mm:ss.SSS")), march1(hour: 8) + 0.5)
        XCTAssertEqual(try parse("2024.03.01 at 10h", .custom("yyyy.MM.dd 'at' HH'h'"), offset: 7_200), march1(hour: 8))
        XCTAssertNil(try parse("01/03/2024 8:00", .custom("dd/MM/yyyy HH:mm")), "fields are fixed width")
        XCTAssertNil(try parse("31/02/2024 08:00", .custom("dd/MM/yyyy HH:mm")))
    }

    func testUnsupportedPatternsAreFormatErrors() {
        for pattern in ["yyyy-MM-dd hh:mm", "yy-MM-dd", "yyyy-MM", "yyyy-MM-dd 'T"] {
            XCTAssertThrowsError(try TimestampFormat.custom(pattern).seconds(from: "x"), pattern) { error in
                guard case .invalidFormat(let message) = error as? ImportError else {
                    return XCTFail("expected invalidFormat for \(pattern), got \(error)")
                }
                XCTAssertTrue(message.contains(pattern), message)
            }
        }
    }
}
