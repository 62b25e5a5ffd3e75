import CronEngine
import Foundation
import ReminderEngine
@testable import Simulation
import Synchronization
import XCTest

/// Configurations that ride on the holdout's sessions count exactly what each counts on its own:
/// every tally and every sum over users, whatever the configurations, engine modes and populations.
final class RideAlongTests: XCTestCase {
    /// Runs `s` with and without riding; returns how many configurations ride.
    @discardableResult
    func bothWays(_ s: Scenario, threads: Int = 2, pairs: PairChoice = .all, ride: Bool = true, detail: Bool = true,
                  file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let model = try CompiledModel(s)
        let riding = model.configurations.map(\.view).filter(CompiledModel.ridesOnHoldout).count
        if ride { XCTAssertGreaterThanOrEqual(riding, 2, "configurations ride", file: file, line: line) }
        let (together, alone) = Fixtures.runBothWays(model, threads: threads, pairs: pairs, detail: detail) {
            CompiledModel.ridesAlong = $0
        }
        XCTAssertEqual(together.tallies, alone.tallies, file: file, line: line)
        XCTAssertEqual(together.sums, alone.sums, file: file, line: line)
        XCTAssertEqual(together, alone, file: file, line: line)
        XCTAssertGreaterThan(together.tallies[1][.delivered], 0, file: file, line: line)
        return riding
    }

    /// The built-in scenario: cron rules, random messages, both engine modes, the seed README examples.
    func testTheDefaultScenario() throws {
        var s = Scenario.builtInDefault
        s.users = 3_000
        s.configurations += [Fixtures.reminder([2, 5], label: "2/5d"), Fixtures.reminder([4], label: "4d", mode: .original100, wiring: .early)]
        try bothWays(s)
    }

    /// Many one-reminder configurations, as a tune's batch has them: every engine mode, circular and
    /// not, periods in hours and days, a strong response (many configurations part from the holdout),
    /// opt-outs, dormant users and quiet hours; beside them configurations that cannot ride.
    func testManyConfigurationsWithAStrongResponse() throws {
        var s = Scenario.builtInDefault
        s.users = 2_000
        s.horizonDays = 60
        s.response.baseResponse = 0.4
        s.response.optOutPerDelivery = 0.03
        s.response.messageWeights = [:]
        s.configurations = (1...12).map { k in
            ConfigurationSpec(label: "\(k)", mode: EngineMode.allCases[k % 3],
                              reminders: [ReminderSpec(messages: ["A", "B", "C"], timePeriods: [k, k + 2, 1], unit: k % 4 == 0 ? .hours : .days,
                                                       randomMessage: k % 5 == 0, circularTimePeriod: k % 2 == 0)])
        }
        var moved = Fixtures.reminder([6], unit: .hours, label: "moved")
        moved.delivery = DeliveryPolicy(quietHours: LocalTimeSpan(startMinute: 22 * 60, endMinute: 7 * 60))
        var capped = Fixtures.reminder([5], unit: .hours, label: "capped")
        capped.delivery = DeliveryPolicy(frequencyCap: DeliveryPolicy.FrequencyCap(max: 2, perDays: 7))
        s.configurations += [moved, capped, Fixtures.reminder([1], label: "ruled", rules: ["1 *", "2 */3"]),
                             Fixtures.reminder([3], label: "prompted", rules: [CronRuleSpec("1 *", prompt: .storeReview), "3"]),
                             Fixtures.reminder([2], label: "readme", mode: .original, wiring: .readme)]
        s.baseline = "3"
        try bothWays(s)
        try bothWays(s, threads: 3, pairs: .decision)
    }

