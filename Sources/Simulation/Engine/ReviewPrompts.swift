/// The App Store review prompts one user was shown, as the system keeps them: Apple documents that
/// `requestReview` shows the prompt at most three times per app in 365 days, however often the app
/// asks. The cap is an extension around the cron engine, as delivery policies are around the
/// reminder engine: a marked rule's block runs (asks) as the engine says, and the log only decides
/// whether the system shows the prompt. Every marked rule of a configuration shares it.
///
/// A plain value holding the three most recent times shown in a ring, so that the loop keeps it in
/// registers and allocates nothing.
public struct ReviewPromptLog: Sendable {
    /// Prompts shown at most per window.
    public static let limit = 3
    /// The rolling window: 365 days of 86,400 s.
    public static let windowSeconds = 365.0 * 86_400

    /// The last three times shown; −∞ for none yet. Slot `oldest` holds the earliest of them.
    private var times = (-Double.infinity, -Double.infinity, -Double.infinity)
    private var oldest = 0

    public init() {}

    /// The app asks at time `t` (no earlier than any ask before): shown, and remembered, when fewer
    /// than three were shown in (t − 365 days, t], that is when the third most recent was shown 365
    /// days or more before `t`; else not shown.
    public mutating func ask(at t: Double) -> Bool {
        let third = oldest == 0 ? times.0 : oldest == 1 ? times.1 : times.2
        guard third <= t - Self.windowSeconds else { return false }
        switch oldest {
        case 0: times.0 = t
        case 1: times.1 = t
        default: times.2 = t
        }
        oldest = oldest == 2 ? 0 : oldest &+ 1
        return true
    }
}
