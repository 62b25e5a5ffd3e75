import Foundation
import ReminderEngine
import Simulation
import XCTest

/// The plan with CUPED: its arithmetic from given moments, the switch of configuration at the test's
/// start, and the power of the planned test analysed with and without CUPED.
final class CupedPlanTests: XCTestCase {
    /// Sums over `n` users with these means, sample variances and covariance (chosen so that the sums
    /// are whole numbers).
    static func sums(n: Int64, meanX: Int64, varX: Int64, meanY: Int64, varY: Int64, cov: Int64) -> CovariateSums {
        CovariateSums(users: n, x: n * meanX, xx: (n - 1) * varX + n * meanX * meanX, y: n * meanY,
                      yy: (n - 1) * varY + n * meanY * meanY, xy: (n - 1) * cov + n * meanX * meanY)
    }

    /// ρ = 3/√(4·9) = 0.5 in both arms and the same slope 0.75: each variance 9 becomes 9·(1 − 0.25) =
    /// 6.75, and with equal shares N = (1.96 + 0.84)²·(6.75/0.5 + 6.75/0.5)/1² = 211.9, so 106 users per
    /// arm; without CUPED (9/0.5 + 9/0.5) = 36 gives 282.6, so 142 per arm.
    func testGivenMomentsGiveTheUsersOfTheClosedForm() throws {
        let r = try XCTUnwrap(CovariateMoments(Self.sums(n: 101, meanX: 10, varX: 4, meanY: 12, varY: 9, cov: 3)))
        let b = try XCTUnwrap(CovariateMoments(Self.sums(n: 101, meanX: 10, varX: 4, meanY: 11, varY: 9, cov: 3)))
        XCTAssertEqual(r.correlation, 0.5, accuracy: 1e-12)
        XCTAssertEqual(r.adjustedVariance(theta: 0.75), 6.75, accuracy: 1e-9)
        let z = 1.959_963_985 + 0.841_621_234
        let plan = try XCTUnwrap(CupedPlan(preDays: 14, simulatedUsers: 101, seed: 1, recommended: r, baseline: b,
                                           shares: [0.5, 0.5], liveUsers: 1_000))
        XCTAssertEqual(plan.theta, 0.75, accuracy: 1e-12)
        XCTAssertEqual(plan.varianceReduction, 0.25, accuracy: 1e-12)
        XCTAssertEqual(plan.correlations[0], 0.5, accuracy: 1e-12)
        XCTAssertEqual(plan.difference, 1, accuracy: 1e-12)
        XCTAssertEqual(plan.usersPerArm, [106, 106])
        XCTAssertEqual(plan.totalUsers, 212)
        XCTAssertEqual(plan.totalUsersWithout, 284)
        XCTAssertEqual(try XCTUnwrap(plan.minimumDetectableEffect), z * (27.0 / 1_000).squareRoot(), accuracy: 1e-6)
        // A third arm (a holdout of 20%) takes its share of the same N: 0.4, 0.4, 0.2 of 6.75·2/0.4·7.85.
        let three = try XCTUnwrap(CupedPlan(preDays: 14, simulatedUsers: 101, seed: 1, recommended: r, baseline: b,
                                            shares: [0.4, 0.4, 0.2], liveUsers: nil))
        let n = z * z * (6.75 / 0.4 + 6.75 / 0.4)
        XCTAssertEqual(three.usersPerArm, [0.4, 0.4, 0.2].map { Int64((n * $0).rounded(.up)) })
        XCTAssertNil(three.minimumDetectableEffect)
    }

    /// With the arms' slopes apart (cov 3 and 1, var(x) 4), the pooled θ = (3 + 1)/(4 + 4) = 0.5 leaves each
    /// arm σ²(1 − ρ²) + σ_x²(θ − θ_arm)²: 9 − 2.25 + 4·0.0625 = 7 and 9 − 0.25 + 4·0.0625 = 9.
    func testThePooledSlopeCostsWhatTheArmsSlopesDiffer() throws {
        let r = try XCTUnwrap(CovariateMoments(Self.sums(n: 101, meanX: 10, varX: 4, meanY: 12, varY: 9, cov: 3)))
        let b = try XCTUnwrap(CovariateMoments(Self.sums(n: 101, meanX: 10, varX: 4, meanY: 11, varY: 9, cov: 1)))
        let plan = try XCTUnwrap(CupedPlan(preDays: 7, simulatedUsers: 101, seed: 1, recommended: r, baseline: b,
                                           shares: [0.5, 0.5], liveUsers: nil))
        XCTAssertEqual(plan.theta, 0.5, accuracy: 1e-12)
        XCTAssertEqual(plan.varianceReduction, 1 - 16.0 / 18.0, accuracy: 1e-12)
        // No difference, no size.
        XCTAssertNil(CupedPlan(preDays: 7, simulatedUsers: 101, seed: 1, recommended: r, baseline: r, shares: [0.5, 0.5],
                               liveUsers: nil))
    }

