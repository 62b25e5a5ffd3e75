import Foundation
@testable import Simulation
import XCTest

/// The holdout's runs kept from one run to the next of the same users change no count: a run that
/// keeps them, one that takes them back, and one that runs every holdout again give the same
/// tallies and sums, whatever the configurations beside the holdout, the threads or the budget.
final class HoldoutCacheTests: XCTestCase {
    /// The built-in scenario (cron rules, random messages, both engine modes) with more riders, and
    /// a strong response so that many configurations part from the holdout.
    static func scenario(users: Int) -> Scenario {
        var s = Scenario.builtInDefault
        s.users = users
        s.response.baseResponse = 0.3
        s.configurations += [Fixtures.reminder([2, 5], label: "2/5d"), Fixtures.reminder([4], label: "4d", mode: .original100, wiring: .early),
                             Fixtures.reminder([1], label: "ruled", rules: ["1 *", "2 */3"])]
        return s
    }

    func run(_ s: Scenario, cache: HoldoutCache?, threads: Int, chunk: Int, detail: Bool = true,
             pairs: PairChoice = .all) throws -> RunTallies {
        var options = RunOptions(threads: threads, chunkSize: chunk, pairs: pairs)
        options.keepsDetail = detail
        options.holdoutCache = cache
        return try CompiledModel(s).run(options: options)
    }

    func testKeptHoldoutRunsCountTheSame() throws {
        let s = Self.scenario(users: 3_000)
        let cache = HoldoutCache(for: s, users: s.users)
        defer { cache.deallocate() }
        let plain = try run(s, cache: nil, threads: 2, chunk: 97)
        let keeping = try run(s, cache: cache, threads: 2, chunk: 97)
        XCTAssertEqual(keeping, plain, "the run that keeps them")
        let kept = cache.keptUsers
        XCTAssertGreaterThan(kept, s.users * 9 / 10, "almost every user rides and is kept")
        let taking = try run(s, cache: cache, threads: 3, chunk: 41)
        XCTAssertEqual(taking.tallies, plain.tallies)
        XCTAssertEqual(taking.sums, plain.sums)
        XCTAssertEqual(taking, plain, "the run that takes them back")
        XCTAssertEqual(cache.keptUsers, kept, "a user is kept once")
        XCTAssertGreaterThan(plain.tallies[0][.opens], 0)

        // Other configurations beside the holdout, fewer users, without the detail: the same as a run
        // of its own.
        var other = s.keeping([2, 4, 6, 7])
        other.users = 2_000
        other.response.baseResponse = 0.05
        XCTAssertEqual(try run(other, cache: cache, threads: 2, chunk: 64, detail: false, pairs: .references([1])),
                       try run(other, cache: nil, threads: 1, chunk: 500, detail: false, pairs: .references([1])))
        XCTAssertEqual(try run(other, cache: cache, threads: 2, chunk: 64), try run(other, cache: nil, threads: 2, chunk: 64))

        // A stronger response: more configurations part from the holdout, and draw past the kept
        // draws.
        var stronger = s
        stronger.response.baseResponse = 0.9
        stronger.response.fatigue = 1
        XCTAssertEqual(try run(stronger, cache: cache, threads: 2, chunk: 97), try run(stronger, cache: nil, threads: 2, chunk: 97))

        // More users than it was made for: those beyond run as ever.
        var more = s
        more.users = 3_500
        XCTAssertEqual(try run(more, cache: cache, threads: 2, chunk: 100), try run(more, cache: nil, threads: 2, chunk: 100))

        // Another population, horizon or start date leaves the cache alone, as another seed does.
        var changed = s
        changed.population.segments[0].dropoutPerSession = 0.5
        changed.horizonDays = 60
        for other in [changed, { var x = s; x.horizonDays = 60; return x }(), { var x = s; x.startDate = "2026-03-02"; return x }()] {
            XCTAssertFalse(cache.fits(other))
            XCTAssertEqual(try run(other, cache: cache, threads: 2, chunk: 97), try run(other, cache: nil, threads: 2, chunk: 97))
        }
        XCTAssertTrue(cache.fits(s.keeping([1])))

        // Another seed leaves the cache alone.
        var reseeded = s
        reseeded.seed = s.seed &+ 1
        let bytes = cache.bytesUsed
        XCTAssertEqual(try run(reseeded, cache: cache, threads: 2, chunk: 97), try run(reseeded, cache: nil, threads: 2, chunk: 97))
        XCTAssertEqual(cache.keptUsers, kept)
        XCTAssertEqual(cache.bytesUsed, bytes)
    }

    /// A budget that holds a few users keeps only them; the others run as ever, and the counts do
    /// not change.
    func testTheBudgetLimitsWhatIsKept() throws {
        let s = Self.scenario(users: 2_000)
        let cache = HoldoutCache(for: s, users: s.users, budget: 40_000)
        defer { cache.deallocate() }
        let plain = try run(s, cache: nil, threads: 2, chunk: 50)
        XCTAssertEqual(try run(s, cache: cache, threads: 2, chunk: 50), plain)
        XCTAssertGreaterThan(cache.keptUsers, 0)
        XCTAssertLessThan(cache.keptUsers, s.users / 4)
        XCTAssertLessThanOrEqual(cache.bytesUsed, 40_000)
        XCTAssertEqual(try run(s, cache: cache, threads: 3, chunk: 33), plain)
        let none = HoldoutCache(for: s, users: s.users, budget: 0)
        defer { none.deallocate() }
        XCTAssertEqual(try run(s, cache: none, threads: 2, chunk: 50), plain)
        XCTAssertEqual(none.keptUsers, 0)
    }

    /// A cache for more users than its budget could keep covers only as many as it could: its table
    /// of entries does not grow with a user count of a trillion (8 TB of it once aborted `tune`).
    func testACacheCoversNoMoreUsersThanItsBudgetCouldKeep() throws {
        let s = Self.scenario(users: 2_000)
        let huge = HoldoutCache(for: s, users: 1 << 50)
        defer { huge.deallocate() }
        XCTAssertGreaterThan(huge.users, 100_000)
        XCTAssertLessThanOrEqual(huge.users, (64 << 20) / 64)
        let small = HoldoutCache(for: s, users: s.users, budget: 40_000)
        defer { small.deallocate() }
        XCTAssertLessThan(small.users, s.users, "a budget for a few users covers fewer than the run's")
        let plain = try run(s, cache: nil, threads: 2, chunk: 50)
        XCTAssertEqual(try run(s, cache: small, threads: 2, chunk: 50), plain)
        XCTAssertEqual(try run(s, cache: small, threads: 3, chunk: 33), plain, "the users it kept, taken back")
        XCTAssertGreaterThan(small.keptUsers, 0)
    }
}
