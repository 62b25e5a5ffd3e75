/// Keeps the events of a timeline, for `remindersim trace`: the first `maximumEvents` of them, so
/// that a user with an enormous timeline cannot exhaust memory, and the number left out.
public struct TimelineRecorder: TimelineObserver {
    public static let maximumEvents = 200_000
    public private(set) var events: [TimelineEvent] = []
    public private(set) var omitted = 0

    public init() {}

    public mutating func record(_ event: @autoclosure () -> TimelineEvent) {
        if events.count < Self.maximumEvents { events.append(event()) } else { omitted += 1 }
    }
}

/// One user's timeline under one configuration, produced by the batch run's own code path.
public struct UserTrace: Sendable {
    public let user: Int
    public let traits: UserTraits
    public let configurationIndex: Int
    public let events: [TimelineEvent]
    /// Events after the first `TimelineRecorder.maximumEvents`, counted but not kept.
    public let omittedEvents: Int
    /// The user reached the session limit under this configuration and was stopped there.
    public let exceededSessionLimit: Bool
    /// The counts this user adds to the configuration's tally (paired comparisons excluded).
    public let tally: Tally
}

extension CompiledModel {
    /// Simulates `user` under configuration `index` (0 is the holdout) and records every step.
    public func trace(user: Int, configuration index: Int) -> UserTrace {
        let t = traits(user: user)
        var tally = Tally(layout: layout(index))
        var scratch = TimelineScratch()
        var recorder = TimelineRecorder()
        let outcome = tally.counts.withUnsafeMutableBufferPointer { counts in
            simulate(user: user, traits: t, configuration: configurations[index], layout: layout(index),
                     counts: counts.baseAddress!, scratch: &scratch, observer: &recorder)
        }
        return UserTrace(user: user, traits: t, configurationIndex: index, events: recorder.events,
                         omittedEvents: recorder.omitted, exceededSessionLimit: outcome.exceededSessionLimit, tally: tally)
    }
}
