import Foundation
import ScenarioData
@testable import Simulation
import XCTest

/// The sums a run makes pass the check of what a run can make, and sums edited into what no run
/// can make are found.
final class ImpossibleCountsTests: XCTestCase {
    func simulate() throws -> RunTallies {
        var scenario = Scenario.builtInDefault
        scenario.users = 400
        scenario.horizonDays = 40
        return try CompiledModel(scenario).run(options: RunOptions(threads: 1))
    }

    func testARunsCountsAndSumsArePossible() throws {
        let tallies = try simulate()
        for tally in tallies.tallies { XCTAssertNil(tally.firstImpossibleCount().map(\.reason)) }
        let sums = try XCTUnwrap(tallies.sums)
        XCTAssertNil(sums.firstImpossibleSum().map(\.reason))
        // The run has signed terms that are below zero somewhere (lifts and differences), which pass.
        XCTAssertTrue(sums.counts.contains { $0 < 0 }, "no signed sum below zero: the test shows nothing")
    }

    /// No scenario of `Datasets/` (recorded users replayed, platforms, sequences, delivery policies,
    /// a thousand configurations) makes a count or sum the check calls impossible, or sums that
    /// disagree with its tallies.
    func testEveryExampleScenariosCountsArePossible() throws {
        let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets")
        let files = try FileManager.default.contentsOfDirectory(at: datasets, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && $0.lastPathComponent != "scenario.schema.json" }
        XCTAssertGreaterThanOrEqual(files.count, 10)
        for file in files {
            var scenario = try Scenario.decode(String(contentsOf: file, encoding: .utf8), source: file.lastPathComponent)
            scenario.users = file.lastPathComponent == "thousand-periods.json" ? 60 : 600
            scenario.horizonDays = min(scenario.horizonDays, 45)
            let model = try CompiledModel(scenario, recorded: RecordedLogs.read(for: scenario, folder: datasets.path))
            let tallies = model.run(options: RunOptions(threads: 2))
            for (i, tally) in tallies.tallies.enumerated() {
                XCTAssertNil(tally.firstImpossibleCount().map(\.reason), "\(file.lastPathComponent), configuration \(i)")
            }
            let sums = try XCTUnwrap(tallies.sums, file.lastPathComponent)
            XCTAssertNil(sums.firstImpossibleSum().map(\.reason), file.lastPathComponent)
            XCTAssertNil(sums.firstDisagreement(with: tallies.tallies).map(\.reason), file.lastPathComponent)
        }
    }

    func testEditedCountsAreFound() throws {
        let tallies = try simulate()
        var tally = tallies.tallies[1]
        tally.counts[Counter.opens.rawValue] = -1
        XCTAssertEqual(tally.firstImpossibleCount()?.index, Counter.opens.rawValue)
        tally = tallies.tallies[1]
        tally.counts[Counter.opensLiftSum.rawValue] = -tally.counts[Counter.opensLiftSum.rawValue] - 1
        XCTAssertNil(tally.firstImpossibleCount().map(\.reason), "the lifts' sum is signed")
        tally = tallies.tallies[1]
        tally.counts[Counter.retainedD7.rawValue] = tally[.eligibleD7] + 1
        XCTAssertEqual(tally.firstImpossibleCount()?.index, Counter.retainedD7.rawValue)
        tally = tallies.tallies[1]
        tally.counts[tally.layout.daily(3)] = tally[.users] + 1
        XCTAssertEqual(tally.firstImpossibleCount()?.index, tally.layout.daily(3))
    }

