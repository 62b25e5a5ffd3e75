import Foundation
import RecordedData
import Simulation

/// A population that replays recorded users of two kinds, drawn afresh for each test that asks:
/// "daily" users visit every day at the same hour for three weeks, the others only once. Their
/// logs are made in memory, so the tests read no file.
public enum ReplayFixture {
    /// The log every scenario of this fixture replays.
    public static let source = RecordedSource(path: "replayed.log", format: .cdnow, observationEnd: "2024-03-01")

    /// 2024-01-01 12:00 UTC, the recorded users' first visit.
    static let firstVisit = 1_704_110_400.0

    /// A scenario of `users` virtual users over 14 days that all replay `source`, with a daily
    /// reminder they answer 30% of the time, and `extraSegment` users (by weight) who do not replay.
    public static func scenario(users: Int, seed: UInt64, extraSegment: Double = 0) -> Scenario {
        let session = SessionLength(medianMinutes: 1, sigma: 0.1)
        var segments = [Segment(name: "replayed", returns: .replay(source), sessionLength: session)]
        if extraSegment > 0 {
            segments.append(Segment(name: "modelled", weight: extraSegment,
                                    returns: .exponential(mean: 3, unit: .days), sessionLength: session))
        }
        let population = Population(installSpreadDays: 5, segments: segments)
        let response = ResponseModel(baseResponse: 0.3, fatigue: 1, quietHours: nil, optOutPerDelivery: 0)
        let reminder = ConfigurationSpec(label: "daily", reminders: [ReminderSpec(messages: ["A"], timePeriods: [1])])
        return Scenario(name: "replay", seed: seed, users: users, horizonDays: 14, startDate: "2026-01-05",
                        population: population, response: response, configurations: [reminder])
    }

    /// The recorded log of users who are daily (true) or visit once (false).
    public static func logs(daily: [Bool]) -> RecordedLogs {
        let users = daily.enumerated().map { u, isDaily in
            UserVisits(id: "u\(u)", visits: (0..<(isDaily ? 21 : 1)).map { firstVisit + Double($0) * 86_400 })
        }
        var logs = RecordedLogs()
        logs[source] = RecordedLog(users: users, observationEnd: firstVisit + 60 * 86_400)
        return logs
    }

    /// `count` recorded users, each daily with chance `dailyShare`, drawn from `seed` (SplitMix64).
    public static func draw(recordedUsers count: Int, dailyShare: Double, seed: UInt64) -> [Bool] {
        var state = seed
        return (0..<count).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(1 << 53) < dailyShare
        }
    }
}
