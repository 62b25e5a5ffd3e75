import Foundation
import Simulation
import XCTest

/// Pareto/NBD users in the simulation against the model's expected repeat sessions.
final class ParetoNBDSimulationTests: XCTestCase {
    /// E[X(t)] = r β / (α (s − 1)) · [1 − (β / (β + t))^(s − 1)] (Schmittlein, Morrison & Colombo 1987).
    func paretoExpectedRepeats(r: Double, alpha: Double, s: Double, beta: Double, t: Double) -> Double {
        r * beta / (alpha * (s - 1)) * (1 - pow(beta / (beta + t), s - 1))
    }

    func testParetoNBDUsersRepeatAsTheModelPredicts() throws {
        // A lifetime that can end before the first repeat session is what sets Pareto/NBD apart from
        // BG/NBD; without it the mean would be r/α · E[min(lifetime, t)] measured from the first repeat.
        for (r, alpha, s, beta) in [(0.9, 6.0, 0.8, 12.0), (1.5, 3.0, 2.5, 20.0)] {
            let days = 60
            let (mean, se) = try meanRepeatSessions(
                Fixtures.scenario(users: 100_000, days: days,
                                  population: Fixtures.population(.paretoNBD(r: r, alpha: alpha, s: s, beta: beta, unit: .days), spread: 0),
                                  configurations: [Fixtures.reminder([1])]))
            let expected = paretoExpectedRepeats(r: r, alpha: alpha, s: s, beta: beta, t: Double(days))
            // Four standard errors of the mean of independent users.
            XCTAssertEqual(mean, expected, accuracy: 4 * se, "r \(r), alpha \(alpha), s \(s), beta \(beta)")
        }
    }
}

/// The mean number of repeat sessions per user of `s`'s first configuration, the holdout (no
/// reminders), and its standard error, the users being independent.
func meanRepeatSessions(_ s: Scenario) throws -> (mean: Double, standardError: Double) {
    let model = try CompiledModel(s)
    var scratch = TimelineScratch()
    var observer = NoTimelineObserver()
    var tally = Tally(layout: model.layout(0))
    var sum = 0.0, squares = 0.0
    for user in 0..<s.users {
        let outcome = tally.counts.withUnsafeMutableBufferPointer { counts in
            model.simulate(user: user, traits: model.traits(user: user), configuration: model.configurations[0],
                           layout: model.layout(0), counts: counts.baseAddress!, scratch: &scratch, observer: &observer)
        }
        let repeats = Double(outcome.opens - 1)
        sum += repeats
        squares += repeats * repeats
    }
    let n = Double(s.users)
    let sd = ((squares - sum * sum / n) / (n - 1)).squareRoot()
    return (sum / n, sd / n.squareRoot())
}
