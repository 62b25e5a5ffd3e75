import Foundation
import ReminderEngine
import Simulation
import XCTest

/// The platform rules through the whole simulator: permission, iOS's pending limit, Android's
/// alarms, each against counts made apart from the run or against an exact identity.
final class PlatformTests: XCTestCase {
    /// Users returning about every two days, a reminder every day: many notifications fire.
    func scenario(users: Int, platforms: [PlatformSpec]?, response: ResponseModel = Fixtures.inert,
                  configurations: [ConfigurationSpec] = [Fixtures.reminder([1], label: "daily")]) -> Scenario {
        var population = Fixtures.population(.exponential(mean: 2, unit: .days))
        population.platforms = platforms
        return Fixtures.scenario(users: users, days: 60, population: population, response: response,
                                 configurations: configurations)
    }

    func run(_ s: Scenario, threads: Int = 2) throws -> RunResults {
        RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: threads)))
    }

    /// With common random numbers, the users who allow notifications at share 0.5 are exactly those
    /// whose answer draw is below 0.5; at share 1 everybody does. So the deliveries at 0.5 are, exactly,
    /// the deliveries at 1 of the users whose draw is below 0.5, and about half of them.
    func testHalfTheUsersGrantingHalvesDeliveriesExactlyOnCommonRandomNumbers() throws {
        let users = 2_000
        let all = scenario(users: users, platforms: [PlatformSpec(platform: .ios, permission: PermissionSpec(granted: 1))],
                           response: ResponseModel(baseResponse: 0.2, fatigue: 0.9, quietHours: nil, optOutPerDelivery: 0.01))
        var half = all
        half.population.platforms = [PlatformSpec(platform: .ios, permission: PermissionSpec(granted: 0.5))]
        let modelAll = try CompiledModel(all), modelHalf = try CompiledModel(half)
        var expected: Int64 = 0, granting = 0
        for user in 0..<users where modelHalf.traits(user: user).platform.grants {
            granting += 1
            expected += modelAll.trace(user: user, configuration: 1).tally[.delivered]
        }
        let resultAll = try run(all), resultHalf = try run(half)
        let deliveredAll = resultAll.configurations[0].metrics.delivered
        let deliveredHalf = resultHalf.configurations[0].metrics.delivered
        XCTAssertEqual(deliveredHalf, expected, "deliveries at 0.5 = deliveries at 1 of the users who allow them")
        XCTAssertEqual(resultHalf.configurations[0].metrics.permissionGranted, Int64(granting))
        XCTAssertEqual(resultHalf.configurations[0].metrics.permissionAsked, Int64(users))
        // Those who refuse: everything that fires for them is suppressed for want of permission.
        let m = resultHalf.configurations[0].metrics
        XCTAssertGreaterThan(m.noPermission, 0)
        XCTAssertLessThanOrEqual(m.noPermission, m.suppressed)
        // About half: granting users ~ Binomial(2000, 0.5), sd 22.4; five sd.
        XCTAssertEqual(Double(granting), Double(users) / 2, accuracy: 5 * (Double(users) * 0.25).squareRoot())
        XCTAssertGreaterThan(deliveredAll, deliveredHalf)
    }

    /// Asked by a rule: nothing is shown before the first cold launch that matches it, and the users
    /// asked are those who reach it.
    func testPermissionAskedByARuleFindsNoPermissionBeforeTheRuleMatches() throws {
        var s = scenario(users: 400, platforms: [
            PlatformSpec(platform: .android, permission: PermissionSpec(granted: 1, ask: .rule("1 3")), alarms: AlarmSpec(exact: true)),
        ])
        // Some users leave before a third active day.
        s.population.segments[0].dropoutPerSession = 0.3
        let model = try CompiledModel(s)
        var asked: Int64 = 0
        for user in 0..<s.users {
            let trace = model.trace(user: user, configuration: 1)
            var askedAt = Double.infinity
            for event in trace.events {
                switch event {
                case let .permissionAsked(at, granted):
                    XCTAssertTrue(granted)
                    askedAt = at
                    asked += 1
                case let .ended(_, n, .delivered):
                    XCTAssertGreaterThanOrEqual(n.fireTime, askedAt, "user \(user): delivered before the prompt")
                case let .unpermitted(_, n):
                    XCTAssertLessThan(n.fireTime, askedAt, "user \(user): refused after the prompt")
                default: break
                }
            }
        }
        let m = try run(s).configurations[0].metrics
        XCTAssertEqual(m.permissionAsked, asked)
        XCTAssertGreaterThan(asked, 100)
        XCTAssertLessThan(asked, Int64(s.users), "users who never reach a third active day are never asked")
        XCTAssertGreaterThan(m.noPermission, 0)
    }

    /// iOS provisional authorisation: users who refuse still get notifications, quietly, answered
    /// with the response chance times the factor: a factor of 0 answers none of them.
    func testProvisionalDeliversQuietly() throws {
        let response = ResponseModel(baseResponse: 0.3, fatigue: 1, quietHours: nil, optOutPerDelivery: 0)
        // A factor of 0 is provisional authorisation too: delivered quietly, never answered (not
        // "no provisional authorisation", which shows nothing).
        for factor in [0, 1e-9] {
            let quiet = scenario(users: 600, platforms: [
                PlatformSpec(platform: .ios, permission: PermissionSpec(granted: 0, provisional: factor)),
            ], response: response)
            let m = try run(quiet).configurations[0].metrics
            XCTAssertEqual(m.noPermission, 0, "provisional \(factor)")
            XCTAssertEqual(m.quietDelivered, m.delivered, "provisional \(factor)")
            XCTAssertGreaterThan(m.delivered, 1_000, "provisional \(factor)")
            XCTAssertEqual(m.responded, 0, "a response chance of 0.3 × \(factor) over \(m.delivered) deliveries")
        }
        let none = scenario(users: 600, platforms: [PlatformSpec(platform: .ios, permission: PermissionSpec(granted: 0))],
                            response: response)
        let m = try run(none).configurations[0].metrics
        XCTAssertEqual(m.delivered, 0, "without provisional authorisation nothing is shown before permission")
        XCTAssertGreaterThan(m.noPermission, 1_000)
    }

    /// A 100-step sequence on iOS: after every close at most 64 notifications are held, the soonest
    /// firing; the others are dropped, counted once each, and never delivered.
    func testAHundredStepSequenceNeverHasMoreThan64Pending() throws {
        let sequence = ConfigurationSpec(label: "100 steps", sequence: SequenceSpec(afterDays: Array(1...100), messages: ["m"]))
        var population = Fixtures.population(.exponential(mean: 20, unit: .days))
        population.platforms = [PlatformSpec(platform: .ios)]
        let s = Fixtures.scenario(users: 60, days: 150, population: population, configurations: [sequence])
        let model = try CompiledModel(s)
        var dropped: Int64 = 0, closes = 0
        for user in 0..<s.users {
            var scheduled: [Int: Double] = [:], discarded: Set<Int> = []
            func check() {
                guard !scheduled.isEmpty else { return }
                closes += 1
                let kept = scheduled.filter { !discarded.contains($0.key) }
                XCTAssertLessThanOrEqual(kept.count, 64, "user \(user)")
                XCTAssertEqual(kept.count, min(64, scheduled.count))
                if let latestKept = kept.values.max(), let soonestDropped = scheduled.filter({ discarded.contains($0.key) }).values.min() {
                    XCTAssertLessThanOrEqual(latestKept, soonestDropped, "the soonest-firing are kept")
                }
            }
            for event in model.trace(user: user, configuration: 1).events {
                switch event {
                case .close:
                    check()
                    (scheduled, discarded) = ([:], [])
                case let .scheduled(r, n, _): scheduled[r] = n.fireTime
                case let .dropped(r, _):
                    discarded.insert(r)
                    dropped += 1
                default: break
                }
            }
            check()
        }
        XCTAssertGreaterThan(closes, 100)
        let m = try run(s).configurations[0].metrics
        XCTAssertEqual(m.dropped, dropped, "each dropped notification is counted once, when it ends")
        XCTAssertEqual(m.scheduled, m.cancelled + m.delivered + m.foreground + m.suppressed + m.censored + m.dropped,
                       "outcomes add up to those scheduled")
        // Without the limit nothing is dropped and more fire.
        var unlimited = s
        unlimited.population.platforms = [PlatformSpec(platform: .ios, pendingLimit: 1_000)]
        let u = try run(unlimited).configurations[0].metrics
        XCTAssertEqual(u.dropped, 0)
        XCTAssertGreaterThan(u.delivered, m.delivered)
    }

    /// Android's inexact alarms: each fires uniformly within the window after its time (mean half
    /// the window, within sampling error), and an idle device's at the next maintenance window.
    func testInexactAlarmsFireInTheirWindowAndIdleDevicesAtMaintenanceWindows() throws {
        let s = scenario(users: 300, platforms: [
            PlatformSpec(platform: .android, alarms: AlarmSpec(windowMinutes: 10, idleShare: 0.25, maintenanceMinutes: 60)),
        ])
        let model = try CompiledModel(s)
        var delays: [Double] = [], idle = 0, all = 0
        for user in 0..<s.users {
            let trace = model.trace(user: user, configuration: 1)
            for case let .alarmDelayed(_, from, to, dozed) in trace.events {
                all += 1
                if dozed {
                    idle += 1
                    XCTAssertGreaterThanOrEqual(to, from)
                    // On the user's grid of maintenance windows.
                    let k = (to - trace.traits.platform.maintenancePhase) / 3_600
                    XCTAssertEqual(k, k.rounded(), accuracy: 1e-6)
                } else {
                    delays.append(to - from)
                    XCTAssertTrue((0...600).contains(to - from))
                }
            }
        }
        let n = Double(delays.count)
        let mean = delays.reduce(0, +) / n
        // Uniform on [0, 600]: sd 600/√12; five standard errors.
        XCTAssertEqual(mean, 300, accuracy: 5 * 600 / 12.0.squareRoot() / n.squareRoot())
        XCTAssertEqual(Double(idle) / Double(all), 0.25, accuracy: 5 * (0.25 * 0.75 / Double(all)).squareRoot())
        let m = try run(s).configurations[0].metrics
        XCTAssertEqual(m.dozed, Int64(idle))
    }

    /// Platforms without rules that matter to the configurations shift no draw: the same tallies as
    /// the same population without platforms, for any thread count.
    func testPlatformsWithoutBindingRulesChangeNothing() throws {
        let plain = scenario(users: 1_500, platforms: nil,
                             response: ResponseModel(baseResponse: 0.2, fatigue: 0.9, quietHours: nil, optOutPerDelivery: 0.01))
        var named = plain
        named.population.platforms = [PlatformSpec(platform: .ios, weight: 2), PlatformSpec(platform: .android, alarms: AlarmSpec(exact: true))]
        let a = try CompiledModel(plain).run(options: RunOptions(threads: 1))
        let b = try CompiledModel(named).run(options: RunOptions(threads: 3))
        for i in a.tallies.indices { XCTAssertEqual(a.tallies[i].counts, b.tallies[i].counts, "configuration \(i)") }
        let results = RunResults(scenario: named, tallies: b)
        XCTAssertEqual(results.platforms.count, 2 * 2)
        let users = results.platforms.filter { $0.configuration == 1 }.map(\.users)
        XCTAssertEqual(users.reduce(0, +), Int64(plain.users), "every user is on one platform")
    }

    /// Results are the same for any thread count with every rule in force.
    func testPlatformRunsAreDeterministic() throws {
        let s = scenario(users: 900, platforms: [
            PlatformSpec(platform: .ios, permission: PermissionSpec(granted: 0.6, provisional: 0.3)),
            PlatformSpec(platform: .android, permission: PermissionSpec(granted: 0.7, ask: .rule("1 2")),
                         alarms: AlarmSpec(windowMinutes: 15, idleShare: 0.3, maintenanceMinutes: 90)),
        ], response: ResponseModel(baseResponse: 0.2, fatigue: 0.9, quietHours: nil, optOutPerDelivery: 0.01))
        let a = try CompiledModel(s).run(options: RunOptions(threads: 1))
        let b = try CompiledModel(s).run(options: RunOptions(threads: 4))
        XCTAssertEqual(a.tallies.map(\.counts), b.tallies.map(\.counts))
        XCTAssertEqual(a.sums?.counts, b.sums?.counts)
    }

    /// Segments may differ by platform: a platform that gives a segment no weight has none of its users.
    func testSegmentWeightsPerPlatform() throws {
        var s = scenario(users: 1_000, platforms: nil)
        s.population.segments.append(Segment(name: "second", returns: .exponential(mean: 5, unit: .days)))
        s.population.platforms = [
            PlatformSpec(platform: .ios, segmentWeights: ["only": 1]),
            PlatformSpec(platform: .android, segmentWeights: ["second": 1]),
        ]
        let model = try CompiledModel(s)
        for user in 0..<200 {
            let t = model.traits(user: user)
            XCTAssertEqual(t.segment, t.platform.platform, "user \(user)")
        }
    }
}
