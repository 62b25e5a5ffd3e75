import Rendering
import ReminderSimTestSupport
import XCTest

final class TickScaleTests: XCTestCase {
    func testTypicalRanges() {
        let days = TickScale.nice(lower: 0, upper: 89, maxIntervals: 10)
        XCTAssertEqual(days.step, 10)
        XCTAssertEqual(days.values, stride(from: 0.0, through: 90, by: 10).map { $0 })

        let fractions = TickScale.nice(lower: 0, upper: 1, maxIntervals: 5)
        XCTAssertEqual(fractions.values, [0, 0.2, 0.4, 0.6, 0.8, 1])

        let retention = TickScale.nice(lower: 0, upper: 0.47, maxIntervals: 5)
        XCTAssertEqual(retention.step, 0.1)
        XCTAssertEqual(retention.values, [0, 0.1, 0.2, 0.3, 0.4, 0.5])

        let lift = TickScale.nice(lower: -0.09, upper: 0.265, maxIntervals: 6)
        XCTAssertEqual(lift.step, 0.1)
        XCTAssertEqual(lift.values, [-0.1, 0, 0.1, 0.2, 0.3])

        let users = TickScale.nice(lower: 0, upper: 9_640, maxIntervals: 5)
        XCTAssertEqual(users.step, 2_000)
        XCTAssertEqual(users.upper, 10_000)
    }

    func testTickValuesAreExactDecimals() {
        let scale = TickScale.nice(lower: 0, upper: 1, maxIntervals: 10)
        XCTAssertEqual(scale.values[3], 0.3)
        XCTAssertEqual(scale.values[7], 0.7)
    }

    func testDegenerateRanges() {
        XCTAssertEqual(TickScale.nice(lower: 0, upper: 0).values.first, 0)
        XCTAssertEqual(TickScale.nice(lower: 0, upper: 0).values.last, 1)
        let equal = TickScale.nice(lower: 3, upper: 3)
        XCTAssertLessThan(equal.lower, 3)
        XCTAssertGreaterThan(equal.upper, 3)
        let nonFinite = TickScale.nice(lower: .nan, upper: .infinity)
        XCTAssertEqual([nonFinite.lower, nonFinite.upper], [0, 1])
        let swapped = TickScale.nice(lower: 10, upper: -10, maxIntervals: 4)
        XCTAssertEqual(swapped.values, [-10, -5, 0, 5, 10])
        let huge = TickScale.nice(lower: -1e308, upper: 1e308)
        XCTAssertTrue(huge.values.allSatisfy(\.isFinite))
        let tiny = TickScale.nice(lower: .leastNonzeroMagnitude, upper: .leastNonzeroMagnitude * 2000)
        XCTAssertTrue(tiny.values.allSatisfy(\.isFinite))
        XCTAssertEqual(TickScale.nice(lower: 0, upper: 7, maxIntervals: 0).values, [0, 10])
        XCTAssertEqual(TickScale.nice(lower: -1, upper: 7, maxIntervals: 1).values, [-10, 0, 10])
    }

    func testStepsAreOneTwoFiveAndCoverTheRange() {
        var random = TestRandom(seed: 11)
        for _ in 0..<2000 {
            let magnitude = pow(10, Double(Int(random.next() % 24)) - 12)
            let a = (Double(random.next() % 2_000_001) / 1_000_000 - 1) * magnitude
            let b = a + Double(random.next() % 1_000_001) / 1_000_000 * magnitude
            let intervals = Int(random.next() % 10) + 1
            let scale = TickScale.nice(lower: a, upper: b, maxIntervals: intervals)
            XCTAssertLessThanOrEqual(scale.values.count - 1, a < 0 && b > 0 ? max(2, intervals) : intervals)
            XCTAssertLessThanOrEqual(scale.lower, a, "\(a) \(b) \(intervals) \(scale)")
            XCTAssertGreaterThanOrEqual(scale.upper, b)
            let leading = scale.step / pow(10, log10(scale.step).rounded(.down))
            XCTAssertTrue([1, 2, 5, 10].contains { abs(leading - $0) < 1e-9 }, "\(scale.step)")
            for (previous, next) in zip(scale.values, scale.values.dropFirst()) {
                XCTAssertEqual(next - previous, scale.step, accuracy: scale.step * 1e-9)
            }
        }
    }

    func testLabels() {
        let percent = TickScale.nice(lower: 0, upper: 0.2, maxIntervals: 4)
        XCTAssertEqual(percent.labels(format: .percent), ["0%", "5%", "10%", "15%", "20%"])
        let finePercent = TickScale.nice(lower: 0, upper: 0.01, maxIntervals: 5)
        XCTAssertEqual(finePercent.labels(format: .percent), ["0%", "0.2%", "0.4%", "0.6%", "0.8%", "1.0%"])
        // Differences of fractions read as percentage points, not as percentages of something.
        let points = TickScale.nice(lower: -0.02, upper: 0.03, maxIntervals: 5)
        XCTAssertEqual(points.labels(format: .percentagePoints), ["-2 pp", "-1 pp", "0", "1 pp", "2 pp", "3 pp"])
        let counts = TickScale.nice(lower: 0, upper: 12_000, maxIntervals: 6)
        XCTAssertEqual(counts.labels(format: .number), ["0", "2,000", "4,000", "6,000", "8,000", "10,000", "12,000"])
        let millions = TickScale.nice(lower: -1_000_000, upper: 2_500_000, maxIntervals: 7)
        XCTAssertEqual(millions.labels(format: .number), ["-1.0M", "-0.5M", "0", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M"])
        let billions = TickScale.nice(lower: 0, upper: 4e9, maxIntervals: 4)
        XCTAssertEqual(billions.labels(format: .number), ["0", "1B", "2B", "3B", "4B"])
        let small = TickScale.nice(lower: -0.3, upper: 0.3, maxIntervals: 6)
        XCTAssertEqual(small.labels(format: .number), ["-0.3", "-0.2", "-0.1", "0", "0.1", "0.2", "0.3"])
    }
}
