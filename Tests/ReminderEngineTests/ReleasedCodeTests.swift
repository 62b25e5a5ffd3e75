import Foundation
import ReminderEngine
import ReminderSimTestSupport
import XCTest

/// A reminder in a given mode and wiring, with a domain other than the default unless told.
func releasedReminder(
    _ messages: [String] = ["A", "B", "C"], _ periods: [Int], circular: Bool = false, mode: EngineMode = .original,
    wiring: ReminderWiring, appDomain: String = "com.mydomain.appName"
) throws -> Reminder {
    Reminder(
        try ReminderConfiguration(
            messages: messages, timePeriods: periods, circularTimePeriod: circular, appDomain: appDomain, mode: mode,
            wiring: wiring))
}

/// The rules of the released ACPReminder code (1.0.2 and 1.0.0), each checked against its source.
final class ReleasedCodeTests: XCTestCase {
    var rng = TestRandom(seed: 3)

    func testModesAndWiringDefaults() throws {
        XCTAssertEqual(EngineMode(rawValue: "original-1.0.0"), .original100)
        XCTAssertEqual(EngineMode.allCases.map(\.rawValue), ["documented", "original", "original-1.0.0"])
        XCTAssertEqual(try ReminderConfiguration(messages: ["a"], timePeriods: [1]).wiring, .early)
        XCTAssertEqual(try ReminderConfiguration(messages: ["a"], timePeriods: [1], mode: .original).wiring, .readme)
        XCTAssertEqual(try ReminderConfiguration(messages: ["a"], timePeriods: [1], mode: .original100).wiring, .readme)
        XCTAssertEqual(
            try ReminderConfiguration(messages: ["a"], timePeriods: [1], mode: .original, wiring: .early).wiring, .early)
    }

    func testReadmeWiringNeedsAnOriginalMode() {
        XCTAssertThrowsError(try ReminderConfiguration(messages: ["a"], timePeriods: [1], wiring: .readme)) { error in
            XCTAssertEqual(error as? ReminderConfigurationError, .readmeWiringNeedsOriginalMode)
            XCTAssertTrue("\(error)".hasPrefix("wiring: "))
        }
        XCTAssertNoThrow(try ReminderConfiguration(messages: ["a"], timePeriods: [1], wiring: .early))
    }

    /// `checkIfLocalNotificationHasBeenTriggered` calls `changeNotificationTimePeriod` whenever no
    /// notification is found, including a new user's first open with nothing scheduled.
    func testFirstOpenAlreadyAdvancesIn102() throws {
        let r = try releasedReminder(["a"], [7, 10], wiring: .early)
        var s = ReminderState()
        r.becameActive(at: 0, state: &s, coldLaunch: true)
        XCTAssertEqual(s.periodIndex, 1)
        XCTAssertTrue(s.lastCheckSawFire)
        r.enteredBackground(at: 60, state: &s, random: &rng)
        XCTAssertEqual(s.pending, PendingNotification(fireTime: 60 + 10 * day, messageIndex: 0, periodIndex: 1))
    }

    /// 1.0.2 always uses `timePeriods[index]`; with the first open past index 0 and a non-circular
    /// reminder staying on the last period, `[7, 10]` is 10 days for every notification.
    func testSevenTenIsTenDaysForeverIn102() throws {
        let r = try releasedReminder(["a", "b"], [7, 10], wiring: .early)
        var s = ReminderState()
        var now = 0.0
        var delays: Set<Double> = []
        for step in 0..<12 {
            r.becameActive(at: now, state: &s, coldLaunch: step % 3 == 0)
            r.enteredBackground(at: now + 300, state: &s, random: &rng)
            delays.insert(s.pending!.fireTime - (now + 300))
            // Come back sometimes before the fire (cancelled), sometimes after it (fired).
            now = step % 2 == 0 ? now + 2 * day : s.pending!.fireTime + hour
        }
        XCTAssertEqual(delays, [10 * day])
    }

