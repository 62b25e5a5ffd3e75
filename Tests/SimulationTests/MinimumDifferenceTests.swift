@testable import Simulation
import XCTest

/// `minimumDifference`: a configuration is clearly better only when the paired interval of its gain
/// lies above the smallest gain worth shipping; the rule reads it from `decision` and `tune`.
final class MinimumDifferenceTests: XCTestCase {
    func comparison(_ low: Double, _ high: Double, _ m: PairMeasure = .opensPerUser) -> PairwiseComparison {
        PairwiseComparison(configuration: 1, reference: 2, measure: m, difference: Estimate(value: (low + high) / 2, low: low, high: high),
                           pairs: 1_000, users: 1_000)
    }

    func testTheVerdictHoldsTheIntervalToTheMinimum() {
        let rule = DecisionRule(objective: .opensLiftPerUser, minimumDifference: 0.05)
        XCTAssertEqual(rule.verdict(comparison(0.06, 0.10)), .clearlyBetter)
        // Above zero, and reaching above the minimum: perhaps what matters, not surely.
        XCTAssertEqual(rule.verdict(comparison(0.01, 0.10)), .betterNotClearlyByWhatMatters)
        XCTAssertEqual(rule.verdict(comparison(0.01, 0.04)), .betterByLessThanMatters)
        XCTAssertEqual(rule.verdict(comparison(0.01, 0.05)), .betterByLessThanMatters)
        XCTAssertEqual(rule.verdict(comparison(-0.01, 0.10)), .notToldApart)
        XCTAssertEqual(rule.verdict(comparison(-0.04, -0.01)), .worseByLessThanMatters)
        XCTAssertEqual(rule.verdict(comparison(-0.08, -0.01)), .worseNotClearlyByWhatMatters)
        XCTAssertEqual(rule.verdict(comparison(-0.10, -0.06)), .clearlyWorse)
        XCTAssertEqual(ObjectiveVerdict.betterNotClearlyByWhatMatters.text, "better, but not clearly by what matters")
        XCTAssertEqual(ObjectiveVerdict.worseNotClearlyByWhatMatters.text, "worse, perhaps by what matters")
        // The default 0 is today's test: clearly better when the interval excludes zero.
        let plain = DecisionRule(objective: .opensLiftPerUser)
        XCTAssertEqual(plain.verdict(comparison(0.001, 0.04)), .clearlyBetter)
        XCTAssertEqual(plain.verdict(comparison(-0.001, 0.04)), .notToldApart)
        // Lower is better for opt-outs: a fall of more than 1 pp is the gain.
        let optOut = DecisionRule(objective: .optOutRate, minimumDifference: 0.01)
        XCTAssertEqual(optOut.verdict(comparison(-0.03, -0.02, .optOutRate)), .clearlyBetter)
        XCTAssertEqual(optOut.verdict(comparison(-0.005, -0.002, .optOutRate)), .betterByLessThanMatters)
        XCTAssertEqual(optOut.verdict(comparison(0.02, 0.03, .optOutRate)), .clearlyWorse)
    }

    func testTheReportStatesTheMinimum() {
        XCTAssertEqual(DecisionRule(objective: .opensLiftPerUser).minimumDifferenceText,
                       "smallest gain worth shipping 0 in opens per user (the default; set `minimumDifference` to state yours)")
        // A difference of two configurations' lifts over the holdout is a difference of the measure itself.
        XCTAssertEqual(DecisionRule(objective: .liftD30, minimumDifference: 0.005).minimumDifferenceText,
                       "smallest gain worth shipping 0.5 pp in D30 retention")
        // An objective without a paired difference refuses a minimum: the text does not invite one.
        XCTAssertEqual(DecisionRule(objective: .deliveredPerExtraOpen).minimumDifferenceText,
                       "smallest gain worth shipping 0 in notifications delivered per extra open (this objective has no paired "
                        + "difference to hold one to)")
    }

    func testDecisionAndTuneReadItAndWriteItBack() throws {
        let base = try TuneTests.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 2}}"#)
        var text = try base.canonicalJSON()
        XCTAssertFalse(text.contains("minimumDifference"), "a rule without one reads back the same, without the field")
        var s = base
        s.decision?.minimumDifference = 0.02
        s.tune?.rule.minimumDifference = 0.03
        text = try s.canonicalJSON()
        let back = try Scenario.decode(text)
        XCTAssertEqual(back.decision?.minimumDifference, 0.02)
        XCTAssertEqual(back.tune?.rule.minimumDifference, 0.03)
    }

    func testAMinimumOnAnObjectiveWithoutAPairedDifferenceIsRefused() throws {
        var s = try TuneTests.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 2}}"#)
        s.decision = DecisionRule(objective: .deliveredPerExtraOpen, minimumDifference: 1)
        XCTAssertThrowsError(try Scenario.decode(try s.canonicalJSON())) { error in
            XCTAssertTrue("\(error)".contains("decision.minimumDifference: deliveredPerExtraOpen has no paired difference"), "\(error)")
        }
        s.decision = DecisionRule(objective: .opensLiftPerUser, minimumDifference: -1)
        XCTAssertThrowsError(try Scenario.decode(try s.canonicalJSON())) { error in
            XCTAssertTrue("\(error)".contains("decision.minimumDifference"), "\(error)")
        }
        // No difference in a share reaches more than 1, nor one in opens per user a million.
        s.decision = DecisionRule(objective: .liftD7, minimumDifference: 5)
        XCTAssertThrowsError(try Scenario.decode(try s.canonicalJSON())) { error in
            XCTAssertTrue("\(error)".contains("decision.minimumDifference: must be at most 1 (a share, so 100 pp), got 5"), "\(error)")
        }
        s.decision = DecisionRule(objective: .opensLiftPerUser, minimumDifference: 1e300)
        XCTAssertThrowsError(try Scenario.decode(try s.canonicalJSON())) { error in
            XCTAssertTrue("\(error)".contains("decision.minimumDifference: must be at most 1000000, got 1e+300"), "\(error)")
        }
        s.decision = DecisionRule(objective: .liftD7, minimumDifference: 0.02)
        XCTAssertEqual(try Scenario.decode(try s.canonicalJSON()).decision?.minimumDifference, 0.02)
    }
}