    /// Riders with the same cron rules take the rules' answers from one trace per user: a group of
    /// documented-mode riders, a group of original-mode ones with the same rule texts (the released
    /// parser reads the one-field rule "3" as never matching, so their rules differ), riders alone
    /// with their rules, and rules asking for the review prompt, which never share.
    /// With a strong response many leave the holdout, at every session of the trace.
    func testRidersSharingCronRules() throws {
        var s = Scenario.builtInDefault
        s.users = 2_500
        s.horizonDays = 45
        s.response.baseResponse = 0.35
        s.response.optOutPerDelivery = 0.02
        s.response.messageWeights = [:]
        let daily: [CronRuleSpec] = ["1 *", "2 */3", "1 */7", "3"]
        let weekly: [CronRuleSpec] = ["1 */7", "4 *"]
        s.configurations = [1, 2, 4, 8].map { Fixtures.reminder([$0, $0 + 3], label: "daily \($0)d", rules: daily) }
            + [3, 6].map { Fixtures.reminder([$0], unit: .hours, label: "original \($0)h", mode: .original, rules: daily) }
            + [5, 9].map { Fixtures.reminder([$0], label: "weekly \($0)d", rules: weekly) }
            + [Fixtures.reminder([2], label: "alone", rules: ["1 */2"]),
               Fixtures.reminder([3], label: "prompted a", rules: [CronRuleSpec("1 *", prompt: .storeReview), "2 *"]),
               Fixtures.reminder([6], label: "prompted b", rules: [CronRuleSpec("1 *", prompt: .storeReview), "2 *"])]
        let model = try CompiledModel(s)
        let views = model.configurations.map(\.view)
        let riders = views.indices.dropFirst().filter { CompiledModel.ridesOnHoldout(views[$0]) }
        XCTAssertEqual(riders.count, s.configurations.count, "every configuration rides")
        // Configuration 0 is the holdout; the groups: documented daily 1...4, original daily 5...6, weekly 7...8.
        XCTAssertEqual(CompiledModel.launchGroups(views, riders: riders), [-1, 0, 0, 0, 0, 1, 1, 2, 2, -1, -1, -1])
        try bothWays(s)
        try bothWays(s, threads: 3, pairs: .decision)
        let run = model.run(options: RunOptions(threads: 2))
        XCTAssertGreaterThan(run.tallies[1][.responded], 0, "users brought back")
    }

    /// Without the tallies' detail, riders that walk the holdout's sessions alike share their walks
    /// (`RideWalks`): the same first periods in the documented mode whatever comes after them,
    /// circular or not, parting at their first different period; the original modes wired early,
    /// whose install open moves them to their second period; riders with cron rules traced once;
    /// beside them riders that walk alone (messages at random, the README wiring, rules of their
    /// own, fewer messages, where the next message wraps sooner) and a strong response with
    /// opt-outs, so that many leave the holdout at a notification and many do not.
    func testRidersWalkingAlikeShareTheirWalks() throws {
        var s = Self.shortGaps([])
        s.users = 600
        s.response.baseResponse = 0.3
        s.response.optOutPerDelivery = 0.02
        func one(_ periods: [Int], _ label: String, mode: EngineMode = .documented, circular: Bool = false,
                 random: Bool = false, wiring: ReminderWiring? = nil, rules: [CronRuleSpec] = [],
                 messages: [String] = ["a", "b", "c"]) -> ConfigurationSpec {
            ConfigurationSpec(label: label, mode: mode, wiring: wiring,
                              reminders: [ReminderSpec(messages: messages, timePeriods: periods, unit: .hours,
                                                       randomMessage: random, circularTimePeriod: circular)],
                              cronRules: rules)
        }
        s.configurations = [
            one([5], "5h"), one([5, 1], "5/1h"), one([5, 9, 2], "5/9/2h"), one([5, 2], "5/2h circular", circular: true),
            one([2, 5], "2/5h original", mode: .original, wiring: .early), one([7, 5, 1], "7/5/1h original", mode: .original, wiring: .early),
            one([3, 1], "3/1h 1.0.0", mode: .original100, wiring: .early), one([4, 1], "4/1h 1.0.0", mode: .original100, wiring: .early),
            one([5, 3], "5/3h ruled", rules: ["1 *", "2 */3"]), one([5, 8], "5/8h ruled", rules: ["1 *", "2 */3"]),
            one([5, 4], "5/4h random", random: true), one([5, 6], "5/6h readme", mode: .original, wiring: .readme),
            one([5, 7], "5/7h own rules", rules: ["1 */2"]), one([2], "2h"), one([5, 1], "5/1h two messages", messages: ["a", "b"]),
            one([5, 1, 3], "5/1/3h"), one([5, 1, 6], "5/1/6h"),
        ]
        let model = try CompiledModel(s)
        let views = model.configurations.map(\.view)
        let riders = Array(views.indices.dropFirst())
        let launches = CompiledModel.launchGroups(views, riders: riders)
        let messages = model.configurations.indices.map { model.layout($0).messageSlots }
        let groups = CompiledModel.walkGroups(views, messages: messages, riders: riders, launchGroups: launches, detail: false)
        // From the install: 5h in the documented mode, with or without rules; the original modes'
        // install open moves them to their second period, 5h, and 1h in 1.0.0 (which stays there).
        XCTAssertEqual(groups[0], [-1, 0, 0, 0, 0, 1, 1, 2, 2, 0, 0, -1, -1, -1, -1, -1, 0, 0])
        // After the first notification: 5/1h, 5/1/3h and 5/1/6h at 1h; 1.0.0's two at 1h.
        XCTAssertEqual(groups[1], [-1, -1, 0, -1, -1, -1, -1, 1, 1, -1, -1, -1, -1, -1, -1, -1, 0, 0])
        XCTAssertEqual(groups[2], [-1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1])
        XCTAssertEqual(CompiledModel.walkGroups(views, messages: messages, riders: riders, launchGroups: launches, detail: true), [],
                       "the detail's slots are each configuration's own")
        try bothWays(s, detail: false)
        try bothWays(s, threads: 3, pairs: .references([1, 2]), detail: false)
        let run = model.run(options: RunOptions(threads: 2))
        XCTAssertGreaterThan(run.tallies[2][.responded], 0, "users brought back")
        XCTAssertGreaterThan(run.tallies[2][.cancelled], 0, "notifications cancelled by an open on the way")
    }