    /// Every rate a report shows has its part at most its whole: a part edited one past its whole is
    /// found, at its place; one at its whole passes.
    func testEditedRatesOverOneAreFound() throws {
        let tallies = try simulate()
        let original = tallies.tallies[1]
        let layout = original.layout
        XCTAssertGreaterThan(layout.messageSlots, 1)
        func edited(_ index: Int, to value: (Tally) -> Int64) -> Int? {
            var t = original
            t.counts[index] = value(t)
            return t.firstImpossibleCount()?.index
        }
        let slot = layout.message(1, .delivered)
        func slotWhole(_ t: Tally) -> Int64 {
            t.message(1, .scheduled) - t.message(1, .censored) - t.message(1, .foreground) - t.message(1, .suppressed)
        }
        XCTAssertEqual(edited(slot) { slotWhole($0) + 1 }, slot, "a message slot firing more than it scheduled")
        XCTAssertNil(edited(slot) { max(slotWhole($0), $0.message(1, .responded)) }, "at its whole")
        let period = layout.period(0, .responded)
        XCTAssertEqual(edited(period) { $0.period(0, .delivered) + 1 }, period, "a period slot answered more than delivered")
        let responded = Counter.responded.rawValue
        XCTAssertEqual(edited(responded) { $0[.delivered] + 1 }, responded)
        XCTAssertEqual(edited(Counter.attributed.rawValue) { $0[.delivered] + 1 }, Counter.attributed.rawValue)
        XCTAssertEqual(edited(Counter.optOuts.rawValue) { $0[.users] + 1 }, Counter.optOuts.rawValue)
        let hour = layout.hour(20, .responded)
        XCTAssertEqual(edited(hour) { $0.hour(20, .delivered) + 1 }, hour, "an hour answered more than delivered then")
        let day23 = layout.curveRetained(day: 23)
        XCTAssertEqual(edited(day23) { $0.retention(day: 23).eligible + 1 }, day23, "the retention curve past 100%")
        XCTAssertNil(edited(day23) { $0.retention(day: 23).eligible })
        let bins = layout.curveEligibleThrough(30)
        XCTAssertEqual(edited(bins) { $0.counts[bins] + $0[.users] + 1 }, layout.curveEligibleOffset, "more users in the curve than users")
        XCTAssertGreaterThan(layout.cronRules, 0)
        let ran = layout.rule(0, .usersRan)
        XCTAssertEqual(edited(ran) { $0[.users] + 1 }, ran)
    }

    /// A run's sums over users add up to its tallies; sums that are possible on their own but are
    /// not this run's (zeroed, or one ratio's total moved) disagree, at their place.
    func testSumsDisagreeingWithTheTalliesAreFound() throws {
        let run = try simulate()
        let sums = try XCTUnwrap(run.sums)
        XCTAssertNil(sums.firstDisagreement(with: run.tallies).map(\.reason))
        var zeroed = sums
        zeroed.counts = Array(repeating: 0, count: sums.counts.count)
        XCTAssertNil(zeroed.firstImpossibleSum().map(\.reason), "zeros are possible sums")
        XCTAssertNotNil(zeroed.firstDisagreement(with: run.tallies))
        var moved = sums
        let response = sums.layout.ratio(2, .response)
        moved.counts[response] += 1
        moved.counts[response + 2] += 2 * moved.counts[response] + 1
        XCTAssertNil(moved.firstImpossibleSum().map(\.reason))
        XCTAssertEqual(moved.firstDisagreement(with: run.tallies)?.index, response)
        XCTAssertNotNil(sums.firstDisagreement(with: Array(run.tallies.dropLast())), "a configuration short")
    }

    func testEditedSumsAreFound() throws {
        let sums = try XCTUnwrap(try simulate().sums)
        let layout = sums.layout
        // A sum of squares below the magnitude of its sum: a pair's squared opens differences.
        var edited = sums
        let pair = layout.pair(at: 0)
        edited.counts[pair + PairCounter.opensDiffSquares.rawValue] = edited.counts[pair + PairCounter.opensDiff.rawValue].magnitude == 0
            ? -1 : Int64(edited.counts[pair + PairCounter.opensDiff.rawValue].magnitude) - 1
        XCTAssertEqual(edited.firstImpossibleSum()?.index, pair + PairCounter.opensDiffSquares.rawValue)
        // A ratio's Σx² below Σx.
        edited = sums
        let trigger = layout.ratio(1, .trigger)
        XCTAssertGreaterThan(edited.counts[trigger], 0)
        edited.counts[trigger + 2] = edited.counts[trigger] - 1
        XCTAssertEqual(edited.firstImpossibleSum()?.index, trigger + 2)
        // A signed difference may be below zero, a count may not.
        edited = sums
        edited.counts[pair + PairCounter.opensDiff.rawValue] = -1
        XCTAssertNil(edited.firstImpossibleSum().map(\.reason))
        edited.counts[pair + PairCounter.users.rawValue] = -1
        XCTAssertEqual(edited.firstImpossibleSum()?.index, pair + PairCounter.users.rawValue)
    }
}
