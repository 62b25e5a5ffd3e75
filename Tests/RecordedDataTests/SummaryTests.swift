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
}
