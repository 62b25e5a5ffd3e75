import Foundation
import Randomness
import Simulation
import XCTest
@testable import Calibration

/// A calibration judged out of sample: fitted on some arms of a past test simulated from a known
/// truth, it predicts the arm it did not see, and the prediction interval covers that arm's observed
/// rate as often as it says it does.
final class HoldOutPredictionTests: XCTestCase {
    /// Experiments repeated: `REMINDERSIM_HOLDOUT_REPLICATES` when set (more replicates, a sharper test),
    /// 6 by default to keep the suite fast.
    private var replicates: Int {
        ProcessInfo.processInfo.environment["REMINDERSIM_HOLDOUT_REPLICATES"].flatMap(Int.init).map { max($0, 5) } ?? 6
    }

    /// The x with P(χ²_df ≤ x) = p, by bisection on the regularized incomplete gamma.
    private func chiSquareQuantile(_ p: Double, df: Int) -> Double {
        var (low, high) = (0.0, 10.0 * Double(df) + 100)
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if regularizedGammaP(a: Double(df) / 2, x: mid / 2) < p { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }

    func testHeldOutArmFallsInItsIntervalAtTheNominalRate() throws {
        // Truth: base response 0.12. Each experiment, at seeds of its own: the holdout and the 1/2/4-day arm with
        // 3,000 users each, which the fit sees from a wrong start (0.09), and the 2-day arm with 15,000 users, which it
        // predicts. The held-out arm is large so that the fitted parameter's uncertainty is most of the interval's
        // width: an interval without it is too narrow, and fails the width check below.
        let truth = 0.12
        let heldOut = "2d"
        let asked = replicates
        var zs: [Double] = []
        let began = Date()
        for replicate in 0..<asked {
            let small = try simulatedResults(smallScenario(baseResponse: truth), users: 3_000, seed: 2_000 + UInt64(replicate))
            let large = try simulatedResults(smallScenario(baseResponse: truth), users: 15_000, seed: 3_000 + UInt64(replicate))
            let fitted = ExperimentResults(arms: small.arms.filter { $0.label != heldOut })
            let all = ExperimentResults(arms: fitted.arms + large.arms.filter { $0.label == heldOut })
            let o = options(users: 3_000, seed: 7_000 + UInt64(replicate))
            let c: Calibration
            do {
                c = try Calibration.fit(scenario: smallScenario(baseResponse: 0.09), results: fitted, parameters: [.baseResponse], options: o)
            } catch let error as CalibrationError where error.kind == .notIdentified {
                // The fit refuses an experiment too noisy to estimate from; the check stands on the others.
                print("replicate \(replicate): refused (\(error))")
                continue
            }
            XCTAssertNotNil(c.scenario.response.uncertainty?.joint, "the fit carries its covariance")
            var predicting = ArmPredictions.unseenUsers(o, scenario: c.scenario)
            predicting.users = 15_000
            let p = try ArmPredictions.predict(scenario: c.scenario, results: all, draws: 8, options: predicting)
            let opens = try XCTUnwrap(p.moments.first { $0.arm == heldOut && $0.name == "opens" })
            XCTAssertGreaterThan(opens.modelStandardError, 0)
            zs.append(opens.z)
            print(String(format: "replicate %d: observed %.4f, predicted %.4f [%.4f, %.4f], z %+.2f", replicate, opens.observed,
                         opens.predicted, opens.lower, opens.upper, opens.z))
        }
        print("\(asked) experiments in \(Date().timeIntervalSince(began)) s")
        XCTAssertGreaterThanOrEqual(zs.count, asked * 2 / 3, "too many experiments refused")
        let n = zs.count
        // Coverage: with a true 95% interval, the number of misses is binomial(n, 0.05); more misses than the
        // count whose tail is under 0.001 says the interval is too narrow.
        var tail = 1.0, allowed = 0
        while allowed < n {
            tail -= binomial(n, allowed) * pow(0.05, Double(allowed)) * pow(0.95, Double(n - allowed))
            if tail < 0.001 { break }
            allowed += 1
        }
        let misses = zs.filter { abs($0) > 1.959_964 }.count
        XCTAssertLessThanOrEqual(misses, allowed, "z-scores \(zs)")
        // Calibration of the width both ways: Σz² is χ² with n degrees of freedom when the standard error is
        // right; outside its 99% range the intervals are too narrow or too wide.
        let sum = zs.reduce(0) { $0 + $1 * $1 }
        XCTAssertGreaterThanOrEqual(sum, chiSquareQuantile(0.005, df: n), "intervals too wide: z-scores \(zs)")
        XCTAssertLessThanOrEqual(sum, chiSquareQuantile(0.995, df: n), "intervals too narrow: z-scores \(zs)")
    }

    private func binomial(_ n: Int, _ k: Int) -> Double {
        (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }
}