    /// 1.0.0's `getTimePeriodValue` returns 1 for index 0 (`if(!index || …)`); the only way back to
    /// index 0 after the first open is a circular wrap.
    func testIndexZeroIsOneUnitIn100WithACircularWrap() throws {
        func delays(_ mode: EngineMode) throws -> [Double] {
            let r = try releasedReminder(["a"], [7, 10, 14], circular: true, mode: mode, wiring: .early)
            var s = ReminderState()
            var now = 0.0
            var out: [Double] = []
            for _ in 0..<5 {
                r.becameActive(at: now, state: &s)
                r.enteredBackground(at: now + 60, state: &s, random: &rng)
                out.append((s.pending!.fireTime - (now + 60)) / day)
                now = s.pending!.fireTime + hour  // every notification fires
            }
            return out
        }
        // First open: index 1; then 2, wrap to 0, 1, 2.
        XCTAssertEqual(try delays(.original100), [10, 14, 1, 10, 14])
        XCTAssertEqual(try delays(.original), [10, 14, 7, 10, 14])
        let r = try releasedReminder(["a"], [7, 10], mode: .original100, wiring: .early)
        XCTAssertEqual((0..<2).map { r.periodValue(at: $0) }, [1, 10])
        XCTAssertEqual(r.nextDelay(for: ReminderState(periodIndex: 0)), day)
    }

    /// Under the README wiring a cold launch's check runs on the singleton's defaults: it looks for
    /// the notification under `com.company.ACPReminder`, so one scheduled under another domain is not
    /// found and counts as fired although it is still pending.
    func testReadmeWiringColdLaunchWithAPendingNotificationUnderAnotherDomain() throws {
        for circular in [false, true] {
            let readme = try releasedReminder(["A", "B", "C"], [7, 10, 14], circular: circular, wiring: .readme)
            var s = ReminderState(periodIndex: 1)
            readme.enteredBackground(at: 0, state: &s, random: &rng)
            let first = s.pending!
            XCTAssertEqual(first, PendingNotification(fireTime: 10 * day, messageIndex: 0, periodIndex: 1))

            // Back after 2 days in a new process: the notification is still pending.
            XCTAssertNil(readme.becameActive(at: 2 * day, state: &s, coldLaunch: true))
            XCTAssertTrue(s.lastCheckSawFire, "not found under the default domain: taken as fired")
            XCTAssertEqual(s.pending, first, "still scheduled until the next background")
            // Zero periods: `last + 1 >= 0` keeps a non-circular index and wraps a circular one to 0.
            XCTAssertEqual(s.periodIndex, circular ? 0 : 1, "circular: \(circular)")
            let end = readme.enteredBackground(at: 2 * day + 300, state: &s, random: &rng)
            XCTAssertEqual(end, .cancelled(first))
            XCTAssertEqual(s.pending?.messageIndex, 1, "the message advances")
            XCTAssertEqual(s.pending?.periodIndex, circular ? 0 : 1, "the period is kept, or reset when circular")

            // The same open with the early wiring sees the notification pending: same message again.
            let early = try releasedReminder(["A", "B", "C"], [7, 10, 14], circular: circular, wiring: .early)
            var e = ReminderState(periodIndex: 1)
            early.enteredBackground(at: 0, state: &e, random: &rng)
            early.becameActive(at: 2 * day, state: &e, coldLaunch: true)
            XCTAssertFalse(e.lastCheckSawFire)
            early.enteredBackground(at: 2 * day + 300, state: &e, random: &rng)
            XCTAssertEqual(e.pending?.messageIndex, 0)
            XCTAssertEqual(e.pending?.periodIndex, 1)
        }
    }

