import Foundation
import ReminderEngine
import Simulation
import XCTest

/// The App Store review prompt's cap on cron rules: at most three shown per user in any 365 days.
final class ReviewPromptTests: XCTestCase {
    let day = 86_400.0
    let marked = CronRuleSpec("*", prompt: .storeReview)

    /// Asks exactly a day apart from day 0: shown on days 0, 1, 2, then once the first leaves the
    /// window on day 365 (an ask exactly 365 days after a shown one is past it), and so on.
    func testDailyAsksAreShownThreeTimesAYear() {
        var log = ReviewPromptLog()
        let shown = (0..<800).filter { log.ask(at: Double($0) * day) }
        XCTAssertEqual(shown, [0, 1, 2, 365, 366, 367, 730, 731, 732])
    }

    func testTheWindowEndsExactlyAYearAfterAShownPrompt() {
        var log = ReviewPromptLog()
        XCTAssertEqual([0.0, 10, 20].map { log.ask(at: $0) }, [true, true, true])
        XCTAssertFalse(log.ask(at: ReviewPromptLog.windowSeconds - 1))
        XCTAssertTrue(log.ask(at: ReviewPromptLog.windowSeconds))
        XCTAssertFalse(log.ask(at: ReviewPromptLog.windowSeconds + 9))
        XCTAssertTrue(log.ask(at: ReviewPromptLog.windowSeconds + 10))
    }

    /// The ring against the rule written out: shown when fewer than three of all the prompts shown
    /// before lie in (t − 365 days, t].
    func testTheRingAgreesWithCountingEveryPromptShown() {
        var state: UInt64 = 12_345
        func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        for trial in 0..<200 {
            var log = ReviewPromptLog()
            var shownTimes: [Double] = []
            var t = 0.0
            // Mean gaps from an hour to 100 days, ties included (a gap of 0 now and then).
            let meanGap = day * (0.04 + 100 * unit())
            for _ in 0..<300 {
                if unit() > 0.05 { t += -meanGap * log1p(-unit()) }
                let expected = shownTimes.filter { $0 > t - ReviewPromptLog.windowSeconds }.count < 3
                if expected { shownTimes.append(t) }
                XCTAssertEqual(log.ask(at: t), expected, "trial \(trial), t = \(t)")
            }
        }
    }

    /// One segment launching exactly once a day (a one-day gap after one-second sessions), installed
    /// at the run's start.
    func scenario(users: Int, days: Int, rules: [CronRuleSpec], returns: ReturnProcess? = nil) -> Scenario {
        let gaps = returns ?? .empirical(values: [1], weights: nil, unit: .days)
        return Fixtures.scenario(users: users, days: days, population: Fixtures.population(gaps, spread: 0),
                                 configurations: [Fixtures.reminder([7], rules: rules)])
    }

    /// Every launch asks; a user launching daily for 800 days asks 800 times and is shown 9: on launches
    /// 0, 1, 2, 365, 366, 367, 730, 731, 732 (a session's second or so moves each launch a little past the
    /// day, so 365 launches later is at least 365 days later, 364 launches later less).
    func testDailyLaunchesOver800DaysShowNinePrompts() throws {
        let s = scenario(users: 40, days: 800, rules: ["1 1", marked])
        let model = try CompiledModel(s)
        let tally = model.run(options: RunOptions(threads: 2)).tallies[1]
        XCTAssertEqual(tally.rule(1, .blockRuns), 40 * 800)
        XCTAssertEqual(tally.prompt(1, .shown), 40 * 9)
        XCTAssertEqual(tally.prompt(1, .usersShown), 40)
        // The unmarked rule asks nothing.
        XCTAssertEqual(tally.prompt(0, .shown), 0)
        XCTAssertEqual(tally.prompt(0, .usersShown), 0)
        for user in [0, 17, 39] {
            var launch = -1
            var shownAt: [Int] = []
            for event in model.trace(user: user, configuration: 1).events {
                switch event {
                case .open(_, _, true): launch += 1
                case let .reviewPrompt(index, shown):
                    XCTAssertEqual(index, 1)
                    if shown { shownAt.append(launch) }
                default: break
                }
            }
            XCTAssertEqual(launch, 799, "user \(user)")
            XCTAssertEqual(shownAt, [0, 1, 2, 365, 366, 367, 730, 731, 732], "user \(user)")
        }
    }