    /// `liveTest.preDays` reads 0 to 365 days, and anything else is refused naming the field.
    func testPreDaysIsReadAndBadValuesAreRefusedByName() throws {
        func text(_ preDays: String) -> String {
            """
            {"name": "m", "liveTest": {"preDays": \(preDays)},
             "population": {"segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 2}}]},
             "configurations": [{"label": "weekly", "reminders": [{"messages": ["hi"], "timePeriods": [7]}]}]}
            """
        }
        XCTAssertEqual(try Scenario.decode(text("0")).liveTest?.preDays, 0)
        XCTAssertEqual(try Scenario.decode(text("30")).liveTest?.preDays, 30)
        for bad in ["-1", "2.5", "366", "\"14\""] {
            do {
                _ = try Scenario.decode(text(bad), source: "s.json")
                XCTFail("accepted \(bad)")
            } catch {
                XCTAssertTrue(error.issues.contains { $0.description.hasPrefix("liveTest.preDays: ") }, "\(error)")
            }
        }
    }

    /// Two kinds of users, some back every half day and some every four days, so that a user's opens
    /// before the test say much about the user's opens in it; a daily reminder against the holdout.
    static func scenario() -> Scenario {
        var s = LiveTestPlanTests.scenario()
        s.population.segments = [
            Segment(name: "often", weight: 0.5, returns: .exponential(mean: 0.5, unit: .days)),
            Segment(name: "seldom", weight: 0.5, returns: .exponential(mean: 4, unit: .days)),
        ]
        s.liveTest = LiveTestSettings(holdoutShare: 0.5, preDays: 14)
        return s
    }

    /// The baseline's arm goes on as if nothing switched: its opens before and during the test add up
    /// to the baseline's run over the same days; and a switch at day 0 (at the install) is the arm's
    /// own run from the install.
    func testTheSwitchKeepsTheBaselinesRunAndASwitchAtInstallIsTheArmsRun() throws {
        var s = Self.scenario()
        // The baseline has a frequency cap, whose log of deliveries goes on with it.
        var capped = ConfigurationSpec(label: "2d capped", reminders: [ReminderSpec(messages: ["A"], timePeriods: [2])])
        capped.delivery = DeliveryPolicy(frequencyCap: DeliveryPolicy.FrequencyCap(max: 1, perDays: 3))
        s.configurations = [ConfigurationSpec(label: "1d", reminders: [ReminderSpec(messages: ["A"], timePeriods: [1])]), capped]
        s.baseline = "2d capped"
        s.horizonDays = 28
        s.population.installSpreadDays = 10
        let model = try CompiledModel(s)
        let users = 0..<600
        let run = model.run(options: RunOptions(threads: 2, users: users, pairs: .all))
        let test = model.simulateLiveTest(baseline: 2, arms: [1, 2, 0], testStartDay: 14, value: .opens, users: users, threads: 2)
        XCTAssertNil(test.sessionLimitBreach)
        let base = test.arms[1]
        XCTAssertEqual(base.x + base.y, run.tallies[2][.opens])
        XCTAssertGreaterThan(base.x, 0)
        XCTAssertGreaterThan(base.y, 0)
        // Every arm is the same users before the test.
        XCTAssertEqual(test.arms.map(\.x), [base.x, base.x, base.x])
        XCTAssertEqual(test.arms.map(\.xx), [base.xx, base.xx, base.xx])
        // The reminder brings opens the holdout does not have.
        XCTAssertGreaterThan(test.arms[0].y, test.arms[2].y)
        let atInstall = model.simulateLiveTest(baseline: 2, arms: [1, 0], testStartDay: 0, value: .delivered, users: users, threads: 1)
        XCTAssertEqual(atInstall.arms.map(\.x), [0, 0])
        XCTAssertEqual(atInstall.arms[0].y, run.tallies[1][.delivered])
        XCTAssertEqual(atInstall.arms[1].y, 0)
        // The same for any thread count.
        XCTAssertEqual(model.simulateLiveTest(baseline: 2, arms: [1, 2, 0], testStartDay: 14, value: .opens, users: users, threads: 1),
                       test)
    }

    /// `preDays` 0 turns CUPED off; a retention objective has no plan with CUPED, and the plan says why.
    func testCupedIsOffAtZeroDaysAndUnavailableForRetention() throws {
        var s = Self.scenario()
        s.liveTest?.preDays = 0
        let model = try CompiledModel(s)
        let tallies = model.run(options: RunOptions(threads: 2, users: 0..<500, pairs: .all))
        let off = RunResults(scenario: s, tallies: tallies)
        XCTAssertNil(off.prePeriodSimulation(recorded: RecordedLogs(), threads: 2))
        let plan = off.liveTestPlan(prePeriod: nil)
        XCTAssertNotNil(plan.totalUsers)
        XCTAssertEqual(plan.preDays, 0)
        XCTAssertNil(plan.cuped)
        XCTAssertNil(plan.cupedUnavailable)
        s.liveTest?.preDays = 7
        s.decision = DecisionRule(objective: .retentionD7)
        let retention = RunResults(scenario: s, tallies: tallies)
        let simulation = try XCTUnwrap(retention.prePeriodSimulation(recorded: RecordedLogs(), threads: 2))
        XCTAssertNil(simulation.sums)
        let unavailable = retention.liveTestPlan(prePeriod: simulation)
        XCTAssertNil(unavailable.cuped)
        XCTAssertTrue(unavailable.cupedUnavailable?.contains("days after install") ?? false, "\(unavailable.cupedUnavailable ?? "nil")")
    }

