import Foundation
import ReminderEngine
@testable import Simulation
import XCTest

/// Named time zones (daylight saving time) and the weekly and daily pattern of organic returns,
/// against the zone database's own dates, exact small cases and counts in the limit.
final class LocalTimeTests: XCTestCase {
    let hour = 3_600.0, day = 86_400.0
    /// 2026-01-05, the fixtures' start date, is a Monday.
    let start = CalendarDate(iso: "2026-01-05")!

    func span(_ a: String, _ b: String) -> LocalTimeSpan {
        LocalTimeSpan(startMinute: LocalTimeSpan.minute(a)!, endMinute: LocalTimeSpan.minute(b)!)
    }

    // MARK: Zones

    /// New York moves to UTC−4 on 8 March 2026 at 07:00 UTC (2:00 local) and back on 1 November at
    /// 06:00 UTC (the US rule: second Sunday of March, first Sunday of November).
    func testNewYorkChangesItsOffsetOnTheUSDates() {
        let zone = CompiledZone(name: "America/New_York", startDay: start.daysSinceEpoch, days: 365)
        let march = Double(CalendarDate(iso: "2026-03-08")!.daysSinceEpoch - start.daysSinceEpoch) * day + 7 * hour
        let november = Double(CalendarDate(iso: "2026-11-01")!.daysSinceEpoch - start.daysSinceEpoch) * day + 6 * hour
        XCTAssertEqual(zone.changes, [march, november])
        XCTAssertEqual(zone.offsets, [-5 * hour, -4 * hour, -5 * hour])
        XCTAssertEqual(zone.offset(at: march - 1), -5 * hour)
        XCTAssertEqual(zone.offset(at: march), -4 * hour)
        XCTAssertEqual(zone.offset(at: november), -5 * hour)
    }

    /// A zone without daylight saving time is its fixed offset: the same users, the same counts.
    func testAZoneWithoutChangesRunsAsItsFixedOffset() throws {
        func scenario(_ share: UTCOffsetShare) -> Scenario {
            var population = Fixtures.population(.exponential(mean: 2, unit: .days))
            population.utcOffsets = [share]
            var c = Fixtures.reminder([1, 3], label: "quiet")
            c.delivery = DeliveryPolicy(quietHours: span("22:00", "07:00"))
            return Fixtures.scenario(users: 800, days: 60, population: population,
                                     response: ResponseModel(baseResponse: 0.2, fatigue: 0.9, optOutPerDelivery: 0.01),
                                     configurations: [c, Fixtures.reminder([2], label: "plain", rules: [CronRuleSpec("1 1")])])
        }
        let fixed = try CompiledModel(scenario(UTCOffsetShare(hours: 5.5, weight: 1))).run(options: RunOptions(threads: 2))
        let named = try CompiledModel(scenario(UTCOffsetShare(zone: "Asia/Kolkata", weight: 1))).run(options: RunOptions(threads: 2))
        XCTAssertEqual(named, fixed)
    }

    /// Quiet hours 22:00–07:00 for users in New York: every deferred notification lands at 07:00 on
    /// the local clock, before the March change (07:00 is 12:00 UTC) and after it (11:00 UTC).
    func testQuietHoursKeepTheirLocalClockTimeAcrossTheMarchChange() throws {
        var population = Fixtures.population(.exponential(mean: 2, unit: .days), spread: 0)
        population.utcOffsets = [UTCOffsetShare(zone: "America/New_York", weight: 1)]
        var c = Fixtures.reminder([13], unit: .hours, label: "deferred")
        c.delivery = DeliveryPolicy(quietHours: span("22:00", "07:00"))
        let s = Fixtures.scenario(users: 300, days: 120, population: population, configurations: [c])
        let model = try CompiledModel(s)
        let change = Double(CalendarDate(iso: "2026-03-08")!.daysSinceEpoch - start.daysSinceEpoch) * day + 7 * hour
        var before = 0, after = 0
        for user in 0..<s.users {
            let trace = model.trace(user: user, configuration: 1)
            for case let .moved(_, _, to, _, deferred) in trace.events where deferred {
                let offset = model.utcOffset(of: trace.traits, at: to)
                let local = (to + offset).truncatingRemainder(dividingBy: day)
                XCTAssertEqual(local, 7 * hour, accuracy: 1e-6, "user \(user): deferred to \(to)")
                XCTAssertEqual(offset, to < change ? -5 * hour : -4 * hour)
                // 07:00 local is 12:00 UTC in winter and 11:00 UTC in summer.
                let utcHour = Int(to.truncatingRemainder(dividingBy: day) / hour)
                if to < change { before += 1; XCTAssertEqual(utcHour, 12) } else { after += 1; XCTAssertEqual(utcHour, 11) }
            }
        }
        XCTAssertGreaterThan(before, 100)
        XCTAssertGreaterThan(after, 100)
    }

