import Foundation
import Simulation
import XCTest

/// Draws of an uncertain response model: a range is a 95% interval on its scale, a joint normal has
/// the covariance it states, and both are read and written back unchanged.
final class ResponseDrawTests: XCTestCase {
    static func scenario(response: String) throws -> Scenario {
        try Scenario.decode("""
            {"name": "draws", "seed": 5, "users": 10,
             "population": {"segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 5, "unit": "days"}}]},
             "response": \(response),
             "configurations": [{"label": "a", "reminders": [{"messages": ["m"], "timePeriods": [1], "unit": "days"}]}]}
            """)
    }

    /// About 95% of the draws fall inside the range, on either scale; the tolerance is four standard
    /// errors of a share of n = 4,000 (0.014).
    func testRangeIsANinetyFivePercentInterval() throws {
        let s = try Self.scenario(response: """
            {"baseResponse": {"value": 0.06, "low": 0.03, "high": 0.12},
             "responseDelayMinutes": {"value": 30, "low": 10, "high": 90}}
            """)
        let n = 4_000
        var inBase = 0, inDelay = 0, belowValue = 0
        for k in 0..<n {
            let r = s.response.draw(k, seed: s.seed)
            if (0.03...0.12).contains(r.baseResponse) { inBase += 1 }
            if (10.0...90.0).contains(r.responseDelayMinutes) { inDelay += 1 }
            if r.responseDelayMinutes < 30 { belowValue += 1 }
        }
        let tolerance = 4 * (0.95 * 0.05 / Double(n)).squareRoot()
        XCTAssertEqual(Double(inBase) / Double(n), 0.95, accuracy: tolerance)
        XCTAssertEqual(Double(inDelay) / Double(n), 0.95, accuracy: tolerance)
        // The delay's range is symmetric about the value on the log scale: its median is the value.
        XCTAssertEqual(Double(belowValue) / Double(n), 0.5, accuracy: 4 * (0.25 / Double(n)).squareRoot())
    }

    /// A range wide enough to draw past what its field allows (a delay from 0.02 to 100,000 minutes,
    /// a factor up to 10⁶) keeps every draw within it, taken at the nearest end, so that every draw
    /// of a scenario that validates runs; the draws inside are untouched.
    func testDrawsStayWithinWhatTheirFieldAllows() throws {
        let s = try Self.scenario(response: """
            {"responseDelayMinutes": {"value": 30, "low": 0.02, "high": 100000},
             "dormantFactor": {"value": 1000, "low": 0.001, "high": 1000000}}
            """)
        let floor = Scenario.minimumResponseDelaySeconds / 60
        var atFloor = 0, atCeiling = 0
        for k in 0..<1_000 {
            let r = s.response.draw(k, seed: s.seed)
            XCTAssertTrue((floor...1e6).contains(r.responseDelayMinutes), "\(r.responseDelayMinutes)")
            XCTAssertTrue((0...1e6).contains(r.dormantFactor), "\(r.dormantFactor)")
            if r.responseDelayMinutes == floor { atFloor += 1 }
            if r.dormantFactor == 1e6 { atCeiling += 1 }
            var checked = s
            checked.response = r
            XCTAssertNoThrow(try CompiledModel(checked), "draw \(k)")
        }
        XCTAssertGreaterThan(atFloor, 0, "some delays drawn below a second")
        XCTAssertGreaterThan(atCeiling, 0, "some factors drawn above 10⁶")
    }

