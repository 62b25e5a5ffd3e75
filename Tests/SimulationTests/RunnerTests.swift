import Foundation
import ReminderEngine
import Simulation
import XCTest

final class RunnerTests: XCTestCase {
    func smallDefault(users: Int = 3_000, days: Int = 45) -> Scenario {
        var s = Scenario.builtInDefault
        s.users = users
        s.horizonDays = days
        return s
    }

    func testResultsDoNotDependOnThreadsOrChunks() throws {
        let model = try CompiledModel(smallDefault())
        let reference = model.run(options: RunOptions(threads: 1))
        for (threads, chunk) in [(2, 2_048), (8, 7), (3, 100)] {
            let other = model.run(options: RunOptions(threads: threads, chunkSize: chunk))
            XCTAssertEqual(other, reference, "threads \(threads), chunk \(chunk)")
        }
    }

    func testSplittingTheUsersAndMergingGivesTheWholeRun() throws {
        let model = try CompiledModel(smallDefault(users: 2_000))
        let whole = model.run(options: RunOptions(threads: 2))
        var merged = model.run(options: RunOptions(threads: 1, users: 0..<700))
        merged.merge(model.run(options: RunOptions(threads: 2, users: 700..<2_000)))
        XCTAssertEqual(merged.tallies, whole.tallies)
    }

    func testSeedChangesTheResults() throws {
        var s = smallDefault(users: 1_000)
        let a = try CompiledModel(s).run()
        s.seed += 1
        let b = try CompiledModel(s).run()
        XCTAssertNotEqual(a.tallies, b.tallies)
    }

    func testIdenticalConfigurationsGiveIdenticalNumbers() throws {
        var s = smallDefault(users: 2_000)
        var twin = s.configurations[2]
        twin.label = "twin"
        s.configurations.append(twin)
        let result = try CompiledModel(s).run()
        XCTAssertEqual(result.tallies[3], result.tallies.last)
    }

    func testAReminderThatNobodyAnswersLeavesOpensAsInTheHoldout() throws {
        var s = smallDefault(users: 2_000)
        s.response.baseResponse = 0
        s.response.optOutPerDelivery = 0
        let result = try CompiledModel(s).run()
        for t in result.tallies {
            XCTAssertEqual(t[.opens], result.tallies[0][.opens])
            XCTAssertEqual(t[.opensLiftSum], 0)
            XCTAssertEqual(t[.opensLiftSquares], 0)
            XCTAssertEqual((0..<t.layout.days).map { t.daily($0) }, (0..<t.layout.days).map { result.tallies[0].daily($0) })
        }
        XCTAssertGreaterThan(result.tallies[1][.delivered], 0)
    }

    /// The runner takes the holdout's counts of a user from the first configuration under which no
    /// notification brought the user back, or goes on from where one first did; here they are
    /// checked against the holdout simulated user by user, with answers frequent enough that both
    /// ways are taken many times.
    func testTheHoldoutTakenFromAConfigurationIsTheHoldoutSimulated() throws {
        var s = smallDefault(users: 1_500, days: 40)
        s.response.baseResponse = 0.5
        try assertHoldoutAsSimulated(CompiledModel(s))
        // Users who never drop out and come back after a day on average, with a day away making a
        // cold launch: where the holdout goes on, whether its next open is cold is far from certain.
        var population = Fixtures.population(.exponential(mean: 1, unit: .days))
        population.segments[0].coldLaunchAfterMinutes = 1_440
        var response = Fixtures.inert
        response.baseResponse = 0.05
        try assertHoldoutAsSimulated(CompiledModel(Fixtures.scenario(
            users: 1_000, days: 30, population: population, response: response,
            configurations: [Fixtures.reminder([2, 1], unit: .hours)])))
    }

