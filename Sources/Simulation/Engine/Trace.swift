/// Keeps every event of a timeline, for `remindersim trace`.
public struct TimelineRecorder: TimelineObserver {
    public private(set) var events: [TimelineEvent] = []

    public init() {}

    public mutating func record(_ event: @autoclosure () -> TimelineEvent) {
        events.append(event())
    }
}

/// One user's timeline under one configuration, produced by the batch run's own code path.
public struct UserTrace: Sendable {
    public let user: Int
    public let traits: UserTraits
    public let configurationIndex: Int
    public let events: [TimelineEvent]
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
        _ = tally.counts.withUnsafeMutableBufferPointer { counts in
            simulate(user: user, traits: t, configuration: configurations[index], layout: layout(index),
                     counts: counts.baseAddress!, scratch: &scratch, observer: &recorder)
        }
        return UserTrace(user: user, traits: t, configurationIndex: index, events: recorder.events, tally: tally)
    }
}
