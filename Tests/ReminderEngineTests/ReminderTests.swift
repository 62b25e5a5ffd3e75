import Foundation
import ReminderEngine
import ReminderSimTestSupport
import XCTest

/// A generator that replays given values, so random choices in tests are exact.
struct ScriptedGenerator: RandomNumberGenerator {
    var values: [UInt64]
    var position = 0
    mutating func next() -> UInt64 {
        defer { position += 1 }
        return values[position % values.count]
    }
}

let day = 86_400.0
let hour = 3_600.0
let minute = 60.0

func reminder(
    _ messages: [String] = ["A", "B", "C"], _ periods: [Int] = [1, 3], unit: PeriodUnit = .days,
    random: Bool = false, circular: Bool = false, mode: EngineMode = .documented
) throws -> Reminder {
    Reminder(
        try ReminderConfiguration(
            messages: messages, timePeriods: periods, unit: unit, randomMessage: random,
            circularTimePeriod: circular, mode: mode))
}

final class ConfigurationTests: XCTestCase {
    func testDefaultsAreThoseOfTheLibrary() throws {
        let c = try ReminderConfiguration(messages: ["x"], timePeriods: [7])
        XCTAssertEqual(c.unit, .days)
        XCTAssertFalse(c.randomMessage)
        XCTAssertFalse(c.circularTimePeriod)
        XCTAssertEqual(c.appDomain, "com.company.ACPReminder")
        XCTAssertEqual(c.mode, .documented)
    }

    func testEmptyMessagesAreRefused() {
        XCTAssertThrowsError(try ReminderConfiguration(messages: [], timePeriods: [1])) { error in
            XCTAssertEqual(error as? ReminderConfigurationError, .noMessages)
        }
    }

    func testEmptyPeriodsAreRefused() {
        XCTAssertThrowsError(try ReminderConfiguration(messages: ["a"], timePeriods: [])) { error in
            XCTAssertEqual(error as? ReminderConfigurationError, .noTimePeriods)
        }
    }

    func testNonPositivePeriodsAreRefusedWithTheirIndex() {
        XCTAssertThrowsError(try ReminderConfiguration(messages: ["a"], timePeriods: [3, 0])) { error in
            XCTAssertEqual(error as? ReminderConfigurationError, .nonPositiveTimePeriod(index: 1, value: 0))
        }
        XCTAssertThrowsError(try ReminderConfiguration(messages: ["a"], timePeriods: [-2])) { error in
            XCTAssertEqual(error as? ReminderConfigurationError, .nonPositiveTimePeriod(index: 0, value: -2))
            XCTAssertEqual("\(error)", "timePeriods[0]: must be > 0, got -2")
        }
    }

    func testEmptyDomainIsRefused() {
        XCTAssertThrowsError(try ReminderConfiguration(messages: ["a"], timePeriods: [1], appDomain: "")) {
            XCTAssertEqual($0 as? ReminderConfigurationError, .emptyAppDomain)
        }
    }

