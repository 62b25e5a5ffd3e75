import XCTest
@testable import RecordedData

final class VisitAccumulatorTests: XCTestCase {
    /// A small deterministic generator, so failures replay.
    private struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// Sort, drop repeats, cluster: the definition the accumulator must reproduce.
    private func reference(_ times: [Double], gap: Double) -> (visits: [Double], duplicates: Int) {
        let distinct = Array(Set(times)).sorted()
        var visits: [Double] = []
        var previous = -Double.infinity
        for t in distinct {
            if visits.isEmpty || t - previous >= gap { visits.append(t) }
            previous = t
        }
        return (visits, times.count - distinct.count)
    }

    func testOutOfOrderEventsGiveTheSameVisitsAsSortedOnes() {
        var rng = LCG(state: 42)
        for trial in 0..<400 {
            let count = 1 + rng.next(trial < 200 ? 60 : 2_000)
            let spread = 1 + rng.next(5_000)
            let gap = Double(rng.next(120))
            let times = (0..<count).map { _ in Double(rng.next(spread)) }
            let expected = reference(times, gap: gap)

            var shuffled = VisitAccumulator()
            var duplicates = times.reduce(0) { $0 + shuffled.add($1, rule: .gap(gap)) }
            let result = shuffled.finish(rule: .gap(gap))
            duplicates += result.duplicates
            XCTAssertEqual(result.visits, expected.visits, "trial \(trial), gap \(gap)")
            XCTAssertLessThanOrEqual(duplicates, expected.duplicates, "unordered input gives a lower bound")

            var ordered = VisitAccumulator()
            var orderedDuplicates = times.sorted().reduce(0) { $0 + ordered.add($1, rule: .gap(gap)) }
            let orderedResult = ordered.finish(rule: .gap(gap))
            orderedDuplicates += orderedResult.duplicates
            XCTAssertEqual(orderedResult.visits, expected.visits, "trial \(trial)")
            XCTAssertEqual(orderedDuplicates, expected.duplicates, "time-ordered input counts duplicates exactly")
        }
    }

    func testReverseOrderStaysBoundedAndCorrect() {
        var accumulator = VisitAccumulator()
        let times = (0..<20_000).map { Double($0) * 3_600 }
        for t in times.reversed() { _ = accumulator.add(t, rule: .gap(1_800)) }
        XCTAssertEqual(accumulator.finish(rule: .gap(1_800)).visits, times)
    }

    func testCalendarDayRuleGroupsByDay() {
        let rule = VisitRule.calendarDay(offset: 0)
        var accumulator = VisitAccumulator()
        for hour in [30, 1, 23, 47, 24, 0] { _ = accumulator.add(Double(hour) * 3_600, rule: rule) }
        XCTAssertEqual(accumulator.finish(rule: rule).visits, [0, 86_400])
    }
}
