import Foundation
import ReminderEngine
import Simulation
import SimulationTestSupport
import XCTest

/// The decision rule applied to a run's results.
final class DecisionTests: XCTestCase {
    func results(_ rule: DecisionRule?, baseline: String? = nil) throws -> RunResults {
        var s = Scenario.onePeriodEach([1, 2, 4, 8], users: 1_500, days: 40)
        s.decision = rule
        s.baseline = baseline
        return RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
    }

    /// Measures are told apart by their case, whatever their hash: equal exactly when their names are.
    func testMeasuresAreEqualExactlyWhenTheirNamesAre() {
        let all = DecisionMeasure.allCases
        XCTAssertEqual(Set(all).count, all.count)
        for a in all {
            for b in all { XCTAssertEqual(a == b, a.rawValue == b.rawValue) }
            XCTAssertEqual(DecisionMeasure(rawValue: a.rawValue), a)
        }
        let table = Dictionary(uniqueKeysWithValues: all.map { ($0, $0.rawValue) })
        XCTAssertTrue(all.allSatisfy { table[$0] == $0.rawValue })
    }

    func testTheBestAdmissibleConfigurationIsRecommended() throws {
        let r = try results(nil)
        XCTAssertEqual(r.decision.rule, DecisionRule.defaultRule)
        let admissible = r.configurations.filter { ($0.metrics.optOutRate.rate ?? 1) <= 0.05 }
        let best = admissible.max { $0.metrics.opensLiftPerUser!.value < $1.metrics.opensLiftPerUser!.value }
        XCTAssertEqual(r.decision.recommended, best?.index)
        XCTAssertEqual(Set(r.decision.admissible), Set(admissible.map(\.index)))
        XCTAssertEqual(r.decision.baseline, 0)
        XCTAssertEqual(r.decision.versusBaseline.first { $0.measure == .opensPerUser }?.difference?.value,
                       best?.metrics.opensLiftPerUser?.value)
    }

    func testBindingConstraintsAndLowerIsBetterObjectives() throws {
        // Opt-outs capped below the shortest period's: the 1-day reminder, which gains most, is excluded.
        let free = try results(DecisionRule(objective: .opensLiftPerUser))
        let top = try XCTUnwrap(free.decision.recommended)
        let cap = try XCTUnwrap(free.all[top].metrics.optOutRate.rate) * 0.99
        let capped = try results(DecisionRule(objective: .opensLiftPerUser, constraints: [.optOutRate: DecisionBound(max: cap)]),
                                 baseline: "8d")
        XCTAssertNotEqual(capped.decision.recommended, top)
        XCTAssertTrue(capped.decision.constraints[0].excluded.contains(top))
        XCTAssertTrue(capped.decision.constraints[0].binds)
        XCTAssertEqual(capped.baselineIndex, 4)
        XCTAssertEqual(capped.decision.versusBaseline.first?.reference, 4)
        // A constraint that excludes only worse configurations does not bind.
        let loose = try results(DecisionRule(objective: .opensLiftPerUser, constraints: [.opensLiftPerUser: DecisionBound(min: 0)]))
        XCTAssertFalse(loose.decision.constraints[0].binds)
        // Fewest notifications per user: the longest period.
        let quiet = try results(DecisionRule(objective: .deliveredPerUser))
        XCTAssertEqual(quiet.decision.recommended.map { quiet.all[$0].label }, "8d")
        // Nothing admissible: no recommendation.
        let none = try results(DecisionRule(objective: .opensLiftPerUser, constraints: [.optOutRate: DecisionBound(max: -1)]))
        XCTAssertNil(none.decision.recommended)
        XCTAssertTrue(none.decision.constraints[0].binds)
    }

    /// Users needed to separate two configurations: n·((z₀.₉₇₅ + z₀.₈)·se/|d|)², from the interval's half-width.
    func testUsersToSeparateFollowsFromTheSpread() throws {
        let r = try results(nil)
        let c = try XCTUnwrap(r.comparison(1, against: 2, .opensPerUser))
        let d = try XCTUnwrap(c.difference)
        let se = (d.high - d.low) / (2 * z95)
        let expected = 1_500 * pow((z95 + 0.841_621_233_572_914) * se / abs(d.value), 2)
        XCTAssertEqual(Double(try XCTUnwrap(c.usersToSeparate)), expected.rounded(.up), accuracy: 1)
    }
}
