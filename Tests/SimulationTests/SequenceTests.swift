import Foundation
import ReminderEngine
import Simulation
import XCTest

/// The inactivity-sequence shorthand: a stack of single-period reminders, written once.
final class SequenceTests: XCTestCase {
    func decode(_ configuration: String) throws -> Scenario {
        try Scenario.decode("""
            {"name": "s", "users": 2000, "horizonDays": 60,
             "population": {"segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 2}}]},
             "configurations": [\(configuration)]}
            """)
    }

    func issues(_ configuration: String) -> [String] {
        do {
            _ = try decode(configuration)
            return []
        } catch let error as ScenarioError {
            return error.issues.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    func testASequenceIsAStackOfSinglePeriodReminders() throws {
        let s = try decode(#"{"label": "1/3/7", "sequence": {"afterDays": [1, 3, 7], "messages": ["a", "b", "c"]}}"#)
        let c = try XCTUnwrap(s.configurations.first)
        XCTAssertEqual(c.sequence, SequenceSpec(afterDays: [1, 3, 7], messages: ["a", "b", "c"]))
        XCTAssertEqual(c.mode, .documented)
        XCTAssertEqual(c.reminders.map(\.timePeriods), [[1], [3], [7]])
        XCTAssertEqual(c.reminders.map(\.messages), [["a"], ["b"], ["c"]])
        XCTAssertEqual(Set(c.reminders.map(\.appDomain)).count, 3, "each step keeps its own state")
        XCTAssertEqual(s.semanticIssues(), [])

        let one = try decode(#"{"label": "one text", "sequence": {"afterDays": [2, 5], "messages": ["same"]}}"#)
        XCTAssertEqual(one.configurations[0].reminders.map(\.messages), [["same"], ["same"]])
    }

    func testAStoredSequenceReadsBackAsASequence() throws {
        let s = try decode(#"{"label": "q", "sequence": {"afterDays": [1, 3], "messages": ["a", "b"]}}"#)
        let json = try s.canonicalJSON()
        XCTAssertTrue(json.contains("\"sequence\""), json)
        XCTAssertEqual(try Scenario.decode(json), s)
    }

    func testBadSequencesAreRefusedWithTheirPath() {
        XCTAssertEqual(issues(#"{"label": "x", "sequence": {"afterDays": [3, 1], "messages": ["a"]}}"#),
                       ["configurations[0].sequence.afterDays: steps must grow: each later than the one before, got [3, 1]"])
        XCTAssertEqual(issues(#"{"label": "x", "sequence": {"afterDays": [1, 2, 3], "messages": ["a", "b"]}}"#),
                       ["configurations[0].sequence.messages: give one message per step (3) or one for every step, got 2"])
        XCTAssertEqual(issues(#"{"label": "x", "sequence": {"afterDays": [0], "messages": ["a"]}}"#).count, 1)
        XCTAssertEqual(
            issues(#"{"label": "x", "reminders": [{"messages": ["a"], "timePeriods": [1]}], "sequence": {"afterDays": [1], "messages": ["a"]}}"#),
            ["configurations[0].sequence: a configuration has either reminders or a sequence, not both"])
        XCTAssertTrue(issues(#"{"label": "x", "mode": "original", "sequence": {"afterDays": [1], "messages": ["a"]}}"#)
            .first?.hasPrefix("configurations[0].sequence: a sequence stacks several reminders") ?? false)
        XCTAssertEqual(issues(#"{"label": "x", "sequence": {"afterDays": [1], "message": ["a"]}}"#),
                       ["configurations[0].sequence.messages: required field is missing",
                        "configurations[0].sequence.message: unknown field"])
    }

    /// The shorthand runs exactly the stack it stands for: the same counts, user for user.
    func testASequenceRunsExactlyTheStackItStandsFor() throws {
        var s = try decode(#"{"label": "q", "sequence": {"afterDays": [1, 3, 7], "messages": ["a", "b", "c"]}}"#)
        let sequenced = try CompiledModel(s).run(options: RunOptions(threads: 2))
        s.configurations = [ConfigurationSpec(label: "q", reminders: (0..<3).map { k in
            ReminderSpec(messages: [["a", "b", "c"][k]], timePeriods: [[1, 3, 7][k]],
                         appDomain: "com.company.ACPReminder.sequence.\(k + 1)")
        })]
        let stacked = try CompiledModel(s).run(options: RunOptions(threads: 1))
        XCTAssertEqual(sequenced, stacked)
        XCTAssertGreaterThan(sequenced.tallies[1][.scheduled], 0)
    }

    /// With exponential gaps (mean m) a one-step sequence of d days triggers with probability e^(−d/m),
    /// as a plain one-period reminder does; checked within the run's 99.9% Wilson interval.
    func testAOneStepSequenceTriggersAtTheSurvivalOfItsDelay() throws {
        var s = try decode(#"{"label": "q", "sequence": {"afterDays": [1], "messages": ["a"]}}"#)
        s.users = 8_000
        s.horizonDays = 90
        let tally = try CompiledModel(s).run(options: RunOptions(threads: 2)).tallies[1]
        let rate = ConfigurationMetrics(label: "q", tally: tally, isHoldout: false).triggerRate
        let ci = try XCTUnwrap(rate.wilson(z: 3.290_526_731_491_926))
        XCTAssertGreaterThan(rate.total, 100_000)
        XCTAssert(ci.low <= exp(-0.5) && exp(-0.5) <= ci.high, "\(rate.rate!) in [\(ci.low), \(ci.high)]")
    }

    func testPerStepRowsNameTheStep() throws {
        let s = try decode(#"{"label": "q", "sequence": {"afterDays": [1, 3], "messages": ["a"]}}"#)
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        XCTAssertEqual(results.configurations[0].periods.map(\.name),
                       ["step 1: 1 day after the last session", "step 2: 3 days after the last session"])
    }
}