    func testEveryNotificationEndsExactlyOnce() throws {
        let model = try CompiledModel(smallDefault())
        let result = model.run()
        for (i, t) in result.tallies.enumerated() {
            let ends: [Counter] = [.cancelled, .delivered, .foreground, .suppressed, .censored]
            XCTAssertEqual(t[.scheduled], ends.map { t[$0] }.reduce(0, +), "configuration \(i)")
            for slot in 0..<t.layout.messageSlots {
                let e: [SlotCounter] = [.cancelled, .delivered, .foreground, .suppressed, .censored]
                XCTAssertEqual(t.message(slot, .scheduled), e.map { t.message(slot, $0) }.reduce(0, +))
                XCTAssertLessThanOrEqual(t.message(slot, .responded), t.message(slot, .delivered))
            }
            for slot in 0..<t.layout.periodSlots {
                let e: [SlotCounter] = [.cancelled, .delivered, .foreground, .suppressed, .censored]
                XCTAssertEqual(t.period(slot, .scheduled), e.map { t.period(slot, $0) }.reduce(0, +))
            }
            XCTAssertEqual(t[.opens], t[.organicOpens] + t[.responseOpens])
            XCTAssertEqual(t[.responded], t[.responseOpens])
            XCTAssertEqual(t[.users], 3_000)
            for r in 0..<t.layout.cronRules {
                XCTAssertEqual(t.rule(r, .evaluated), t[.launches])
                XCTAssertEqual(t.rule(r, .blockRuns) + t.rule(r, .elseRuns), t[.launches])
                XCTAssertEqual((0...t.layout.days).map { t.firstRun(r, day: $0) }.reduce(0, +), t.rule(r, .usersRan))
            }
            if i > 0 {
                XCTAssertGreaterThan(t[.scheduled], 0)
                XCTAssertGreaterThan(t[.responded], 0)
                XCTAssertGreaterThan(t[.suppressed], 0)
                XCTAssertGreaterThan(t[.censored], 0)
            }
        }
    }

    func testCronRulesRunAsTheirEngineModeSays() throws {
        let rules: [CronRuleSpec] = ["1 1", "1 */7"]
        let s = Fixtures.scenario(
            users: 1_000, days: 60, population: Fixtures.population(.exponential(mean: 1, unit: .days)),
            configurations: [
                Fixtures.reminder([1], label: "documented", mode: .documented, rules: rules),
                Fixtures.reminder([1], label: "original", mode: .original, rules: rules),
            ])
        let result = try CompiledModel(s).run()
        let documented = result.tallies[1], original = result.tallies[2]
        // Every install is the first launch of the first active day.
        XCTAssertEqual(documented.rule(0, .usersRan), 1_000)
        XCTAssertEqual(documented.firstRun(0, day: 0), 1_000)
        // `1 */7` waits for the seventh active day (six days after install at the earliest) in
        // documented mode, and runs on the first day in original mode.
        XCTAssertEqual((0..<6).map { documented.firstRun(1, day: $0) }.reduce(0, +), 0)
        XCTAssertGreaterThan(documented.rule(1, .usersRan), 0)
        XCTAssertEqual(original.firstRun(1, day: 0), 1_000)
        XCTAssertGreaterThan(original.rule(1, .blockRuns), 5 * documented.rule(1, .blockRuns))
    }

    func testOnlyOriginal100UsesOneUnitAtIndexZero() throws {
        // Gaps of exactly 36 hours: a 1-day delay always fires, a 2-day delay never does.
        let gaps = ReturnProcess.empirical(values: [36], weights: nil, unit: .hours)
        let s = Fixtures.scenario(
            users: 500, days: 30, population: Fixtures.population(gaps),
            configurations: EngineMode.allCases.map { Fixtures.reminder([2], label: $0.rawValue, mode: $0) })
        let result = try CompiledModel(s).run()
        let triggers = (1...3).map { ConfigurationMetrics(label: "", tally: result.tallies[$0], isHoldout: false).triggerRate }
        XCTAssertEqual(triggers[0].count, 0, "documented: 2 days")
        XCTAssertEqual(triggers[1].count, 0, "original (1.0.2): 2 days")
        XCTAssertGreaterThan(triggers[2].total, 0)
        XCTAssertEqual(triggers[2].count, triggers[2].total, "original-1.0.0: 1 day at index 0")
    }

