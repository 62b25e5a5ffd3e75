import Foundation
import ReminderEngine
import Simulation
import XCTest

final class ScenarioDecodingTests: XCTestCase {
    let minimal = """
        {"name": "m",
         "population": {"segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 2}}]},
         "configurations": [{"label": "weekly", "reminders": [{"messages": ["hi"], "timePeriods": [7]}]}]}
        """

    /// The issues of a scenario text, or a failure if it was accepted.
    func issues(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            _ = try Scenario.decode(text, source: "s.json")
            XCTFail("accepted", file: file, line: line)
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    /// `minimal` with one JSON value replaced (by a key path of object keys and array indices).
    func edited(_ path: [Any], _ value: Any?) throws -> String {
        var root = try JSONSerialization.jsonObject(with: Data(minimal.utf8))
        func set(_ node: Any, _ path: ArraySlice<Any>) -> Any? {
            guard let head = path.first else { return value }
            if let key = head as? String, var object = node as? [String: Any] {
                object[key] = set(object[key] as Any, path.dropFirst())
                return object
            }
            if let index = head as? Int, var array = node as? [Any] {
                array[index] = set(array[index], path.dropFirst()) as Any
                return array
            }
            return node
        }
        root = set(root, path[...]) as Any
        return String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
    }

    func testLiveTestSharesThatCannotBeSizedAreRefused() throws {
        XCTAssertEqual(issues(try edited(["liveTest"], ["holdoutShare": 1e-300])),
                       ["liveTest.holdoutShare: must be 0 (no holdout) or at least 0.01, got 1e-300: a smaller holdout "
                        + "could not be sized"])
        XCTAssertEqual(issues(try edited(["liveTest"], ["days": 3651])),
                       ["liveTest.days: must be at most 3650 (the longest run), got 3651"])
        for share in [0, 0.01, 0.5] {
            XCTAssertEqual(try Scenario.decode(try edited(["liveTest"], ["holdoutShare": share])).liveTest?.holdoutShare, share)
        }
    }

    /// Every date a run writes stays within 9999: a start too late for its horizon is refused, naming
    /// the latest start that fits.
    func testAStartDateWhoseRunPassesTheYear9999IsRefused() throws {
        func scenario(_ start: String, days: Int) throws -> String {
            var root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(minimal.utf8)) as? [String: Any])
            (root["startDate"], root["horizonDays"]) = (start, days)
            var population = try XCTUnwrap(root["population"] as? [String: Any])
            population["installSpreadDays"] = 10
            root["population"] = population
            return String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
        }
        XCTAssertNoThrow(try Scenario.decode(try scenario("9999-12-01", days: 29), source: "s.json"))
        XCTAssertEqual(issues(try scenario("9999-12-01", days: 30)),
                       ["startDate: 9999-12-01 and 30 days run past 9999-12-31, the last date the tool writes; start by 9999-11-30"])
        XCTAssertEqual(issues(try scenario("9999-12-31", days: 90)),
                       ["startDate: 9999-12-31 and 90 days run past 9999-12-31, the last date the tool writes; start by 9999-10-01"])
        XCTAssertNoThrow(try Scenario.decode(try scenario("9999-10-01", days: 90), source: "s.json"))
    }

    func testMinimalScenarioGetsTheDocumentedDefaults() throws {
        let s = try Scenario.decode(minimal)
        XCTAssertEqual(s.users, 10_000)
        XCTAssertEqual(s.horizonDays, 90)
        XCTAssertEqual(s.seed, 1)
        XCTAssertEqual(s.population.installSpreadDays, 30)
        XCTAssertEqual(s.population.utcOffsets, [UTCOffsetShare(hours: 0, weight: 1)])
        XCTAssertEqual(s.population.segments[0].sessionLength, SessionLength(medianMinutes: 4, sigma: 0.8))
        XCTAssertEqual(s.population.segments[0].coldLaunchAfterMinutes, 30)
        XCTAssertEqual(s.population.segments[0].returns, .exponential(mean: 2, unit: .days))
        XCTAssertEqual(s.response, ResponseModel.defaults)
        XCTAssertEqual(s.configurations[0].mode, .documented)
        XCTAssertEqual(s.configurations[0].reminders[0], ReminderSpec(messages: ["hi"], timePeriods: [7]))
    }

    func testObjectsKeyedByDataReportEveryBadMember() throws {
        let notObject = issues(try edited(["response"], ["messageWeights": [1, 2]]))
        XCTAssertEqual(notObject, ["response.messageWeights: expected an object mapping message text to weight, got an array"])
        // Every member is read, whatever fails before it (the order of the keys is the dictionary's here).
        let twoBad = issues(try edited(["response"], ["messageWeights": ["hi": -1, "there": "x", "ok": 1]]))
        XCTAssertEqual(twoBad.sorted(), [
            "response.messageWeights[\"hi\"]: must be between 0 and 1000000, got -1",
            "response.messageWeights[\"there\"]: expected a number, got a string",
        ])
        let constraints = issues(try edited(["decision"], ["constraints": "none"]))
        XCTAssertEqual(constraints, [
            "decision.constraints: expected an object mapping a measure to {\"min\": …, \"max\": …}, got a string",
        ])
        let s = try Scenario.decode(try edited(["decision"], ["constraints": ["optOutRate": ["max": 0.05], "liftD7": ["min": 0]]]))
        XCTAssertEqual(s.decision?.constraints, [.optOutRate: DecisionBound(min: nil, max: 0.05), .liftD7: DecisionBound(min: 0, max: nil)])
    }

    func testMissingFields() {
        XCTAssertEqual(issues("{}"), [
            "name: required field is missing", "population: required field is missing",
            "configurations: at least one configuration (or a grid) is required",
        ])
        XCTAssertEqual(issues(try edited(["population", "segments", 0, "returns"], nil)), [
            "population.segments[0].returns: required field is missing",
        ])
    }

    func testWrongTypes() throws {
        XCTAssertEqual(issues(try edited(["users"], "many")), ["users: expected a number, got a string"])
        XCTAssertEqual(issues(try edited(["configurations", 0, "reminders", 0, "randomMessage"], 1)), [
            "configurations[0].reminders[0].randomMessage: expected true or false, got a number",
        ])
        XCTAssertEqual(issues(try edited(["population"], [1])), ["population: expected an object, got an array"])
        XCTAssertEqual(issues(try edited(["users"], 2.5)), ["users: must be a whole number, got 2.5"])
    }

    func testBadNumbers() throws {
        XCTAssertEqual(issues(try edited(["configurations", 0, "reminders", 0, "timePeriods"], [7, -1])), [
            "configurations[0].reminders[0].timePeriods[1]: must be > 0, got -1",
        ])
        XCTAssertEqual(issues(try edited(["population", "segments", 0, "returns", "mean"], 0)), [
            "population.segments[0].returns.mean: must be > 0 and ≤ 1000000, got 0",
        ])
        XCTAssertEqual(issues(try edited(["population", "segments", 0, "dropoutPerSession"], 1.5)), [
            "population.segments[0].dropoutPerSession: must be a probability in [0, 1], got 1.5",
        ])
        XCTAssertEqual(issues(try edited(["users"], 0)), ["users: must be > 0, got 0"])
        // A description is copied into every report and stored run: a few paragraphs, not a book.
        XCTAssertEqual(issues(try edited(["description"], String(repeating: "x", count: 20_001))),
                       ["description: 20,001 characters; at most 20,000"])
        XCTAssertEqual(try Scenario.decode(try edited(["description"], String(repeating: "x", count: 20_000))).description?.count, 20_000)
        // A run database holds counts up to 2^50: a run of more users could be written but not read back.
        XCTAssertEqual(try Scenario.decode(try edited(["users"], 1 << 50), source: "s.json").users, 1 << 50)
        XCTAssertEqual(issues(try edited(["users"], (1 << 50) + 1)), [
            "users: must be at most 1125899906842624 (2^50, the most a run database can hold), got 1125899906842625",
        ])
        XCTAssertEqual(issues(try edited(["population", "segments", 0, "sessionLength"], ["sigma": 0])), [
            "population.segments[0].sessionLength.sigma: must be > 0 and ≤ 5, got 0",
        ])
    }

    func testNaNIsNotJSON() {
        let text = minimal.replacingOccurrences(of: "\"mean\": 2", with: "\"mean\": NaN")
        XCTAssertEqual(issues(text).count, 1)
        XCTAssertTrue(issues(text)[0].hasPrefix("not valid JSON: line 2, column"), issues(text)[0])
    }

    func testWeightsMustAddUpToSomething() throws {
        XCTAssertEqual(issues(try edited(["population", "segments", 0, "weight"], 0)), [
            "population.segments: weights must add up to a positive number",
        ])
        XCTAssertEqual(issues(try edited(["population", "utcOffsets"], [["hours": 1, "weight": 0]])), [
            "population.utcOffsets: weights must add up to a positive number",
        ])
    }

    func testUnknownDistributionAndFields() throws {
        XCTAssertEqual(issues(try edited(["population", "segments", 0, "returns", "distribution"], "poisson")), [
            "population.segments[0].returns.distribution: unknown distribution \"poisson\"; expected one of \"exponential\", \"weibull\", \"lognormal\", \"gamma\", \"bgnbd\", \"paretoNBD\", \"empirical\", \"replay\"",
        ])
        XCTAssertEqual(issues(try edited(["horizondays"], 30)), ["horizondays: unknown field (did you mean \"horizonDays\"?)"])
        // A field of the scenario itself written inside another object says where it belongs.
        XCTAssertEqual(issues(try edited(["decision"], ["objective": "opensLiftPerUser", "liveTest": ["days": 28]])), [
            "decision.liveTest: unknown field (\"liveTest\" is a field of the scenario itself, beside \"decision\")",
        ])
        XCTAssertEqual(issues(try edited(["configurations", 0, "reminders", 0, "unit"], "weeks")), [
            "configurations[0].reminders[0].unit: unknown value \"weeks\"; expected one of \"days\", \"hours\", \"minutes\", \"seconds\"",
        ])
    }

    func testMalformedCronRuleInDocumentedModeOnly() throws {
        XCTAssertEqual(issues(try edited(["configurations", 0, "cronRules"], ["1 1", "1 */x"])), [
            "configurations[0].cronRules[1]: day field divisor \"x\" must be *, */N or a whole number N ≥ 0 (rule \"1 */x\")",
        ])
        let original = try edited(["configurations", 0, "mode"], "original")
        let withRule = original.replacingOccurrences(of: "\"label\"", with: "\"cronRules\": [\"1 */x\"], \"label\"")
        XCTAssertNoThrow(try Scenario.decode(withRule))
    }

    func testEmptyConfigurationList() throws {
        XCTAssertEqual(issues(try edited(["configurations"], [])), [
            "configurations: at least one configuration (or a grid) is required",
        ])
    }

    func testDuplicateAndReservedLabelsAndDomains() throws {
        let two = try edited(["configurations"], [
            ["label": "a", "reminders": [["messages": ["x"], "timePeriods": [1]], ["messages": ["y"], "timePeriods": [2]]]],
            ["label": "a", "reminders": []],
            ["label": "Holdout", "reminders": []],
            ["label": "holdout", "reminders": []],
        ])
        XCTAssertEqual(issues(two), [
            "configurations[0].reminders[1].appDomain: \"com.company.ACPReminder\" is used by another reminder of this configuration",
            "configurations[1].label: \"a\" is already the label of configurations[0]",
            // The label as written, when it is not the reserved word itself.
            "configurations[2].label: \"Holdout\" reads as \"holdout\", which is reserved for the holdout (it differs only in case)",
            "configurations[3].label: \"holdout\" is reserved for the holdout",
        ])
    }

    func testEveryProblemIsReportedAtOnce() throws {
        var text = try edited(["name"], "")
        text = text.replacingOccurrences(of: "\"exponential\"", with: "\"exp\"")
        text = text.replacingOccurrences(of: "[7]", with: "[0]")
        text = text.replacingOccurrences(of: "{", with: "{\"startDate\": \"2026-13-01\", ", options: [.anchored])
        XCTAssertEqual(Set(issues(text)), [
            "name: must not be empty",
            "startDate: must be a date YYYY-MM-DD, got \"2026-13-01\"",
            "population.segments[0].returns.distribution: unknown distribution \"exp\"; expected one of \"exponential\", \"weibull\", \"lognormal\", \"gamma\", \"bgnbd\", \"paretoNBD\", \"empirical\", \"replay\"",
            "configurations[0].reminders[0].timePeriods[0]: must be > 0, got 0",
        ])
    }

    func testErrorMessageNamesTheFile() {
        do {
            _ = try Scenario.decode("{}", source: "my.json")
            XCTFail("accepted")
        } catch {
            XCTAssertEqual(error.description, """
                my.json: name: required field is missing
                my.json: population: required field is missing
                my.json: configurations: at least one configuration (or a grid) is required
                """)
        }
    }

    func testGridExpandsEveryCombinationWithReadableLabels() throws {
        let text = minimal.replacingOccurrences(
            of: "\"configurations\"",
            with: """
                "grid": {"messages": ["a", "b"], "timePeriods": [[1], [7, 10]], "randomMessage": [false, true],
                         "mode": ["documented", "original"], "cronRules": ["1 1"]},
                "configurations"
                """)
        let s = try Scenario.decode(text)
        let labels = s.expandedConfigurations.map(\.label)
        XCTAssertEqual(labels, [
            "weekly",
            "1d sequential documented", "1d sequential original", "1d random documented", "1d random original",
            "7/10d sequential documented", "7/10d sequential original", "7/10d random documented", "7/10d random original",
        ])
        XCTAssertEqual(s.expandedConfigurations[8].mode, .original)
        XCTAssertEqual(s.expandedConfigurations[8].reminders[0].randomMessage, true)
        XCTAssertEqual(s.expandedConfigurations[8].reminders[0].timePeriods, [7, 10])
        XCTAssertEqual(s.expandedConfigurations[8].cronRules, ["1 1"])
    }

    func testLognormalByMedianOrMu() throws {
        let byMedian = try edited(["population", "segments", 0, "returns"], ["distribution": "lognormal", "median": 4, "sigma": 1])
        XCTAssertEqual(try Scenario.decode(byMedian).population.segments[0].returns, .lognormal(mu: log(4), sigma: 1, unit: .days))
        let both = try edited(["population", "segments", 0, "returns"], ["distribution": "lognormal", "median": 4, "mu": 1, "sigma": 1])
        XCTAssertEqual(issues(both), ["population.segments[0].returns: give either mu or median, not both"])
    }

    func testEncodedScenariosReadBackUnchanged() throws {
        var s = Scenario.builtInDefault
        s.response.quietHours = nil
        s.grid = GridSpec(messages: ["x"], timePeriods: [[1, 2]], mode: [.original])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(s), as: UTF8.self)
        XCTAssertEqual(try Scenario.decode(text), s)
    }

    func testCalendarDates() {
        XCTAssertEqual(CalendarDate(iso: "1970-01-01")?.daysSinceEpoch, 0)
        XCTAssertEqual(CalendarDate(iso: "2000-03-01")?.daysSinceEpoch, 11_017)
        XCTAssertEqual(CalendarDate(daysSinceEpoch: 20_458).description, "2026-01-05")
        XCTAssertNil(CalendarDate(iso: "2026-02-29"))
        XCTAssertNotNil(CalendarDate(iso: "2024-02-29"))
        XCTAssertNil(CalendarDate(iso: "2026-1-5"))
        for d in stride(from: -719_000, to: 2_900_000, by: 997) {
            XCTAssertEqual(CalendarDate(iso: CalendarDate(daysSinceEpoch: d).description)?.daysSinceEpoch, d)
        }
    }

    func testMessageWeightsMustNameAMessage() throws {
        let text = try edited(["response"], ["messageWeights": ["hi": 2, "Helo": 1.5]])
        XCTAssertEqual(issues(text), [
            "response.messageWeights[\"Helo\"]: matches no message of any configuration",
        ])
    }

    func testSegmentNamesAreRequiredAndUnique() throws {
        let two = try edited(["population", "segments"], [
            ["name": "a", "returns": ["distribution": "exponential", "mean": 1]],
            ["name": "a", "returns": ["distribution": "exponential", "mean": 2]],
            ["name": "", "returns": ["distribution": "exponential", "mean": 2]],
        ])
        XCTAssertEqual(issues(two), [
            "population.segments[1].name: \"a\" is already the name of population.segments[0]",
            "population.segments[2].name: must not be empty",
        ])
    }

    func testHugeWholeNumbersSayTheLimit() throws {
        XCTAssertEqual(issues(try edited(["seed"], 1e17)), ["seed: 100000000000000000 is too large for a whole number read exactly (at most 2^53 − 1 = 9007199254740991); "
            + "the field's own limit, if any, is lower still"])
        // Shown as whole numbers, not in a double's notation.
        XCTAssertEqual(issues(try edited(["users"], 18446744073709551616.0)).first?.hasPrefix("users: 18446744073709551616 is too large"), true)
        XCTAssertEqual(issues(try edited(["seed"], 9007199254740992.0)).first?.hasPrefix("seed: 9007199254740992 is too large"), true)
        XCTAssertEqual(issues(try edited(["seed"], 1e300)).first?.hasPrefix("seed: 1e+300 is too large"), true)
    }
}
