import Foundation
import ReminderEngine
import Simulation
import XCTest

/// The original modes through the whole simulator: what the released libraries do to users.
final class OriginalModeTests: XCTestCase {
    /// The default scenario's users and responses, with the given configurations.
    func scenario(_ configurations: [ConfigurationSpec], users: Int = 4_000, days: Int = 60) -> Scenario {
        var s = Scenario.builtInDefault
        s.users = users
        s.horizonDays = days
        s.configurations = configurations
        return s
    }

    func spec(_ label: String, _ periods: [Int], mode: EngineMode, wiring: ReminderWiring? = nil,
              domain: String = "com.mydomain.appName", rules: [CronRuleSpec] = []) -> ConfigurationSpec {
        ConfigurationSpec(
            label: label, mode: mode, wiring: wiring,
            reminders: [ReminderSpec(messages: Scenario.builtInDefault.configurations[0].reminders[0].messages,
                                     timePeriods: periods, appDomain: domain)],
            cronRules: rules)
    }

    /// Released 1.0.2 with `[7, 10]`, not circular, configured early: the first open moves to index 1
    /// and the index stays on the last period, so every notification waits 10 days — exactly what
    /// documented mode does with `[10]`. Every count must agree, with cron rules both modes read alike.
    func testOriginalSevenTenIsDocumentedTenThroughTheWholeSimulator() throws {
        let rules: [CronRuleSpec] = ["1 1", "2 1", "1 *", "2 *", "3 2"]
        let s = scenario([
            spec("documented 10", [10], mode: .documented, rules: rules),
            spec("original 7/10", [7, 10], mode: .original, wiring: .early, rules: rules),
        ])
        let result = try CompiledModel(s).run()
        let documented = result.tallies[1], original = result.tallies[2]
        XCTAssertGreaterThan(documented[.delivered], 1_000, "the comparison must see notifications")
        XCTAssertGreaterThan(documented[.responded], 50)
        for counter in Counter.allCases {
            XCTAssertEqual(original[counter], documented[counter], "\(counter)")
        }
        let d = documented.layout, o = original.layout
        XCTAssertEqual(o.messageSlots, d.messageSlots)
        for slot in 0..<d.messageSlots {
            for c in SlotCounter.allCases { XCTAssertEqual(original.message(slot, c), documented.message(slot, c)) }
        }
        for c in SlotCounter.allCases {
            XCTAssertEqual(original.period(0, c), 0, "7 days is never used: \(c)")
            XCTAssertEqual(original.period(1, c), documented.period(0, c), "\(c)")
        }
        // Days, cron rules, first runs and the retention curve: everything after the period slots.
        XCTAssertEqual(Array(original.counts[o.dailyOffset...]), Array(documented.counts[d.dailyOffset...]))
        let dm = ConfigurationMetrics(label: "", tally: documented, isHoldout: false)
        let om = ConfigurationMetrics(label: "", tally: original, isHoldout: false)
        XCTAssertEqual(om.opensLiftPerUser?.value, dm.opensLiftPerUser?.value)
        XCTAssertEqual(om.triggerRate.rate, dm.triggerRate.rate)
        XCTAssertEqual(om.liftD30?.value, dm.liftD30?.value)
    }

    /// The README wiring: a new user's first open (a cold launch) runs the check unconfigured, so
    /// the first notification uses the first period; the early wiring never does with `[7, 10]`.
    func testReadmeWiringUsesTheFirstPeriodAndChangesTheNumbers() throws {
        let s = scenario([
            spec("early", [7, 10], mode: .original, wiring: .early),
            spec("readme", [7, 10], mode: .original, wiring: .readme),
            spec("readme default domain", [7, 10], mode: .original, domain: ReminderConfiguration.defaultAppDomain),
        ], users: 2_000)
        let result = try CompiledModel(s).run()
        XCTAssertEqual(result.tallies[1].period(0, .scheduled), 0)
        for i in [2, 3] {
            let t = result.tallies[i]
            XCTAssertGreaterThan(t.period(0, .scheduled), 0, "configuration \(i)")
            XCTAssertEqual(t.period(0, .scheduled) + t.period(1, .scheduled), t[.scheduled])
        }
        XCTAssertNotEqual(result.tallies[1].counts, result.tallies[2].counts)
        // A cold launch under another domain takes a pending notification for fired and moves on to the
        // next message; under the default domain it finds it and repeats the message.
        XCTAssertNotEqual(result.tallies[2].counts, result.tallies[3].counts)
    }

