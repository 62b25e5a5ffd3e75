import Foundation
import ReminderEngine
import Simulation
import XCTest

/// The layouts a scenario gives a run's counts, worked out without compiling it, are the ones the
/// compiled model fills: stored counts are checked against them.
final class ScenarioLayoutsTests: XCTestCase {
    func assertLayoutsMatchTheModel(_ scenario: Scenario, file: StaticString = #filePath, line: UInt = #line) throws {
        let model = try CompiledModel(scenario)
        XCTAssertEqual(scenario.tallyLayouts, model.configurations.indices.map { model.layout($0) }, file: file, line: line)
        XCTAssertEqual(scenario.userSumsLayout(), model.userSumsLayout, file: file, line: line)
    }

    func testTheDefaultScenario() throws {
        try assertLayoutsMatchTheModel(Scenario.builtInDefault)
    }

    /// Several reminders, cron rules, a sequence and a grid: every part of the layout differs between
    /// configurations.
    func testRemindersRulesSequencesAndGrids() throws {
        let scenario = try Scenario.decode("""
            {"name": "s", "users": 100, "horizonDays": 45,
             "population": {"segments": [{"name": "a", "returns": {"distribution": "exponential", "mean": 2}},
                                         {"name": "b", "returns": {"distribution": "exponential", "mean": 5}}]},
             "configurations": [
               {"label": "two", "reminders": [{"messages": ["a", "b"], "timePeriods": [1, 2, 3]},
                                             {"messages": ["c"], "timePeriods": [7], "appDomain": "other"}],
                "cronRules": ["1 1", "2 *"]},
               {"label": "seq", "sequence": {"afterDays": [1, 3, 7], "messages": ["x", "y", "z"]}}]}
            """)
        XCTAssertEqual(scenario.tallyLayouts.map(\.messageSlots), [0, 3, 3])
        XCTAssertEqual(scenario.tallyLayouts.map(\.cronRules), [0, 2, 0])
        try assertLayoutsMatchTheModel(scenario)
    }
}
