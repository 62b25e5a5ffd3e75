import Foundation

/// The limits that keep every scenario that validates finishing in time proportional to users × days.
///
/// A person cannot open an app, use it and come back in less than about a second, so gaps and sessions
/// shorter than one second are refused outright. That alone does not bound the work: draws from a
/// heavy-tailed model (a BG/NBD user with an extreme rate, a lognormal with a huge spread) or
/// notifications answered in seconds can still pile up sessions. So a run also stops a user at
/// `maximumSessionsPerDay` sessions a day on average over the run, and the run is refused with an
/// error naming the user's segment instead of producing numbers about impossible behaviour.
extension Scenario {
    /// The shortest mean gap between sessions (the median for lognormal gaps) and the shortest median
    /// session, in seconds.
    public static let minimumGapSeconds = 1.0
    public static let minimumSessionSeconds = 1.0
    /// The shortest mean delay between a notification and the open it causes, in seconds.
    public static let minimumResponseDelaySeconds = 1.0
    /// The most sessions one user may have per day of the run, on average: one every 86 seconds,
    /// day and night. Far above real use; a run that reaches it is simulating a model, not people.
    public static let maximumSessionsPerDay = 1_000

    /// The most sessions one user may have in a run of `days` days.
    public static func sessionLimit(days: Int) -> Int { maximumSessionsPerDay * max(days, 1) }

    private static func seconds(_ s: Double) -> String { String(format: "%.3g s", s) }

    /// Problems with gaps and sessions shorter than a person can manage; nil stands for a segment that
    /// could not be read.
    static func boundIssues(segments: [Segment?]) -> [ScenarioIssue] {
        segments.enumerated().flatMap { i, segment in
            segment.map { boundIssues(session: $0.sessionLength, returns: $0.returns, at: "population.segments[\(i)]") } ?? []
        }
    }

    /// The problems of one segment's session length and return process, each checked when it could be read.
    static func boundIssues(session: SessionLength?, returns: ReturnProcess?, at p: String) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        // Compared in minutes, the field's own unit, so the schema's minimum (1/60) is the same number.
        if let session, !(session.medianMinutes >= Self.minimumSessionSeconds / 60) {
            issues.append(ScenarioIssue(
                path: "\(p).sessionLength.medianMinutes",
                reason: "must be at least 1 second (0.0167 minutes), got \(session.medianMinutes) (\(seconds(session.medianMinutes * 60)))"))
        }
        if let returns, let (field, gap, what) = Self.typicalGap(returns), !(gap >= Self.minimumGapSeconds) {
            issues.append(ScenarioIssue(
                path: field.isEmpty ? "\(p).returns" : "\(p).returns.\(field)",
                reason: "gives a \(what) gap of \(seconds(gap)); it must be at least 1 second"))
        }
        return issues
    }

    /// A response delay shorter than a person can manage.
    static func boundIssues(response: ResponseModel) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        let delay = response.responseDelayMinutes * 60
        if !(response.responseDelayMinutes >= Self.minimumResponseDelaySeconds / 60) {
            issues.append(ScenarioIssue(
                path: "response.responseDelayMinutes",
                reason: "must be at least 1 second (0.0167 minutes), got \(response.responseDelayMinutes) (\(seconds(delay)))"))
        }
        return issues
    }

    /// The field that sets a return process's scale (empty when it may be one of two), its typical gap in seconds and what kind of
    /// typical it is; nil for recorded data, whose visits are real.
    static func typicalGap(_ returns: ReturnProcess) -> (field: String, seconds: Double, what: String)? {
        switch returns {
        case let .parametric(family, values, unit):
            let typical = family.typicalGap(values)
            return (typical.field, typical.value * unit.seconds, typical.kind)
        case let .empirical(values, weights, unit):
            let w = weights ?? Array(repeating: 1, count: values.count)
            let total = w.reduce(0, +)
            guard total > 0, w.count == values.count else { return nil }
            return ("values", zip(values, w).reduce(0) { $0 + $1.0 * $1.1 } / total * unit.seconds, "mean")
        case .recordedGaps, .replay:
            return nil
        }
    }
}