    /// Whatever the gaps, a rule asking at every launch shows exactly three prompts in a user's first
    /// 365 days: the first three asks, once each user launched at least three times (with a mean gap of a
    /// day, every user launches hundreds of times).
    func testEveryUserIsShownExactlyThreeInTheFirstYear() throws {
        let s = scenario(users: 300, days: 365, rules: [marked], returns: .exponential(mean: 1, unit: .days))
        let model = try CompiledModel(s)
        let tally = model.run(options: RunOptions(threads: 2)).tallies[1]
        XCTAssertGreaterThan(tally.rule(0, .blockRuns), 300 * 100)
        XCTAssertEqual(tally.prompt(0, .shown), 300 * 3)
        XCTAssertEqual(tally.prompt(0, .usersShown), 300)
        for user in 0..<300 {
            let asks = model.trace(user: user, configuration: 1).events.compactMap { event -> Bool? in
                if case let .reviewPrompt(_, shown) = event { return shown }
                return nil
            }
            XCTAssertGreaterThan(asks.count, 3, "user \(user)")
            XCTAssertEqual(Array(asks.prefix(3)), [true, true, true], "user \(user)")
            XCTAssertFalse(asks.dropFirst(3).contains(true), "user \(user)")
        }
    }

    /// The marked rules of one configuration share the user's count; each counts what it showed.
    func testMarkedRulesShareTheCap() throws {
        let s = scenario(users: 20, days: 800, rules: [marked, CronRuleSpec("1 *", prompt: .storeReview)])
        let tally = try CompiledModel(s).run(options: RunOptions(threads: 1)).tallies[1]
        // Both ask at every (daily) launch, the first rule first, against one log: whole days stand
        // for the launches (365 launches apart is 365 days or more, 364 less, either way).
        var log = ReviewPromptLog()
        var expected = [0, 0]
        for k in 0..<800 {
            for r in 0..<2 where log.ask(at: Double(k) * day) { expected[r] += 1 }
        }
        XCTAssertEqual(expected[0] + expected[1], 9)
        XCTAssertEqual(expected, [6, 3])
        XCTAssertEqual(tally.rule(1, .blockRuns), 20 * 800)
        XCTAssertEqual(tally.prompt(0, .shown), 20 * Int64(expected[0]))
        XCTAssertEqual(tally.prompt(1, .shown), 20 * Int64(expected[1]))
        XCTAssertEqual(tally.prompt(1, .usersShown), 20)
    }

    /// Marking a rule adds the prompts shown and changes nothing else: every other count of every
    /// configuration is the unmarked run's, and unmarked rules count no prompt.
    func testMarkingChangesNoOtherCount() throws {
        var s = Scenario.builtInDefault
        s.users = 1_500
        s.horizonDays = 60
        let plain = try CompiledModel(s).run(options: RunOptions(threads: 2))
        s.configurations[0].cronRules[2].prompt = .storeReview
        s.configurations[1].cronRules[5].prompt = .storeReview
        let marked = try CompiledModel(s).run(options: RunOptions(threads: 2))
        for (index, (a, b)) in zip(plain.tallies, marked.tallies).enumerated() {
            let prompts = a.layout.promptOffset..<a.layout.count
            XCTAssertEqual(a.counts[..<prompts.lowerBound], b.counts[..<prompts.lowerBound], "configuration \(index)")
            XCTAssertTrue(a.counts[prompts].allSatisfy { $0 == 0 }, "configuration \(index)")
        }
        let first = marked.tallies[1]
        XCTAssertGreaterThan(first.prompt(2, .shown), 0)
        XCTAssertLessThan(first.prompt(2, .shown), first.rule(2, .blockRuns))
        XCTAssertLessThanOrEqual(first.prompt(2, .usersShown), first.rule(2, .usersRan))
        for r in 0..<first.layout.cronRules where r != 2 { XCTAssertEqual(first.prompt(r, .shown), 0) }
        let metrics = RunResults(scenario: s, tallies: marked).configurations[0].cronRules
        XCTAssertEqual(metrics[2].shown, first.prompt(2, .shown))
        XCTAssertEqual(metrics[2].prompt, .storeReview)
        XCTAssertNil(metrics[0].shown)
        XCTAssertNil(metrics[0].usersShown)
    }

    /// The same users whatever the threads, chunks or split into shards.
    func testPromptsDoNotDependOnThreadsOrShards() throws {
        let s = scenario(users: 900, days: 400, rules: ["1 1", marked, CronRuleSpec("1 */7", prompt: .storeReview)],
                         returns: .exponential(mean: 3, unit: .days))
        let model = try CompiledModel(s)
        let reference = model.run(options: RunOptions(threads: 1))
        XCTAssertGreaterThan(reference.tallies[1].prompt(1, .shown), 0)
        for (threads, chunk) in [(2, 2_048), (8, 7), (3, 100)] {
            XCTAssertEqual(model.run(options: RunOptions(threads: threads, chunkSize: chunk)), reference,
                           "threads \(threads), chunk \(chunk)")
        }
        var merged = model.run(options: RunOptions(threads: 1, users: 0..<333))
        merged.merge(model.run(options: RunOptions(threads: 3, users: 333..<900)))
        XCTAssertEqual(merged.tallies, reference.tallies)
    }

