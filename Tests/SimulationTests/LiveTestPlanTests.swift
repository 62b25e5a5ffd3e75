import Foundation
import ReminderEngine
import Simulation
import XCTest

/// The live-test plan's users per arm reach the stated power when the arms hold different users:
/// many simulated live tests, each drawing fresh users for each arm, find the simulated difference
/// at close to 80% of the time, and the paired "users to separate" falls far short.
final class LiveTestPlanTests: XCTestCase {
    /// One daily reminder against the holdout over two weeks, everyone installing on day 0, with a
    /// strong response so that a test of a few hundred users per arm shows it.
    static func scenario() -> Scenario {
        var s = Scenario.builtInDefault
        s.horizonDays = 14
        s.population.installSpreadDays = 0
        s.response.messageWeights = [:]
        s.response.baseResponse = 0.5
        s.configurations = [ConfigurationSpec(label: "1d", reminders: [ReminderSpec(messages: ["A"], timePeriods: [1])])]
        s.decision = DecisionRule(objective: .opensLiftPerUser)
        s.liveTest = LiveTestSettings(holdoutShare: 0.5)
        return s
    }

    /// Configuration `c`'s per-user opens over users `range`: n, Σ and Σ².
    func arm(_ model: CompiledModel, _ c: Int, users range: Range<Int>) throws -> ArmMoments {
        let run = model.run(options: RunOptions(threads: 2, users: range, pairs: .all))
        let opens = run.tallies[c][.opens]
        let squares = try XCTUnwrap(run.sums?.arm(c, .opensSquares))
        return try XCTUnwrap(ArmMoments(users: Int64(range.count), sum: opens, squares: squares))
    }

    /// The share of `tests` live tests with `n` users per arm, each arm on users of its own, whose
    /// unpaired z-test rejects no difference at 5% two-sided.
    func rejections(_ model: CompiledModel, perArm n: Int, tests: Int, from start: Int) throws -> Double {
        var rejected = 0, at = start
        for _ in 0..<tests {
            let treated = try arm(model, 1, users: at..<(at + n))
            let control = try arm(model, 0, users: (at + n)..<(at + 2 * n))
            at += 2 * n
            let se = (treated.variance / Double(n) + control.variance / Double(n)).squareRoot()
            if abs(treated.mean - control.mean) / se > z95 { rejected += 1 }
        }
        return Double(rejected) / Double(tests)
    }

    func testThePlannedUsersPerArmReachTheStatedPowerAndThePairedCountDoesNot() throws {
        let s = Self.scenario()
        let model = try CompiledModel(s)
        // The plan from one run of 40,000 users (users 0..<40,000); the live tests use users after them.
        let results = RunResults(scenario: s, tallies: model.run(options: RunOptions(threads: 2, users: 0..<40_000, pairs: .all)))
        let plan = results.liveTestPlan
        let perArm = try XCTUnwrap(plan.usersPerArm)
        XCTAssertEqual(perArm.count, 2)
        XCTAssertEqual(perArm[0], perArm[1])
        XCTAssertEqual(plan.totalUsers, perArm[0] + perArm[1])
        let n = Int(perArm[0])
        XCTAssertLessThan(n, 2_000, "the scenario is meant to need a small test")
        // 400 tests: the share's standard error at 0.8 is 0.02, so 0.8 ± 0.06 holds it at 3 sigma.
        let tests = 400
        let power = try rejections(model, perArm: n, tests: tests, from: 1_000_000)
        XCTAssertEqual(power, LiveTestPlan.power, accuracy: 3 * (0.8 * 0.2 / Double(tests)).squareRoot())
        // The paired count, split over two arms of different users, is far too small: the same check fails.
        let paired = try XCTUnwrap(results.comparison(1, against: 0, .opensPerUser)?.usersToSeparate)
        let pairedPower = try rejections(model, perArm: max(2, Int(paired) / 2), tests: tests, from: 100_000_000)
        XCTAssertLessThan(pairedPower, LiveTestPlan.power - 3 * (0.8 * 0.2 / Double(tests)).squareRoot())
    }

