/// The launch counters Crontab-IOS keeps for one user.
public struct LaunchCounters: Codable, Equatable, Sendable {
    public var totalLaunches: Int
    /// Launches on `lastLaunchDay`.
    public var launchesToday: Int
    /// Distinct local days with a launch: "day 7" is the seventh day the app was opened.
    public var activeDays: Int
    /// The local calendar day of the last launch, as the caller numbers days (e.g. `YYYYMMDD`).
    public var lastLaunchDay: Int?

    @inlinable
    public init(totalLaunches: Int = 0, launchesToday: Int = 0, activeDays: Int = 0, lastLaunchDay: Int? = nil) {
        self.totalLaunches = totalLaunches
        self.launchesToday = launchesToday
        self.activeDays = activeDays
        self.lastLaunchDay = lastLaunchDay
    }

    /// Counts a cold launch on the given local day. Call it before evaluating rules.
    @inlinable
    public mutating func recordLaunch(onDay day: Int) {
        totalLaunches += 1
        if lastLaunchDay == day {
            launchesToday += 1
        } else {
            launchesToday = 1
            activeDays += 1
            lastLaunchDay = day
        }
    }
}
