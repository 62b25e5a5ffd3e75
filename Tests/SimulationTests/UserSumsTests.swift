import Foundation
import ReminderEngine
import Simulation
import ReminderSimTestSupport
import XCTest

/// The sums over users behind clustered intervals, paired comparisons and segments.
final class UserSumsTests: XCTestCase {
    /// Σx/Σy = 4/6 over users (x, y) = (1, 2), (0, 1), (3, 3): residuals xᵢ − R·yᵢ are −1/3, −2/3, 1,
    /// Σ residual² = 14/9, so Var(R) = 3/2 · (14/9) / 6² and se = √(7/108).
    func testClusteredIntervalOfASmallCaseByHand() throws {
        let sums = RatioSums(users: 3, x: 4, y: 6, xx: 1 + 0 + 9, yy: 4 + 1 + 9, xy: 2 + 0 + 9)
        let ci = try XCTUnwrap(sums.interval(bounds: -10...10))
        let se = (7.0 / 108).squareRoot()
        XCTAssertEqual(ci.low, 4.0 / 6 - z95 * se, accuracy: 1e-12)
        XCTAssertEqual(ci.high, 4.0 / 6 + z95 * se, accuracy: 1e-12)
        // Proportional totals (x = R·y for every user) leave no spread at all.
        let exact = try XCTUnwrap(RatioSums(users: 2, x: 3, y: 6, xx: 1 + 4, yy: 4 + 16, xy: 4 + 8).interval())
        XCTAssertEqual(exact.low, 0.5, accuracy: 1e-12)
        XCTAssertEqual(exact.high, 0.5, accuracy: 1e-12)
        XCTAssertNil(RatioSums(users: 5, x: 0, y: 0, xx: 0, yy: 0, xy: 0).interval())
    }

    func scenario(users: Int = 400) -> Scenario {
        var s = Scenario.builtInDefault
        s.users = users
        s.horizonDays = 40
        s.response.messageWeights = [:]
        s.configurations = [
            ConfigurationSpec(label: "1d", reminders: [ReminderSpec(messages: ["A", "B"], timePeriods: [1])]),
            ConfigurationSpec(label: "3/7d", reminders: [ReminderSpec(messages: ["A", "B", "C"], timePeriods: [3, 7])]),
            ConfigurationSpec(label: "2d+5d", reminders: [ReminderSpec(messages: ["A"], timePeriods: [2]),
                                                          ReminderSpec(messages: ["B"], timePeriods: [5], appDomain: "other")]),
        ]
        return s
    }

    /// Every sum recomputed user by user from the timeline alone, against the runner's.
    func testSumsEqualABruteForceOverUsers() throws {
        let s = scenario(users: 150)
        let model = try CompiledModel(s)
        let run = model.run(options: RunOptions(threads: 2, chunkSize: 37))
        let sums = try XCTUnwrap(run.sums)
        let k = model.configurations.count
        var scratch = TimelineScratch()
        var observer = NoTimelineObserver()
        var trig = Array(repeating: [Int64](repeating: 0, count: 5), count: k)
        var pairOpens = [Int64](repeating: 0, count: 2), pairOptOut = [Int64](repeating: 0, count: 2)
        var segmentUsers = [Int64](repeating: 0, count: s.population.segments.count)
        for user in 0..<s.users {
            let traits = model.traits(user: user)
            segmentUsers[traits.segment] += 1
            var opens: [Int64] = [], optOut: [Bool] = []
            for i in 0..<k {
                var t = Tally(layout: model.layout(i))
                let o = t.counts.withUnsafeMutableBufferPointer {
                    model.simulate(user: user, traits: traits, configuration: model.configurations[i], layout: model.layout(i),
                                   counts: $0.baseAddress!, scratch: &scratch, observer: &observer)
                }
                let x = t[.delivered] + t[.foreground] + t[.suppressed], y = t[.scheduled] - t[.censored]
                for (j, v) in [x, y, x * x, y * y, x * y].enumerated() { trig[i][j] += v }
                opens.append(o.opens)
                optOut.append(t[.optOuts] > 0)
            }
            // Pair (1, 3): configuration 1 minus configuration 3.
            let d = opens[1] - opens[3]
            pairOpens[0] += d
            pairOpens[1] += d * d
            if optOut[1] && !optOut[3] { pairOptOut[0] += 1 }
            if optOut[3] && !optOut[1] { pairOptOut[1] += 1 }
        }
        for i in 0..<k {
            let r = sums.ratio(i, .trigger, users: Int64(s.users))
            XCTAssertEqual([r.x, r.y, r.xx, r.yy, r.xy], trig[i], "configuration \(i)")
            XCTAssertEqual(r.x, run.tallies[i][.delivered] + run.tallies[i][.foreground] + run.tallies[i][.suppressed])
        }
        XCTAssertEqual(sums.pair(1, 3, .opensDiff), pairOpens[0])
        XCTAssertEqual(sums.pair(1, 3, .opensDiffSquares), pairOpens[1])
        XCTAssertEqual(sums.pair(1, 3, .optOutOnlyA), pairOptOut[0])
        XCTAssertEqual(sums.pair(1, 3, .optOutOnlyB), pairOptOut[1])
        XCTAssertEqual((0..<segmentUsers.count).map { sums.segment(2, $0, .users) }, segmentUsers)
    }

