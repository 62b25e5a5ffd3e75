import Foundation
import ReminderSimTestSupport
import XCTest

/// `fit` reports Pareto/NBD beside BG/NBD and writes its per-customer predictions.
final class ParetoNBDFitTests: ReminderSimTestCase {
    static let cdnow = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Datasets/cdnow/CDNOW_master.txt").path

    func testFitOnCDNOWReportsParetoNBDAndWritesItsPredictions() throws {
        let fit = try remindersim("fit", Self.cdnow, "--format", "cdnow", "--calibration-end", "1997-09-30",
                                  "--observation-end", "1998-06-30", "--out", "fit")
        assertExit(fit, 0)
        // lifetimes' ParetoNBDFitter on the same whole-day summaries: r 0.5974, α 11.59, s 0.5222, β 8.828,
        // log-likelihood −95,415.12 (scripts/lifetimes-reference.py).
        assertContains(fit.stdout, "Pareto/NBD on the same customers (times in weeks):\n"
            + "  r 0.5974 ± 0.017, alpha 11.59 ± 0.3, s 0.5222 ± 0.046, beta 8.828 ± 1.5; log-likelihood -95415.1")
        assertContains(fit.stdout, "AIC minus BG/NBD's: +93.3 (BG/NBD describes these customers better)")

        let rows = try String(contentsOf: workDirectory.appendingPathComponent("fit/customers.csv"), encoding: .utf8)
            .split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.first?.suffix(2), ["pareto_nbd_probability_alive", "pareto_nbd_expected_repeat_visits"])
        XCTAssertEqual(rows.count, 23_571)
        var total = 0.0
        for row in rows.dropFirst() {
            let alive = try XCTUnwrap(Double(row[7]), row.joined(separator: ","))
            XCTAssertTrue(alive > 0 && alive <= 1, row.joined(separator: ","))
            total += try XCTUnwrap(Double(row[8]))
        }
        // The sum of the customers' expectations over the holdout is the holdout check's prediction.
        let printed = try XCTUnwrap(fit.stdout.components(separatedBy: "Holdout check: 19,684 repeat visits observed, ").last?
            .split(separator: " ").first.flatMap { Double($0.replacingOccurrences(of: ",", with: "")) })
        XCTAssertEqual(total, printed, accuracy: 0.5)
    }
}
