import Foundation
import ReminderSimTestSupport
import XCTest

/// `validate` (and the commands that read a scenario) on files written to mislead: every problem in
/// one pass, bounds that cannot be meant, texts too long to copy into every row, warnings.
final class ScenarioValidationTests: ReminderSimTestCase {
    static var population: [String: Any] {
        ["installSpreadDays": 5, "segments": [["name": "a", "returns": ["distribution": "exponential", "mean": 2]]]]
    }

    /// A small valid scenario with the given configurations.
    static func scenario(_ configurations: [[String: Any]], _ extra: [String: Any] = [:]) -> [String: Any] {
        var s: [String: Any] = ["name": "validation", "users": 200, "horizonDays": 30, "population": population,
                                "configurations": configurations]
        for (k, v) in extra { s[k] = v }
        return s
    }

    static func configuration(_ label: String, periods: [Int] = [7], messages: [String] = ["Come back"]) -> [String: Any] {
        ["label": label, "reminders": [["messages": messages, "timePeriods": periods]]]
    }

    /// The problem lines of a refused scenario, after checking the header and its count.
    func problems(_ result: CommandResult, file name: String, line: UInt = #line) -> [String] {
        assertExit(result, 65, line: line)
        let lines = result.stderrLines
        XCTAssertTrue(lines.first?.hasPrefix("remindersim: error: invalid scenario (\(lines.count - 1) problem") ?? false,
                      result.description, line: line)
        let problems = Array(lines.dropFirst())
        for p in problems { XCTAssertTrue(p.hasPrefix("\(name): "), p, line: line) }
        return problems.map { String($0.dropFirst(name.count + 2)) }
    }

    func assertListed(_ problems: [String], _ expected: [String], line: UInt = #line) {
        for fragment in expected {
            XCTAssertEqual(problems.filter { $0.hasPrefix(fragment) }.count, 1,
                           "\"\(fragment)…\" is not listed exactly once in:\n\(problems.joined(separator: "\n"))", line: line)
        }
    }

    // MARK: Every problem in one pass

    /// Mistakes of every kind, in different places, each of which used to hide the ones checked after it:
    /// a bad field in a segment hid that segment's bounds, a bad configuration hid the others' cron
    /// rules, their labels and the baseline.
    func testMistakesInDifferentPlacesAreAllReportedInOnePass() throws {
        var s = Self.scenario([
            Self.configuration("x", periods: [7, -3]),
            ["label": "y", "cronRules": ["1  1"], "reminders": [["messages": ["hi"], "timePeriods": [7]]]],
            Self.configuration("y", periods: [3]),
        ], ["installSpreadDay": 3, "baseline": "nope", "decision": ["constraints": ["optOutRate": ["max": 3]]]])
        s["population"] = ["segments": [
            ["name": "a", "returns": ["distribution": "exponential", "mean": 2]],
            ["name": "b", "weight": "heavy", "returns": ["distribution": "exponential", "mean": 0.000001]],
        ]]
        try writeFile("five.json", try JSONEdit.text(s))
        let expected = [
            "installSpreadDay: unknown field",
            "population.segments[1].weight: expected a number, got a string",
            "population.segments[1].returns.mean: gives a mean gap of",
            "configurations[0].reminders[0].timePeriods[1]: must be > 0, got -3",
            "configurations[1].cronRules[0]: ",
            "configurations[2].label: \"y\" is already the label of configurations[1]",
            "baseline: \"nope\" is the label of no configuration",
            "decision.constraints.optOutRate.max: must be between 0 and 1",
        ]
        for command in ["validate", "run"] {
            let found = problems(try remindersim(command, "five.json"), file: "five.json")
            assertListed(found, expected)
            XCTAssertEqual(found.count, expected.count, found.joined(separator: "\n"))
        }
    }