    /// One arm of a simulated live test: `users` of its own under configuration `arm` (the pre-period
    /// under the baseline, as the plan assumes).
    func arm(_ model: CompiledModel, _ arm: Int, baseline: Int, preDays: Int, users: Range<Int>) -> CovariateSums {
        model.simulateLiveTest(baseline: baseline, arms: [arm], testStartDay: preDays, value: .opens, users: users, threads: 2).arms[0]
    }

    /// The share of `tests` live tests with `n` users per arm, each arm on users of its own, that the
    /// z-test rejects at 5% two-sided: on y, or on y − θ(x − x̄) with θ pooled over the test's two arms.
    func rejections(_ model: CompiledModel, treated r: Int, control b: Int, preDays: Int, perArm n: Int, tests: Int,
                    from start: Int) throws -> (plain: Double, cuped: Double) {
        var plain = 0, cuped = 0, at = start
        for _ in 0..<tests {
            let t = try XCTUnwrap(CovariateMoments(arm(model, r, baseline: b, preDays: preDays, users: at..<(at + n))))
            let c = try XCTUnwrap(CovariateMoments(arm(model, b, baseline: b, preDays: preDays, users: (at + n)..<(at + 2 * n))))
            at += 2 * n
            let m = Double(n)
            let se = (t.varianceY / m + c.varianceY / m).squareRoot()
            if abs(t.meanY - c.meanY) / se > z95 { plain += 1 }
            let theta = (t.covariance + c.covariance) / (t.varianceX + c.varianceX)
            let meanX = (t.meanX + c.meanX) / 2
            let d = (t.meanY - theta * (t.meanX - meanX)) - (c.meanY - theta * (c.meanX - meanX))
            let seAdjusted = (t.adjustedVariance(theta: theta) / m + c.adjustedVariance(theta: theta) / m).squareRoot()
            if abs(d) / seAdjusted > z95 { cuped += 1 }
        }
        return (Double(plain) / Double(tests), Double(cuped) / Double(tests))
    }

    /// The key check: live tests of the plan's users per arm with CUPED, fresh users in each arm and
    /// the days before the test under the baseline, find the difference about 80% of the time with
    /// CUPED, and clearly less often analysed without it.
    func testThePlannedUsersWithCupedReachTheStatedPowerOnlyWithCuped() throws {
        let s = Self.scenario()
        let model = try CompiledModel(s)
        let results = RunResults(scenario: s, tallies: model.run(options: RunOptions(threads: 2, users: 0..<2_000, pairs: .all)))
        let prePeriod = try XCTUnwrap(results.prePeriodSimulation(recorded: RecordedLogs(), threads: 2))
        XCTAssertEqual(prePeriod.users, DecisionRecheck.maximumUsers)
        let plan = results.liveTestPlan(prePeriod: prePeriod)
        let cuped = try XCTUnwrap(plan.cuped, plan.cupedUnavailable ?? "")
        XCTAssertEqual(cuped.usersPerArm.count, 2)
        XCTAssertEqual(cuped.usersPerArm[0], cuped.usersPerArm[1])
        XCTAssertGreaterThan(cuped.varianceReduction, 0.5, "the scenario is meant to have a strong pre-period correlation")
        XCTAssertLessThan(cuped.totalUsers, cuped.totalUsersWithout)
        for rho in cuped.correlations { XCTAssertGreaterThan(rho, 0.7) }
        let n = Int(cuped.usersPerArm[0])
        XCTAssertLessThan(n, 600, "the scenario is meant to need a small test")
        // The tests' users: the plan's own scenario for the live test, on users after the plan's.
        let (testScenario, r, b) = PrePeriodSimulation.scenario(for: s, recommended: 1, baseline: 0, preDays: 14, testDays: 14)
        let testModel = try CompiledModel(testScenario)
        // 400 tests: the share's standard error at 0.8 is 0.02, so 0.8 ± 0.06 holds it at 3 sigma.
        let tests = 400
        let tolerance = 3 * (0.8 * 0.2 / Double(tests)).squareRoot()
        let power = try rejections(testModel, treated: r, control: b, preDays: 14, perArm: n, tests: tests, from: 1_000_000)
        XCTAssertEqual(power.cuped, LiveTestPlan.power, accuracy: tolerance, "CUPED \(power.cuped), plain \(power.plain), n \(n)")
        XCTAssertLessThan(power.plain, LiveTestPlan.power - tolerance, "plain \(power.plain) at n \(n)")
    }
}