    /// The night New York sets its clocks from 02:00 to 03:00, 02:xx does not exist. Quiet hours that end
    /// at 02:30 and a send window from 02:00 to 02:30 move every notification to a real instant: never
    /// earlier than the engine's fire time, never inside the quiet hours, never outside the window (on that
    /// night the window does not exist, so its notifications wait for the next night's); and the end of
    /// the quiet hours that night is the change itself, 03:00 local.
    func testMovesNeverLandInTheHourTheMarchChangeSkips() throws {
        var population = Fixtures.population(.exponential(mean: 2, unit: .hours), spread: 0)
        population.utcOffsets = [UTCOffsetShare(zone: "America/New_York", weight: 1)]
        var quiet = Fixtures.reminder([1], unit: .hours, label: "quiet")
        quiet.delivery = DeliveryPolicy(quietHours: span("00:00", "02:30"))
        var window = Fixtures.reminder([1], unit: .hours, label: "window")
        window.delivery = DeliveryPolicy(sendWindow: .span(span("02:00", "02:30")))
        let s = Fixtures.scenario(users: 60, days: 66, population: population, configurations: [quiet, window])
        let model = try CompiledModel(s)
        let change = Double(CalendarDate(iso: "2026-03-08")!.daysSinceEpoch - start.daysSinceEpoch) * day + 7 * hour
        var atChange = 0, nextNight = 0, moves = 0
        for user in 0..<s.users {
            for configuration in 1...2 {
                let trace = model.trace(user: user, configuration: configuration)
                for case let .moved(_, from, to, shifted, deferred) in trace.events {
                    moves += 1
                    XCTAssertGreaterThanOrEqual(to, from, "user \(user): moved back in time")
                    let offset = model.utcOffset(of: trace.traits, at: to)
                    // The local clock from the run's start day's midnight, a day ahead so that it is never negative.
                    let minute = Int(((to + offset + day).truncatingRemainder(dividingBy: day) / 60).rounded(.down))
                    if configuration == 1 {
                        XCTAssertTrue(deferred && !shifted)
                        XCTAssertGreaterThanOrEqual(minute, 150, "user \(user): deferred into the quiet hours, to \(to)")
                        if to == change { atChange += 1 }
                    } else {
                        XCTAssertTrue(shifted && !deferred)
                        XCTAssertTrue((120..<150).contains(minute), "user \(user): shifted outside the window, to \(to)")
                        // Scheduled for the night of the change: the next night's 02:00 EDT, 06:00 UTC.
                        if from < change && to > change && to < change + day { nextNight += 1; XCTAssertEqual(to, change + day - hour) }
                    }
                }
            }
        }
        XCTAssertGreaterThan(moves, 1_000)
        XCTAssertGreaterThan(atChange, 0, "some quiet hours end at the change itself")
        XCTAssertGreaterThan(nextNight, 0, "some window moves pass over the night without the window")
    }

