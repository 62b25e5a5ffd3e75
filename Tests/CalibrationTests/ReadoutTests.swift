import Foundation
import Randomness
import Simulation
import XCTest
@testable import Calibration

/// The readout's statistics against known answers: the chi-square p-value against published table
/// values and its closed form for one degree of freedom, and the call against a z-test done by hand.
final class ReadoutTests: XCTestCase {
    private func arm(_ label: String, users: Int, opens: Int = 0, optOuts: Int = 0, retained: Int? = nil,
                     share: Double? = nil) -> ExperimentResults.Arm {
        ExperimentResults.Arm(label: label, users: users, delivered: label == "holdout" ? 0 : users, opens: opens,
                              optOuts: optOuts, retainedD7: retained, plannedShare: share)
    }

    func testChiSquarePValuesMatchTheTables() {
        // Upper critical values of χ² (a standard table, 3 decimals): P(χ²_df ≥ x) = p.
        let table: [(df: Int, x: Double, p: Double)] = [
            (1, 3.841, 0.05), (1, 6.635, 0.01), (1, 10.828, 0.001), (2, 5.991, 0.05), (2, 13.816, 0.001),
            (3, 7.815, 0.05), (3, 16.266, 0.001), (5, 11.070, 0.05), (10, 18.307, 0.05), (10, 29.588, 0.001),
        ]
        for row in table {
            let p = regularizedGammaQ(a: Double(row.df) / 2, x: row.x / 2)
            // The table's x is rounded to 0.0005; that moves p by at most density × 0.0005, under 0.2% of p here.
            XCTAssertEqual(p, row.p, accuracy: 0.002 * row.p, "df \(row.df), x \(row.x)")
        }
    }

    func testTwentyThousandAgainstTwentyOneThousandIsAMismatch() {
        // Planned 50/50: expected 20,500 each, χ² = 2 × 500² / 20,500 = 24.39 on 1 df, and for one degree of
        // freedom P(χ²₁ ≥ x) = erfc(√(x/2)) exactly.
        let check = SampleRatioCheck(ExperimentResults(arms: [arm("2d", users: 20_000, share: 0.5), arm("1/2/4d circular", users: 21_000, share: 0.5)]))
        let chi = 2 * 500.0 * 500 / 20_500
        XCTAssertEqual(check.statistic, chi, accuracy: 1e-9)
        XCTAssertEqual(check.degreesOfFreedom, 1)
        XCTAssertEqual(check.pValue, erfc((chi / 2).squareRoot()), accuracy: 1e-3 * check.pValue)
        XCTAssertTrue(check.mismatch)
        XCTAssertTrue(check.statedShares)

        // A sound split: 20,400 against 20,600 gives χ² = 0.976, p = 0.32.
        let sound = SampleRatioCheck(ExperimentResults(arms: [arm("2d", users: 20_400, share: 50), arm("1/2/4d circular", users: 20_600, share: 50)]))
        XCTAssertEqual(sound.pValue, erfc((2 * 100.0 * 100 / 20_500 / 2).squareRoot()), accuracy: 1e-9)
        XCTAssertFalse(sound.mismatch)

        // Unequal plans: a 10% holdout with 45% in each arm, met exactly, is sound; equal shares would not be.
        let planned = ExperimentResults(arms: [arm("holdout", users: 4_000, share: 0.1), arm("2d", users: 18_000, share: 0.45),
                                               arm("1/2/4d circular", users: 18_000, share: 0.45)])
        XCTAssertEqual(SampleRatioCheck(planned).statistic, 0, accuracy: 1e-9)
        var unstated = planned
        for i in unstated.arms.indices { unstated.arms[i].plannedShare = nil }
        XCTAssertTrue(SampleRatioCheck(unstated).mismatch)
        XCTAssertFalse(SampleRatioCheck(unstated).statedShares)
    }

    /// The call by hand: the two-sample z-test of two shares (the variance pooled under no difference), then
    /// the rule's thresholds on the difference's interval.
    private func handCall(_ a: (Int, Int), _ b: (Int, Int), minimum: Double) -> (z: Double, call: ObservedComparison.Call) {
        let pa = Double(a.0) / Double(a.1), pb = Double(b.0) / Double(b.1)
        let se = (pa * (1 - pa) / Double(a.1) + pb * (1 - pb) / Double(b.1)).squareRoot()
        let pooled = Double(a.0 + b.0) / Double(a.1 + b.1)
        let d = pa - pb
        let (low, high) = (d - 1.959_964 * se, d + 1.959_964 * se)
        let z = d / (pooled * (1 - pooled) * (1 / Double(a.1) + 1 / Double(b.1))).squareRoot()
        return (z, low > minimum ? .ship : high < minimum ? .dontShip : .inconclusive)
    }