    /// The minimum detectable effect at the planned total is the simulated difference, and the
    /// per-arm sizes follow the shares.
    func testTheMinimumDetectableEffectAtThePlannedSizeIsTheDifference() throws {
        var s = Self.scenario()
        s.liveTest = LiveTestSettings(holdoutShare: 0.2)
        let model = try CompiledModel(s)
        let results = RunResults(scenario: s, tallies: model.run(options: RunOptions(threads: 2, users: 0..<5_000, pairs: .all)))
        let planned = results.liveTestPlan
        let total = try XCTUnwrap(planned.totalUsers), d = try XCTUnwrap(planned.difference)
        let perArm = try XCTUnwrap(planned.usersPerArm)
        XCTAssertEqual(Double(perArm[0]) / Double(total), 0.8, accuracy: 1e-3)
        s.liveTest?.users = Int(total)
        let at = RunResults(scenario: s, tallies: results.tallies).liveTestPlan
        // The arms are rounded up, so the planned total is a little above the size that detects d exactly.
        let mde = try XCTUnwrap(at.minimumDetectableEffect)
        XCTAssertLessThanOrEqual(mde, abs(d) * (1 + 1e-12))
        XCTAssertGreaterThan(mde, abs(d) * (1 - 2 / Double(total)))
    }
}

/// Sums stored before the per-configuration block was kept read back without it, write back the
/// same, and the plan says it has no size rather than sizing from zeros.
final class StoredSumsWithoutArmsTests: XCTestCase {
    func testOldSumsReadBackWithoutTheArmBlockAndThePlanSaysSo() throws {
        let s = LiveTestPlanTests.scenario()
        let run = try CompiledModel(s).run(options: RunOptions(threads: 1, users: 0..<300, pairs: .all))
        let sums = try XCTUnwrap(run.sums)
        let layout = sums.layout
        // The block sits between the segments and the pairs: take it out as an older store holds it.
        let block = layout.configurations * ArmCounter.allCases.count
        let start = layout.count - layout.pairList.count * PairCounter.allCases.count - block
        let old = Array(sums.counts[..<start]) + Array(sums.counts[(start + block)...])
        let read = try XCTUnwrap(UserSums.withoutArmSums(layout: layout, stored: old))
        XCTAssertFalse(read.layout.keepsArmSums)
        XCTAssertNil(read.arm(1, .opensSquares))
        XCTAssertEqual(read.storedCounts, old)
        XCTAssertEqual(read.pair(0, 1, .opensDiffSquares), sums.pair(0, 1, .opensDiffSquares))
        var tallies = run
        tallies.sums = read
        let plan = RunResults(scenario: s, tallies: tallies).liveTestPlan
        XCTAssertNil(plan.totalUsers)
        XCTAssertTrue(plan.unavailable?.contains("stored without the per-user sums") ?? false, "\(plan.unavailable ?? "nil")")
        XCTAssertNil(UserSums.withoutArmSums(layout: layout, stored: Array(old.dropLast())))
    }
}

/// A live test without a holdout when the baseline is the holdout compares nothing: a warning says so.
final class LiveTestSettingsWarningTests: XCTestCase {
    func testNoHoldoutShareWithTheHoldoutAsBaselineIsAWarning() {
        var s = LiveTestPlanTests.scenario()
        s.liveTest = LiveTestSettings(holdoutShare: 0)
        for baseline in [nil, "holdout", "Holdout"] {
            s.baseline = baseline
            let warning = s.warnings().first { $0.path == "liveTest.holdoutShare" }
            XCTAssertNotNil(warning, "baseline \(baseline ?? "none")")
            XCTAssertTrue(warning?.reason.hasPrefix("0 leaves the live test no arm to compare the recommendation with") ?? false)
        }
        // A named baseline keeps its arm; a holdout with a share is an arm.
        s.baseline = "1d"
        XCTAssertFalse(s.warnings().contains { $0.path == "liveTest.holdoutShare" })
        s.baseline = nil
        s.liveTest = LiveTestSettings(holdoutShare: 0.1)
        XCTAssertFalse(s.warnings().contains { $0.path == "liveTest.holdoutShare" })
    }
}