    /// Short periods and short gaps: notifications that fire while the app is open, sessions still
    /// open at the horizon, and fire times past it.
    func testShortPeriodsFireInTheForegroundAndPastTheHorizon() throws {
        let configurations = [1, 2, 5, 30].map { Fixtures.reminder([$0], unit: .minutes, label: "\($0)m") }
            + [Fixtures.reminder([20], label: "20d")]
        let s = Self.shortGaps(configurations)
        try bothWays(s)
        let run = try CompiledModel(s).run(options: RunOptions(threads: 2))
        XCTAssertGreaterThan(run.tallies[1][.foreground], 0, "fired while the app was open")
        XCTAssertGreaterThan(run.tallies[5][.censored], 0, "due after the horizon")
    }

    /// The same with messages drawn at random, whose quiet sessions draw a message at each close.
    func testRandomMessagesFireInTheForegroundAndPastTheHorizon() throws {
        let configurations = [[1], [2, 5], [30], [20 * 24 * 60]].map { periods in
            ConfigurationSpec(label: periods.map(String.init).joined(separator: "/") + "m random", mode: .documented,
                              reminders: [ReminderSpec(messages: ["a", "b", "c"], timePeriods: periods, unit: .minutes,
                                                       randomMessage: true)])
        }
        let s = Self.shortGaps(configurations)
        try bothWays(s)
        let run = try CompiledModel(s).run(options: RunOptions(threads: 2))
        XCTAssertGreaterThan(run.tallies[1][.foreground], 0, "fired while the app was open")
        XCTAssertGreaterThan(run.tallies[4][.censored], 0, "due after the horizon")
        XCTAssertGreaterThan(run.tallies[3][.cancelled], 0, "cancelled by an open")
    }

