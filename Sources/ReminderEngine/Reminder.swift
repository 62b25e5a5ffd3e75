/// A scheduled notification: when it fires, and which message and period produced it.
public struct PendingNotification: Codable, Equatable, Sendable {
    /// Fire time, in the caller's seconds.
    public var fireTime: Double
    public var messageIndex: Int
    public var periodIndex: Int

    @inlinable
    public init(fireTime: Double, messageIndex: Int, periodIndex: Int) {
        self.fireTime = fireTime
        self.messageIndex = messageIndex
        self.periodIndex = periodIndex
    }
}

/// What ACPReminder keeps for one user in one `appDomain`; the caller stores and restores it.
public struct ReminderState: Codable, Equatable, Sendable {
    /// Index into `timePeriods` of the next delay.
    public var periodIndex: Int
    /// The stored "next message" counter; absent until the first schedule.
    public var nextMessageIndex: Int?
    /// The one notification that may be scheduled.
    public var pending: PendingNotification?
    /// What the last `becameActive` concluded: whether the pending notification had fired.
    public var lastCheckSawFire: Bool

    @inlinable
    public init(
        periodIndex: Int = 0, nextMessageIndex: Int? = nil, pending: PendingNotification? = nil,
        lastCheckSawFire: Bool = false
    ) {
        self.periodIndex = periodIndex
        self.nextMessageIndex = nextMessageIndex
        self.pending = pending
        self.lastCheckSawFire = lastCheckSawFire
    }
}

/// How a notification that the engine had scheduled left the engine's hands.
public enum NotificationEnd: Equatable, Sendable {
    /// The user came back before the fire time; the notification is replaced.
    case cancelled(PendingNotification)
    /// It fired while the app was in the background (the caller decides `delivered` or `suppressed`).
    case firedInBackground(PendingNotification)
    /// It fired during an open session and was shown to nobody.
    case firedInForeground(PendingNotification)

    @inlinable
    public var notification: PendingNotification {
        switch self {
        case let .cancelled(n), let .firedInBackground(n), let .firedInForeground(n): return n
        }
    }
}

/// The final fate of one scheduled notification, as a report counts it.
public enum NotificationOutcome: String, Codable, Sendable, CaseIterable {
    case cancelled, delivered, foreground, suppressed, censored

    /// Fired before the user came back (the seed README's "triggered").
    @inlinable
    public var isTriggered: Bool { self == .delivered || self == .foreground || self == .suppressed }

    /// Classifies an ending. A notification whose fire time lies beyond `horizon` is `censored`
    /// whatever happened before: counting early returns as cancellations while the fires that
    /// would have happened go unseen would bias every rate low.
    @inlinable
    public init(_ end: NotificationEnd, horizon: Double, notificationsAllowed: Bool) {
        if end.notification.fireTime > horizon {
            self = .censored
            return
        }
        switch end {
        case .cancelled: self = .cancelled
        case .firedInForeground: self = .foreground
        case .firedInBackground: self = notificationsAllowed ? .delivered : .suppressed
        }
    }
}

/// The ACPReminder state machine: pure, so an app and the simulator run the same code.
///
/// It holds only the configuration; per-user state is passed in and out, and the caller supplies
/// time and, for random messages, the random source.
public struct Reminder: Sendable {
    public let configuration: ReminderConfiguration
    // Copied out of the configuration so the hot path touches no arrays of strings.
    @usableFromInline let periodSeconds: [Double]
    @usableFromInline let messageCount: Int
    @usableFromInline let random: Bool
    @usableFromInline let circular: Bool
    /// The released code also advances the period when nothing was pending (a new user's first open).
    @usableFromInline let advancesWithNothingPending: Bool
    /// The README wiring: a cold launch's check runs on the singleton's defaults.
    @usableFromInline let unconfiguredAtColdLaunch: Bool
    /// Under the README wiring, whether that check finds a notification tagged with this `appDomain`.
    @usableFromInline let coldCheckSeesDomain: Bool

    public init(_ configuration: ReminderConfiguration) {
        self.configuration = configuration
        periodSeconds = configuration.timePeriods.indices.map {
            Double(Reminder.periodValue(configuration.timePeriods, mode: configuration.mode, at: $0))
                * configuration.unit.seconds
        }
        messageCount = configuration.messages.count
        random = configuration.randomMessage
        circular = configuration.circularTimePeriod
        advancesWithNothingPending = configuration.mode.isOriginal
        unconfiguredAtColdLaunch = configuration.wiring == .readme
        coldCheckSeesDomain = configuration.appDomain == ReminderConfiguration.defaultAppDomain
    }

    /// The delay, in units, of a notification scheduled at period index `index`: `timePeriods[index]`,
    /// except at index 0 in ACPReminder 1.0.0, which returns 1 (`if(!index || …) return @(1)`).
    public static func periodValue(_ timePeriods: [Int], mode: EngineMode, at index: Int) -> Int {
        mode == .original100 && index == 0 ? 1 : timePeriods[index]
    }

    /// The delay, in `unit`s, this reminder uses at period index `index`.
    public func periodValue(at index: Int) -> Int {
        Reminder.periodValue(configuration.timePeriods, mode: configuration.mode, at: index)
    }