    /// A response model with a bad field still has its other fields' rules checked, and a tune block
    /// its baseline, whatever else is wrong.
    func testRulesOverSeveralFieldsAreCheckedBesideBadFields() throws {
        let s = Self.scenario([Self.configuration("a")], [
            "users": "many",
            "response": ["fatigue": 2, "responseDelayMinutes": 0.001, "messageWeights": ["Nobody sends this": 2]],
            "tune": ["baseline": "missing", "space": ["periods": ["min": 1, "max": 3]]],
        ])
        try writeFile("rules.json", try JSONEdit.text(s))
        let found = problems(try remindersim("validate", "rules.json"), file: "rules.json")
        assertListed(found, [
            "users: expected a number, got a string",
            "response.fatigue: must be a probability in [0, 1], got 2",
            "response.responseDelayMinutes: must be at least 1 second",
            "response.messageWeights[\"Nobody sends this\"]: matches no message of any configuration",
            "tune.baseline: \"missing\" is the label of no configuration",
        ])
    }

    // MARK: Values that cannot be meant

    /// A bound on a rate outside [0, 1] never binds or admits nothing: refused, for the decision and
    /// for the tune block, naming the path; a count per user cannot be negative.
    func testBoundsOutsideWhatAMeasureCanTakeAreRefused() throws {
        let s = Self.scenario([Self.configuration("a")], [
            "horizonDays": 31,
            "decision": ["constraints": ["optOutRate": ["max": 3], "retentionD7": ["min": -1],
                                         "liftD30": ["min": -0.5, "max": 0.2], "deliveredPerUser": ["max": -2]]],
            "tune": ["constraints": ["responseRate": ["min": 1.5]], "space": ["periods": ["min": 1, "max": 3]]],
        ])
        try writeFile("bounds.json", try JSONEdit.text(s))
        let found = problems(try remindersim("validate", "bounds.json"), file: "bounds.json")
        assertListed(found, [
            "decision.constraints.optOutRate.max: must be between 0 and 1 (the values optOutRate can take), got 3",
            "decision.constraints.retentionD7.min: must be between 0 and 1 (the values retentionD7 can take), got -1",
            "decision.constraints.deliveredPerUser.max: must be ≥ 0 (the values deliveredPerUser can take), got -2",
            "tune.constraints.responseRate.min: must be between 0 and 1 (the values responseRate can take), got 1.5",
        ])
        XCTAssertEqual(found.count, 4, "a lift between -1 and 1 is a bound that can be meant:\n\(found.joined(separator: "\n"))")
    }

    /// A rule that reads retention on a day the run never reaches is refused where it says so, for the
    /// decision and the tune alike, and for a horizon set by `--days`; a day more is enough.
    func testARetentionDayBeyondTheRunIsRefused() throws {
        let s = Self.scenario([Self.configuration("a")], [
            "decision": ["objective": "liftD30", "constraints": ["retentionD7": ["min": 0.1]]],
            "tune": ["constraints": ["retentionD30": ["min": 0.01]], "space": ["periods": ["min": 1, "max": 3]]],
        ])
        try writeFile("days.json", try JSONEdit.text(s))
        let reason = "reads each user's day 30 after the install, which a run of 30 days (horizonDays) never reaches, so no user "
            + "could be counted: lengthen the run to at least 31 days or choose another measure"
        let found = problems(try remindersim("validate", "days.json"), file: "days.json")
        assertListed(found, ["decision.objective: liftD30 " + reason, "tune.constraints.retentionD30: retentionD30 " + reason])
        XCTAssertEqual(found.count, 2, "day 7 is within 30 days:\n\(found.joined(separator: "\n"))")
        var longer = s
        longer["horizonDays"] = 31
        try writeFile("days31.json", try JSONEdit.text(longer))
        assertExit(try remindersim("validate", "days31.json"), 0)
        try writeFile("d7.json", try JSONEdit.text(Self.scenario([Self.configuration("a")], [
            "decision": ["constraints": ["retentionD7": ["min": 0.1]]]])))
        let short = problems(try remindersim("run", "d7.json", "--days", "7", "--install-spread", "0"), file: "d7.json")
        assertListed(short, ["decision.constraints.retentionD7: retentionD7 reads each user's day 7 after the install, which a run "
            + "of 7 days (horizonDays) never reaches"])
        XCTAssertTrue(short.allSatisfy { $0.hasSuffix("(horizonDays is 7 from --days 7)") }, short.joined(separator: "\n"))
        // A trace makes no decision: its shortened run is no problem.
        assertExit(try remindersim("trace", "d7.json", "--user", "3", "--days", "7", "--install-spread", "0"), 0)
    }

