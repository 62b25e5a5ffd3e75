import Fitting
import Foundation
import RecordedData
import XCTest

/// BG/NBD against the Python package lifetimes: the same fit on CDNOW and the same per-customer predictions.
final class LifetimesAgreementTests: XCTestCase {
    func testConditionalExpectationAndProbabilityAliveMatchLifetimes() throws {
        // lifetimes evaluates FHL eq. 10 with scipy's hyp2f1 and we with a transformed series; both are
        // accurate to ~1e−12 relative where the series converges, so 1e−8 leaves room only for rounding.
        XCTAssertEqual(lifetimesConditionalReference.count, 240)
        for (r, alpha, a, b, x, tx, T, t, expected, alive) in lifetimesConditionalReference {
            let m = try BGNBDModel(r: r, alpha: alpha, a: a, b: b)
            let ours = try m.conditionalExpectedTransactions(t: t, x: x, tx: tx, T: T)
            XCTAssertEqual(ours, expected, accuracy: 1e-8 * max(expected, 1e-6), "E[Y(\(t))|\(x), \(tx), \(T)] at \(r), \(alpha), \(a), \(b)")
            XCTAssertEqual(try m.probabilityAlive(x: x, tx: tx, T: T), alive, accuracy: 1e-10, "P(alive|\(x), \(tx), \(T))")
        }
    }

    /// lifetimes' `summary_data_from_transaction_data` on the CDNOW master file with the calibration ending
    /// 1997-09-30 (whole days, divided by 7) and `BetaGeoFitter().fit` give r 0.251624, α 4.788945,
    /// a 0.723433, b 2.161087 and a log-likelihood of −95,368.44 (summed over customers).
    func testCDNOWWholeDayFitMatchesLifetimes() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets/cdnow/CDNOW_master.txt").path
        let log = try RecordedLog.read(file: path, format: .cdnow)
        XCTAssertEqual(log.summaryConvention, .wholeDays(utcOffsetSeconds: 0))
        let end = CivilTime.epochSeconds(year: 1997, month: 9, day: 30) + 86_399
        let customers = log.customerSummaries(calibrationEnd: end, unit: .weeks)
        XCTAssertEqual(customers.count, 23_570)
        let first = try XCTUnwrap(customers.first)
        XCTAssertEqual(first.age * 7, 272, accuracy: 1e-9, "first purchase 1997-01-01: 272 whole days to 1997-09-30")
        let fit = try BGNBD.fit(customers)
        XCTAssertTrue(fit.converged)
        let lifetimes = [0.251624, 4.788945, 0.723433, 2.161087]
        for (estimate, reference) in zip(fit.parameters, lifetimes) {
            XCTAssertEqual(significant(estimate.value, 4), significant(reference, 4), estimate.name)
        }
        XCTAssertEqual(fit.logLikelihood, -95_368.44, accuracy: 0.1)
    }

    private func significant(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)g", x) }
}