    /// The app goes to the background (the original's `createLocalNotification`): the pending
    /// notification, if any, is replaced by a new one. Returns how the replaced one ended.
    @inlinable
    @discardableResult
    public func enteredBackground<G: RandomNumberGenerator>(
        at now: Double, state: inout ReminderState, random source: inout G
    ) -> NotificationEnd? {
        var ended: NotificationEnd?
        if let old = state.pending {
            // Still pending at the last check (or not found by it, under the README wiring), so a
            // fire time already passed means it fired while the app was open.
            ended = old.fireTime > now ? .cancelled(old) : .firedInForeground(old)
        }

        var message: Int
        if random {
            message = Int(source.next(upperBound: UInt64(messageCount)))
        } else if let next = state.nextMessageIndex {
            message = state.lastCheckSawFire ? next : next - 1
        } else {
            message = 0
        }
        if message >= messageCount || message < 0 { message = 0 }
        state.nextMessageIndex = message + 1

        let delay = nextDelay(for: state)
        state.pending = PendingNotification(
            fireTime: now + delay, messageIndex: message, periodIndex: state.periodIndex)
        return ended
    }

    /// The app becomes active (the original's `checkIfLocalNotificationHasBeenTriggered`).
    /// `coldLaunch` says whether this open started a new process; it matters only under the README
    /// wiring, where such a check runs before the app has configured the reminder.
    /// Returns the pending notification if it fired while the app was away.
    @inlinable @inline(__always)
    @discardableResult
    public func becameActive(at now: Double, state: inout ReminderState, coldLaunch: Bool = false) -> NotificationEnd? {
        if coldLaunch && unconfiguredAtColdLaunch { return unconfiguredCheck(at: now, state: &state) }
        if let pending = state.pending, pending.fireTime > now {
            state.lastCheckSawFire = false
            return nil
        }
        state.lastCheckSawFire = true
        let fired = state.pending
        state.pending = nil
        if fired != nil || advancesWithNothingPending {
            let next = state.periodIndex + 1
            state.periodIndex = circular ? next % periodSeconds.count : min(next, periodSeconds.count - 1)
        }
        return fired.map { .firedInBackground($0) }
    }

    /// The check on a singleton that still has its defaults: domain `com.company.ACPReminder`, no
    /// periods. It looks for the pending notification under the default domain only, and "advances"
    /// over zero periods: `last + 1 >= 0` keeps the index of a non-circular reminder and wraps a
    /// circular one to 0 (ENGINES.md; an app that also sets `circularTimePeriod` late would keep it).
    @inlinable
    func unconfiguredCheck(at now: Double, state: inout ReminderState) -> NotificationEnd? {
        if coldCheckSeesDomain, let pending = state.pending, pending.fireTime > now {
            state.lastCheckSawFire = false
            return nil
        }
        state.lastCheckSawFire = true
        if circular { state.periodIndex = 0 }
        guard let pending = state.pending, pending.fireTime <= now else {
            // Not found under the default domain but still scheduled: it stays until the next
            // background replaces it.
            return nil
        }
        state.pending = nil
        return .firedInBackground(pending)
    }

    /// Whether an open before the pending notification's fire time only records that it has not fired
    /// (`lastCheckSawFire` false) and changes nothing else: true unless the README wiring holds (a
    /// cold launch's check then runs unconfigured). A caller may then set that field itself.
    @inlinable
    public var keepsPendingUntilItsFireTime: Bool { !unconfiguredAtColdLaunch }

    /// Whether an open before the pending notification's fire time, and the close after it, change
    /// nothing but the fire time: `becameActive` finds the notification still pending, and
    /// `enteredBackground` replaces it with the same message at the same period, `nextDelay` after the
    /// close. True unless messages are picked at random (each close draws one) or the README wiring
    /// holds (a cold launch's check runs unconfigured and moves the message on). A caller may then
    /// count such sessions without calling the engine; the engine's tests hold it to this.
    @inlinable
    public var reschedulesUnchangedWhilePending: Bool { !random && !unconfiguredAtColdLaunch }

    /// Whether an open before the pending notification's fire time, and the close after it, change
    /// nothing but the fire time and, after a cold launch, the message: true under the README wiring
    /// for messages in order, periods that do not wrap and an `appDomain` of the app's own. The cold
    /// launch's check, on the singleton's defaults, does not find the notification under the default
    /// domain and records that it fired (`lastCheckSawFire`), so the close schedules the next message
    /// (the first after the last) at the same period; an open that is not a cold launch records that
    /// nothing fired, and the close schedules the same message again. A caller may then count such
    /// sessions without calling the engine; the engine's tests hold it to this.
    @inlinable
    public var movesMessageOnAtColdLaunchWhilePending: Bool {
        unconfiguredAtColdLaunch && !coldCheckSeesDomain && !random && !circular
    }

    /// The delay, in seconds, the next schedule would use from `state`.
    @inlinable
    public func nextDelay(for state: ReminderState) -> Double {
        // A state restored after the app shipped fewer periods keeps to the last one.
        periodSeconds[max(0, min(state.periodIndex, periodSeconds.count - 1))]
    }
}
