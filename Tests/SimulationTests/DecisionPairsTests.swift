import Foundation
import ReminderEngine
@testable import Simulation
import SimulationTestSupport
import XCTest

/// A run of many configurations keeps every configuration paired with the holdout, the baseline, the
/// recommendation and the runner-up, found in two passes, exactly as a run keeping every pair has them.
final class DecisionPairsTests: XCTestCase {
    /// Twelve one-period configurations, "3d" the baseline.
    func scenario(configurations: Int = 12) -> Scenario {
        var s = Scenario.onePeriodEach(Array(1...configurations), users: 600, days: 30)
        s.baseline = "3d"
        return s
    }

    func testTheDecisionsPairsEqualThoseOfARunKeepingEveryPair() throws {
        let s = scenario()
        let model = try CompiledModel(s)
        let every = model.run(options: RunOptions(threads: 2, chunkSize: 64, pairs: .all))
        let some = model.run(options: RunOptions(threads: 1, chunkSize: 100, pairs: .decision))
        XCTAssertEqual(some.tallies, every.tallies)
        let whole = RunResults(scenario: s, tallies: every)
        let decision = whole.decision
        let recommended = try XCTUnwrap(decision.recommended), runnerUp = try XCTUnwrap(decision.runnerUp)
        let references = Array(Set([0, 3, recommended, runnerUp])).sorted()
        let sums = try XCTUnwrap(some.sums)
        XCTAssertEqual(sums.layout.pairs, .against(references))
        XCTAssertEqual(sums, try XCTUnwrap(every.sums).gathering(.against(references)))
        // Each configuration against each reference, and nothing else.
        let results = RunResults(scenario: s, tallies: some)
        let k = s.configurations.count + 1
        XCTAssertEqual(results.pairwise.count, (k * (k - 1) - (k - references.count) * (k - references.count - 1)) * PairMeasure.allCases.count)
        for a in 0..<k {
            for b in 0..<k where a != b {
                let kept = references.contains(a) || references.contains(b)
                XCTAssertEqual(results.holdsPair(a, b), kept)
                for m in PairMeasure.allCases {
                    XCTAssertEqual(results.comparison(a, against: b, m)?.difference, kept ? whole.comparison(a, against: b, m)?.difference : nil)
                }
            }
        }
        XCTAssertEqual(results.decision.versusRunnerUp.map(\.difference), decision.versusRunnerUp.map(\.difference))
        XCTAssertEqual(results.decision.versusBaseline.map(\.difference), decision.versusBaseline.map(\.difference))
        // What a merged sharded run keeps from sums of every pair.
        XCTAssertEqual(every.keepingDecisionPairs(scenario: s), some)
    }

    /// Pairs named by the caller (a tune's racing batch): one pass, the same counts, and each kept pair
    /// exactly as a run keeping every pair has it, whatever the threads.
    func testNamedReferencesKeepTheirPairsExactlyInOnePass() throws {
        let s = scenario()
        let model = try CompiledModel(s)
        let every = model.run(options: RunOptions(threads: 2, chunkSize: 64, pairs: .all))
        let named = model.run(options: RunOptions(threads: 1, chunkSize: 100, pairs: .references([5, 1, 99])))
        XCTAssertEqual(named.tallies, every.tallies)
        let sums = try XCTUnwrap(named.sums)
        XCTAssertEqual(sums.layout.pairs, .against([0, 1, 5]), "the holdout always, an index past the run never")
        XCTAssertEqual(sums, try XCTUnwrap(every.sums).gathering(.against([0, 1, 5])))
        let again = model.run(options: RunOptions(threads: 3, chunkSize: 7, pairs: .references([1, 5])))
        XCTAssertEqual(again, named)
    }

    /// A run that keeps no sums (`calibrate` reads the counts alone) counts the same.
    func testARunWithoutSumsCountsTheSame() throws {
        let s = scenario()
        let model = try CompiledModel(s)
        let every = model.run(options: RunOptions(threads: 2, chunkSize: 64))
        let counts = model.run(options: RunOptions(threads: 3, chunkSize: 50, keepsSums: false))
        XCTAssertEqual(counts.tallies, every.tallies)
        XCTAssertNil(counts.sums)
        XCTAssertNil(counts.recordedUserSums)
    }