    /// What the results derive from the sums agrees with what the tallies say on their own.
    func testDerivedMeasuresAgreeWithTheTallies() throws {
        let s = scenario()
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let k = results.all.count
        XCTAssertEqual(results.pairwise.count, k * (k - 1) * PairMeasure.allCases.count)
        for c in results.configurations {
            // Against the holdout, the pair is the lift the tally keeps.
            let vsHoldout = try XCTUnwrap(results.comparison(c.index, against: 0, .opensPerUser)?.difference)
            let lift = try XCTUnwrap(c.metrics.opensLiftPerUser)
            XCTAssertEqual(vsHoldout.value, lift.value, accuracy: 1e-12)
            XCTAssertEqual(vsHoldout.high, lift.high, accuracy: 1e-12)
            XCTAssertEqual(try XCTUnwrap(results.comparison(c.index, against: 0, .retentionD7)?.difference).value,
                           try XCTUnwrap(c.metrics.liftD7).value, accuracy: 1e-12)
            // Per-slot numerators add up to the configuration's.
            let slotTriggered = c.messages.reduce(Int64(0)) { $0 + ($1.triggerRate.clustered?.x ?? -1) }
            XCTAssertEqual(slotTriggered, c.metrics.triggered)
            // Segments partition the users and the opens.
            let segs = results.segments.filter { $0.configuration == c.index }
            XCTAssertEqual(segs.reduce(0) { $0 + $1.users }, c.metrics.users)
            XCTAssertEqual(segs.reduce(0) { $0 + $1.opens }, c.metrics.opens)
            XCTAssertEqual(segs.reduce(0) { $0 + $1.optOutRate.count }, c.metrics.optOuts)
        }
        // a − b is −(b − a), interval mirrored.
        for a in 0..<k {
            for b in 0..<k where a != b {
                for m in PairMeasure.allCases {
                    let x = try XCTUnwrap(results.comparison(a, against: b, m)?.difference)
                    let y = try XCTUnwrap(results.comparison(b, against: a, m)?.difference)
                    XCTAssertEqual(x.value, -y.value, accuracy: 1e-12)
                    XCTAssertEqual(x.high, -y.low, accuracy: 1e-12)
                    XCTAssertEqual(results.comparison(a, against: b, m)?.configuration, a)
                    XCTAssertEqual(results.comparison(a, against: b, m)?.reference, b)
                }
            }
        }
    }

    func testSumsDoNotDependOnThreadsOrShards() throws {
        let model = try CompiledModel(scenario(users: 300))
        let one = model.run(options: RunOptions(threads: 1))
        let two = model.run(options: RunOptions(threads: 2, chunkSize: 17))
        XCTAssertEqual(one.sums, two.sums)
        var merged = model.run(options: RunOptions(threads: 1, users: 0..<111))
        merged.merge(model.run(options: RunOptions(threads: 2, users: 111..<300)))
        XCTAssertEqual(merged.sums, one.sums)
        XCTAssertNotNil(one.sums)
    }

