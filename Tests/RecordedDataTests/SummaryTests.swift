import XCTest
@testable import RecordedData

final class SummaryTests: XCTestCase {
    private let day = 86_400.0
    private let base = CivilTime.epochSeconds(year: 2024, month: 1, day: 1)

    /// a: days 0, 3, 10, 20; b: day 15 only; c: day 5 only. Calibration ends day 12, holdout day 25,
    /// observation day 30.
    private var log: RecordedLog {
        RecordedLog(users: [
            UserVisits(id: "a", visits: [0, 10, 3, 20].map { base + $0 * day }),
            UserVisits(id: "b", visits: [base + 15 * day]),
            UserVisits(id: "c", visits: [base + 5 * day]),
        ], observationEnd: base + 30 * day)
    }

    func testFrequencyRecencyAge() {
        let summaries = log.customerSummaries(calibrationEnd: base + 12 * day, unit: .days)
        XCTAssertEqual(summaries.map(\.id), ["a", "c"], "b first visits after the calibration end")
        // a: repeat visits on days 3 and 10 → x = 2, t_x = 10, T = 12.
        XCTAssertEqual(summaries[0], CustomerSummary(frequency: 2, recency: 10, age: 12, user: 0, id: "a"))
        XCTAssertEqual(summaries[1], CustomerSummary(frequency: 0, recency: 0, age: 7, user: 2, id: "c"))
        let weeks = log.customerSummaries(calibrationEnd: base + 12 * day, unit: .weeks)
        XCTAssertEqual(weeks[0].recency, 10.0 / 7, accuracy: 1e-12)
        XCTAssertEqual(weeks[0].age, 12.0 / 7, accuracy: 1e-12)
    }

    func testVisitOnTheCalibrationEndCounts() {
        let summaries = log.customerSummaries(calibrationEnd: base + 10 * day, unit: .days)
        XCTAssertEqual(summaries[0].frequency, 2)
        XCTAssertEqual(summaries[0].recency, 10)
    }

    func testHoldoutCounts() {
        XCTAssertEqual(log.holdoutCounts(calibrationEnd: base + 12 * day, holdoutEnd: base + 25 * day), [1, 0])
        XCTAssertEqual(log.holdoutCounts(calibrationEnd: base + 12 * day, holdoutEnd: base + 20 * day), [1, 0], "the holdout end is inclusive")
        XCTAssertEqual(log.holdoutCounts(calibrationEnd: base + 12 * day, holdoutEnd: base + 19 * day), [0, 0])
        XCTAssertEqual(log.holdoutCounts(calibrationEnd: base + 2 * day, holdoutEnd: base + 30 * day), [3])
    }

    func testGapsWithRightCensoring() {
        XCTAssertEqual(log.gaps(unit: .days), [
            CensoredGap(duration: 3, censored: false), CensoredGap(duration: 7, censored: false),
            CensoredGap(duration: 10, censored: false), CensoredGap(duration: 10, censored: true),
            CensoredGap(duration: 15, censored: true),
            CensoredGap(duration: 25, censored: true),
        ])
        XCTAssertEqual(log.gaps(unit: .weeks)[1].duration, 1)
        XCTAssertEqual(log.firstVisit, base)
        XCTAssertEqual(log.lastVisit, base + 20 * day)
        XCTAssertEqual(log.visitCount, 6)
    }

    // MARK: Whole days

    func testWholeDayConventionCountsDaysToTheCutOffDay() {
        // Visits dated at the start of their day, as a day-resolution import dates them; the cut-off is the
        // last second of day 12, as --calibration-end gives it.
        let cutOff = base + 13 * day - 1
        let continuous = log.customerSummaries(calibrationEnd: cutOff, unit: .days)
        let whole = log.customerSummaries(calibrationEnd: cutOff, unit: .days, convention: .wholeDays(utcOffsetSeconds: 0))
        XCTAssertEqual(continuous[0].age, 13 - 1 / day, accuracy: 1e-9, "continuous: to the cut-off instant")
        XCTAssertEqual(whole[0], CustomerSummary(frequency: 2, recency: 10, age: 12, user: 0, id: "a"))
        XCTAssertEqual(whole[1], CustomerSummary(frequency: 0, recency: 0, age: 7, user: 2, id: "c"))
        XCTAssertEqual(log.holdoutLength(calibrationEnd: cutOff, holdoutEnd: base + 30 * day,
                                         convention: .wholeDays(utcOffsetSeconds: 0)), 18 * day)
        XCTAssertEqual(log.holdoutLength(calibrationEnd: cutOff, holdoutEnd: base + 30 * day), 17 * day + 1)
    }

    func testWholeDaysIncludeEveryVisitOnTheCutOffDay() {
        // A cut-off in the middle of day 10 still takes the visit of day 10 (dated 00:00) and leaves day 11's out.
        let log = RecordedLog(users: [UserVisits(id: "a", visits: [0, 10, 11].map { base + $0 * day })],
                              observationEnd: base + 20 * day, calendarDayOffset: 0)
        XCTAssertEqual(log.summaryConvention, .wholeDays(utcOffsetSeconds: 0))
        let s = log.customerSummaries(calibrationEnd: base + 10.5 * day, unit: .days)
        XCTAssertEqual(s, [CustomerSummary(frequency: 1, recency: 10, age: 10, user: 0, id: "a")])
        XCTAssertEqual(log.holdoutCounts(calibrationEnd: base + 10.5 * day, holdoutEnd: base + 11.2 * day), [1])
        XCTAssertEqual(log.holdoutCounts(calibrationEnd: base + 10.5 * day, holdoutEnd: base + 10.9 * day), [0])
    }

    func testWholeDaysInAnotherOffset() {
        // UTC+2: the day starts at 22:00 UTC the evening before.
        let offset = 7_200
        let start = base - 7_200  // local midnight of day 0
        let log = RecordedLog(users: [UserVisits(id: "a", visits: [start, start + 4 * day])],
                              observationEnd: start + 9 * day, calendarDayOffset: offset)
        let s = log.customerSummaries(calibrationEnd: start + 7 * day - 1, unit: .days)
        XCTAssertEqual(s.first?.age, 6)
        XCTAssertEqual(s.first?.recency, 4)
    }

    func testDayResolutionImportsUseWholeDays() throws {
        let byDay = try RecordedLog.parse("u,2024-01-01T10:00\nu,2024-01-03T09:00\n", format: LogFormat(
            hasHeader: false, userColumn: 0, timeColumn: 1, visitsByCalendarDay: true))
        XCTAssertEqual(byDay.summaryConvention, .wholeDays(utcOffsetSeconds: 0))
        let timed = try RecordedLog.parse("u,2024-01-01T10:00\nu,2024-01-03T09:00\n", format: LogFormat(
            hasHeader: false, userColumn: 0, timeColumn: 1))
        XCTAssertEqual(timed.summaryConvention, .continuous)
    }
}
