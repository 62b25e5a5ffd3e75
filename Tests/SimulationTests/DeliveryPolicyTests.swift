import Foundation
import Simulation
import XCTest

/// Delivery policies layered around the engines: local-time arithmetic, caps, and how they are read.
final class DeliveryPolicyTests: XCTestCase {
    let hour = 3_600.0, day = 86_400.0

    func span(_ a: String, _ b: String) -> LocalTimeSpan {
        LocalTimeSpan(startMinute: LocalTimeSpan.minute(a)!, endMinute: LocalTimeSpan.minute(b)!)
    }

    func testClockTimesAreReadStrictly() {
        XCTAssertEqual(LocalTimeSpan.minute("18:00"), 1_080)
        XCTAssertEqual(LocalTimeSpan.minute("00:00"), 0)
        XCTAssertEqual(LocalTimeSpan.minute("23:59"), 1_439)
        for bad in ["24:00", "7:00", "07:60", "07-00", "", "ab:cd", "07:00:00", "+1:00"] {
            XCTAssertNil(LocalTimeSpan.minute(bad), bad)
        }
    }

    func testSpansWrapPastMidnight() {
        let night = span("22:00", "07:00")
        XCTAssertTrue(night.contains(localSeconds: 23.5 * hour))
        XCTAssertTrue(night.contains(localSeconds: 3 * day + 6.99 * hour))
        XCTAssertFalse(night.contains(localSeconds: 7 * hour))
        XCTAssertFalse(night.contains(localSeconds: 21.99 * hour))
        XCTAssertTrue(night.contains(localSeconds: -1 * hour), "before the origin: 23:00 the day before")
    }

    func testAWindowMovesAFireTimeToItsNextStart() {
        let evening = DeliveryPolicy(sendWindow: .span(span("18:00", "21:00")))
        let morning = evening.fireTime(for: 3 * day + 10 * hour, utcOffsetSeconds: 0, usualMinute: nil)
        XCTAssertEqual(morning, .init(time: 3 * day + 18 * hour, shifted: true, deferred: false))
        let inside = evening.fireTime(for: 3 * day + 19 * hour, utcOffsetSeconds: 0, usualMinute: nil)
        XCTAssertEqual(inside, .init(time: 3 * day + 19 * hour, shifted: false, deferred: false))
        let late = evening.fireTime(for: 3 * day + 21.5 * hour, utcOffsetSeconds: 0, usualMinute: nil)
        XCTAssertEqual(late.time, 4 * day + 18 * hour)
    }

    func testQuietHoursDeferToTheirEndInTheUsersTime() {
        let quiet = DeliveryPolicy(quietHours: span("22:00", "07:00"))
        // 20:30 UTC is 22:30 for a user at UTC+2: deferred to 07:00 local, 05:00 UTC the next day.
        let moved = quiet.fireTime(for: 5 * day + 20.5 * hour, utcOffsetSeconds: 2 * hour, usualMinute: nil)
        XCTAssertEqual(moved, .init(time: 6 * day + 5 * hour, shifted: false, deferred: true))
        XCTAssertEqual(quiet.fireTime(for: 3 * hour, utcOffsetSeconds: 0, usualMinute: nil).time, 7 * hour)
        XCTAssertFalse(quiet.fireTime(for: 8 * hour, utcOffsetSeconds: 0, usualMinute: nil).deferred)
        // Half-hour offsets: 01:00 UTC is 06:30 at UTC+5:30, deferred by half an hour.
        XCTAssertEqual(quiet.fireTime(for: 1 * hour, utcOffsetSeconds: 5.5 * hour, usualMinute: nil).time, 1.5 * hour)
    }

    func testTheUsualHourIsTheHourOfTheLastOrganicOpen() {
        let usual = DeliveryPolicy(sendWindow: .usualHour)
        let moved = usual.fireTime(for: 2 * day + 8 * hour, utcOffsetSeconds: 0, usualMinute: 19 * 60 + 40)
        XCTAssertEqual(moved, .init(time: 2 * day + 19 * hour, shifted: true, deferred: false))
        XCTAssertEqual(usual.fireTime(for: 8 * hour, utcOffsetSeconds: 0, usualMinute: nil).time, 8 * hour,
                       "no organic open yet: nothing to follow")
        XCTAssertEqual(usual.fireTime(for: 23.5 * hour, utcOffsetSeconds: 0, usualMinute: 23 * 60).time, 23.5 * hour)
    }