    /// A lift that no notification can reach is zero by construction and flagged; a period of k days is flagged at day k.
    func testLiftNotes() throws {
        let s = scenario()
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        let long = ConfigurationSpec(label: "x", reminders: [ReminderSpec(messages: ["A"], timePeriods: [8])])
        XCTAssertEqual(long.liftNote(day: 7), .zeroByConstruction(shortestDelaySeconds: 8 * 86_400))
        XCTAssertNil(long.liftNote(day: 30))
        // 3/7d as documented: the 7-day period is used once the 3-day notification has fired, on day 3
        // or later, so its notification fires on day 10 at the earliest.
        XCTAssertNil(results.configurations[1].spec.liftNote(day: 7), "3/7d")
        XCTAssertNil(results.configurations[0].spec.liftNote(day: 7))
        // As released, with the app setting the reminder up before the first open, that open moves the
        // period on: the first notification is already the 7-day one. With the README's wiring the first
        // open's check runs unconfigured and keeps the first period.
        var released = results.configurations[1].spec
        (released.mode, released.wiring) = (.original, .early)
        XCTAssertEqual(released.installDayPeriods(reminder: 0), [1])
        XCTAssertEqual(released.liftNote(day: 7), .periodEqualsDay(.first))
        released.wiring = .readme
        XCTAssertEqual(released.installDayPeriods(reminder: 0), [0])
        XCTAssertNil(released.liftNote(day: 7))
        XCTAssertEqual(released.liftNote(day: 3), .periodEqualsDay(.first))
        // ACPReminder 1.0.0 uses 1 day at period index 0 whatever the first period says.
        released.mode = .original100
        XCTAssertEqual(released.liftNote(day: 1), .periodEqualsDay(.first))
        XCTAssertNil(released.liftNote(day: 3))
        // A first period shorter than a day fires on the install day; a user back at once is scheduled
        // the second period there, which then fires on day 7 itself.
        let chain = ConfigurationSpec(label: "c", reminders: [ReminderSpec(messages: ["A"], timePeriods: [12, 168], unit: .hours)])
        XCTAssertEqual(chain.installDayPeriods(reminder: 0), [0, 1])
        XCTAssertEqual(chain.liftNote(day: 7), .periodEqualsDay(.later(2)))
        // Under the README wiring a return 12 hours later is a cold launch, whose check keeps the period:
        // the second is never reached that day, unless such a return can still be a warm resume.
        var readme = chain
        (readme.mode, readme.wiring) = (.original, .readme)
        XCTAssertEqual(readme.installDayPeriods(reminder: 0), [0])
        XCTAssertNil(readme.liftNote(day: 7))
        XCTAssertEqual(readme.installDayPeriods(reminder: 0, warmWithin: 13 * 3_600), [0, 1])
        XCTAssertEqual(readme.liftNote(day: 7, warmWithin: 13 * 3_600), .periodEqualsDay(.later(2)))
        // The periods a reminder can use at all: from the first close's on (every one when they wrap).
        var early = results.configurations[1].spec
        (early.mode, early.wiring) = (.original, .early)
        XCTAssertEqual(early.usablePeriods(reminder: 0), [1])
        XCTAssertEqual(early.delaysUsedSeconds, [7 * 86_400])
        early.reminders[0].timePeriods = [7, 10]
        XCTAssertEqual(early.liftNote(day: 7), .zeroByConstruction(shortestDelaySeconds: 10 * 86_400),
                       "as released and wired early, [7, 10] waits 10 days every time")
        early.reminders[0].circularTimePeriod = true
        XCTAssertEqual(early.usablePeriods(reminder: 0), [0, 1])
        XCTAssertNotEqual(early.liftNote(day: 7), .zeroByConstruction(shortestDelaySeconds: 10 * 86_400))
        let long2 = ConfigurationSpec(label: "d", reminders: [ReminderSpec(messages: ["A"], timePeriods: [24, 144], unit: .hours)])
        XCTAssertEqual(long2.installDayPeriods(reminder: 0), [0], "the first fires a day after the install: no longer day 0")
        XCTAssertNil(long2.liftNote(day: 6))
        // A circular reminder's chain stops where it comes round.
        let round = ConfigurationSpec(label: "r", reminders: [ReminderSpec(messages: ["A"], timePeriods: [1, 2], unit: .hours,
                                                                            circularTimePeriod: true)])
        XCTAssertEqual(round.installDayPeriods(reminder: 0), [0, 1])
        let hours = ConfigurationSpec(label: "h", reminders: [ReminderSpec(messages: ["A"], timePeriods: [168], unit: .hours)])
        XCTAssertEqual(hours.liftNote(day: 7), .periodEqualsDay(.first))
        let steps = ConfigurationSpec(label: "s", sequence: SequenceSpec(afterDays: [1, 3, 7], messages: ["A"]))
        XCTAssertEqual(steps.liftNote(day: 7), .periodEqualsDay(.step(3)))
        XCTAssertEqual(steps.liftNote(day: 3), .periodEqualsDay(.step(2)))
        // A first period of 7 days is named before a later one of another reminder.
        let both = ConfigurationSpec(label: "b", reminders: [ReminderSpec(messages: ["A"], timePeriods: [12, 168], unit: .hours),
                                                             ReminderSpec(messages: ["B"], timePeriods: [7], appDomain: "other")])
        XCTAssertEqual(both.liftNote(day: 7), .periodEqualsDay(.first))
        XCTAssertEqual((11...13).map(NotificationPlace.ordinal) + [1, 2, 3, 4, 21, 22, 111].map(NotificationPlace.ordinal),
                       ["11th", "12th", "13th", "1st", "2nd", "3rd", "4th", "21st", "22nd", "111th"])
    }
}