    /// The plain timeline (fixed offsets, flat returns, no platform rules) and the general one give the
    /// same counts for the same users.
    func testThePlainTimelineAndTheGeneralOneAgree() throws {
        var s = Scenario.builtInDefault
        s.users = 3_000
        let plain = try CompiledModel(s).run(options: RunOptions(threads: 2))
        CompiledModel.forcesGeneralRules = true
        defer { CompiledModel.forcesGeneralRules = false }
        let general = try CompiledModel(s).run(options: RunOptions(threads: 2))
        XCTAssertEqual(general, plain)
    }

    // MARK: Return pattern

    func pattern(_ weekdays: [Double] = ReturnPattern.flatWeek, _ hours: [Double] = ReturnPattern.flatDay) -> CompiledReturnPattern {
        CompiledReturnPattern(ReturnPattern(weekdays: weekdays, hours: hours), startDay: start.daysSinceEpoch)
    }

    /// Saturday ×2: the week's mean is 8/7, so Saturday runs at 1.75 and the other days at 0.875. From
    /// Monday 00:00, 5 × 0.875 days of pattern time end on Saturday 00:00; 1.75 more days end on Sunday.
    func testThePatternIsAChangeOfTimeWithExactSmallCases() {
        let p = pattern([1, 1, 1, 1, 1, 2, 1])
        XCTAssertEqual(p.advance(local: 0, by: 5 * 0.875 * day), 5 * day, accuracy: 1e-6)
        XCTAssertEqual(p.advance(local: 0, by: 5 * 0.875 * day + 1.75 * day), 6 * day, accuracy: 1e-6)
        // Half of Saturday: 0.875 days of pattern time from Saturday 00:00.
        XCTAssertEqual(p.advance(local: 5 * day, by: 0.875 * day), 5.5 * day, accuracy: 1e-6)
        // A whole week of pattern time is a whole week, wherever it starts.
        XCTAssertEqual(p.advance(local: 3.3 * day, by: 7 * day), 10.3 * day, accuracy: 1e-6)
        XCTAssertEqual(p.advance(local: 3.3 * day, by: 700 * day), 703.3 * day, accuracy: 1e-4)
        // The weekday of local 0 is the start date's: Monday.
        XCTAssertEqual(p.weekday(ofLocal: 0), 0)
        XCTAssertEqual(p.weekday(ofLocal: 5.5 * day), 5)
        XCTAssertEqual(p.advance(local: 1, by: .infinity), .infinity)
        // Flat: the identity.
        XCTAssertEqual(pattern().advance(local: 12_345.5, by: 98_765.25), 12_345.5 + 98_765.25, accuracy: 1e-6)
    }

    /// Hours with factor 0 take no pattern time: no organic open falls in them.
    func testHoursWithFactorZeroHaveNoOrganicOpens() throws {
        var hours = ReturnPattern.flatDay
        for h in 0..<6 { hours[h] = 0 }
        var population = Fixtures.population(.exponential(mean: 1, unit: .days))
        population.utcOffsets = [UTCOffsetShare(zone: "Europe/Berlin", weight: 1), UTCOffsetShare(hours: -3, weight: 1)]
        population.returnPattern = ReturnPattern(hours: hours)
        let s = Fixtures.scenario(users: 300, days: 200, population: population, configurations: [Fixtures.reminder([1])])
        let model = try CompiledModel(s)
        var opens = 0
        for user in 0..<s.users {
            let trace = model.trace(user: user, configuration: 0)
            for case let .open(t, .organic, _) in trace.events {
                let local = t + model.utcOffset(of: trace.traits, at: t)
                let h = Int((local + 7 * day).truncatingRemainder(dividingBy: day) / hour)
                XCTAssertGreaterThanOrEqual(h, 6, "user \(user): an organic open at local hour \(h)")
                opens += 1
            }
        }
        XCTAssertGreaterThan(opens, 10_000)
    }

