import CronEngine
import ReminderSimTestSupport
@testable import Simulation
import XCTest

/// The looked-up masks against the engine's own answers, rule by rule.
final class CronLaunchTableTests: XCTestCase {
    /// Rule texts of both modes: one and two fields, `*`, `*/N`, `*/0`, numbers, text the released
    /// parser reads as 0 or cannot read, negatives.
    let documented = ["1 1", "2 1", "1 *", "2 *", "3", "*", "1 */7", "*/2 *", "* */3", "*/3 */2", "0 0", "1 */1", "*/1 */0"]
    let original = ["1 1", "1 */7", "x */2", "*/3 *", "2", "1 2 3", "", "1 */-3", "-1 1", "1 7/2", "* *", "1 */0"]

    func answers(_ rules: [CronRule], _ counters: LaunchCounters) -> UInt64 {
        var mask: UInt64 = 0
        for (r, rule) in rules.enumerated() where rule.matches(counters) { mask |= 1 << UInt64(r) }
        return mask
    }

    func check(_ rules: [CronRule], days: Int, file: StaticString = #filePath, line: UInt = #line) {
        let table = CronLaunchTable(rules: rules, days: days)
        let view = table.view
        rules.withUnsafeBufferPointer { buffer in
            // Inside the tables and past each of their edges.
            let width = CronLaunchTable.totalWidth
            for activeDays in 0...(days + 5) {
                for launchesToday in 0...(CronLaunchTable.launchesWidth + 3) {
                    for totalLaunches in [0, 1, 2, 3, 4, 7, 100, width - 1, width, width + 1, width + 6, 3 * width] {
                        let counters = LaunchCounters(totalLaunches: totalLaunches, launchesToday: launchesToday,
                                                      activeDays: activeDays)
                        XCTAssertEqual(view.matches(buffer, counters), answers(rules, counters),
                                       "\(counters)", file: file, line: line)
                    }
                }
            }
        }
    }

    func testDocumentedRulesMatchAsTheEngineAnswers() throws {
        check(try documented.map { try CronRule(parsing: $0, mode: .documented) }, days: 30)
    }

    func testOriginalRulesMatchAsTheEngineAnswers() throws {
        check(try original.map { try CronRule(parsing: $0, mode: .original) }, days: 15)
    }

    func testSixtyFourRulesUseEveryBit() throws {
        var g = TestRandom(seed: 7)
        let rules = try (0..<64).map { _ in
            try CronRule(parsing: documented[Int(g.next() % UInt64(documented.count))], mode: .documented)
        }
        check(rules, days: 10)
    }

    func testNoRulesNeverMatch() {
        check([], days: 3)
    }
}