    func testTraitsAreSharedAcrossRunsAndDifferBetweenUsers() throws {
        let model = try CompiledModel(smallDefault())
        XCTAssertEqual(model.traits(user: 12), model.traits(user: 12))
        XCTAssertNotEqual(model.traits(user: 12), model.traits(user: 13))
    }

    func testLocalDaysWestOfUTCStartTheDayBefore() throws {
        // Installed at 00:00 UTC = 16:00 the day before at UTC−8; back 30 hours later at 22:00
        // local time on the next local day: that is day 1 after install.
        var population = Fixtures.population(.empirical(values: [30], weights: nil, unit: .hours), spread: 0)
        population.utcOffsets = [UTCOffsetShare(hours: -8, weight: 1)]
        let s = Fixtures.scenario(users: 200, days: 10, population: population, configurations: [Fixtures.reminder([1])])
        let holdout = ConfigurationMetrics(label: "h", tally: try CompiledModel(s).run().tallies[0], isHoldout: true)
        XCTAssertEqual(holdout.retentionD1.count, 200)
        XCTAssertEqual(holdout.retentionD1.total, 200)
    }

    func testRetentionCurveAgreesWithTheHeadlineDays() throws {
        let result = try CompiledModel(smallDefault(users: 2_000, days: 60)).run()
        for t in result.tallies {
            XCTAssertEqual(t.retention(day: 1).retained, t[.retainedD1])
            XCTAssertEqual(t.retention(day: 1).eligible, t[.eligibleD1])
            XCTAssertEqual(t.retention(day: 7).retained, t[.retainedD7])
            XCTAssertEqual(t.retention(day: 7).eligible, t[.eligibleD7])
            XCTAssertEqual(t.retention(day: 30).retained, t[.retainedD30])
            XCTAssertEqual(t.retention(day: 30).eligible, t[.eligibleD30])
            for k in 1..<30 {
                // Fewer users can show a later day; none is retained without being measurable.
                XCTAssertGreaterThanOrEqual(t.retention(day: k).eligible, t.retention(day: k + 1).eligible)
                XCTAssertLessThanOrEqual(t.retention(day: k).retained, t.retention(day: k).eligible)
            }
        }
    }

    func testOnlyOpensAfterLongEnoughAwayAreColdLaunches() throws {
        func launches(afterMinutes gap: Double) throws -> (opens: Int64, launches: Int64) {
            var population = Fixtures.population(.empirical(values: [gap], weights: nil, unit: .minutes), spread: 1)
            population.segments[0].coldLaunchAfterMinutes = 30
            let s = Fixtures.scenario(users: 50, days: 2, population: population, configurations: [Fixtures.reminder([1])])
            let t = try CompiledModel(s).run().tallies[0]
            return (t[.opens], t[.launches])
        }
        let warm = try launches(afterMinutes: 10)
        XCTAssertEqual(warm.launches, 50, "only the installs are launches")
        XCTAssertGreaterThan(warm.opens, 50 * 50)
        let cold = try launches(afterMinutes: 45)
        XCTAssertEqual(cold.launches, cold.opens)
    }

    /// Gaps equal to the delay make a notification fire at the very instant of the next open; it has
    /// fired (the engine sees no time left at that open) and must still end exactly once.
    func testAFireAtTheInstantOfTheNextOpenIsCounted() throws {
        for mode in EngineMode.allCases {
            let gaps = ReturnProcess.empirical(values: [mode == .original100 ? 1 : 7], weights: nil, unit: .days)
            let s = Fixtures.scenario(users: 100, days: 60, population: Fixtures.population(gaps),
                                      configurations: [Fixtures.reminder([7], mode: mode)])
            let t = try CompiledModel(s).run().tallies[1]
            let ends: [Counter] = [.cancelled, .delivered, .foreground, .suppressed, .censored]
            XCTAssertEqual(t[.scheduled], ends.map { t[$0] }.reduce(0, +), "\(mode)")
            XCTAssertGreaterThan(t[.delivered], t[.scheduled] / 2, "\(mode): the fires at the open are deliveries")
        }
    }