    /// 400 users over 21 days who come back every 3 hours on average, for sessions of 20 minutes
    /// (median), and drop out after 2% of them; a strong response.
    /// Riders under the README wiring. With an app domain of their own, messages in order and periods
    /// that do not wrap, a quiet session's cold launch moves the message on, counted without the
    /// engine (`Reminder.movesMessageOnAtColdLaunchWhilePending`); with periods that wrap, messages
    /// at random or the default domain each quiet session goes through the engine. Gaps of three
    /// hours on average and cold launches after three hours make quiet sessions with and without a
    /// cold launch common; one rider has two messages (the next wraps sooner), one has cron rules.
    func testRidersUnderTheReadmeWiring() throws {
        func readme(_ periods: [Int], _ label: String, mode: EngineMode = .original, circular: Bool = false,
                    random: Bool = false, domain: String = "com.example.app", messages: [String] = ["a", "b", "c"],
                    rules: [CronRuleSpec] = []) -> ConfigurationSpec {
            ConfigurationSpec(label: label, mode: mode, wiring: .readme,
                              reminders: [ReminderSpec(messages: messages, timePeriods: periods, unit: .hours, randomMessage: random,
                                                       circularTimePeriod: circular, appDomain: domain)],
                              cronRules: rules)
        }
        var s = Self.shortGaps([
            readme([5, 2], "5/2h"), readme([6], "6h 1.0.0", mode: .original100), readme([8, 4], "8/4h two messages", messages: ["a", "b"]),
            readme([5, 9], "5/9h ruled", rules: ["1 *", "2 */3"]), readme([5, 2], "5/2h circular", circular: true),
            readme([5, 2], "5/2h random", random: true), readme([5, 2], "5/2h default domain", domain: ReminderConfiguration.defaultAppDomain),
        ])
        s.population.segments[0].coldLaunchAfterMinutes = 180
        let model = try CompiledModel(s)
        let movesOn = model.configurations.map { $0.view.reminders.first?.movesMessageOnAtColdLaunchWhilePending ?? false }
        XCTAssertEqual(movesOn, [false, true, true, true, true, false, false, false])
        try bothWays(s)
        try bothWays(s, threads: 3, pairs: .references([1, 5]), detail: false)
        let run = model.run(options: RunOptions(threads: 2))
        for c in 1...4 {
            XCTAssertGreaterThan(run.tallies[c][.cancelled], 1_000, "quiet sessions under \(s.configurations[c - 1].label)")
            XCTAssertGreaterThan(run.tallies[c][.responded], 0, "users brought back under \(s.configurations[c - 1].label)")
        }
    }

    static func shortGaps(_ configurations: [ConfigurationSpec]) -> Scenario {
        var population = Fixtures.population(.exponential(mean: 3, unit: .hours), spread: 7)
        population.segments[0].sessionLength = SessionLength(medianMinutes: 20, sigma: 1)
        population.segments[0].dropoutPerSession = 0.02
        return Fixtures.scenario(users: 400, days: 21, population: population,
                                 response: ResponseModel(baseResponse: 0.2, fatigue: 0.8, optOutPerDelivery: 0.01),
                                 configurations: configurations)
    }

    /// A launch trace longer than its first room (256 opens) moves its per-open entries to larger
    /// storage and keeps its per-rule ones: users back every three hours for 60 days under riders that
    /// share their cron rules (one trace per user, some 480 opens), counted as on their own; and the
    /// trace itself grown twice, its entries read back.
    func testRidersSharingCronRulesOverManyOpens() throws {
        let rules: [CronRuleSpec] = ["1 *", "2 */3", "5"]
        var s = Self.shortGaps([Fixtures.reminder([5], unit: .hours, label: "5h", rules: rules),
                                Fixtures.reminder([9, 2], unit: .hours, label: "9/2h", rules: rules),
                                Fixtures.reminder([30], unit: .hours, label: "30h", rules: rules)])
        s.users = 60
        s.horizonDays = 60
        s.population.segments[0].dropoutPerSession = 0
        let model = try CompiledModel(s)
        let views = model.configurations.map(\.view)
        XCTAssertEqual(CompiledModel.launchGroups(views, riders: [1, 2, 3]), [-1, 0, 0, 0])
        try bothWays(s)
        let run = model.run(options: RunOptions(threads: 2))
        XCTAssertGreaterThan(run.tallies[0][.opens], 300 * 60, "more than 300 opens a user")

        var trace = LaunchTrace()
        defer { trace.deallocate() }
        trace.firstDay[2] = 9
        for opens in [10, 300, 5_000] {
            trace.reset(opens: opens, rules: rules.count)
            for j in 0..<opens {
                trace.set(j, counters: LaunchCounters(totalLaunches: j), matched: UInt64(j), ran: UInt64(2 * j))
            }
            trace.totals[1] = Int64(opens)
            XCTAssertEqual((0..<opens).map { trace.counters[$0].totalLaunches }, Array(0..<opens))
            XCTAssertEqual((0..<opens).map { trace.ran[$0] }, (0..<opens).map { UInt64(2 * $0) })
            XCTAssertEqual(trace.totals[1], Int64(opens))
            XCTAssertEqual(trace.firstDay[2], 9)
        }
    }