    func testDecodingAppliesDefaultsAndChecks() throws {
        let ok = try JSONDecoder().decode(
            ReminderConfiguration.self, from: Data(#"{"messages":["a"],"timePeriods":[7,10]}"#.utf8))
        XCTAssertEqual(ok.timePeriods, [7, 10])
        XCTAssertEqual(ok.unit, .days)

        XCTAssertThrowsError(
            try JSONDecoder().decode(
                ReminderConfiguration.self, from: Data(#"{"messages":["a"],"timePeriods":[1],"unit":"weeks"}"#.utf8))
        )
        XCTAssertThrowsError(
            try JSONDecoder().decode(
                ReminderConfiguration.self, from: Data(#"{"messages":[],"timePeriods":[1]}"#.utf8))
        ) { error in
            guard case let DecodingError.dataCorrupted(context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.debugDescription, "messages: at least one message is required")
        }
    }

    func testUnitsAreFixedLengths() {
        XCTAssertEqual(PeriodUnit.days.seconds, 86_400)
        XCTAssertEqual(PeriodUnit.hours.seconds, 3_600)
        XCTAssertEqual(PeriodUnit.minutes.seconds, 60)
        XCTAssertEqual(PeriodUnit.seconds.seconds, 1)
    }
}

final class SchedulingTests: XCTestCase {
    var rng = TestRandom(seed: 1)

    func testDelayIsThePeriodTimesTheUnitWithNoCalendar() throws {
        for (unit, length) in [(PeriodUnit.days, day), (.hours, hour), (.minutes, minute), (.seconds, 1.0)] {
            let r = try reminder(["a"], [5], unit: unit)
            var s = ReminderState()
            r.becameActive(at: 100, state: &s)
            r.enteredBackground(at: 200, state: &s, random: &rng)
            XCTAssertEqual(s.pending?.fireTime, 200 + 5 * length, "\(unit)")
        }
    }

    func testExactlyOnePendingAndAnUnfiredOneIsCancelledAtBackground() throws {
        let r = try reminder()
        var s = ReminderState()
        XCTAssertNil(r.enteredBackground(at: 0, state: &s, random: &rng))
        let first = try XCTUnwrap(s.pending)
        r.becameActive(at: hour, state: &s)
        XCTAssertEqual(s.pending, first, "an open does not cancel; the next background does")
        let end = r.enteredBackground(at: 2 * hour, state: &s, random: &rng)
        XCTAssertEqual(end, .cancelled(first))
        XCTAssertEqual(s.pending?.fireTime, 2 * hour + day)
    }

    func testStillScheduledCheckChangesOnlyTheFlag() throws {
        let r = try reminder()
        var s = ReminderState(periodIndex: 1, nextMessageIndex: 2,
                              pending: PendingNotification(fireTime: 500, messageIndex: 1, periodIndex: 1),
                              lastCheckSawFire: true)
        var expected = s
        expected.lastCheckSawFire = false
        XCTAssertNil(r.becameActive(at: 499, state: &s))
        XCTAssertEqual(s, expected)
    }

    func testAFireTimeEqualToNowHasFired() throws {
        let r = try reminder()
        var s = ReminderState(pending: PendingNotification(fireTime: 500, messageIndex: 0, periodIndex: 0))
        let end = r.becameActive(at: 500, state: &s)
        XCTAssertEqual(end, .firedInBackground(PendingNotification(fireTime: 500, messageIndex: 0, periodIndex: 0)))
        XCTAssertTrue(s.lastCheckSawFire)
        XCTAssertNil(s.pending)
        XCTAssertEqual(s.periodIndex, 1)
    }

    func testDocumentedModeAdvancesOnlyAfterAFire() throws {
        let r = try reminder()
        var s = ReminderState()
        r.becameActive(at: 0, state: &s)
        XCTAssertEqual(s.periodIndex, 0, "nothing pending: no advance in documented mode")
        XCTAssertTrue(s.lastCheckSawFire)
    }

    func testOriginalModeAdvancesWhenNothingWasPending() throws {
        let r = try reminder(mode: .original)
        var s = ReminderState()
        r.becameActive(at: 0, state: &s)
        XCTAssertEqual(s.periodIndex, 1)
    }

    func testNonCircularPeriodsStayOnTheLast() throws {
        let r = try reminder(["a"], [1, 2, 3])
        var s = ReminderState()
        var indices: [Int] = []
        var now = 0.0
        for _ in 0..<5 {
            r.enteredBackground(at: now, state: &s, random: &rng)
            indices.append(s.pending!.periodIndex)
            now = s.pending!.fireTime + hour
            r.becameActive(at: now, state: &s)
        }
        XCTAssertEqual(indices, [0, 1, 2, 2, 2])
    }

    func testCircularPeriodsWrap() throws {
        let r = try reminder(["a"], [1, 2, 3], circular: true)
        var s = ReminderState()
        var indices: [Int] = []
        var now = 0.0
        for _ in 0..<7 {
            r.enteredBackground(at: now, state: &s, random: &rng)
            indices.append(s.pending!.periodIndex)
            now = s.pending!.fireTime + hour
            r.becameActive(at: now, state: &s)
        }
        XCTAssertEqual(indices, [0, 1, 2, 0, 1, 2, 0])
    }

    func testForegroundFireRepeatsMessageAndPeriodInBothModes() throws {
        for mode in EngineMode.allCases {
            let r = try reminder(["A", "B", "C"], [1, 3], mode: mode)
            var s = ReminderState()
            r.becameActive(at: 0, state: &s)
            r.enteredBackground(at: 60, state: &s, random: &rng)
            let first = s.pending!
            // Opens an hour before the fire time and stays in the app past it.
            r.becameActive(at: first.fireTime - hour, state: &s)
            let end = r.enteredBackground(at: first.fireTime + hour, state: &s, random: &rng)
            XCTAssertEqual(end, .firedInForeground(first), "\(mode)")
            XCTAssertEqual(s.pending!.messageIndex, first.messageIndex, "\(mode)")
            XCTAssertEqual(s.pending!.periodIndex, first.periodIndex, "\(mode)")
        }
    }

    func testSeparateDomainsKeepSeparateState() throws {
        let a = Reminder(try ReminderConfiguration(messages: ["a"], timePeriods: [1], appDomain: "com.x.one"))
        let b = Reminder(try ReminderConfiguration(messages: ["b1", "b2"], timePeriods: [2, 5], appDomain: "com.x.two"))
        var states: [String: ReminderState] = [:]
        for r in [a, b] {
            var s = states[r.configuration.appDomain, default: ReminderState()]
            r.becameActive(at: 0, state: &s)
            r.enteredBackground(at: 10, state: &s, random: &rng)
            states[r.configuration.appDomain] = s
        }
        XCTAssertEqual(states["com.x.one"]?.pending?.fireTime, 10 + day)
        XCTAssertEqual(states["com.x.two"]?.pending?.fireTime, 10 + 2 * day)
    }

    func testRestoredIndexBeyondThePeriodsUsesTheLast() throws {
        let r = try reminder(["a"], [1, 4])
        var s = ReminderState(periodIndex: 9)
        r.enteredBackground(at: 0, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.fireTime, 4 * day)
    }
}

final class MessageChoiceTests: XCTestCase {
    var rng = TestRandom(seed: 7)

    func testSequentialStartsAtZeroAndStoresNext() throws {
        let r = try reminder()
        var s = ReminderState()
        r.enteredBackground(at: 0, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.messageIndex, 0)
        XCTAssertEqual(s.nextMessageIndex, 1)
    }

    func testSequentialAdvancesOnlyWhenTheLastCheckSawAFire() throws {
        let r = try reminder()
        var s = ReminderState(nextMessageIndex: 2, lastCheckSawFire: true)
        r.enteredBackground(at: 0, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.messageIndex, 2)
        XCTAssertEqual(s.nextMessageIndex, 3)

        var t = ReminderState(nextMessageIndex: 2, lastCheckSawFire: false)
        r.enteredBackground(at: 0, state: &t, random: &rng)
        XCTAssertEqual(t.pending?.messageIndex, 1, "same message again")
        XCTAssertEqual(t.nextMessageIndex, 2)
    }

    func testSequentialWrapsPastTheLastMessage() throws {
        let r = try reminder()
        var s = ReminderState(nextMessageIndex: 3, lastCheckSawFire: true)
        r.enteredBackground(at: 0, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.messageIndex, 0)
        XCTAssertEqual(s.nextMessageIndex, 1)
    }

    func testRandomUsesTheInjectedSourceAtEverySchedule() throws {
        let r = try reminder(random: true)
        // With upperBound 3 the standard library maps a draw to the high part of draw × 3.
        var scripted = ScriptedGenerator(values: [UInt64.max, 1 << 62, UInt64.max / 2])
        var s = ReminderState()
        var chosen: [Int] = []
        for step in 0..<3 {
            r.enteredBackground(at: Double(step), state: &s, random: &scripted)
            chosen.append(s.pending!.messageIndex)
        }
        XCTAssertEqual(chosen, [2, 0, 1])
    }

    func testRandomChoiceIsUniformAndReproducible() throws {
        let r = try reminder(random: true)
        func draws(seed: UInt64) -> [Int] {
            var g = TestRandom(seed: seed)
            var s = ReminderState()
            return (0..<30_000).map { i in
                r.enteredBackground(at: Double(i), state: &s, random: &g)
                return s.pending!.messageIndex
            }
        }
        let a = draws(seed: 11)
        XCTAssertEqual(a, draws(seed: 11))
        XCTAssertNotEqual(a, draws(seed: 12))
        let n = Double(a.count)
        // Binomial(n, 1/3): five standard deviations either side.
        let tolerance = 5 * (n * (1.0 / 3) * (2.0 / 3)).squareRoot()
        for m in 0..<3 {
            let count = Double(a.filter { $0 == m }.count)
            XCTAssertEqual(count, n / 3, accuracy: tolerance, "message \(m)")
        }
    }
}

final class OutcomeTests: XCTestCase {
    let n = PendingNotification(fireTime: 1_000, messageIndex: 0, periodIndex: 0)
    let late = PendingNotification(fireTime: 5_000, messageIndex: 0, periodIndex: 0)

    func testClassification() {
        XCTAssertEqual(NotificationOutcome(.cancelled(n), horizon: 2_000, notificationsAllowed: true), .cancelled)
        XCTAssertEqual(NotificationOutcome(.firedInBackground(n), horizon: 2_000, notificationsAllowed: true), .delivered)
        XCTAssertEqual(NotificationOutcome(.firedInBackground(n), horizon: 2_000, notificationsAllowed: false), .suppressed)
        XCTAssertEqual(NotificationOutcome(.firedInForeground(n), horizon: 2_000, notificationsAllowed: true), .foreground)
    }

    func testCensoringTakesPrecedence() {
        XCTAssertEqual(NotificationOutcome(.cancelled(late), horizon: 2_000, notificationsAllowed: true), .censored)
        XCTAssertEqual(NotificationOutcome(.firedInBackground(late), horizon: 2_000, notificationsAllowed: true), .censored)
    }

    func testTriggeredIsDeliveredForegroundOrSuppressed() {
        XCTAssertEqual(
            NotificationOutcome.allCases.filter(\.isTriggered), [.delivered, .foreground, .suppressed])
    }
}

final class WorkedExampleTests: XCTestCase {
    /// ENGINES.md §1 worked example, documented mode, step by step.
    func testWorkedExample() throws {
        let r = try reminder(["A", "B", "C"], [1, 3])
        var rng = TestRandom(seed: 3)
        var s = ReminderState()
        let d0 = 0.0

        XCTAssertNil(r.becameActive(at: d0 + 10 * hour, state: &s))
        r.enteredBackground(at: d0 + 10 * hour + 5 * minute, state: &s, random: &rng)
        let a1 = PendingNotification(fireTime: day + 10 * hour + 5 * minute, messageIndex: 0, periodIndex: 0)
        XCTAssertEqual(s.pending, a1, "A at day 1 10:05")

        XCTAssertNil(r.becameActive(at: d0 + 20 * hour, state: &s), "A still scheduled")
        XCTAssertEqual(r.enteredBackground(at: 20 * hour + 10 * minute, state: &s, random: &rng), .cancelled(a1))
        let a2 = PendingNotification(fireTime: day + 20 * hour + 10 * minute, messageIndex: 0, periodIndex: 0)
        XCTAssertEqual(s.pending, a2, "A again at day 1 20:10")

        XCTAssertEqual(r.becameActive(at: 2 * day + 9 * hour, state: &s), .firedInBackground(a2))
        XCTAssertEqual(s.periodIndex, 1)
        r.enteredBackground(at: 2 * day + 9 * hour + 3 * minute, state: &s, random: &rng)
        let b = PendingNotification(fireTime: 5 * day + 9 * hour + 3 * minute, messageIndex: 1, periodIndex: 1)
        XCTAssertEqual(s.pending, b, "B at day 5 09:03")

        XCTAssertEqual(r.becameActive(at: 9 * day + 12 * hour, state: &s), .firedInBackground(b))
        XCTAssertEqual(s.periodIndex, 1, "last period, not circular")
        r.enteredBackground(at: 9 * day + 12 * hour + 5 * minute, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.messageIndex, 2, "C")
        XCTAssertEqual(s.pending?.fireTime, 12 * day + 12 * hour + 5 * minute, "+3 days")

        r.becameActive(at: 20 * day, state: &s)
        r.enteredBackground(at: 20 * day + minute, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.messageIndex, 0, "after C comes A again")
    }

    /// The ACPReminder README example: three messages, periods 7 and 10 days.
    func testSeedReadmeExample() throws {
        let r = Reminder(
            try ReminderConfiguration(
                messages: [
                    "Hey - This potion's really odd. Come and See", "Your Village miss you",
                    "Did you know our new features?",
                ], timePeriods: [7, 10], appDomain: "com.mydomain.appName"))
        var rng = TestRandom(seed: 5)
        var s = ReminderState()
        r.becameActive(at: 0, state: &s)
        r.enteredBackground(at: 100, state: &s, random: &rng)
        XCTAssertEqual(s.pending, PendingNotification(fireTime: 100 + 7 * day, messageIndex: 0, periodIndex: 0))
        r.becameActive(at: 100 + 8 * day, state: &s)
        r.enteredBackground(at: 200 + 8 * day, state: &s, random: &rng)
        XCTAssertEqual(s.pending, PendingNotification(fireTime: 200 + 18 * day, messageIndex: 1, periodIndex: 1))
        r.becameActive(at: 200 + 30 * day, state: &s)
        r.enteredBackground(at: 300 + 30 * day, state: &s, random: &rng)
        XCTAssertEqual(s.pending, PendingNotification(fireTime: 300 + 40 * day, messageIndex: 2, periodIndex: 1))
    }

    func testNewUserFirstNotificationPeriodIndexByMode() throws {
        var rng = TestRandom(seed: 9)
        let documented = try reminder(["a"], [7, 10])
        var s = ReminderState()
        documented.becameActive(at: 0, state: &s)
        documented.enteredBackground(at: 60, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.periodIndex, 0)
        XCTAssertEqual(s.pending?.fireTime, 60 + 7 * day)

        let original = try reminder(["a"], [7, 10], mode: .original)
        var t = ReminderState()
        original.becameActive(at: 0, state: &t)
        original.enteredBackground(at: 60, state: &t, random: &rng)
        XCTAssertEqual(t.pending?.periodIndex, 1)
        XCTAssertEqual(t.pending?.fireTime, 60 + 10 * day, "1.0.2 uses timePeriods[1]")
    }
}

final class PersistenceTests: XCTestCase {
    func testStateSurvivesACodableRoundTripMidSequence() throws {
        let r = try reminder(["A", "B", "C"], [1, 3], random: false)
        var rng = TestRandom(seed: 21)
        func step(_ s: inout ReminderState, _ k: Int) -> PendingNotification {
            let t = Double(k) * 5 * day
            r.becameActive(at: t, state: &s)
            r.enteredBackground(at: t + minute, state: &s, random: &rng)
            return s.pending!
        }
        var straight = ReminderState()
        let reference = (0..<6).map { step(&straight, $0) }

        var s = ReminderState()
        var resumed = (0..<3).map { step(&s, $0) }
        let data = try JSONEncoder().encode(s)
        var restored = try JSONDecoder().decode(ReminderState.self, from: data)
        XCTAssertEqual(restored, s)
        resumed += (3..<6).map { step(&restored, $0) }
        XCTAssertEqual(resumed, reference)
    }
}

/// `reschedulesUnchangedWhilePending`: when the engine says so, an open before the fire time and the
/// close after it leave every field but the fire time as they were, whatever the state, mode and
/// launch; and the property is false exactly where they would not. Likewise
/// `movesMessageOnAtColdLaunchWhilePending`, where a cold launch also moves the message on.
final class ReschedulingTests: XCTestCase {
    func testAnOpenBeforeTheFireTimeAndTheCloseAfterItChangeOnlyTheFireTime() throws {
        var g = SystemRandomNumberGenerator()
        var checked = 0, movedOn = 0
        for mode in EngineMode.allCases {
            for wiring in [nil, ReminderWiring.early, .readme] {
                for circular in [false, true] {
                    for random in [false, true] {
                        for domain in [ReminderConfiguration.defaultAppDomain, "com.example.app"] {
                            // The README wiring exists in the original modes only.
                            guard let configuration = try? ReminderConfiguration(
                                messages: ["a", "b", "c"], timePeriods: [1, 3, 7], unit: .hours, randomMessage: random,
                                circularTimePeriod: circular, appDomain: domain, mode: mode, wiring: wiring) else { continue }
                            let r = Reminder(configuration)
                            XCTAssertEqual(r.reschedulesUnchangedWhilePending, !random && configuration.wiring != .readme)
                            XCTAssertEqual(r.keepsPendingUntilItsFireTime, configuration.wiring != .readme)
                            XCTAssertEqual(r.movesMessageOnAtColdLaunchWhilePending,
                                           configuration.wiring == .readme && domain != ReminderConfiguration.defaultAppDomain
                                               && !random && !circular)
                            guard r.keepsPendingUntilItsFireTime || r.movesMessageOnAtColdLaunchWhilePending else { continue }
                            for _ in 0..<200 {
                                // A state the engine reached: scheduled at some close, maybe after fires.
                                var state = ReminderState()
                                var now = 0.0
                                for _ in 0..<Int.random(in: 1...6, using: &g) {
                                    now += Double.random(in: 0...40_000, using: &g)
                                    r.becameActive(at: now, state: &state, coldLaunch: Bool.random(using: &g))
                                    now += Double.random(in: 1...600, using: &g)
                                    r.enteredBackground(at: now, state: &state, random: &g)
                                }
                                let before = state
                                let fire = try XCTUnwrap(state.pending).fireTime
                                // Back before the fire time, away again after it.
                                let open = Double.random(in: now...(fire - 1e-3), using: &g)
                                let close = open + Double.random(in: 1...7_200, using: &g)
                                let coldLaunch = Bool.random(using: &g)
                                XCTAssertNil(r.becameActive(at: open, state: &state, coldLaunch: coldLaunch))
                                if r.movesMessageOnAtColdLaunchWhilePending {
                                    // The README wiring: a cold launch's check records a fire, and the close
                                    // schedules the next message (the first after the last), at the same period.
                                    let end = r.enteredBackground(at: close, state: &state, random: &g)
                                    XCTAssertEqual(end, fire > close ? .cancelled(before.pending!) : .firedInForeground(before.pending!))
                                    let message = coldLaunch ? (before.pending!.messageIndex + 1) % 3 : before.pending!.messageIndex
                                    let expected = ReminderState(
                                        periodIndex: before.periodIndex, nextMessageIndex: message + 1,
                                        pending: PendingNotification(fireTime: close + r.nextDelay(for: before), messageIndex: message,
                                                                     periodIndex: before.pending!.periodIndex),
                                        lastCheckSawFire: coldLaunch)
                                    XCTAssertEqual(state, expected)
                                    movedOn += coldLaunch ? 1 : 0
                                    continue
                                }
                                var afterCheck = before
                                afterCheck.lastCheckSawFire = false
                                XCTAssertEqual(state, afterCheck, "the check only records that nothing fired")
                                guard r.reschedulesUnchangedWhilePending else { continue }
                                let end = r.enteredBackground(at: close, state: &state, random: &g)
                                XCTAssertEqual(end, fire > close ? .cancelled(before.pending!) : .firedInForeground(before.pending!))
                                var expected = before
                                expected.lastCheckSawFire = false
                                expected.pending!.fireTime = close + r.nextDelay(for: before)
                                XCTAssertEqual(state, expected)
                                checked += 1
                            }
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 3_000)
        XCTAssertGreaterThan(movedOn, 120)
    }
}
