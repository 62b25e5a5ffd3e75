import Foundation
import Simulation
import XCTest

/// Every configuration the scenario lists races beside the space, and the recommendation is never
/// clearly worse than a listed one that meets the constraints at the final user count.
final class TuneListedTests: XCTestCase {
    /// Periods of 20 to 24 days over 45 days: few notifications, few opens. The scenario lists 1, 2,
    /// 3, 5 and 7 days and the 1/3/7-day sequence, none of which the space holds, and some of which
    /// gain far more opens within the opt-out limit.
    func testAListedConfigurationOutsideTheSpaceCanWin() throws {
        let s = try TuneTests.scenario(users: 1_200, space: #"{"periods": {"min": 20, "max": 24}}"#)
        let listedLabels = s.configurations.map(\.label)
        let tuned = try Tuner(scenario: s, threads: 2, finalists: 2).run()
        let winner = try XCTUnwrap(tuned.winner, "the tune recommends nothing")
        let label = tuned.candidates[winner].spec.label
        XCTAssertTrue(listedLabels.contains(label), "the winner \(label) is not a listed configuration")
        XCTAssertTrue(tuned.winnerIsListed)
        // Not clearly worse than any listed configuration that meets the constraints at the end.
        for x in tuned.listed where x.candidate != winner && tuned.final.admits(x.candidate) {
            let d = try XCTUnwrap(tuned.final.subjectVersus[x.candidate]?.difference, x.label)
            XCTAssertGreaterThan(d.high, 0, "the recommendation is clearly worse than \(x.label)")
        }
    }

    /// With more candidates than the final stage takes, a listed configuration still reaches it
    /// unless it was dropped as clearly infeasible or clearly worse: it is never left out.
    func testListedConfigurationsAreNeverLeftOut() throws {
        let s = try TuneTests.scenario(users: 800, space: #"{"periods": {"min": 1, "max": 6}, "sequenceLength": {"min": 1, "max": 2}}"#)
        let tuned = try Tuner(scenario: s, threads: 2, finalists: 2).run()
        XCTAssertGreaterThan(tuned.stages.reduce(0) { $0 + $1.overCapacity }, 0, "nothing was left out: the test proves nothing")
        for x in tuned.listed {
            let outcome = tuned.candidates[x.candidate]
            XCTAssertNotEqual(outcome.drop?.kind, .leftOut, "\(x.label): \(outcome.dropped ?? "")")
        }
        // The space holds 1, 2, 3 and 5 days under its own labels; the 7 days and the sequence are added.
        XCTAssertEqual(tuned.listed.map { tuned.candidates[$0.candidate].spec.label }, ["1d", "2d", "3d", "5d", "7 days", "1/3/7d sequence"])
        XCTAssertEqual(tuned.parts.map(\.name), ["timePeriods", "listed"])
    }

    /// A listed configuration that bears a label of the space's but is another configuration (its
    /// message differs) races under a label of its own, so no table shows two candidates by one name.
    func testAListedConfigurationNamedAsAnotherOfTheSpaceIsToldApart() throws {
        var s = try TuneTests.scenario(users: 400, space: #"{"periods": {"min": 1, "max": 3}}"#)
        var other = ConfigurationSpec(label: "2d", reminders: [ReminderSpec(messages: ["Other text"], timePeriods: [2])])
        other.cronRules = []
        let baseline = try XCTUnwrap(s.configurations.first { $0.label == "3 days" })
        s.configurations = [baseline, other]
        let tuner = try Tuner(scenario: s, threads: 2)
        let labels = tuner.candidates.map(\.label)
        XCTAssertEqual(labels.count, Set(labels).count, "\(labels)")
        let listed = try XCTUnwrap(tuner.listed.first { $0.label == "2d" })
        XCTAssertEqual(tuner.candidates[listed.candidate].label, "2d (listed)")
        XCTAssertEqual(tuner.candidates[listed.candidate].reminders[0].messages, ["Other text"])
        XCTAssertTrue(labels.contains("2d"), "the space's own 2d keeps its label")
    }
}