    /// A factor of 2 on Saturday doubles Saturday's organic opens against any other day's, in the
    /// limit: exponential gaps make the opens a Poisson process whose intensity is the pattern's, and
    /// 52 whole weeks give every weekday the same exposure.
    func testSaturdayFactorTwoDoublesSaturdaysOrganicOpens() throws {
        var population = Fixtures.population(.exponential(mean: 1, unit: .days), spread: 0)
        population.returnPattern = ReturnPattern(weekdays: [1, 1, 1, 1, 1, 2, 1])
        let s = Fixtures.scenario(users: 2_000, days: 364, population: population, configurations: [Fixtures.reminder([1])])
        let model = try CompiledModel(s)
        var byDay = [Double](repeating: 0, count: 7)
        for user in 0..<s.users {
            for case let .open(t, .organic, _) in model.trace(user: user, configuration: 0).events {
                byDay[Int(t / day) % 7] += 1
            }
        }
        let others = (byDay[0..<5].reduce(0, +) + byDay[6]) / 6
        let ratio = byDay[5] / others
        // Poisson counts: the ratio's standard error is about ratio × √(1/Sat + 1/(6 × others)).
        let se = ratio * (1 / byDay[5] + 1 / (6 * others)).squareRoot()
        XCTAssertEqual(ratio, 2, accuracy: 4 * se, "Saturday \(byDay[5]) against \(others) a day")
        // Each other day alone is about the mean of the others.
        for d in [0, 1, 2, 3, 4, 6] {
            XCTAssertEqual(byDay[d] / others, 1, accuracy: 4 * (1 / byDay[d]).squareRoot() + 4 * (1 / (6 * others)).squareRoot())
        }
    }

    /// A pattern of all ones is no pattern: the run is the run without one.
    func testAFlatPatternChangesNothing() throws {
        var s = Scenario.builtInDefault
        s.users = 2_000
        let without = try CompiledModel(s).run(options: RunOptions(threads: 2))
        s.population.returnPattern = ReturnPattern(weekdays: [Double](repeating: 3, count: 7))
        let flat = try CompiledModel(s).run(options: RunOptions(threads: 2))
        XCTAssertEqual(flat, without)
    }

    // MARK: Scenario files

    func decode(_ population: String) -> Result<Scenario, ScenarioError> {
        let text = """
        {"name": "t", "population": \(population), "configurations": [{"label": "a", "reminders": [{"messages": ["m"], "timePeriods": [1]}]}]}
        """
        do throws(ScenarioError) { return .success(try Scenario.decode(text)) } catch { return .failure(error) }
    }

    func issues(_ population: String) -> [String] {
        guard case let .failure(e) = decode(population) else { return [] }
        return e.issues.map(\.description)
    }

    let segments = #""segments": [{"name": "s", "returns": {"distribution": "exponential", "mean": 2, "unit": "days"}}]"#

    func testZonesAndPatternsReadBackAsWritten() throws {
        let population = #"{"utcOffsets": [{"zone": "America/New_York", "weight": 2}, {"hours": 1}], "#
            + #""returnPattern": {"weekdays": {"saturday": 2, "sunday": 1.5}, "hours": [0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0.5]}, "#
            + segments + "}"
        let s = try decode(population).get()
        XCTAssertEqual(s.population.utcOffsets, [UTCOffsetShare(zone: "America/New_York", weight: 2), UTCOffsetShare(hours: 1, weight: 1)])
        XCTAssertEqual(s.population.returnPattern?.weekdays, [1, 1, 1, 1, 1, 2, 1.5])
        XCTAssertEqual(s.population.returnPattern?.hours.first, 0)
        let again = try Scenario.decode(try s.canonicalJSON())
        XCTAssertEqual(again, s)
    }