    /// Shares of 0 and 1 in every user of each arm: no spread within an arm, but the difference is as large as it
    /// can be. The pooled test gives statsmodels' `proportions_ztest([5, 0], [5, 5])`: z 3.1623, p 0.00157.
    func testSharesAtZeroAndOneStillHaveAZ() throws {
        let rule = DecisionRule(objective: .optOutRate)
        let results = ExperimentResults(arms: [arm("holdout", users: 5), arm("2d", users: 5, optOuts: 5)])
        let c = try XCTUnwrap(Readout.compare(results, rule: rule, baseline: nil, variances: [:]).0.first)
        XCTAssertEqual(c.difference, 1)
        XCTAssertEqual(c.z, 3.162_277_660_168_379, accuracy: 1e-12)
        XCTAssertEqual(c.pValue, 0.001_565_402_258_002_549, accuracy: 1e-9)
    }

    func testTheCallAgreesWithAnUnpairedZTestByHand() throws {
        let rule = DecisionRule(objective: .liftD7, constraints: [.optOutRate: DecisionBound(max: 0.05)], minimumDifference: 0.01)
        let holdout = arm("holdout", users: 20_000, retained: 6_000)
        // Retained on day 7 out of users: a clear gain, a gain too close to call, a loss.
        for (retained, users) in [(6_700, 20_000), (6_250, 20_000), (5_800, 20_000), (3_400, 10_000)] {
            let a = arm("2d", users: users, optOuts: users / 100, retained: retained)
            let (comparisons, note) = Readout.compare(ExperimentResults(arms: [holdout, a]), rule: rule, baseline: nil, variances: [:])
            XCTAssertNil(note)
            let c = try XCTUnwrap(comparisons.first)
            let hand = handCall((retained, users), (6_000, 20_000), minimum: 0.01)
            XCTAssertEqual(c.against, "holdout")
            XCTAssertEqual(c.z, hand.z, accuracy: 1e-9)
            XCTAssertEqual(c.call, hand.call, "\(retained) of \(users): \(c.reason)")
            XCTAssertEqual(c.pValue, erfc(abs(hand.z) / 2.0.squareRoot()), accuracy: 1e-12)
        }
        // The three calls all occur above, so a rule that always said one thing would fail.
        let calls = [(6_700, 20_000), (6_250, 20_000), (5_800, 20_000)].map { handCall($0, (6_000, 20_000), minimum: 0.01).call }
        XCTAssertEqual(calls, [.ship, .inconclusive, .dontShip])

        // A broken constraint is a "don't ship" whatever the gain.
        let noisy = arm("2d", users: 20_000, optOuts: 1_200, retained: 6_700)
        let broken = Readout.compare(ExperimentResults(arms: [holdout, noisy]), rule: rule, baseline: nil, variances: [:]).0
        XCTAssertEqual(broken.first?.call, .dontShip)
        // 5.15% of 20,000 (95% interval 4.84–5.46%) and 4.9% (4.60–5.20%): the limit of 5% lies inside the
        // interval, so whichever side the estimate is on, the test cannot tell: inconclusive, though the gain is clear.
        for (optOuts, words) in [(1_030, "may meet the constraint"), (980, "may break the constraint")] {
            let close = arm("2d", users: 20_000, optOuts: optOuts, retained: 6_700)
            let c = try XCTUnwrap(Readout.compare(ExperimentResults(arms: [holdout, close]), rule: rule, baseline: nil,
                                                  variances: [:]).0.first)
            XCTAssertEqual(c.call, .inconclusive, c.reason)
            // The share's interval by the score (Wilson) method, worked out here from its formula.
            let (p, n, z) = (Double(optOuts) / 20_000, 20_000.0, 1.959_964)
            let centre = (p + z * z / (2 * n)) / (1 + z * z / n)
            let half = z * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot() / (1 + z * z / n)
            XCTAssertEqual(c.reason, "its opt-out rate of \(String(format: "%.2f%%", p * 100)) (95% interval "
                + "\(String(format: "%.2f", (centre - half) * 100))–\(String(format: "%.2f%%", (centre + half) * 100))) \(words): too "
                + "close to the limit to call; a larger test could tell")
        }
        // Clearly inside the limit (2% of 20,000: 1.81–2.19%), the gain decides.
        let inside = arm("2d", users: 20_000, optOuts: 400, retained: 6_700)
        XCTAssertEqual(Readout.compare(ExperimentResults(arms: [holdout, inside]), rule: rule, baseline: nil, variances: [:]).0.first?.call,
                       .ship)
    }

    /// Newcombe's hybrid score interval for a difference of two shares reproduces his published table
    /// (Newcombe 1998, Statistics in Medicine 17:873–890, Table II, method 10), extreme shares included.
    func testADifferenceOfSharesMatchesNewcombesTable() throws {
        let table: [(Int, Int, Int, Int, Double, Double)] = [
            (56, 70, 48, 80, 0.0524, 0.3339), (9, 10, 3, 10, 0.1705, 0.8090), (5, 56, 0, 29, -0.0381, 0.1926),
            (0, 10, 0, 20, -0.1611, 0.2775), (10, 10, 0, 20, 0.6791, 1.0000), (10, 10, 0, 10, 0.6075, 1.0000),
        ]
        for (x1, n1, x2, n2, low, high) in table {
            let d = try XCTUnwrap(ShareDifference(x1, of: n1, minus: x2, of: n2))
            XCTAssertEqual(d.value, Double(x1) / Double(n1) - Double(x2) / Double(n2), accuracy: 1e-15)
            XCTAssertEqual(d.low, low, accuracy: 0.00005, "\(x1)/\(n1) − \(x2)/\(n2)")
            XCTAssertEqual(d.high, high, accuracy: 0.00005, "\(x1)/\(n1) − \(x2)/\(n2)")
        }
        XCTAssertNil(ShareDifference(0, of: 0, minus: 0, of: 5))
    }

