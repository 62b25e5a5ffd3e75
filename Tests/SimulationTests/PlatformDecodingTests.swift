import Foundation
import Simulation
import XCTest

/// `population.platforms` as a scenario file gives it: defaults, and every mistake reported with its
/// JSON path, the reason and what would be accepted.
final class PlatformDecodingTests: XCTestCase {
    func scenario(platforms: String, segments: String = #"[{"name": "casual", "returns": {"distribution": "exponential", "mean": 2}}]"#) -> String {
        """
        {"name": "p",
         "population": {"segments": \(segments), "platforms": \(platforms)},
         "configurations": [{"label": "weekly", "reminders": [{"messages": ["hi"], "timePeriods": [7]}]}]}
        """
    }

    func issues(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            _ = try Scenario.decode(text, source: "s.json")
            XCTFail("accepted", file: file, line: line)
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    func testDefaultsAndARoundTrip() throws {
        let s = try Scenario.decode(scenario(platforms: #"""
            [{"platform": "ios", "weight": 0.6, "permission": {"granted": 0.5}},
             {"platform": "android", "name": "android 13+", "weight": 0.4,
              "permission": {"granted": 0.7, "ask": "1 3"}, "alarms": {"idleShare": 0.3}}]
            """#))
        let p = try XCTUnwrap(s.population.platforms)
        XCTAssertEqual(p[0], PlatformSpec(platform: .ios, weight: 0.6, permission: PermissionSpec(granted: 0.5, ask: .install)))
        XCTAssertEqual(p[0].pendingLimit, 64, "Apple's limit by default")
        XCTAssertNil(p[0].alarms)
        XCTAssertEqual(p[1].name, "android 13+")
        XCTAssertEqual(p[1].permission?.ask, .rule("1 3"))
        XCTAssertEqual(p[1].alarms, AlarmSpec(exact: false, windowMinutes: 10, idleShare: 0.3, maintenanceMinutes: 60))
        XCTAssertNil(p[1].pendingLimit)
        // Written back and read again, the same scenario.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(s), as: UTF8.self)
        XCTAssertEqual(try Scenario.decode(text), s)
        // Without platforms, nothing is written for them: stored scenarios stay as they were.
        var none = s
        none.population.platforms = nil
        XCTAssertFalse(String(decoding: try encoder.encode(none), as: UTF8.self).contains("platforms"))
    }

    func testMistakesNameTheFieldAndTheFix() {
        let found = issues(scenario(platforms: #"""
            [{"platform": "windows"},
             {"platform": "android", "pendingLimit": 64, "permission": {"granted": 1.5, "provisional": 0.2, "ask": "often"}},
             {"platform": "ios", "alarms": {}, "segmentWeights": {"Casual": 1}, "permisson": {}}]
            """#))
        let expected = [
            #"population.platforms[0].platform: unknown value "windows"; expected one of "ios", "android""#,
            "population.platforms[1].permission.granted:",
            #"population.platforms[1].permission.ask: expected "install" or a Crontab-IOS rule"#,
            "population.platforms[1].permission.provisional: provisional authorisation is iOS's",
            "population.platforms[1].pendingLimit: Android sets no documented limit",
            "population.platforms[2].alarms: alarms describe Android's alarm delivery",
            #"population.platforms[2].permisson: unknown field"#,
        ]
        for e in expected {
            XCTAssertTrue(found.contains { $0.hasPrefix(e) }, "missing \(e) in\n\(found.joined(separator: "\n"))")
        }
    }

    /// Alarm spacing too small to mean anything (and large enough a divisor to overflow), inexact
    /// settings beside exact alarms, and an `ask` rule longer than any rule may be.
    func testAlarmsAndAskRulesHeldToTheirBounds() {
        let long = String(repeating: "0", count: 300) + "1 1"
        let found = issues(scenario(platforms: """
            [{"platform": "android", "alarms": {"idleShare": 1, "maintenanceMinutes": 1e-305}},
             {"platform": "android", "name": "exact", "alarms": {"exact": true, "idleShare": 0.9, "windowMinutes": 500}},
             {"platform": "ios", "permission": {"granted": 0.5, "ask": "\(long)"}}]
            """))
        let expected = [
            "population.platforms[0].alarms.maintenanceMinutes: must be between 1 and 1440",
            "population.platforms[1].alarms.windowMinutes: exact alarms fire on time: windowMinutes describes inexact ones",
            "population.platforms[1].alarms.idleShare: exact alarms fire on time",
            "population.platforms[2].permission.ask: 303 characters; at most 200",
        ]
        for e in expected {
            XCTAssertTrue(found.contains { $0.hasPrefix(e) }, "missing \(e) in\n\(found.joined(separator: "\n"))")
        }
        XCTAssertEqual(found.count, 4, found.joined(separator: "\n"))
    }

    func testRulesOverPlatformsAndSegments() {
        let found = issues(scenario(platforms: #"""
            [{"platform": "ios", "weight": 0, "segmentWeights": {"Casual": 1}},
             {"platform": "ios", "weight": 0, "segmentWeights": {"casual": 0}}]
            """#))
        for e in [
            "population.platforms: weights must add up to a positive number",
            #"population.platforms[0].segmentWeights["Casual"]: no segment is called "Casual" (did you mean "casual"?)"#,
            #"population.platforms[1].name: "ios" is already the name of population.platforms[0]"#,
            "population.platforms[1].segmentWeights: must give a positive weight to at least one segment",
        ] {
            XCTAssertTrue(found.contains { $0.hasPrefix(e) }, "missing \(e) in\n\(found.joined(separator: "\n"))")
        }
    }
}