    /// Tallies stored before review prompts (without their counts at the end) read back with them at 0.
    func testTalliesStoredBeforePromptsReadBack() throws {
        let s = scenario(users: 30, days: 60, rules: [marked])
        let tally = try CompiledModel(s).run(options: RunOptions(threads: 1)).tallies[1]
        let bytes = tally.encodedCounts()
        let old = Array(bytes[..<(tally.layout.promptOffset * 8)])
        let read = try XCTUnwrap(Tally(layout: tally.layout, encodedCounts: old))
        XCTAssertEqual(read.counts[..<tally.layout.promptOffset], tally.counts[..<tally.layout.promptOffset])
        XCTAssertEqual(read.prompt(0, .shown), 0)
        XCTAssertEqual(try XCTUnwrap(Tally(layout: tally.layout, encodedCounts: bytes)), tally)
        XCTAssertNil(Tally(layout: tally.layout, encodedCounts: Array(bytes.dropLast(8))))
    }

    /// A scenario with `rules` as the first configuration's cron rules (JSON text) and, if given,
    /// `gridRules` as a grid's.
    func text(rules: String, gridRules: String? = nil) -> String {
        let grid = gridRules.map { #", "grid": {"messages": ["m"], "timePeriods": [[3]], "cronRules": \#($0)}"# } ?? ""
        return #"""
            {"name": "p",
             "population": {"segments": [{"name": "all", "returns": {"distribution": "exponential", "mean": 2}}]},
             "configurations": [{"label": "weekly", "reminders": [{"messages": ["hi"], "timePeriods": [7]}],
                                 "cronRules": \#(rules)}]\#(grid)}
            """#
    }

    /// The issues found in a scenario text; `["accepted"]` when there were none.
    func issues(_ text: String) -> [String] {
        do { _ = try Scenario.decode(text) } catch { return error.issues.map(\.description) }
        return ["accepted"]
    }

    func testMarkedRulesReadAndWriteBack() throws {
        let s = try Scenario.decode(text(rules: #"["1 1", {"rule": "1 */7", "prompt": "storeReview"}]"#,
                                         gridRules: #"[{"prompt": "storeReview", "rule": "*"}]"#))
        XCTAssertEqual(s.configurations[0].cronRules, ["1 1", CronRuleSpec("1 */7", prompt: .storeReview)])
        XCTAssertEqual(s.expandedConfigurations.last?.cronRules, [CronRuleSpec("*", prompt: .storeReview)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let written = String(decoding: try encoder.encode(s.configurations[0].cronRules), as: UTF8.self)
        XCTAssertEqual(written, #"["1 1",{"prompt":"storeReview","rule":"1 *\/7"}]"#)
        XCTAssertEqual(try Scenario.decode(String(decoding: try encoder.encode(s), as: UTF8.self)), s)
    }

    func testBadMarkedRulesAreRefusedWithTheirPath() {
        XCTAssertEqual(issues(text(rules: #"[{"prompt": "storeReview"}]"#)), [
            "configurations[0].cronRules[0].rule: required field is missing",
        ])
        XCTAssertEqual(issues(text(rules: #"[{"rule": "1 1"}]"#)), [
            "configurations[0].cronRules[0].prompt: required field is missing",
        ])
        XCTAssertEqual(issues(text(rules: #"["1 1", {"rule": "1 1", "prompt": "rateApp"}]"#)), [
            "configurations[0].cronRules[1].prompt: unknown value \"rateApp\"; expected one of \"storeReview\"",
        ])
        XCTAssertEqual(issues(text(rules: #"[{"rule": 7, "prompt": true}]"#)), [
            "configurations[0].cronRules[0].rule: expected a string, got a number",
            "configurations[0].cronRules[0].prompt: expected a string, got a boolean",
        ])
        XCTAssertEqual(issues(text(rules: #"[{"rule": "1 1", "prompt": "storeReview", "every": 3}]"#)), [
            "configurations[0].cronRules[0].every: unknown field",
        ])
        XCTAssertEqual(issues(text(rules: #"[3]"#)), [
            "configurations[0].cronRules[0]: expected a rule's text, or an object such as {\"rule\": \"1 */7\", "
                + "\"prompt\": \"storeReview\"} for a rule that asks for a system prompt, got a number",
        ])
        // The rule's text is checked as a plain rule's, at its own path.
        XCTAssertEqual(issues(text(rules: #"[{"rule": "1 */x", "prompt": "storeReview"}]"#)), [
            "configurations[0].cronRules[0].rule: day field divisor \"x\" must be *, */N or a whole number N ≥ 0 (rule \"1 */x\")",
        ])
        XCTAssertEqual(issues(text(rules: "[]", gridRules: #"[{"rule": "1 1", "prompt": "StoreReview"}]"#)), [
            "grid.cronRules[0].prompt: unknown value \"StoreReview\"; expected one of \"storeReview\"",
        ])
    }
}