    func testQuietHoursWinOverAWindow() {
        let both = DeliveryPolicy(quietHours: span("22:00", "07:00"), sendWindow: .span(span("21:00", "23:30")))
        XCTAssertEqual(both.fireTime(for: 21.5 * hour, utcOffsetSeconds: 0, usualMinute: nil).time, 21.5 * hour)
        let late = both.fireTime(for: 22.25 * hour, utcOffsetSeconds: 0, usualMinute: nil)
        XCTAssertEqual(late, .init(time: day + 7 * hour, shifted: false, deferred: true))
    }

    func testACapCountsDeliveriesInARollingWindow() {
        let cap = DeliveryPolicy.FrequencyCap(max: 2, perDays: 7)
        var log = DeliveryLog(capacity: cap.max)
        XCTAssertTrue(log.allows(0, cap: cap))
        log.record(0)
        XCTAssertTrue(log.allows(day, cap: cap))
        log.record(day)
        XCTAssertFalse(log.allows(3 * day, cap: cap))
        XCTAssertFalse(log.allows(7 * day - 1, cap: cap))
        XCTAssertTrue(log.allows(7 * day, cap: cap), "the first delivery has left the window")
        log.record(7 * day)
        XCTAssertFalse(log.allows(7.5 * day, cap: cap))
        XCTAssertTrue(log.allows(8 * day, cap: cap))
        log.reset()
        XCTAssertTrue(log.allows(8 * day, cap: cap))

        let one = DeliveryPolicy.FrequencyCap(max: 1, perDays: 2)
        var single = DeliveryLog(capacity: 1)
        single.record(10 * day)
        XCTAssertFalse(single.allows(11.9 * day, cap: one))
        XCTAssertTrue(single.allows(12 * day, cap: one))
    }

    // MARK: scenario fields

    func decode(_ delivery: String) throws -> ConfigurationSpec {
        let s = try Scenario.decode("""
            {"name": "s", "population": {"segments": [{"name": "a", "returns": {"distribution": "exponential", "mean": 2}}]},
             "configurations": [{"label": "c", "reminders": [{"messages": ["m"], "timePeriods": [1]}], "delivery": \(delivery)}]}
            """)
        return s.configurations[0]
    }

    func issues(_ delivery: String) -> [String] {
        do {
            _ = try decode(delivery)
            return []
        } catch let error as ScenarioError {
            return error.issues.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    func testPoliciesAreReadAndWrittenBack() throws {
        let c = try decode("""
            {"quietHours": {"start": "22:00", "end": "07:00"}, "sendWindow": "usualHour",
             "frequencyCap": {"max": 2, "perDays": 7}}
            """)
        XCTAssertEqual(c.delivery, DeliveryPolicy(quietHours: span("22:00", "07:00"), sendWindow: .usualHour,
                                                  frequencyCap: .init(max: 2, perDays: 7)))
        var s = Scenario.builtInDefault
        s.response.messageWeights = [:]
        s.configurations = [c]
        XCTAssertEqual(try Scenario.decode(try s.canonicalJSON()).configurations[0].delivery, c.delivery)
        XCTAssertTrue(try decode("{}").delivery.isEmpty, "all off by default")
    }

    func testBadPoliciesAreRefusedWithTheirPath() {
        let p = "configurations[0].delivery"
        XCTAssertEqual(issues(#"{"quietHours": {"start": "25:00", "end": "07:00"}}"#),
                       ["\(p).quietHours.start: expected a local time HH:MM, 00:00 to 23:59, got \"25:00\""])
        XCTAssertEqual(issues(#"{"sendWindow": {"start": "18:00", "end": "18:00"}}"#),
                       ["\(p).sendWindow: start and end must differ (got 18:00 for both)"])
        XCTAssertEqual(issues(#"{"sendWindow": "evening"}"#).count, 1)
        XCTAssertEqual(issues(#"{"frequencyCap": {"max": 0, "perDays": 7}}"#).first?.hasPrefix("\(p).frequencyCap.max"), true)
        XCTAssertEqual(issues(#"{"frequencyCap": {"max": 2}}"#), ["\(p).frequencyCap.perDays: required field is missing"])
        XCTAssertEqual(issues(#"{"quietHour": {"start": "22:00", "end": "07:00"}}"#), ["\(p).quietHour: unknown field"])
    }
}
