import Foundation
import GapFamilies
import Simulation
import XCTest

/// The return processes a scenario may name come from one list, and every parametric family is read
/// and written from its description.
final class ReturnKindTests: XCTestCase {
    /// A scenario whose one segment returns as `returns` says.
    func scenario(returns: String) -> String {
        #"{"name": "m", "population": {"segments": [{"name": "all", "returns": "# + returns + "}]}, "
            + #""configurations": [{"label": "weekly", "reminders": [{"messages": ["hi"], "timePeriods": [7]}]}]}"#
    }

    /// The problems of that scenario; none when it is accepted.
    func issues(returns: String) -> [String] {
        let text = scenario(returns: returns)
        let decoded = Result { () throws(ScenarioError) in try Scenario.decode(text) }
        guard case let .failure(error) = decoded else { return [] }
        return error.issues.map(\.description)
    }

    func testKindsAreTheFamiliesThenTheRecordedOnes() {
        XCTAssertEqual(ReturnKind.all.map(\.name), ["exponential", "weibull", "lognormal", "gamma", "bgnbd", "paretoNBD", "empirical", "replay"])
        for kind in ReturnKind.all { XCTAssertEqual(ReturnKind(name: kind.name), kind) }
        XCTAssertNil(ReturnKind(name: "poisson"))
        XCTAssertNil(ReturnKind(name: "Exponential"))
    }

    /// Each family is read with a value for every parameter, written back with the same fields and
    /// read again to an equal scenario.
    func testEveryFamilyIsReadAndWrittenFromItsParameters() throws {
        for family in GapFamily.allCases {
            let values = family.parameters.map { p -> Double in
                switch p.bounds {
                case let .positiveUpTo(limit): return min(2, limit)
                case let .within(range): return min(max(1.5, range.lowerBound), range.upperBound)
                }
            }
            let fields = zip(family.parameters, values).map { "\"\($0.name)\": \($1)" }.joined(separator: ", ")
            let text = scenario(returns: "{\"distribution\": \"\(family.name)\", \(fields), \"unit\": \"hours\"}")
            let s = try Scenario.decode(text)
            XCTAssertEqual(s.population.segments[0].returns, .parametric(family, values: values, unit: .hours))
            XCTAssertEqual(s.population.segments[0].returns.distributionName, family.name)
            XCTAssertEqual(try Scenario.decode(try s.canonicalJSON()), s, family.name)
            let written = try s.canonicalJSON()
            for p in family.parameters { XCTAssertTrue(written.contains("\"\(p.name)\" : "), "\(family.name).\(p.name)") }
        }
    }

    /// A missing parameter is named, and a value outside the family's bounds is refused with them.
    func testParametersAreCheckedAgainstTheirBounds() {
        XCTAssertEqual(issues(returns: #"{"distribution": "weibull", "scale": 2}"#),
                       ["population.segments[0].returns.shape: required field is missing"])
        XCTAssertEqual(issues(returns: #"{"distribution": "weibull", "shape": 60, "scale": 2}"#),
                       ["population.segments[0].returns.shape: must be between 0.05 and 50, got 60"])
        XCTAssertEqual(issues(returns: #"{"distribution": "lognormal", "mu": 1, "median": 2, "sigma": 1}"#),
                       ["population.segments[0].returns: give either mu or median, not both"])
        XCTAssertEqual(issues(returns: #"{"distribution": "bgnbd", "r": 1, "alpha": 0, "a": 1, "b": 1}"#),
                       ["population.segments[0].returns.alpha: must be > 0 and ≤ 1000000, got 0"])
    }

    /// A name that is no kind is never read as another kind.
    func testAnUnknownNameListsTheAllowedOnes() {
        XCTAssertEqual(issues(returns: #"{"distribution": "poisson", "data": "x.csv"}"#), [
            "population.segments[0].returns.distribution: unknown distribution \"poisson\"; expected one of \"exponential\", \"weibull\", \"lognormal\", \"gamma\", \"bgnbd\", \"paretoNBD\", \"empirical\", \"replay\"",
        ])
    }
}