    /// Small arms: a share of 0 or 1 keeps an interval of some width (the normal one has none), so one
    /// user who opted out is not "1 (95% interval 1–1)", and no share difference of two tiny arms is a
    /// firm call.
    func testSmallArmsKeepHonestIntervals() throws {
        let rule = DecisionRule(objective: .optOutRate, constraints: [.optOutRate: DecisionBound(max: 0.05)])
        let one = Readout.compare(ExperimentResults(arms: [arm("holdout", users: 1), arm("2d", users: 1, optOuts: 1)]),
                                  rule: rule, baseline: nil, variances: [:]).0
        let c = try XCTUnwrap(one.first)
        XCTAssertEqual(c.call, .dontShip)
        // In percent, as the rule writes its limit.
        XCTAssertEqual(c.reason, "its opt-out rate of 100.00% (95% interval 20.65–100.00%) breaks the constraint")
        // None of three users opting out in either arm: the difference is 0, its interval wide, the call open.
        let three = Readout.compare(ExperimentResults(arms: [arm("holdout", users: 3), arm("2d", users: 3)]),
                                    rule: DecisionRule(objective: .optOutRate), baseline: nil, variances: [:]).0
        let d = try XCTUnwrap(three.first)
        XCTAssertEqual(d.difference, 0)
        XCTAssertLessThan(d.lower, -0.5)
        XCTAssertGreaterThan(d.upper, 0.5)
        XCTAssertEqual(d.call, .inconclusive, d.reason)
    }

    func testOpensAreComparedWithTheSimulatedPerUserVariances() throws {
        // Opens per user against the baseline arm: the holdout is not the reference when the baseline is there.
        let rule = DecisionRule(objective: .opensLiftPerUser)
        let results = ExperimentResults(arms: [arm("holdout", users: 5_000, opens: 40_000), arm("2d", users: 20_000, opens: 170_000),
                                               arm("1/2/4d circular", users: 20_000, opens: 174_000)])
        let variances = ["holdout": ["opens": 30.0], "2d": ["opens": 36.0], "1/2/4d circular": ["opens": 40.0]]
        let (comparisons, _) = Readout.compare(results, rule: rule, baseline: "2d", variances: variances)
        let c = try XCTUnwrap(comparisons.first)
        XCTAssertEqual(comparisons.count, 1)
        XCTAssertEqual(c.against, "2d")
        let d = 174_000.0 / 20_000 - 170_000.0 / 20_000
        let se = (40.0 / 20_000 + 36.0 / 20_000).squareRoot()
        XCTAssertEqual(c.difference, d, accuracy: 1e-12)
        XCTAssertEqual(c.z, d / se, accuracy: 1e-9)
        XCTAssertEqual(c.call, d - 1.959_964 * se > 0 ? .ship : .inconclusive)
    }
}

/// The predicted range of an arm's rate stays within what the rate can be.
final class ArmPredictionRangeTests: XCTestCase {
    private func prediction(_ name: String, predicted: Double, standardError: Double) -> ArmPrediction {
        ArmPrediction(arm: "2d", name: name, users: 30, observed: 0, predicted: predicted, standardError: standardError,
                      modelStandardError: 0)
    }

    func testASmallArmsRangeIsCutAtZeroAndSharesAtOne() {
        // 0.02 ± 1.96 × 0.05 reaches −0.078: no arm has fewer than no opt-outs.
        let optOuts = prediction("opt_outs", predicted: 0.02, standardError: 0.05)
        XCTAssertEqual(optOuts.lower, 0)
        XCTAssertEqual(optOuts.upper, 0.02 + 1.959_964 * 0.05, accuracy: 1e-12)
        // 0.97 + 1.96 × 0.05 passes 1: no more than every user retained.
        let retained = prediction("retained_d7", predicted: 0.97, standardError: 0.05)
        XCTAssertEqual(retained.upper, 1)
        XCTAssertEqual(retained.lower, 0.97 - 1.959_964 * 0.05, accuracy: 1e-12)
        // Opens per user are a count: above 1 is fine, below 0 is not.
        let opens = prediction("opens", predicted: 0.9, standardError: 0.6)
        XCTAssertEqual(opens.upper, 0.9 + 1.959_964 * 0.6, accuracy: 1e-12)
        XCTAssertEqual(opens.lower, 0)
        // Away from the bounds, the normal approximation's range as it is.
        let wide = prediction("delivered", predicted: 12, standardError: 0.5)
        XCTAssertEqual(wide.lower, 12 - 1.959_964 * 0.5, accuracy: 1e-12)
        XCTAssertEqual(wide.upper, 12 + 1.959_964 * 0.5, accuracy: 1e-12)
    }
}