    func testAtMost128RemindersPerConfiguration() {
        var s = smallDefault(users: 10)
        s.configurations = [ConfigurationSpec(label: "many", reminders: (0..<129).map {
            ReminderSpec(messages: ["m"], timePeriods: [1], appDomain: "d\($0)")
        })]
        XCTAssertTrue(s.semanticIssues().contains(ScenarioIssue(
            path: "configurations[0].reminders", reason: "at most 128 reminders per configuration, got 129")))
    }

    /// Reminders past the 64th fire as the first ones do: 100 identical reminders that change nothing
    /// deliver exactly 100 times what one delivers.
    func testRemindersBeyondSixtyFourFire() throws {
        let one = Fixtures.reminder([1], label: "one")
        let hundred = ConfigurationSpec(label: "hundred", reminders: (0..<100).map {
            ReminderSpec(messages: ["m"], timePeriods: [1], appDomain: "d\($0)")
        })
        let s = Fixtures.scenario(users: 200, days: 30, population: Fixtures.population(.exponential(mean: 2, unit: .days)),
                                  configurations: [one, hundred])
        let t = try CompiledModel(s).run().tallies
        XCTAssertGreaterThan(t[1][.delivered], 100)
        for c: Counter in [.scheduled, .delivered, .cancelled, .censored, .foreground] {
            XCTAssertEqual(t[2][c], 100 * t[1][c], "\(c)")
        }
    }

    func testAtMostSixtyFourCronRulesPerConfiguration() {
        var s = smallDefault(users: 10)
        s.configurations = [ConfigurationSpec(label: "rules", reminders: [], cronRules: Array(repeating: "1 *", count: 65))]
        XCTAssertTrue(s.semanticIssues().contains(ScenarioIssue(
            path: "configurations[0].cronRules", reason: "at most 64 cron rules per configuration, got 65")))
        s.configurations = [ConfigurationSpec(label: "rules", reminders: [], cronRules: Array(repeating: "1 *", count: 64))]
        XCTAssertFalse(s.semanticIssues().contains { $0.path.hasPrefix("configurations[0]") })
    }
}

/// Checks a run's holdout counts against the holdout simulated on its own, user by user, and that
/// between a tenth and nine tenths of the users had no open brought by a notification under the
/// first configuration (so both ways of taking the holdout from a configuration are exercised).
func assertHoldoutAsSimulated(_ model: CompiledModel, file: StaticString = #filePath, line: UInt = #line) {
    let users = model.scenario.users
    let run = model.run(options: RunOptions(threads: 2, chunkSize: 97))
    var simulated = Tally(layout: model.layout(0))
    var scratch = TimelineScratch()
    var observer = NoTimelineObserver()
    var unanswered = 0
    for user in 0..<users {
        let traits = model.traits(user: user)
        var scrap = Tally(layout: model.layout(1))
        let first = scrap.counts.withUnsafeMutableBufferPointer {
            model.simulate(user: user, traits: traits, configuration: model.configurations[1], layout: model.layout(1),
                           counts: $0.baseAddress!, scratch: &scratch, observer: &observer)
        }
        if first.hasHoldoutSessions { unanswered += 1 }
        _ = simulated.counts.withUnsafeMutableBufferPointer {
            model.simulate(user: user, traits: traits, configuration: model.configurations[0], layout: model.layout(0),
                           counts: $0.baseAddress!, scratch: &scratch, observer: &observer)
        }
    }
    XCTAssertGreaterThan(unanswered, users / 10, file: file, line: line)
    XCTAssertLessThan(unanswered, users * 9 / 10, file: file, line: line)
    let holdout = run.tallies[0]
    for counter: Counter in [.users, .opens, .organicOpens, .responseOpens, .launches, .attributed, .scheduled] {
        XCTAssertEqual(holdout[counter], simulated[counter], "\(counter)", file: file, line: line)
    }
    let days = model.scenario.horizonDays
    XCTAssertEqual((0..<days).map { holdout.daily($0) }, (0..<days).map { simulated.daily($0) }, file: file, line: line)
}
