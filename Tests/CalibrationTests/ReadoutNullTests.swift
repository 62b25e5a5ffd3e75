import Foundation
import Simulation
import XCTest
@testable import Calibration

/// The model check of `readout` under the null: results of a live test simulated from the very model that
/// predicts them, each arm on users of its own as a live test's are. J is then χ² on its degrees of
/// freedom, so its mean is the degrees of freedom and p < 0.05 comes one time in twenty. The per-user
/// covariance behind J is estimated from the simulated users in batches; with few batches it is noisy,
/// J comes out larger than χ² and the check calls for recalibrating a model that is right.
final class ReadoutNullTests: XCTestCase {
    func testTheModelCheckHoldsItsLevelWhenTheModelIsRight() throws {
        // Every user reaches day 7 inside the run, as the results file's retained_d7 counts them.
        let scenario = smallScenario(days: 14)
        let replicates = 160
        var statistics: [Double] = [], rejected = 0, df = 0
        for r in 0..<replicates {
            // Each arm from a run at a seed of its own: independent users, as in a live test.
            var arms: [ExperimentResults.Arm] = []
            for (k, label) in ["holdout", "2d", "1/2/4d circular"].enumerated() {
                let one = try simulatedResults(scenario, users: 2_000, seed: 40_000 + UInt64(r * 3 + k), retention: true)
                arms.append(try XCTUnwrap(one.arms.first { $0.label == label }))
            }
            var o = options(users: 4_000, seed: 90_000 + UInt64(r))
            o.batches = Calibration.Options().batches
            let p = try ArmPredictions.predict(scenario: scenario, results: ExperimentResults(arms: arms), draws: 0, options: o)
            statistics.append(p.statistic)
            df = p.degreesOfFreedom
            if (p.pValue ?? 1) < 0.05 { rejected += 1 }
        }
        let mean = statistics.reduce(0, +) / Double(replicates)
        print("J: mean \(mean) on \(df) degrees of freedom; p < 0.05 in \(rejected) of \(replicates)")
        // The mean of 160 χ²_df draws has standard deviation √(2 df / 160): 3.5 of them either side.
        let band = 3.5 * (2 * Double(df) / Double(replicates)).squareRoot()
        XCTAssertEqual(mean, Double(df), accuracy: band, "J should average its degrees of freedom under the null")
        // Binomial(160, 0.05): P(more than 15 rejections) < 0.01.
        XCTAssertLessThanOrEqual(rejected, 15, "the check rejects a right model too often")
        XCTAssertGreaterThan(df, 4)
    }

    /// A results file's retained_d7 counts the retained among all of an arm's users; the simulation can
    /// count only users whose day 7 lies inside the run. When some do not reach it the two shares would not
    /// compare (the observed one would sit below every prediction), so the readout refuses, saying why.
    func testRetentionNeedsEveryUserToReachItsDay() throws {
        let short = smallScenario(days: 10)
        let results = try simulatedResults(short, users: 2_000, seed: 11, retention: true)
        XCTAssertThrowsError(try ArmPredictions.predict(scenario: short, results: results, draws: 0, options: options(users: 2_000, seed: 12))) {
            let e = $0 as? CalibrationError
            XCTAssertEqual(e?.kind, .mismatch)
            XCTAssertTrue("\(e.map { "\($0)" } ?? "")".contains("simulated users reach day 7 inside the scenario's 10 days"), "\($0)")
        }
        // Without the retention column the same results are read.
        let plain = ExperimentResults(arms: results.arms.map {
            ExperimentResults.Arm(label: $0.label, users: $0.users, delivered: $0.delivered, opens: $0.opens, optOuts: $0.optOuts, line: $0.line)
        })
        XCTAssertNoThrow(try ArmPredictions.predict(scenario: short, results: plain, draws: 0, options: options(users: 2_000, seed: 12)))
    }
}