    /// Users who reach the session limit stop the run the same way: at the same user and configuration,
    /// whatever the threads (the counts of a stopped run are partial, and never read).
    func testASessionLimitBreachIsTheSame() throws {
        var population = Fixtures.population(.exponential(mean: 1, unit: .minutes))
        population.segments[0].coldLaunchAfterMinutes = 1
        let s = Fixtures.scenario(users: 50, days: 30, population: population,
                                  configurations: [Fixtures.reminder([1]), Fixtures.reminder([2], label: "two")])
        let model = try CompiledModel(s)
        let riding = model.run(options: RunOptions(threads: 2))
        XCTAssertNotNil(riding.sessionLimitBreach)
        CompiledModel.ridesAlong = false
        defer { CompiledModel.ridesAlong = true }
        XCTAssertEqual(model.run(options: RunOptions(threads: 2)).sessionLimitBreach, riding.sessionLimitBreach)
        XCTAssertEqual(model.run(options: RunOptions(threads: 1)).sessionLimitBreach, riding.sessionLimitBreach)
    }

    /// A small run is handed out in at least eight chunks a thread (so every thread has work and the progress
    /// moves), a large one in chunks of at most `chunkSize`; the counts are the same for any cut.
    func testSmallRunsAreCutFinerWithTheSameCounts() throws {
        let s = Fixtures.scenario(users: 400, days: 30, population: Fixtures.population(.exponential(mean: 2, unit: .days)),
                                  configurations: [Fixtures.reminder([1]), Fixtures.reminder([3], label: "three")])
        let model = try CompiledModel(s)
        for threads in [1, 2, 4] {
            let calls = Mutex<[Int]>([])
            let cut = model.run(options: RunOptions(threads: threads, progress: { n in calls.withLock { $0.append(n) } }))
            XCTAssertEqual(calls.withLock { $0.count }, 400 / (400 / (threads * 8)) + (400 % (400 / (threads * 8)) == 0 ? 0 : 1),
                           "\(threads) threads")
            XCTAssertEqual(calls.withLock { $0.reduce(0, +) }, 400)
            XCTAssertEqual(cut, model.run(options: RunOptions(threads: 1, chunkSize: 100_000)))
        }
    }

    /// The limits on new runs and the decision's own checks are the callers': a scenario stored before
    /// them (look-alike labels, a rule on a day its run never reached) still compiles, and `semanticIssues`
    /// names them only when asked for a new run that decides.
    func testAStoredScenarioCompilesWithoutTheRulesOfNewRuns() throws {
        var population = Fixtures.population(.exponential(mean: 2, unit: .days))
        population.installSpreadDays = 0
        var s = Fixtures.scenario(users: 50, days: 7, population: population,
                                  configurations: [Fixtures.reminder([1], label: "A"), Fixtures.reminder([2], label: "A\u{200B}")])
        s.decision = DecisionRule(objective: .liftD7)
        XCTAssertEqual(s.semanticIssues().map(\.path), ["configurations[1].label", "decision.objective"])
        XCTAssertEqual(s.semanticIssues(decides: false).map(\.path), ["configurations[1].label"])
        XCTAssertEqual(s.semanticIssues(relaxed: true).map(\.path), [])
        XCTAssertNoThrow(try CompiledModel(s))
    }

    /// Every scenario of the examples folder that runs on its own data.
    func testTheExampleScenarios() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets")
        var riding: [String] = []
        for name in ["daily-habit", "which-period", "listed-sequences", "weekly-rate-app", "platforms", "tune-periods",
                     "calibration-example"] {
            let text = try String(contentsOf: folder.appendingPathComponent("\(name).json"), encoding: .utf8)
            var s = try Scenario.decode(text)
            s.users = 1_500
            s.tune = nil
            if try bothWays(s, ride: false) >= 2 { riding.append(name) }
        }
        XCTAssertGreaterThanOrEqual(riding.count, 2, "scenarios with configurations riding: \(riding)")
    }
}
