import Foundation
import ReminderEngine
import Simulation
import XCTest

/// Delivery policies through the whole simulator, against counts made independently from the
/// engines' own schedule.
/// `LocalTimeSpan.covers`: every minute of one span inside another, the night's wrap past midnight included.
final class LocalTimeSpanCoverTests: XCTestCase {
    func testASpanCoversExactlyTheSpansWithinIt() {
        func span(_ a: Int, _ b: Int) -> LocalTimeSpan { LocalTimeSpan(startMinute: a * 60, endMinute: b * 60) }
        let day = span(9, 12), night = span(22, 7)
        XCTAssertTrue(day.covers(span(10, 11)))
        XCTAssertTrue(day.covers(span(9, 12)))
        XCTAssertFalse(day.covers(span(8, 11)), "starts before")
        XCTAssertFalse(day.covers(span(11, 13)), "ends after")
        XCTAssertTrue(night.covers(span(23, 2)), "both across midnight")
        XCTAssertTrue(night.covers(span(1, 6)))
        XCTAssertFalse(night.covers(span(6, 8)))
        XCTAssertFalse(day.covers(span(11, 10)), "the complement's wrap")
        XCTAssertTrue(LocalTimeSpan(startMinute: 0, endMinute: 1_439).covers(LocalTimeSpan(startMinute: 1_438, endMinute: 1_439)))
    }
}

final class DeliveryPolicyRunTests: XCTestCase {
    let hour = 3_600.0, day = 86_400.0

    func span(_ a: String, _ b: String) -> LocalTimeSpan {
        LocalTimeSpan(startMinute: LocalTimeSpan.minute(a)!, endMinute: LocalTimeSpan.minute(b)!)
    }

    /// Users in three time zones (one half-hour) whose returns do not depend on notifications: with no
    /// response and no opt-out, a policy changes when notifications fire and nothing else.
    func scenario(users: Int, _ configurations: [ConfigurationSpec]) -> Scenario {
        var population = Fixtures.population(.exponential(mean: 2, unit: .days))
        population.utcOffsets = [UTCOffsetShare(hours: 0, weight: 1), UTCOffsetShare(hours: 5.5, weight: 1),
                                 UTCOffsetShare(hours: -8, weight: 1)]
        return Fixtures.scenario(users: users, days: 60, population: population, configurations: configurations)
    }

    func configuration(_ label: String, periodHours: Int, _ policy: DeliveryPolicy) -> ConfigurationSpec {
        var c = Fixtures.reminder([periodHours], unit: .hours, label: label)
        c.delivery = policy
        return c
    }

    func localHour(_ t: Double, _ traits: UserTraits) -> Int {
        let local = (t + traits.utcOffsetSeconds).truncatingRemainder(dividingBy: day)
        return Int(((local < 0 ? local + day : local) / hour).rounded(.down))
    }

    func testDeferralMovesExactlyTheFireTimesInQuietHoursAndNoDeliveryLandsInThem() throws {
        let quiet = span("22:00", "07:00")
        let s = scenario(users: 1_500, [
            configuration("plain", periodHours: 13, DeliveryPolicy()),
            configuration("deferred", periodHours: 13, DeliveryPolicy(quietHours: quiet)),
        ])
        let model = try CompiledModel(s)
        // The engine's own fire times, from the plain configuration's timelines.
        var inQuietHours: Int64 = 0
        for user in 0..<s.users {
            let trace = model.trace(user: user, configuration: 1)
            for case let .scheduled(_, n, _) in trace.events {
                let h = localHour(n.fireTime, trace.traits)
                if h >= 22 || h < 7 { inQuietHours += 1 }
            }
        }
        let results = RunResults(scenario: s, tallies: model.run(options: RunOptions(threads: 2)))
        let plain = results.configurations[0], deferred = results.configurations[1]
        XCTAssertGreaterThan(inQuietHours, 1_000)
        XCTAssertEqual(deferred.metrics.deferred, inQuietHours, "deferred = engine fire times inside quiet hours")
        XCTAssertEqual(deferred.metrics.scheduled, plain.metrics.scheduled, "the same notifications are scheduled")
        XCTAssertEqual(plain.metrics.deferred, 0)
        for h in [22, 23, 0, 1, 2, 3, 4, 5, 6] {
            XCTAssertEqual(deferred.hours[h].delivered, 0, "a delivery at local hour \(h)")
            XCTAssertGreaterThan(plain.hours[h].delivered, 0, "without the policy some land at \(h)")
        }
        XCTAssertGreaterThan(deferred.hours[7].delivered, plain.hours[7].delivered, "deferred ones land at 07:00")
    }

    func testAWindowDeliversInsideItOnly() throws {
        let s = scenario(users: 1_000, [
            configuration("evening", periodHours: 20, DeliveryPolicy(sendWindow: .span(span("18:00", "21:00")))),
        ])
        let c = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2))).configurations[0]
        XCTAssertGreaterThan(c.metrics.shifted, 0)
        XCTAssertGreaterThan(c.metrics.delivered, 1_000)
        for h in 0..<24 where !(18..<21).contains(h) { XCTAssertEqual(c.hours[h].delivered, 0, "hour \(h)") }
    }

    /// A cap of one delivery per W days with a period shorter than W: no two deliveries to a user are
    /// closer than W, and every scheduled notification still has exactly one outcome.
    func testACapKeepsDeliveriesApartAndOutcomesAddUp() throws {
        let cap = DeliveryPolicy.FrequencyCap(max: 1, perDays: 3)
        let s = scenario(users: 800, [configuration("capped", periodHours: 24, DeliveryPolicy(frequencyCap: cap))])
        let model = try CompiledModel(s)
        var closest = Double.infinity
        var cappedSeen: Int64 = 0
        for user in 0..<s.users {
            var last = -Double.infinity
            for event in model.trace(user: user, configuration: 1).events {
                switch event {
                case let .ended(_, n, .delivered):
                    closest = min(closest, n.fireTime - last)
                    last = n.fireTime
                case .capped:
                    cappedSeen += 1
                default:
                    break
                }
            }
        }
        XCTAssertGreaterThanOrEqual(closest, cap.perDays * day)
        let m = RunResults(scenario: s, tallies: model.run(options: RunOptions(threads: 2))).configurations[0].metrics
        XCTAssertEqual(m.capped, cappedSeen)
        XCTAssertGreaterThan(m.capped, 100, "the cap must bite for the test to mean anything")
        XCTAssertEqual(m.cancelled + m.delivered + m.foreground + m.suppressed + m.censored + m.capped, m.scheduled)
        XCTAssertEqual(m.triggerRate.count, m.delivered + m.foreground + m.suppressed, "capped is not triggered")
    }

    /// The user's usual hour is the local hour of their last organic open.
    func testTheUsualHourFollowsTheLastOrganicOpen() throws {
        let s = scenario(users: 300, [configuration("usual", periodHours: 30, DeliveryPolicy(sendWindow: .usualHour))])
        let model = try CompiledModel(s)
        var checked = 0
        for user in 0..<s.users {
            let trace = model.trace(user: user, configuration: 1)
            var lastOrganicHour: Int?
            for event in trace.events {
                switch event {
                case let .open(at, cause, _) where cause != .notification:
                    lastOrganicHour = localHour(at, trace.traits)
                case let .ended(_, n, .delivered):
                    XCTAssertEqual(localHour(n.fireTime, trace.traits), lastOrganicHour)
                    checked += 1
                default:
                    break
                }
            }
        }
        XCTAssertGreaterThan(checked, 500)
    }
}