    /// A run without the detail sums (a tune's racing batch) counts the same and estimates every
    /// configuration-level measure and kept comparison exactly as a full run; the per-slot intervals,
    /// the retention curve's and the daily differences, the segments' rows and the arms' squares read
    /// as absent rather than as zeros.
    func testARunWithoutTheDetailEstimatesTheSame() throws {
        var s = scenario()
        s.configurations[4].reminders[0].messages = ["A", "B"]
        s.configurations[4].reminders[0].timePeriods = [2, 6]
        let model = try CompiledModel(s)
        let full = model.run(options: RunOptions(threads: 2, chunkSize: 64, pairs: .references([3, 5])))
        var options = RunOptions(threads: 3, chunkSize: 41, pairs: .references([3, 5]))
        options.keepsDetail = false
        let lean = model.run(options: options)
        // The tallies' configuration counters and cron counts are the same; their detail (slots,
        // days, the retention curve, hours) is left at zero.
        for (f, l) in zip(full.tallies, lean.tallies) {
            let t = f.layout
            XCTAssertEqual(l.layout, t)
            let detail = [t.messageOffset..<t.ruleOffset, t.curveRetainedOffset..<t.promptOffset]
            for k in 0..<t.count {
                if detail.contains(where: { $0.contains(k) }) {
                    XCTAssertEqual(l.counts[k], 0, "detail count \(k)")
                } else {
                    XCTAssertEqual(l.counts[k], f.counts[k], "count \(k)")
                }
            }
            XCTAssertTrue(detail.allSatisfy { $0.contains { f.counts[$0] != 0 } }, "a full run counts every part of the detail")
        }
        XCTAssertEqual(try XCTUnwrap(lean.sums).layout.keepsDetail, false)
        let (a, b) = (RunResults(scenario: s, tallies: full), RunResults(scenario: s, tallies: lean))
        var compared = 0
        for c in 0...s.configurations.count {
            for m in DecisionMeasure.allCases {
                XCTAssertEqual(b.all[c].estimate(m), a.all[c].estimate(m), "\(c) \(m)")
                if a.all[c].estimate(m) != nil { compared += 1 }
            }
            for r in [0, 3, 5] where r != c {
                for m in PairMeasure.allCases {
                    XCTAssertEqual(b.comparison(c, against: r, m)?.difference, a.comparison(c, against: r, m)?.difference)
                }
            }
            guard c > 0 else { continue }
            XCTAssertNotNil(a.retentionDifference(c, day: 3))
            XCTAssertNil(b.retentionDifference(c, day: 3))
            XCTAssertNotNil(a.dailyActiveDifference(c, day: 10))
            XCTAssertNil(b.dailyActiveDifference(c, day: 10))
        }
        XCTAssertGreaterThan(compared, 5 * s.configurations.count)
        XCTAssertFalse(a.segments.isEmpty)
        XCTAssertTrue(b.segments.isEmpty)
        XCTAssertNotNil(full.sums?.arm(2, .opensSquares))
        XCTAssertNil(lean.sums?.arm(2, .opensSquares))
        let slots = SlotMetrics.messages(s.configurations[4], full.tallies[5], sums: full.sums, index: 5)
        let leanSlots = SlotMetrics.messages(s.configurations[4], lean.tallies[5], sums: lean.sums, index: 5)
        XCTAssertEqual(slots.count, 2)
        XCTAssertTrue(slots.allSatisfy { $0.triggerSums != nil && $0.responseSums != nil })
        XCTAssertTrue(leanSlots.allSatisfy { $0.triggerSums == nil && $0.responseSums == nil })
    }