    func testBadZonesAndPatternsAreNamedWithTheirPathAndAReason() {
        func expect(_ population: String, _ fragments: [String], line: UInt = #line) {
            let found = issues(population).joined(separator: "\n")
            for f in fragments { XCTAssertTrue(found.contains(f), "expected \(f) in:\n\(found)", line: line) }
        }
        expect(#"{"utcOffsets": [{"zone": "america/new_york"}], "# + segments + "}",
               [#"population.utcOffsets[0].zone: unknown time zone "america/new_york" (did you mean "America/New_York"?)"#])
        expect(#"{"utcOffsets": [{"zone": "Mars/Olympus_Mons"}], "# + segments + "}",
               [#"population.utcOffsets[0].zone: unknown time zone "Mars/Olympus_Mons"; expected an identifier"#])
        expect(#"{"utcOffsets": [{"zone": "Europe/Paris", "hours": 1}], "# + segments + "}",
               [#"population.utcOffsets[0]: give "hours" or "zone", not both"#])
        expect(#"{"utcOffsets": [{"weight": 1}], "# + segments + "}",
               [#"population.utcOffsets[0]: expected "hours""#])
        expect(#"{"utcOffsets": [{"zone": "EST"}], "# + segments + "}",
               [#"population.utcOffsets[0].zone: "EST" is not an Area/Location zone name; for a fixed offset write {"hours": -5}"#])
        expect(#"{"utcOffsets": [{"zone": 5}], "# + segments + "}", ["population.utcOffsets[0].zone: expected a string, got a number"])
        expect(#"{"returnPattern": {"weekdays": {"saturdy": 2}}, "# + segments + "}",
               [#"population.returnPattern.weekdays.saturdy: unknown weekday (did you mean "saturday"?)"#])
        expect(#"{"returnPattern": {"weekdays": {"Saturday": 2}}, "# + segments + "}",
               [#"population.returnPattern.weekdays.Saturday: weekdays are written in lower case (did you mean "saturday"?)"#])
        expect(#"{"returnPattern": {"weekdays": {"monday": -1}}, "# + segments + "}", ["population.returnPattern.weekdays.monday: "])
        expect(#"{"returnPattern": {"hours": [1, 2]}, "# + segments + "}",
               ["population.returnPattern.hours: expected 24 factors, one per local hour 0...23, got 2"])
        expect(#"{"returnPattern": {"hours": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}, "# + segments + "}",
               ["population.returnPattern.hours: at least one hour must have a positive factor"])
        expect(#"{"returnPattern": {"weekdays": {"monday": 0, "tuesday": 0, "wednesday": 0, "thursday": 0, "friday": 0, "saturday": 0, "sunday": 0}}, "# + segments + "}",
               ["population.returnPattern.weekdays: at least one weekday must have a positive factor"])
        expect(#"{"returnPattern": {"week": [1]}, "# + segments + "}", ["population.returnPattern.week: unknown field"])
        expect(#"{"returnPattern": {"hours": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"x"]}, "# + segments + "}",
               ["population.returnPattern.hours[23]: expected a number, got a string"])
    }

    func testAScenarioBuiltInCodeIsHeldToTheSameRules() {
        var s = Scenario.builtInDefault
        s.population.utcOffsets = [UTCOffsetShare(zone: "Nowhere/Else", weight: 1)]
        s.population.returnPattern = ReturnPattern(weekdays: [1, 1], hours: [Double](repeating: 0, count: 24))
        let found = s.semanticIssues().map(\.description)
        XCTAssertTrue(found.contains { $0.hasPrefix("population.utcOffsets[0].zone: unknown time zone") }, "\(found)")
        XCTAssertTrue(found.contains("population.returnPattern.weekdays: expected 7 factors, got 2"), "\(found)")
        XCTAssertTrue(found.contains("population.returnPattern.hours: at least one hour must have a positive factor"), "\(found)")
        XCTAssertThrowsError(try CompiledModel(s))
        // Factors whose products underflow cannot be scaled to a weekly mean of 1.
        s.population.utcOffsets = [UTCOffsetShare(hours: 0, weight: 1)]
        s.population.returnPattern = ReturnPattern(weekdays: [1e-200, 0, 0, 0, 0, 0, 0], hours: [1e-200] + [Double](repeating: 0, count: 23))
        XCTAssertEqual(s.semanticIssues().map(\.description),
                       ["population.returnPattern: the weekday and hour factors multiply to numbers too small to scale; use factors near 1"])
    }
}