    /// The daily rows a run stores and reports, one per configuration (and the holdout) and day, are
    /// bounded: their memory grows with them whatever the users. 1,000 configurations fit 399 days, not 400.
    func testDailyRowsAreBounded() throws {
        func file(days: Int) throws -> String {
            let configurations = (0..<999).map { Self.configuration("c\($0)", periods: [1 + $0 % 30]) }
            var s = Self.scenario(configurations, ["horizonDays": days])
            s["grid"] = ["timePeriods": [[3]], "messages": ["m"]]
            try writeFile("rows\(days).json", try JSONEdit.text(s))
            return "rows\(days).json"
        }
        assertExit(try remindersim("validate", try file(days: 399)), 0)
        let found = problems(try remindersim("validate", try file(days: 400)), file: "rows400.json")
        XCTAssertEqual(found, ["horizonDays: 1,000 configurations and the holdout over 400 days (horizonDays) make 400,400 daily "
            + "rows for the run's tables and report, whose memory grows with them; at most 400,000: shorten the run or compare "
            + "fewer configurations at once"])
    }

    /// Segments are counted apart under every configuration: at most 1,000 of them, and at most 100,000
    /// rows of counts per segment and platform (segments and platforms times configurations and the holdout).
    func testSegmentsAreBounded() throws {
        func segments(_ n: Int) -> [[String: Any]] {
            (0..<n).map { ["name": "s\($0)", "returns": ["distribution": "exponential", "mean": 2, "unit": "days"]] as [String: Any] }
        }
        func file(_ name: String, segments n: Int, configurations k: Int) throws -> String {
            var s = Self.scenario((0..<k).map { Self.configuration("c\($0)", periods: [1 + $0 % 30]) })
            s["population"] = ["segments": segments(n)]
            try writeFile(name, try JSONEdit.text(s))
            return name
        }
        assertExit(try remindersim("validate", try file("many.json", segments: 1_000, configurations: 99)), 0)
        XCTAssertEqual(problems(try remindersim("validate", try file("more.json", segments: 1_001, configurations: 1)), file: "more.json"),
                       ["population.segments: at most 1,000 segments, got 1,001: each is counted apart under every configuration"])
        XCTAssertEqual(problems(try remindersim("validate", try file("rows.json", segments: 1_000, configurations: 100)), file: "rows.json"),
                       ["population.segments: 1,000 segments under 100 configurations and the holdout make 101,000 rows of counts per "
                        + "segment and platform, whose memory grows with them; at most 100,000: merge segments or compare fewer "
                        + "configurations at once"])
        // Refused before anything runs.
        let run = try remindersim("run", "rows.json", "--db", "r.sqlite", "--out", "out")
        assertExit(run, 65)
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("r.sqlite")))
    }

    /// Labels a report could not tell apart are refused: one that differs from another only in invisible
    /// characters or spaces at its ends, one that reads as "holdout", one that starts or ends with a space.
    /// Labels that differ in case or in inner spaces show so, and are allowed.
    func testLookAlikeLabelsAreRefused() throws {
        let labels = ["A", "A\u{200B}", " holdout", "HoldOut\u{2060}", "b ", "Abc", "abc", "a b", "5 days", "5days"]
        try writeFile("alike.json", try JSONEdit.text(Self.scenario(labels.map { Self.configuration($0) })))
        let found = problems(try remindersim("validate", "alike.json"), file: "alike.json")
        XCTAssertEqual(found, [
            "configurations[1].label: \"A\\u{200b}\" reads as \"A\", the label of configurations[0] (they differ only in invisible "
                + "characters, letter widths or spaces at their ends): reports could not tell them apart",
            "configurations[2].label: \" holdout\" reads as \"holdout\", which is reserved for the holdout (it differs only in case, "
                + "invisible characters, letter widths or spaces at its ends)",
            "configurations[2].label: \" holdout\" starts or ends with a space, which reports do not show",
            "configurations[3].label: \"HoldOut\\u{2060}\" reads as \"holdout\", which is reserved for the holdout (it differs only "
                + "in case, invisible characters, letter widths or spaces at its ends)",
            "configurations[4].label: \"b \" starts or ends with a space, which reports do not show",
        ])
        // Joiners and variation selectors are as invisible; full-width letters read as plain ones; a label of
        // invisible characters alone shows nothing.
        let more = ["A3d", "A\u{034F}3d", "B\u{FE0F}", "B", "ｈｏｌｄｏｕｔ", "\u{200B}", "\u{FEFF}\u{2060}"]
        try writeFile("more.json", try JSONEdit.text(Self.scenario(more.map { Self.configuration($0) })))
        let again = problems(try remindersim("validate", "more.json"), file: "more.json")
        XCTAssertEqual(again.count, 5, again.joined(separator: "\n"))
        for (k, start) in [(1, "configurations[1].label: \"A\u{034F}3d\" reads as \"A3d\""), (3, "configurations[3].label: \"B\" reads as "),
                           (4, "configurations[4].label: \"ｈｏｌｄｏｕｔ\" reads as \"holdout\""),
                           (5, "configurations[5].label: \"\\u{200b}\" shows nothing: it is made only of invisible characters"),
                           (6, "configurations[6].label: ")] {
            XCTAssertTrue(again.contains { $0.hasPrefix(start) }, "\(k): \(again.joined(separator: "\n"))")
        }
    }

    /// A cron rule asking for a count of 0 is allowed but never matches: a warning says so, at the rule.
    func testACronRuleAskingForCountZeroIsAWarning() throws {
        var c = Self.configuration("a")
        c["cronRules"] = ["1 */7", "0 1", ["rule": "* 0", "prompt": "storeReview"]]
        // The released parser reads what it cannot parse as 0: that is no rule asking for 0.
        var original = Self.configuration("original")
        original["mode"] = "original"
        original["cronRules"] = ["x 1"]
        try writeFile("zero.json", try JSONEdit.text(Self.scenario([c, original])))
        let validated = try remindersim("validate", "zero.json")
        assertExit(validated, 0)
        let tail = " asks for a count of 0, which no launch has (launches and days count from 1): it never matches, and its "
            + "else-block runs at every launch"
        XCTAssertEqual(validated.stderrLines, [
            "remindersim: warning: zero.json: configurations[0].cronRules[1]: \"0 1\"" + tail,
            "remindersim: warning: zero.json: configurations[0].cronRules[2].rule: \"* 0\"" + tail,
        ])
        // So does a permission prompt on such a rule: it is never shown.
        var scenario = Self.scenario([Self.configuration("a")])
        var population = try XCTUnwrap(scenario["population"] as? [String: Any])
        population["platforms"] = [["platform": "ios", "permission": ["granted": 0.5, "ask": "0 1"]],
                                   ["platform": "android", "permission": ["granted": 0.5, "ask": "1 */2"]]]
        scenario["population"] = population
        try writeFile("ask.json", try JSONEdit.text(scenario))
        let asked = try remindersim("validate", "ask.json")
        assertExit(asked, 0)
        XCTAssertEqual(asked.stderrLines, [
            "remindersim: warning: ask.json: population.platforms[0].permission.ask: \"0 1\" asks for a count of 0, which no "
                + "launch has (launches and days count from 1): the prompt is never shown, so no user allows notifications",
        ])
    }

    /// A send window wholly inside the quiet hours changes nothing: a warning at the window says so.
    func testASendWindowInsideQuietHoursIsAWarning() throws {
        var inside = Self.configuration("inside")
        inside["delivery"] = ["sendWindow": ["start": "10:00", "end": "11:00"], "quietHours": ["start": "09:00", "end": "12:00"]]
        var overlapping = Self.configuration("overlapping")
        overlapping["delivery"] = ["sendWindow": ["start": "11:00", "end": "13:00"], "quietHours": ["start": "09:00", "end": "12:00"]]
        try writeFile("window.json", try JSONEdit.text(Self.scenario([inside, overlapping])))
        let validated = try remindersim("validate", "window.json")
        assertExit(validated, 0)
        XCTAssertEqual(validated.stderrLines, ["remindersim: warning: window.json: configurations[0].delivery.sendWindow: the window "
            + "10:00–11:00 lies wholly inside the quiet hours 09:00–12:00: every notification moved into it moves on to 12:00, "
            + "so the window changes nothing"])
    }

    /// 1,001 listed configurations are too many: the message names the list the file has, not a grid.
    func testTooManyListedConfigurationsNameTheListAndTheLimit() throws {
        let many = (0..<1_001).map { Self.configuration("c\($0)", periods: [$0 % 30 + 1]) }
        try writeFile("many.json", try JSONEdit.text(Self.scenario(many)))
        let found = problems(try remindersim("validate", "many.json"), file: "many.json")
        XCTAssertEqual(found, ["configurations: lists 1,001 configurations; a scenario may compare at most 1,000"])

        var both = Self.scenario(Array(many.prefix(990)))
        both["grid"] = ["messages": ["x"], "timePeriods": (1...20).map { [$0] }]
        try writeFile("both.json", try JSONEdit.text(both))
        XCTAssertEqual(problems(try remindersim("validate", "both.json"), file: "both.json"), [
            "grid: expands to 20 configurations, which with the 990 listed in configurations makes 1,010; "
                + "a scenario may compare at most 1,000",
        ])
    }

    /// A sequence step the run cannot reach is allowed, and said: `validate` and `run` warn on stderr
    /// and succeed.
    func testASequenceStepBeyondTheHorizonIsAWarning() throws {
        let s = Self.scenario([["label": "s", "sequence": ["afterDays": [3, 14, 30, 60], "messages": ["m"]]]])
        try writeFile("seq.json", try JSONEdit.text(s))
        let warnings = [
            "remindersim: warning: seq.json: configurations[0].sequence.afterDays[2]: a step 30 days after the last "
                + "session cannot fire in a run of 30 days (horizonDays): it is never delivered",
            "remindersim: warning: seq.json: configurations[0].sequence.afterDays[3]: a step 60 days after the last "
                + "session cannot fire in a run of 30 days (horizonDays): it is never delivered",
        ]
        let validated = try remindersim("validate", "seq.json")
        assertExit(validated, 0)
        assertContains(validated.stdout, "seq.json: ok")
        XCTAssertEqual(validated.stderrLines, warnings)
        let run = try remindersim("run", "seq.json", "--threads", "1")
        assertExit(run, 0)
        XCTAssertEqual(run.stderrLines, warnings)
        // A horizon long enough silences them.
        let longer = try remindersim("run", "seq.json", "--days", "61", "--threads", "1")
        assertExit(longer, 0)
        XCTAssertEqual(longer.stderr, "")
        // 150 configurations of one step past the horizon: 100 warnings listed, the rest counted; --json has all.
        let many = Self.scenario((0..<150).map { ["label": "s\($0)", "sequence": ["afterDays": [40], "messages": ["m"]]] })
        try writeFile("many.json", try JSONEdit.text(many))
        let flood = try remindersim("validate", "many.json")
        assertExit(flood, 0)
        XCTAssertEqual(flood.stderrLines.count, 101, flood.stderr)
        XCTAssertEqual(flood.stderrLines.last, "remindersim: warning: many.json: … and 50 more warnings "
            + "(`remindersim validate --json` lists them all)")
        let json = try remindersim("validate", "many.json", "--json")
        let files = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual((files.first?["warnings"] as? [Any])?.count, 150)
    }

    /// A reminder whose every delay is at least the run's length can never fire: allowed, and said.
    func testAReminderThatCannotFireWithinTheRunIsAWarning() throws {
        let s = Self.scenario([
            ["label": "yearly", "reminders": [["messages": ["m"], "timePeriods": [365]]]],
            ["label": "monthly then yearly", "reminders": [["messages": ["m"], "timePeriods": [29, 365]]]],
            ["label": "hourly", "reminders": [["messages": ["m"], "timePeriods": [720], "unit": "hours"]]],
        ])
        try writeFile("late.json", try JSONEdit.text(s))
        let validated = try remindersim("validate", "late.json")
        assertExit(validated, 0)
        XCTAssertEqual(validated.stderrLines.filter { $0.hasPrefix("remindersim: warning:") }, [
            "remindersim: warning: late.json: configurations[0].reminders: its shortest delay, 365 days, is no shorter "
                + "than the run's 30 days (horizonDays): no notification can fire, and the configuration measures the same "
                + "as the holdout",
            "remindersim: warning: late.json: configurations[2].reminders: its shortest delay, 30 days, is no shorter "
                + "than the run's 30 days (horizonDays): no notification can fire, and the configuration measures the same "
                + "as the holdout",
        ])
    }

    // MARK: Bounded texts

    /// A label of a million characters was copied into every stored row; it is refused at once,
    /// naming the field, its length and the limit.
    func testAHugeLabelIsRefusedWithItsLengthAndTheLimit() throws {
        let configurations = [Self.configuration("a"), Self.configuration("b"),
                              Self.configuration(String(repeating: "x", count: 1_000_000))]
        try writeFile("label.json", try JSONEdit.text(Self.scenario(configurations)))
        for command in ["validate", "run"] {
            let result = try remindersim(command, "label.json", timeout: 60)
            XCTAssertEqual(problems(result, file: "label.json"), ["configurations[2].label: 1,000,000 characters; at most 200"])
            XCTAssertLessThan(result.stderr.utf8.count, 1_000)
        }
    }

    /// Every name and message of a scenario is bounded: 200 characters for names, labels, prefixes,
    /// domains and cron rules, 2,000 for messages. Counted in Unicode scalars, so the limits hold
    /// exactly with text of several bytes per character.
    func testNamesAndMessagesAreBounded() throws {
        let name201 = String(repeating: "é", count: 201)
        let message2001 = String(repeating: "🎉", count: 2_001)
        var s = Self.scenario([
            ["label": String(repeating: "🎉", count: 200), "cronRules": [String(repeating: "1", count: 201)],
             "reminders": [["messages": [message2001, String(repeating: "m", count: 2_000)], "timePeriods": [7],
                            "appDomain": name201]]],
            ["label": "seq", "sequence": ["afterDays": [3], "messages": [message2001]]],
        ], ["name": name201, "baseline": name201])
        s["population"] = ["segments": [["name": name201, "returns": ["distribution": "exponential", "mean": 2]]]]
        s["grid"] = ["labelPrefix": name201, "messages": [message2001], "timePeriods": [[1]]]
        s["response"] = ["messageWeights": [message2001: 2]]
        s["tune"] = ["space": ["periods": ["min": 1, "max": 2], "messages": [message2001]]]
        try writeFile("texts.json", try JSONEdit.text(s))
        let found = problems(try remindersim("validate", "texts.json"), file: "texts.json")
        let long = "201 characters; at most 200", longer = "2,001 characters; at most 2,000"
        assertListed(found, [
            "name: \(long)",
            "baseline: \(long)",
            "population.segments[0].name: \(long)",
            "configurations[0].cronRules[0]: \(long)",
            "configurations[0].reminders[0].messages[0]: \(longer)",
            "configurations[0].reminders[0].appDomain: \(long)",
            "configurations[1].sequence.messages[0]: \(longer)",
            "grid.labelPrefix: \(long)",
            "grid.messages[0]: \(longer)",
            // The key is quoted in the path at most 80 characters long.
            "response.messageWeights[\"\(String(repeating: "🎉", count: 80))…\"]: a message of \(longer)",
            "tune.space.messages[0]: \(longer)",
        ])
        XCTAssertEqual(found.count, 11, found.joined(separator: "\n"))
    }

    /// A tune's messages are checked as a configuration's are, at their own path: `validate` finds a
    /// blank one, and `tune` refuses it before simulating, naming the same path.
    func testABlankTuneMessageIsFoundAtItsPath() throws {
        let s = Self.scenario([Self.configuration("7d")], [
            "tune": ["baseline": "7d", "space": ["periods": ["min": 1, "max": 3], "messages": ["Come back", "  ", ""]]],
        ])
        try writeFile("blank.json", try JSONEdit.text(s))
        let expected = ["tune.space.messages[1]: must not be only spaces", "tune.space.messages[2]: must not be empty"]
        XCTAssertEqual(problems(try remindersim("validate", "blank.json"), file: "blank.json"), expected)
        let tune = try remindersim("tune", "blank.json", "--users", "100", "--db", "t.sqlite", "--out", "out")
        XCTAssertEqual(problems(tune, file: "blank.json"), expected)
        XCTAssertFalse(FileManager.default.fileExists(atPath: workPath("t.sqlite")), "nothing stored")
    }

    /// A grid makes its labels from its prefix and its periods: a label made longer than 200
    /// characters is refused once, at the grid.
    func testAGridThatMakesOverlongLabelsIsRefusedOnce() throws {
        var s = Self.scenario([])
        s["grid"] = ["labelPrefix": String(repeating: "p", count: 190), "messages": ["m"],
                     "timePeriods": [[1, 2, 3, 4, 5, 6], [7]], "randomMessage": [true, false]]
        try writeFile("grid.json", try JSONEdit.text(s))
        let found = problems(try remindersim("validate", "grid.json"), file: "grid.json")
        XCTAssertEqual(found, ["grid: makes a label of 209 characters; at most 200 (shorten labelPrefix or the periods)"])
    }

    // MARK: Bounded work

    /// A 500 KB grid of 50,000 messages made every one of its 1,000 combinations count each message:
    /// the run asked for 4 GB at once and crashed. Messages and periods per reminder are bounded, and
    /// so is their sum over all configurations, counted before the grid is expanded.
    func testMessagesAndPeriodsAreBoundedPerReminderAndInAll() throws {
        var s = Self.scenario([
            Self.configuration("a", periods: Array(1...65)),
            Self.configuration("b", messages: (1...65).map { (k: Int) -> String in "m\(k)" }),
        ])
        let many: [String] = (0..<50_000).map { "m\($0)" }
        let single: [[Int]] = (1...998).map { [$0] }
        s["grid"] = ["messages": many, "timePeriods": single]
        try writeFile("messages.json", try JSONEdit.text(s))
        let result = try remindersim("validate", "messages.json", timeout: 20)
        XCTAssertEqual(problems(result, file: "messages.json").sorted(), [
            "configurations[0].reminders[0].timePeriods: at most 64 periods per reminder, got 65",
            "configurations[1].reminders[0].messages: at most 64 messages per reminder, got 65",
            "grid.messages: at most 64 messages per reminder, got 50000",
        ])

        var all = Self.scenario([])
        let messages: [String] = (0..<64).map { "m\($0)" }
        let periods: [[Int]] = (1...1_000).map { Array(repeating: $0, count: 64) }
        all["grid"] = ["messages": messages, "timePeriods": periods]
        try writeFile("all.json", try JSONEdit.text(all))
        XCTAssertEqual(problems(try remindersim("validate", "all.json", timeout: 20), file: "all.json"), [
            "grid: the configurations list 128,000 messages and periods in all (the grid's combinations each list their own); "
                + "at most 100,000",
        ])
    }
}