    /// A cold launch after the notification fired: cleared as usual, but the unconfigured check does
    /// not advance the period: it keeps it, or resets it to 0 when circular (the early wiring advances,
    /// or wraps when circular).
    func testReadmeWiringColdLaunchAfterAFireKeepsThePeriod() throws {
        for circular in [false, true] {
            let readme = try releasedReminder(["A", "B"], [7, 10, 14], circular: circular, wiring: .readme)
            let early = try releasedReminder(["A", "B"], [7, 10, 14], circular: circular, wiring: .early)
            var r = ReminderState(periodIndex: 2), e = ReminderState(periodIndex: 2)
            readme.enteredBackground(at: 0, state: &r, random: &rng)
            early.enteredBackground(at: 0, state: &e, random: &rng)
            let fired = r.pending!
            XCTAssertEqual(readme.becameActive(at: 20 * day, state: &r, coldLaunch: true), .firedInBackground(fired))
            XCTAssertNil(r.pending)
            XCTAssertTrue(r.lastCheckSawFire)
            XCTAssertEqual(r.periodIndex, circular ? 0 : 2)
            early.becameActive(at: 20 * day, state: &e, coldLaunch: true)
            XCTAssertEqual(e.periodIndex, circular ? 0 : 2)
        }
    }

    /// With the domain left at its default the cold check finds the notification: it stays pending
    /// and the same message comes again, as with the early wiring.
    func testReadmeWiringWithTheDefaultDomainFindsThePendingNotification() throws {
        let r = try releasedReminder(
            ["A", "B"], [7, 10], wiring: .readme, appDomain: ReminderConfiguration.defaultAppDomain)
        var s = ReminderState(periodIndex: 1)
        r.enteredBackground(at: 0, state: &s, random: &rng)
        r.becameActive(at: day, state: &s, coldLaunch: true)
        XCTAssertFalse(s.lastCheckSawFire)
        XCTAssertNotNil(s.pending)
        r.enteredBackground(at: day + 60, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.messageIndex, 0)
    }

    /// A new user's first open is a cold launch: unconfigured, it does not move past index 0, so the
    /// README wiring's first notification uses the first period.
    func testReadmeWiringFirstOpenStaysOnTheFirstPeriod() throws {
        let r = try releasedReminder(["a"], [7, 10], wiring: .readme)
        var s = ReminderState()
        r.becameActive(at: 0, state: &s, coldLaunch: true)
        XCTAssertEqual(s.periodIndex, 0)
        r.enteredBackground(at: 60, state: &s, random: &rng)
        XCTAssertEqual(s.pending?.fireTime, 60 + 7 * day)
    }

    /// A warm resume runs in the process configured at the last background: the rules as usual.
    func testReadmeWiringWarmResumesBehaveNormally() throws {
        let readme = try releasedReminder(["A", "B"], [7, 10, 14], wiring: .readme)
        let early = try releasedReminder(["A", "B"], [7, 10, 14], wiring: .early)
        var r = ReminderState(), e = ReminderState()
        var a = TestRandom(seed: 8), b = TestRandom(seed: 8)
        var now = 0.0
        for step in 0..<8 {
            let readmeEnd = readme.becameActive(at: now, state: &r)
            let earlyEnd = early.becameActive(at: now, state: &e)
            XCTAssertEqual(readmeEnd, earlyEnd)
            XCTAssertEqual(r, e, "step \(step)")
            readme.enteredBackground(at: now + 60, state: &r, random: &a)
            early.enteredBackground(at: now + 60, state: &e, random: &b)
            now = step % 3 == 0 ? now + day : r.pending!.fireTime + hour
        }
    }

    /// Documented mode ignores `coldLaunch`: it has no README wiring.
    func testDocumentedModeIgnoresColdLaunches() throws {
        let r = try reminder(["A", "B"], [1, 3])
        var cold = ReminderState(), warm = ReminderState()
        var now = 0.0
        for step in 0..<6 {
            r.becameActive(at: now, state: &cold, coldLaunch: true)
            r.becameActive(at: now, state: &warm, coldLaunch: false)
            XCTAssertEqual(cold, warm, "step \(step)")
            r.enteredBackground(at: now + 60, state: &cold, random: &rng)
            warm = cold
            now = step % 2 == 0 ? now + hour : cold.pending!.fireTime + hour
        }
    }
}
