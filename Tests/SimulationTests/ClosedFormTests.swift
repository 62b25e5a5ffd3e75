import Foundation
import GapFamilies
import Randomness
import ReminderEngine
import Simulation
import XCTest

/// The simulator against answers known in closed form.
///
/// Each notification's fate depends only on the gap drawn after the close that scheduled it, so
/// the outcomes are independent Bernoulli trials and the Wilson interval of the run is the right
/// yardstick. The tests use its 99.9% version (z = 3.29): with a fixed seed a test either passes or
/// fails for good, and 95% would leave a one-in-twenty chance that a correct simulator fails.
final class ClosedFormTests: XCTestCase {
    let z999 = 3.290_526_731_491_926

    func triggerRate(_ scenario: Scenario) throws -> Proportion {
        let model = try CompiledModel(scenario)
        let result = model.run(options: RunOptions(threads: 2))
        return ConfigurationMetrics(label: "r", tally: result.tallies[1], isHoldout: false).triggerRate
    }

    func assertWithin(_ p: Proportion, _ expected: Double, file: StaticString = #filePath, line: UInt = #line) {
        let ci = p.wilson(z: z999)!
        XCTAssertGreaterThan(p.total, 100_000, "too few notifications for the check", file: file, line: line)
        XCTAssert(ci.low <= expected && expected <= ci.high,
                  "expected \(expected), measured \(p.rate!) in [\(ci.low), \(ci.high)] (n = \(p.total))",
                  file: file, line: line)
    }

    func testExponentialGapsTriggerAtTheSurvivalOfThePeriod() throws {
        let s = Fixtures.scenario(users: 8_000, population: Fixtures.population(.exponential(mean: 2, unit: .days)),
                                  configurations: [Fixtures.reminder([1])])
        assertWithin(try triggerRate(s), exp(-1.0 / 2))
    }

    func testPeriodsInHours() throws {
        let s = Fixtures.scenario(users: 8_000, population: Fixtures.population(.exponential(mean: 1, unit: .days)),
                                  configurations: [Fixtures.reminder([12], unit: .hours)])
        assertWithin(try triggerRate(s), exp(-0.5))
    }

    func testWeibullGapsTriggerAtTheWeibullSurvival() throws {
        let s = Fixtures.scenario(
            users: 8_000, population: Fixtures.population(.weibull(shape: 0.7, scale: 1.5, unit: .days)),
            configurations: [Fixtures.reminder([2])])
        assertWithin(try triggerRate(s), exp(-pow(2 / 1.5, 0.7)))
    }

    func testLognormalGapsTriggerHalfTheTimeAtTheMedian() throws {
        let s = Fixtures.scenario(
            users: 8_000, population: Fixtures.population(.lognormal(mu: log(3), sigma: 1.2, unit: .days)),
            configurations: [Fixtures.reminder([3])])
        assertWithin(try triggerRate(s), 0.5)
    }

    /// With exponential gaps the time left until the organic open at a fire is again Exp(mean m),
    /// so a response delay Exp(d) comes first with probability m / (m + d).
    func testResponseRateWithMemorylessGaps() throws {
        let response = ResponseModel(baseResponse: 0.5, fatigue: 1, quietHours: nil, responseDelayMinutes: 180,
                                     optOutPerDelivery: 0)
        let s = Fixtures.scenario(
            users: 10_000, population: Fixtures.population(.exponential(mean: 1, unit: .days)), response: response,
            configurations: [Fixtures.reminder([1])])
        let model = try CompiledModel(s)
        let t = model.run(options: RunOptions(threads: 2)).tallies[1]
        let m = ConfigurationMetrics(label: "r", tally: t, isHoldout: false)
        assertWithin(m.responseRate, 0.5 * 1_440 / (1_440 + 180))
    }

    /// Fader, Hardie & Lee (2005), eq. 9: expected repeat transactions of a new customer in (0, t].
    func bgnbdExpectedRepeats(r: Double, alpha: Double, a: Double, b: Double, t: Double) -> Double {
        let z = t / (alpha + t)
        return (a + b - 1) / (a - 1) * (1 - pow(alpha / (alpha + t), r) * hypergeometric2F1(r, b, a + b - 1, z))
    }

    func hypergeometric2F1(_ a: Double, _ b: Double, _ c: Double, _ z: Double) -> Double {
        var term = 1.0, sum = 1.0
        for n in 0..<100_000 {
            let k = Double(n)
            term *= (a + k) * (b + k) / ((c + k) * (k + 1)) * z
            sum += term
            if abs(term) < 1e-15 * abs(sum) { break }
        }
        return sum
    }

    func testHypergeometricSeriesAgainstElementaryCases() {
        // 2F1(1, 1; 2; z) = −ln(1 − z) / z and 2F1(a, b; b; z) = (1 − z)^−a.
        XCTAssertEqual(hypergeometric2F1(1, 1, 2, 0.6), -log(0.4) / 0.6, accuracy: 1e-12)
        XCTAssertEqual(hypergeometric2F1(0.7, 2.5, 2.5, 0.9), pow(0.1, -0.7), accuracy: 1e-10)
    }

    func testBGNBDUsersRepeatAsTheModelPredicts() throws {
        let (r, alpha, a, b) = (0.9, 6.0, 0.8, 2.6)
        let days = 60
        let s = Fixtures.scenario(
            users: 200_000, days: days,
            population: Fixtures.population(.bgnbd(r: r, alpha: alpha, a: a, b: b, unit: .days), spread: 0),
            configurations: [Fixtures.reminder([1])])
        let (mean, se) = try meanRepeatSessions(s)
        let expected = bgnbdExpectedRepeats(r: r, alpha: alpha, a: a, b: b, t: Double(days))
        // Four standard errors of the mean of n independent users.
        XCTAssertEqual(mean, expected, accuracy: 4 * se, "se \(se)")
    }

    /// Gamma gaps (drawn through the generic sampler) trigger a reminder of period P with the gamma
    /// survival at P, here in closed form: Q(2, x) = e^−x (1 + x) and Q(1/2, x) = erfc(√x).
    func testGammaGapsTriggerAtTheGammaSurvival() throws {
        let whole = Fixtures.scenario(
            users: 8_000, population: Fixtures.population(.parametric(.gamma, values: [2, 1.5], unit: .days)),
            configurations: [Fixtures.reminder([2])])
        let x = 2 * 2 / 1.5
        assertWithin(try triggerRate(whole), exp(-x) * (1 + x))
        let bursty = Fixtures.scenario(
            users: 8_000, population: Fixtures.population(.parametric(.gamma, values: [0.5, 2], unit: .days)),
            configurations: [Fixtures.reminder([1])])
        assertWithin(try triggerRate(bursty), erfc((0.5 * 1 / 2.0).squareRoot()))
    }

    /// A gamma run is the same whatever the threads and chunks, as every run is.
    func testGammaRunsDoNotDependOnThreads() throws {
        let s = Fixtures.scenario(
            users: 1_500, population: Fixtures.population(.parametric(.gamma, values: [0.7, 3], unit: .days)),
            configurations: [Fixtures.reminder([1, 3])])
        let model = try CompiledModel(s)
        let reference = model.run(options: RunOptions(threads: 1))
        XCTAssertEqual(model.run(options: RunOptions(threads: 3, chunkSize: 7)), reference)
    }
}
