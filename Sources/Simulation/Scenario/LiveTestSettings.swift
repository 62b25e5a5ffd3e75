/// How the team means to run the live test of a run's recommendation: the holdout's share of the
/// users, the baseline's, the test's length and the users the team has. Every field is optional;
/// `LiveTestPlan` says what each default is.
public struct LiveTestSettings: Encodable, Equatable, Sendable {
    /// Share of the test's users kept without reminders; 0 for no holdout arm. Default 0.10.
    public var holdoutShare: Double?
    /// Share of the baseline's arm when it is not the holdout; by default the recommendation and the
    /// baseline share what the holdout leaves equally.
    public var baselineShare: Double?
    /// Days the test lasts; by default the run's horizon.
    public var days: Int?
    /// Users the team can put in the test: the plan gives the smallest difference it can detect.
    public var users: Int?
    /// Days before the test whose opens CUPED uses (`PrePeriodSimulation.defaultPreDays` unless
    /// stated); 0 for no CUPED.
    public var preDays: Int?

    public init(holdoutShare: Double? = nil, baselineShare: Double? = nil, days: Int? = nil, users: Int? = nil,
                preDays: Int? = nil) {
        (self.holdoutShare, self.baselineShare, self.days, self.users) = (holdoutShare, baselineShare, days, users)
        self.preDays = preDays
    }

    /// The holdout's share unless stated.
    public static let defaultHoldoutShare = 0.10
}

extension JSONFieldReader {
    /// The scenario's `liveTest` block: shares below 1 that leave the recommendation some users.
    mutating func liveTestSettings(_ json: JSON, at path: String) -> LiveTestSettings? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let holdout = optionalField(o, "holdoutShare", Self.number(.within(0...0.99)))
        let baseline = optionalField(o, "baselineShare", Self.number(.within(0.01...0.99)))
        let days = optionalField(o, "days", Self.integer(.positive))
        let users = optionalField(o, "users", Self.integer(.positive))
        let preDays = optionalField(o, "preDays", Self.integer(.within(0...Double(PrePeriodSimulation.maximumPreDays))))
        guard let holdout, let baseline, let days, let users, let preDays else { return nil }
        if let holdout, holdout > 0, holdout < 0.01 {
            fail(o.path("holdoutShare"), "must be 0 (no holdout) or at least 0.01, got \(holdout): a smaller holdout "
                 + "could not be sized")
            return nil
        }
        if let days, days > Scenario.maximumHorizonDays {
            fail(o.path("days"), "must be at most \(Scenario.maximumHorizonDays) (the longest run), got \(days)")
            return nil
        }
        let h = holdout ?? LiveTestSettings.defaultHoldoutShare
        if let baseline, h + baseline >= 1 {
            fail(o.path("baselineShare"), "\(baseline) with a holdout share of \(h) leaves the recommendation no users; "
                 + "the shares must add up to less than 1")
            return nil
        }
        return LiveTestSettings(holdoutShare: holdout, baselineShare: baseline, days: days, users: users, preDays: preDays)
    }
}
