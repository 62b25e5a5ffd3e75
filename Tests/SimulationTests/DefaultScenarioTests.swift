import Foundation
import Simulation
import XCTest

final class DefaultScenarioTests: XCTestCase {
    static let datasets = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets")

    /// The shipped copy of the built-in scenario is exactly what `remindersim scenario` prints.
    func testShippedDefaultScenarioIsCurrent() throws {
        let url = Self.datasets.appendingPathComponent("default-scenario.json")
        let shipped = try String(contentsOf: url, encoding: .utf8)
        XCTAssertEqual(shipped, try Scenario.builtInDefault.canonicalJSON(),
                       "regenerate with: swift run remindersim scenario > Datasets/default-scenario.json")
        XCTAssertEqual(try Scenario.decode(shipped), Scenario.builtInDefault)
    }

    func testDefaultScenarioShowsWhatTheProductIsFor() throws {
        let s = Scenario.builtInDefault
        let configurations = s.expandedConfigurations
        XCTAssertGreaterThanOrEqual(configurations.count, 4)
        XCTAssertTrue(configurations.contains { $0.reminders.first?.timePeriods == [7, 10] && $0.mode == .documented })
        XCTAssertTrue(configurations.contains { $0.reminders.first?.timePeriods == [7, 10] && $0.mode == .original })
        XCTAssertTrue(configurations.contains { $0.reminders.first?.randomMessage == true })
        XCTAssertTrue(configurations.contains { $0.reminders.first?.randomMessage == false })
        XCTAssertTrue(configurations.allSatisfy { Set(["1 1", "2 1", "1 *", "2 *", "3"]).isSubset(of: $0.cronRules) })
        XCTAssertEqual(s.semanticIssues(), [])
    }
}