    func testDrawsAreDeterministicAndARangeOfNoWidthIsTheValue() throws {
        let s = try Self.scenario(response: #"{"fatigue": {"value": 0.7, "low": 0.5, "high": 0.9}, "quietFactor": {"value": 0.3, "low": 0.3, "high": 0.3}}"#)
        XCTAssertEqual(s.response.draw(3, seed: 9), s.response.draw(3, seed: 9))
        XCTAssertNotEqual(s.response.draw(3, seed: 9).fatigue, s.response.draw(4, seed: 9).fatigue)
        XCTAssertNotEqual(s.response.draw(3, seed: 9).fatigue, s.response.draw(3, seed: 10).fatigue)
        for k in 0..<20 { XCTAssertEqual(s.response.draw(k, seed: 9).quietFactor, 0.3) }
        XCTAssertNil(s.response.draw(0, seed: 9).uncertainty)
        XCTAssertTrue(s.response.isUncertain)
    }

    /// The joint draws' log-odds have the stated mean and covariance: each sample variance within
    /// five standard errors (σ²·√(2/n)), the covariance within five of its own ((σ₁²σ₂² + c²)/n)^½.
    func testJointDrawsHaveTheStatedCovariance() throws {
        let s = try Self.scenario(response: """
            {"uncertainty": {"scale": "logOdds", "parameters": ["baseResponse", "optOutPerDelivery"],
             "mean": [-2.5, -4.6], "covariance": [[0.04, -0.018], [-0.018, 0.09]]}}
            """)
        let n = 4_000
        let x = (0..<n).map { k -> (Double, Double) in
            let r = s.response.draw(k, seed: s.seed)
            return (log(r.baseResponse / (1 - r.baseResponse)), log(r.optOutPerDelivery / (1 - r.optOutPerDelivery)))
        }
        let m0 = x.reduce(0) { $0 + $1.0 } / Double(n), m1 = x.reduce(0) { $0 + $1.1 } / Double(n)
        let v0 = x.reduce(0) { $0 + pow($1.0 - m0, 2) } / Double(n - 1)
        let v1 = x.reduce(0) { $0 + pow($1.1 - m1, 2) } / Double(n - 1)
        let c = x.reduce(0) { $0 + ($1.0 - m0) * ($1.1 - m1) } / Double(n - 1)
        XCTAssertEqual(m0, -2.5, accuracy: 5 * (0.04 / Double(n)).squareRoot())
        XCTAssertEqual(m1, -4.6, accuracy: 5 * (0.09 / Double(n)).squareRoot())
        XCTAssertEqual(v0, 0.04, accuracy: 5 * 0.04 * (2 / Double(n)).squareRoot())
        XCTAssertEqual(v1, 0.09, accuracy: 5 * 0.09 * (2 / Double(n)).squareRoot())
        XCTAssertEqual(c, -0.018, accuracy: 5 * ((0.04 * 0.09 + 0.018 * 0.018) / Double(n)).squareRoot())
    }

    /// An uncertainty whose mean lies far from the parameter's own value (in its standard deviations) is a
    /// warning at the mean: the point decision and the draws would run two models. Near it, none.
    func testAMeanFarFromTheValueIsAWarning() throws {
        let far = try Self.scenario(response: """
            {"baseResponse": 0.08, "uncertainty": {"scale": "logOdds", "parameters": ["baseResponse"], "mean": [700],
             "covariance": [[0.01]]}}
            """)
        let warning = try XCTUnwrap(far.warnings().first { $0.path == "response.uncertainty.mean[0]" })
        XCTAssertTrue(warning.reason.hasPrefix("baseResponse's mean (1 on its own scale) lies 7.02e+03 standard deviations from "
            + "its value 0.08 (response.baseResponse)"), warning.reason)
        // logit(0.08) = −2.442, 1.5 standard deviations (0.1 each) away: no warning.
        let near = try Self.scenario(response: """
            {"baseResponse": 0.08, "uncertainty": {"scale": "logOdds", "parameters": ["baseResponse"], "mean": [-2.29],
             "covariance": [[0.01]]}}
            """)
        XCTAssertFalse(near.warnings().contains { $0.path.hasPrefix("response.uncertainty") })
        let beyond = try Self.scenario(response: """
            {"baseResponse": 0.08, "uncertainty": {"scale": "logOdds", "parameters": ["baseResponse"], "mean": [-2.1],
             "covariance": [[0.01]]}}
            """)
        XCTAssertTrue(beyond.warnings().contains { $0.path == "response.uncertainty.mean[0]" }, "3.4 standard deviations")
    }

    func testUncertaintyIsWrittenBackAsRead() throws {
        let s = try Self.scenario(response: """
            {"baseResponse": {"value": 0.06, "low": 0.03, "high": 0.12},
             "uncertainty": {"parameters": ["fatigue"], "mean": [1.7], "covariance": [[0.01]]}}
            """)
        let again = try Scenario.decode(try s.canonicalJSON())
        XCTAssertEqual(again, s)
        XCTAssertEqual(again.response.uncertainty?.ranges[.baseResponse], ParameterRange(value: 0.06, low: 0.03, high: 0.12))
        XCTAssertEqual(again.response.uncertainty?.joint?.parameters, [.fatigue])
        // A plain scenario is written as before: no uncertainty anywhere.
        let plain = try Self.scenario(response: #"{"baseResponse": 0.06}"#)
        XCTAssertFalse(try plain.canonicalJSON().contains("uncertainty"))
        XCTAssertFalse(try plain.canonicalJSON().contains("\"low\""))
    }

    func testParameterGivenTwiceIsRefused() throws {
        XCTAssertThrowsError(try Self.scenario(response: """
            {"fatigue": {"value": 0.7, "low": 0.5, "high": 0.9},
             "uncertainty": {"parameters": ["fatigue"], "mean": [0.8], "covariance": [[0.01]]}}
            """)) { error in
            XCTAssertTrue("\(error)".contains("response.uncertainty.parameters: fatigue is also given a range"), "\(error)")
        }
    }
}
