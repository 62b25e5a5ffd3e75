import Foundation
import XCTest
@testable import RecordedData

/// The real CDNOW master log (Fader, Hardie & Lee 2005), read where the project keeps it.
final class CDNOWTests: XCTestCase {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Datasets/cdnow/CDNOW_master.txt").path

    private func day(_ y: Int, _ m: Int, _ d: Int) -> Double { CivilTime.epochSeconds(year: y, month: m, day: d) }

    private func load() throws -> RecordedLog {
        return try RecordedLog.read(file: Self.path, format: .cdnow, observationEnd: day(1998, 6, 30))
    }

    func testImportFigures() throws {
        let log = try load()
        XCTAssertEqual(log.users.count, 23_570)
        XCTAssertEqual(log.rows, 69_659)
        XCTAssertEqual(log.events, 69_659)
        // Distinct (customer, day) pairs, counted independently with awk.
        XCTAssertEqual(log.visitCount, 67_591)
        XCTAssertEqual(log.duplicates, 69_659 - 67_591, "the log is sorted per customer, so duplicates are exact")
        XCTAssertEqual(log.skipped, 0)
        XCTAssertEqual(log.firstVisit, day(1997, 1, 1))
        XCTAssertEqual(log.lastVisit, day(1998, 6, 30))
        XCTAssertEqual(log.users.first?.id, "00001")
        XCTAssertEqual(log.users.last?.id, "23570")
    }

    func testSameDayPurchasesAreOneVisit() throws {
        let log = try load()
        let customer2 = try XCTUnwrap(log.users.first { $0.id == "00002" })
        XCTAssertEqual(customer2.visits, [day(1997, 1, 12)], "two rows on 1997-01-12 make one visit")
        let customer29 = try XCTUnwrap(log.users.first { $0.id == "00029" })
        XCTAssertEqual(customer29.visits.filter { $0 == day(1997, 7, 13) }.count, 1)
    }

    func testSummariesAndGapsAreConsistent() throws {
        let log = try load()
        let calibrationEnd = day(1997, 9, 30)
        let summaries = log.customerSummaries(calibrationEnd: calibrationEnd, unit: .weeks)
        XCTAssertEqual(summaries.count, 23_570, "every customer first bought in the first quarter of 1997")
        XCTAssertTrue(summaries.allSatisfy { $0.recency <= $0.age && $0.frequency >= 0 })
        let holdout = log.holdoutCounts(calibrationEnd: calibrationEnd, holdoutEnd: day(1998, 6, 30))
        XCTAssertEqual(summaries.reduce(0) { $0 + $1.frequency } + holdout.reduce(0, +) + summaries.count, log.visitCount)

        let gaps = log.gaps(unit: .days)
        XCTAssertEqual(gaps.count, log.visitCount)
        XCTAssertEqual(gaps.filter(\.censored).count, 23_570)
        let km = KaplanMeier(gaps)
        XCTAssertGreaterThan(km.plateau, 0, "many customers never came back before June 1998")
        XCTAssertNil(km.quantile(u: 1 - km.plateau / 2))
    }
}
