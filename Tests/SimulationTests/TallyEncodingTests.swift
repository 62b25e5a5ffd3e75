import Simulation
import XCTest

/// Tallies stored by earlier builds, with fewer counters, read back with the missing ones 0.
final class TallyEncodingTests: XCTestCase {
    /// A tally of a small run with every count non-zero where it can be, and the same counts laid out
    /// as a build before platforms stored them: the counters and slot counters they lacked left out.
    func testATallyStoredBeforePlatformsReadsBackWithTheirCountsZero() throws {
        let s = Fixtures.scenario(users: 300, days: 40, population: Fixtures.population(.exponential(mean: 2, unit: .days)),
                                  configurations: [Fixtures.reminder([1, 2], label: "r", rules: ["1 *"])])
        let tally = try CompiledModel(s).run().tallies[1]
        let l = tally.layout
        XCTAssertGreaterThan(tally[.delivered], 0)
        var old: [Int64] = Array(tally.counts[0..<Counter.dropped.rawValue])
        for slot in 0..<(l.messageSlots + l.periodSlots) {
            let start = l.messageOffset + slot * SlotCounter.allCases.count
            old += tally.counts[start..<(start + SlotCounter.dropped.rawValue)]
        }
        old += tally.counts[l.dailyOffset..<l.promptOffset]
        let read = try XCTUnwrap(Tally(layout: l, encodedCounts: Tally.encode(old)))
        XCTAssertEqual(read.counts, tally.counts, "the run had no platforms: its platform counts are 0 anyway")
        // A count that fits no form is refused.
        XCTAssertNil(Tally(layout: l, encodedCounts: Tally.encode(old + [1])))
        XCTAssertEqual(Tally(layout: l, encodedCounts: tally.encodedCounts())?.counts, tally.counts)
    }
}