    /// In the original modes one-field cron rules never run (the pod has no one-field branch);
    /// documented mode runs them as before.
    func testOneFieldCronRulesRunOnlyInDocumentedMode() throws {
        let rules: [CronRuleSpec] = ["3", "*"]
        let s = scenario(EngineMode.allCases.map { spec($0.rawValue, [2], mode: $0, rules: rules) }, users: 1_000)
        let result = try CompiledModel(s).run()
        let documented = result.tallies[1]
        XCTAssertGreaterThan(documented.rule(0, .usersRan), 0)
        XCTAssertEqual(documented.rule(1, .blockRuns), documented[.launches])
        for i in [2, 3] {
            let t = result.tallies[i]
            XCTAssertGreaterThan(t[.launches], 0)
            for rule in 0..<2 {
                XCTAssertEqual(t.rule(rule, .blockRuns), 0)
                XCTAssertEqual(t.rule(rule, .elseRuns), t[.launches])
            }
        }
    }

    func testPeriodRowsShowTheDelayReallyUsed() {
        let tally = Tally(layout: TallyLayout(messageSlots: 3, periodSlots: 2, cronRules: 0, days: 1))
        let old = spec("1.0.0", [7, 10], mode: .original100)
        XCTAssertEqual(SlotMetrics.periods(old, tally).map(\.name), ["1 day (timePeriods says 7 days)", "10 days"])
        XCTAssertEqual(SlotMetrics.periods(old, tally).map(\.periodValue), [1, 10])
        let released = spec("1.0.2", [7, 10], mode: .original)
        XCTAssertEqual(SlotMetrics.periods(released, tally).map(\.name), ["7 days", "10 days"])
        XCTAssertEqual(old.cronMode, .original)
        XCTAssertEqual(released.effectiveWiring, .readme)
        XCTAssertEqual(spec("d", [1], mode: .documented).effectiveWiring, .early)
    }
}

final class OriginalModeValidationTests: XCTestCase {
    func decodeIssues(_ configurations: String) -> [String] {
        let text = """
            {"name": "m",
             "population": {"segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 2}}]},
             "configurations": \(configurations)}
            """
        do {
            _ = try Scenario.decode(text, source: "s.json")
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    func testOriginalModesAllowOneReminder() {
        let two = #"[{"label": "a", "mode": "MODE", "reminders": [{"messages": ["x"], "timePeriods": [1]}, "#
            + #"{"messages": ["y"], "timePeriods": [2], "appDomain": "other"}]}]"#
        XCTAssertEqual(decodeIssues(two.replacingOccurrences(of: "MODE", with: "documented")), [])
        for mode in ["original", "original-1.0.0"] {
            XCTAssertEqual(decodeIssues(two.replacingOccurrences(of: "MODE", with: mode)), [
                "configurations[0].reminders: \(mode) mode allows one reminder, got 2: the released ACPReminder is a "
                    + "singleton whose stored state does not depend on appDomain",
            ])
        }
        let cronOnly = #"[{"label": "a", "mode": "original", "cronRules": ["1 1"]}]"#
        XCTAssertEqual(decodeIssues(cronOnly), [])
    }

    func testWiringIsForTheOriginalModes() throws {
        let one = #"[{"label": "a", "mode": "MODE", "wiring": "WIRING", "reminders": [{"messages": ["x"], "timePeriods": [1]}]}]"#
        func text(_ mode: String, _ wiring: String) -> String {
            one.replacingOccurrences(of: "MODE", with: mode).replacingOccurrences(of: "WIRING", with: wiring)
        }
        XCTAssertEqual(decodeIssues(text("documented", "readme")), [
            "configurations[0].wiring: \"readme\" reproduces the released code's wiring and needs mode \"original\" or "
                + "\"original-1.0.0\"; documented mode is always \"early\"",
        ])
        XCTAssertEqual(decodeIssues(text("documented", "early")), [])
        XCTAssertEqual(decodeIssues(text("original", "late")), [
            "configurations[0].wiring: unknown value \"late\"; expected one of \"early\", \"readme\"",
        ])
        for mode in ["original", "original-1.0.0"] {
            for wiring in ["early", "readme"] { XCTAssertEqual(decodeIssues(text(mode, wiring)), [], "\(mode) \(wiring)") }
        }
        let s = try Scenario.decode("""
            {"name": "m",
             "population": {"segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 2}}]},
             "configurations": \(text("original-1.0.0", "early"))}
            """)
        XCTAssertEqual(s.configurations[0].mode, .original100)
        XCTAssertEqual(s.configurations[0].wiring, .early)
        // Encoded and read back, the wiring survives; absent, it stays absent.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        XCTAssertEqual(try Scenario.decode(String(decoding: try encoder.encode(s), as: UTF8.self)), s)
        var noWiring = s
        noWiring.configurations[0].wiring = nil
        let encoded = String(decoding: try encoder.encode(noWiring), as: UTF8.self)
        XCTAssertFalse(encoded.contains("wiring"))
        XCTAssertEqual(try Scenario.decode(encoded).configurations[0].effectiveWiring, .readme)
    }
}
