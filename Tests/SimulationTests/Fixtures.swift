import Foundation
import ReminderEngine
import Simulation

/// Scenarios built for tests, small and with every behaviour switched off unless asked for.
enum Fixtures {
    static let messages = ["A", "B", "C"]

    /// A one-segment population whose sessions last one second, the shortest a scenario allows.
    static func population(_ returns: ReturnProcess, dropout: Double = 0, spread: Double = 30) -> Population {
        Population(
            utcOffsets: [UTCOffsetShare(hours: 0, weight: 1)], installSpreadDays: spread,
            segments: [
                Segment(name: "only", returns: returns, dropoutPerSession: dropout,
                        sessionLength: SessionLength(medianMinutes: 1.0 / 60, sigma: 0.01))
            ])
    }

    /// `model` run twice: on `threads` threads in chunks of 97 users, then on one thread in chunks of 500
    /// with `switching(false)` in force (`switching(true)` after), to compare a shortcut's run with
    /// the run without it.
    static func runBothWays(_ model: CompiledModel, threads: Int = 2, pairs: PairChoice, detail: Bool,
                            switching: (Bool) -> Void) -> (on: RunTallies, off: RunTallies) {
        var options = RunOptions(threads: threads, chunkSize: 97, pairs: pairs)
        options.keepsDetail = detail
        let on = model.run(options: options)
        switching(false)
        defer { switching(true) }
        var one = RunOptions(threads: 1, chunkSize: 500, pairs: pairs)
        one.keepsDetail = detail
        return (on, model.run(options: one))
    }

    /// No response, no opt-out, no quiet hours: notifications fire and change nothing.
    static let inert = ResponseModel(baseResponse: 0, fatigue: 1, quietHours: nil, optOutPerDelivery: 0)

    static func scenario(
        users: Int, days: Int = 90, population: Population, response: ResponseModel = inert,
        configurations: [ConfigurationSpec], seed: UInt64 = 7
    ) -> Scenario {
        Scenario(name: "test", seed: seed, users: users, horizonDays: days, startDate: "2026-01-05",
                 population: population, response: response, configurations: configurations)
    }

    static func reminder(_ periods: [Int], unit: PeriodUnit = .days, label: String = "r",
                         mode: EngineMode = .documented, wiring: ReminderWiring? = nil,
                         rules: [CronRuleSpec] = []) -> ConfigurationSpec {
        ConfigurationSpec(label: label, mode: mode, wiring: wiring,
                          reminders: [ReminderSpec(messages: messages, timePeriods: periods, unit: unit)],
                          cronRules: rules)
    }
}
