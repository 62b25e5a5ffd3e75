import Foundation
import ReminderSimTestSupport
import XCTest

/// `import` and `fit` on logs as analysts have them: header or not, compressed, with a wild timestamp.
final class LogsAsFoundCommandTests: ReminderSimTestCase {
    private func dailyRows(_ count: Int) -> [String] {
        (0..<count).map { i in
            let day = String(format: "2024-%02d-%02d", 1 + i / 28 % 12, 1 + i % 28)
            return "u\(i % 30),\(day)T10:00:00Z"
        }
    }

    func testTheHeaderDecisionIsSaidOnStderr() throws {
        try writeFile("headed.csv", (["user,time"] + dailyRows(300)).joined(separator: "\n") + "\n")
        let headed = try remindersim("import", "headed.csv")
        assertExit(headed, 0)
        assertContains(headed.stderr, "headed.csv: read the first line as a header: 'user', 'time'")
        assertContains(headed.stdout, "300 rows")

        try writeFile("bare.csv", dailyRows(300).joined(separator: "\n") + "\n")
        let bare = try remindersim("import", "bare.csv")
        assertExit(bare, 0)
        assertContains(bare.stdout, "300 rows", "the first row is data")
        XCTAssertFalse(bare.stderr.contains("header"), bare.stderr)
        let forced = try remindersim("import", "bare.csv", "--header")
        assertContains(forced.stdout, "299 rows")
        assertContains(forced.stderr, "read the first line as a header: 'u0', '2024-01-01T10:00:00Z'")

        let both = try remindersim("import", "bare.csv", "--header", "--no-header")
        assertExit(both, 64)
        assertContains(both.stderr, "--header and --no-header")
        let cdnow = try remindersim("import", "bare.csv", "--format", "cdnow", "--no-header")
        assertExit(cdnow, 64)
    }

    func testCompressedLogsAndOutliers() throws {
        let text = (dailyRows(300) + ["u7,2999-01-01T10:00:00Z"]).joined(separator: "\n") + "\n"
        try writeFile("visits.csv", text)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-k", workDirectory.appendingPathComponent("visits.csv").path]
        try gzip.run()
        gzip.waitUntilExit()
        XCTAssertEqual(gzip.terminationStatus, 0)

        let result = try remindersim("import", "visits.csv.gz")
        assertExit(result, 0)
        assertContains(result.stdout, "301 rows")
        assertContains(result.stdout, "observation end 2024-11-20")
        assertContains(result.stderr, "visits.csv.gz: 1 visit outside")
        assertContains(result.stderr, "left out as outliers (--keep-outliers keeps them); an outlier is more than the span")
        assertContains(result.stderr, "visits.csv.gz:301: column position 1: timestamp 2999-01-01T10:00:00Z is an outlier")
        let kept = try remindersim("import", "visits.csv.gz", "--keep-outliers")
        assertContains(kept.stdout, "observation end 2999-01-01")

        try writeFile("broken.csv.gz", Data([0x1F, 0x8B, 0x08, 0x00, 0xFF, 0xFE, 0x1B, 0x5B]))
        let broken = try remindersim("import", "broken.csv.gz")
        assertExit(broken, 65)
        assertContains(broken.stderr, "broken.csv.gz: cannot decompress")
        XCTAssertFalse(broken.stderr.unicodeScalars.contains { $0.value == 0x1B }, "no raw control bytes")
    }

    func testDegenerateFitsAreSentences() throws {
        // Every user visits once: no gap ends, and BG/NBD has nothing to fit.
        try writeFile("once.csv", (0..<300).map { "u\($0),2024-01-\(String(format: "%02d", 1 + $0 % 28))T10:00:00Z" }
            .joined(separator: "\n") + "\n")
        let fit = try remindersim("fit", "once.csv", "--out", "fit")
        assertContains(fit.stdout, "not fitted (no user was seen coming back, so every gap is censored)")
        for enumText in ["noUncensoredObservations", "degenerateData(", "invalidParameter(", "optimizationFailed"] {
            XCTAssertFalse(fit.stdout.contains(enumText) || fit.stderr.contains(enumText), enumText)
        }
    }
}