    /// The second looks at a run's decision (the re-check on other users, the sensitivity runs, the
    /// model draws) simulate without the detail: the decision read from such a run, its ranking,
    /// constraints and comparisons, is the one the full run gives.
    func testTheDecisionWithoutTheDetailIsTheSame() throws {
        var s = Scenario.builtInDefault
        s.users = 4_000
        let model = try CompiledModel(s)
        let full = RunResults(scenario: s, tallies: model.run(options: RunOptions(threads: 2, pairs: .decision)))
        var options = RunOptions(threads: 3, chunkSize: 97, pairs: .decision)
        options.keepsDetail = false
        let lean = RunResults(scenario: s, tallies: model.run(options: options))
        let (a, b) = (full.decision, lean.decision)
        XCTAssertNotNil(a.recommended)
        XCTAssertEqual(b.ranked, a.ranked)
        XCTAssertEqual(b.admissible, a.admissible)
        XCTAssertEqual(b.comparedMeasure, a.comparedMeasure)
        XCTAssertEqual(b.constraints.map(\.measure), a.constraints.map(\.measure))
        XCTAssertEqual(b.constraints.map(\.excluded), a.constraints.map(\.excluded))
        XCTAssertEqual(b.constraints.map(\.binds), a.constraints.map(\.binds))
        XCTAssertEqual(b.versusBaseline.map(\.difference), a.versusBaseline.map(\.difference))
        XCTAssertEqual(b.versusRunnerUp.map(\.difference), a.versusRunnerUp.map(\.difference))
        XCTAssertFalse(a.versusBaseline.isEmpty)
        XCTAssertEqual(lean.all.map { $0.estimate(.opensLiftPerUser) }, full.all.map { $0.estimate(.opensLiftPerUser) })
    }

    func testAFewConfigurationsKeepEveryPair() throws {
        let s = scenario(configurations: PairSet.everyPairUpTo)
        let run = try CompiledModel(s).run(options: RunOptions(threads: 2, pairs: .decision))
        XCTAssertEqual(run.sums?.layout.pairs, .all)
        XCTAssertEqual(run.keepingDecisionPairs(scenario: s), run)
    }

    /// Pairs are numbered reference after reference; a pair of two references is held once.
    func testTheLayoutFindsEveryPairItHolds() {
        let layout = UserSumsLayout(segments: 1, messageSlots: Array(repeating: 0, count: 6),
                                    periodSlots: Array(repeating: 0, count: 6), days: 3, pairs: .against([0, 2, 5]))
        XCTAssertEqual(layout.pairList.count, 5 + 4 + 3)
        var seen = Set<Int>()
        for a in 0..<6 {
            for b in 0..<6 where a != b {
                let p = layout.pairIndex(a, b)
                XCTAssertEqual(p != nil, [0, 2, 5].contains(a) || [0, 2, 5].contains(b))
                XCTAssertEqual(p, layout.pairIndex(b, a))
                if let p, a < b {
                    XCTAssertEqual(layout.pairList[p], ConfigurationPair(a: a, b: b))
                    seen.insert(p)
                }
            }
        }
        XCTAssertEqual(seen.count, layout.pairList.count)
        XCTAssertNil(layout.pairIndex(3, 3))
        XCTAssertNil(layout.pairIndex(-1, 7))
    }
}

/// The meter of a run's work: the sessions walked under the configurations, and those before each
/// configuration first parts from the holdout, counted from the traces apart from the run.
final class RunWorkMeterTests: XCTestCase {
    func testTheSessionsBeforeDivergenceAreTheTracesOpensBeforeTheFirstAnswer() throws {
        var s = Scenario.builtInDefault
        s.users = 300
        s.horizonDays = 45
        s.response.baseResponse = 0.3
        let model = try CompiledModel(s)
        let meter = RunWorkMeter()
        var options = RunOptions(threads: 2, chunkSize: 37)
        options.meter = meter
        let run = model.run(options: options)
        var total: Int64 = 0, before: Int64 = 0
        for user in 0..<s.users {
            for c in 1..<model.configurations.count {
                var opens: Int64 = 0, parted = false
                for case let .open(_, cause, _) in model.trace(user: user, configuration: c).events {
                    if cause == .notification { parted = true }
                    if !parted { before += 1 }
                    opens += 1
                }
                total += opens
            }
        }
        XCTAssertEqual(meter.configurationSessions, total)
        XCTAssertEqual(meter.configurationSessions, run.tallies.dropFirst().reduce(0) { $0 + $1[.opens] })
        XCTAssertEqual(meter.sessionsBeforeDivergence, before)
        XCTAssertLessThan(before, total, "some configurations part from the holdout")
        // Without answers nothing parts.
        s.response.baseResponse = 0
        let quiet = RunWorkMeter()
        options.meter = quiet
        _ = try CompiledModel(s).run(options: options)
        XCTAssertEqual(quiet.sessionsBeforeDivergence, quiet.configurationSessions)
        XCTAssertGreaterThan(quiet.configurationSessions, 0)
    }
}
