import Foundation
import ReminderEngine
@testable import Simulation
import SimulationTestSupport
import XCTest

/// Pairs added after a run from its users' kept pair inputs are, count for count, those of a run
/// that kept them; where the store cannot know them it says so rather than guess.
final class PairInputStoreTests: XCTestCase {
    /// Twelve one-period configurations over 45 days (so users reach days 7 and 30), answered often
    /// and turned off often, so that every pair counter moves.
    func scenario() -> Scenario {
        // Periods out of order, so that either side of a pair can deliver more.
        var s = Scenario.onePeriodEach([5, 1, 9, 2, 12, 3, 7, 4, 11, 6, 10, 8], users: 900, days: 45)
        s.baseline = "3d"
        s.response.baseResponse = 0.3
        s.response.optOutPerDelivery = 0.05
        return s
    }

    func testPairsAddedFromTheStoreAreThoseOfARunKeepingThem() throws {
        let s = scenario()
        let model = try CompiledModel(s)
        for detail in [false, true] {
            var options = RunOptions(threads: 2, chunkSize: 64, pairs: .references([3]))
            options.keepsDetail = detail
            let store = try XCTUnwrap(PairInputStore(users: 0..<s.users, configurations: model.configurations.count))
            options.pairInputs = store
            let first = model.run(options: options)
            let sums = try XCTUnwrap(first.sums)
            XCTAssertEqual(sums.layout.pairs, .against([0, 3]))
            for reference in [1, 7, 12] {
                var again = RunOptions(threads: 1, chunkSize: 100, pairs: .references([3, reference]))
                again.keepsDetail = detail
                let second = model.run(options: again)
                XCTAssertEqual(second.tallies, first.tallies)
                let added = try XCTUnwrap(store.adding(reference: reference, to: sums))
                XCTAssertEqual(added, second.sums, "reference \(reference), detail \(detail)")
                // The users split over threads: the same sums.
                PairInputStore.termsPerThread = 1
                defer { PairInputStore.termsPerThread = 100_000 }
                for threads in [2, 3, 7] {
                    XCTAssertEqual(store.adding(reference: reference, to: sums, threads: threads), added, "\(threads) threads")
                }
                // Every counter of the new pairs moved in some pair, so a wrong term cannot hide behind zeros.
                for c in PairCounter.allCases {
                    let moved = (1...12).filter { $0 != reference }.contains {
                        (added.pair(min($0, reference), max($0, reference), c) ?? 0) != 0
                    }
                    XCTAssertTrue(moved, "\(c) is zero in every pair with \(reference)")
                }
            }
            // A reference already held, or every pair held: the sums as they are.
            XCTAssertEqual(store.adding(reference: 3, to: sums), sums)
            XCTAssertNil(store.adding(reference: 13, to: sums))
        }
    }

    /// The tune's use: the decision read from the added pairs is the one read from a second run.
    func testTheComparisonWithANewLeaderIsTheSecondRunsOne() throws {
        let s = scenario()
        let model = try CompiledModel(s)
        let store = try XCTUnwrap(PairInputStore(users: 0..<s.users, configurations: model.configurations.count))
        var options = RunOptions(threads: 2, chunkSize: 50, pairs: .references([1]))
        options.pairInputs = store
        var first = model.run(options: options)
        first.sums = try XCTUnwrap(store.adding(reference: 9, to: try XCTUnwrap(first.sums)))
        let second = model.run(options: RunOptions(threads: 2, chunkSize: 50, pairs: .references([1, 9])))
        let a = RunResults(scenario: s, tallies: first), b = RunResults(scenario: s, tallies: second)
        for c in 0...12 where c != 9 {
            for m in PairMeasure.allCases {
                let x = try XCTUnwrap(a.comparison(c, against: 9, m)), y = try XCTUnwrap(b.comparison(c, against: 9, m))
                XCTAssertEqual(x.difference, y.difference)
            }
        }
    }

    /// Users the run did not reach, a run that replays recorded users (whose clustered sums the store
    /// cannot rebuild) and sums of other configurations are refused.
    func testWhatTheStoreCannotKnowIsRefused() throws {
        let s = scenario()
        let model = try CompiledModel(s)
        let store = try XCTUnwrap(PairInputStore(users: 0..<(s.users + 1), configurations: model.configurations.count))
        var options = RunOptions(threads: 2, chunkSize: 64, pairs: .references([3]))
        options.pairInputs = store
        let sums = try XCTUnwrap(model.run(options: options).sums)
        XCTAssertNil(store.adding(reference: 5, to: sums), "user 900 was never run")

        let replay = ReplayFixture.scenario(users: 300, seed: 4)
        var replayed = replay
        replayed.configurations += [ConfigurationSpec(label: "two days", reminders: [ReminderSpec(messages: ["A"], timePeriods: [2])])]
        let replayModel = try CompiledModel(replayed, recorded: ReplayFixture.logs(daily: [true, false, true]))
        let replayStore = try XCTUnwrap(PairInputStore(users: 0..<300, configurations: 3))
        var replayOptions = RunOptions(threads: 2, pairs: .references([1]))
        replayOptions.pairInputs = replayStore
        let replaySums = try XCTUnwrap(replayModel.run(options: replayOptions).sums)
        XCTAssertNil(replayStore.adding(reference: 2, to: replaySums))

        let other = try XCTUnwrap(PairInputStore(users: 0..<s.users, configurations: 5))
        XCTAssertNil(other.adding(reference: 2, to: sums))
    }

    /// Sums split over threads are those of one pass, whatever the split, and a part that fails fails
    /// the whole.
    func testSumsSplitOverThreadsAreThoseOfOnePass() {
        PairInputStore.termsPerThread = 1
        defer { PairInputStore.termsPerThread = 100_000 }
        let n = 1_001, width = 3
        // Known totals: Σu, Σu², and the users counted.
        let expected: [Int64] = [Int64(n * (n - 1) / 2), Int64((n - 1) * n * (2 * n - 1) / 6), Int64(n)]
        for threads in [1, 2, 3, 8, 2_000] {
            let total = PairInputStore.summed(users: n, width: width, threads: threads) { range, out in
                for u in range {
                    out[0] &+= Int64(u)
                    out[1] &+= Int64(u * u)
                    out[2] &+= 1
                }
                return true
            }
            XCTAssertEqual(total, expected, "\(threads) threads")
            XCTAssertNil(PairInputStore.summed(users: n, width: width, threads: threads) { range, _ in !range.contains(500) })
        }
        XCTAssertEqual(PairInputStore.summed(users: 0, width: 2, threads: 4) { _, _ in true }, [0, 0])
    }

    func testAStoreIsMadeOnlyWithinItsMemory() {
        XCTAssertNil(PairInputStore(users: 0..<0, configurations: 3))
        XCTAssertNil(PairInputStore(users: 0..<PairInputStore.maximumBytes, configurations: 2))
        XCTAssertNil(PairInputStore(users: 0..<Int.max, configurations: 3))
        XCTAssertNotNil(PairInputStore(users: 0..<100_000, configurations: 40))
    }
}
