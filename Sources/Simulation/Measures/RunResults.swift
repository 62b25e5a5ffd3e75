/// One configuration of a run with its counts and every measure derived from them.
public struct ConfigurationResult: Sendable {
    /// The configuration's position in the run's tables: 0 for the holdout, then the scenario's order.
    public let index: Int
    public let spec: ConfigurationSpec
    public let isHoldout: Bool
    public let tally: Tally
    public let metrics: ConfigurationMetrics
    /// Per message and per period, reminder by reminder.
    public let messages: [SlotMetrics]
    public let periods: [SlotMetrics]
    public let cronRules: [CronRuleMetrics]
    /// Deliveries and responses by the user's local hour, 0 to 23.
    public let hours: [HourMetrics]

    init(index: Int, spec: ConfigurationSpec, tally: Tally, isHoldout: Bool) {
        self.index = index
        self.spec = spec
        self.isHoldout = isHoldout
        self.tally = tally
        metrics = ConfigurationMetrics(label: spec.label, tally: tally, isHoldout: isHoldout)
        messages = SlotMetrics.messages(spec, tally)
        periods = SlotMetrics.periods(spec, tally)
        cronRules = CronRuleMetrics.rules(spec, tally)
        hours = (0..<24).map { HourMetrics(hour: $0, delivered: tally.hour($0, .delivered), responded: tally.hour($0, .responded)) }
    }

    public var label: String { spec.label }
}

/// The results of a run, or of one shard of a run: its scenario, its exact counts, and the measures
/// derived from them, worked out once. Storage writes this value and reads it back; reports and the
/// command line only read it.
public struct RunResults: Sendable {
    public let scenario: Scenario
    public let tallies: RunTallies
    /// The same users without any reminder.
    public let holdout: ConfigurationResult
    /// The scenario's configurations, in its order (grids expanded).
    public let configurations: [ConfigurationResult]

    /// - Precondition: `tallies` holds the holdout's tally followed by one per configuration of `scenario`.
    public init(scenario: Scenario, tallies: RunTallies) {
        let specs = scenario.expandedConfigurations
        precondition(tallies.tallies.count == specs.count + 1, "RunResults: one tally per configuration and the holdout")
        self.scenario = scenario
        self.tallies = tallies
        holdout = ConfigurationResult(index: 0, spec: .holdout, tally: tallies.tallies[0], isHoldout: true)
        configurations = specs.enumerated().map { i, spec in
            ConfigurationResult(index: i + 1, spec: spec, tally: tallies.tallies[i + 1], isHoldout: false)
        }
    }

    /// The holdout, then every configuration: the order of the run's tables.
    public var all: [ConfigurationResult] { [holdout] + configurations }

    /// Users simulated (a shard's share for a shard).
    public var users: Range<Int> { tallies.users }

    /// Sessions simulated over every configuration and the holdout.
    public var sessions: Int64 { all.reduce(0) { $0 + $1.metrics.opens } }

    /// The configurations, best first by opens gained per user over the holdout.
    public var rankedByOpensLift: [ConfigurationResult] {
        configurations.sorted {
            ($0.metrics.opensLiftPerUser?.value ?? -.infinity) > ($1.metrics.opensLiftPerUser?.value ?? -.infinity)
        }
    }
}

extension ConfigurationSpec {
    /// The configuration without reminders that every run simulates beside the scenario's own.
    public static let holdout = ConfigurationSpec(label: "holdout", reminders: [])
}

/// Notifications delivered in one local clock hour of the users, and those that brought the user back.
public struct HourMetrics: Sendable, Equatable {
    public let hour: Int
    public let delivered: Int64
    public let responded: Int64

    public var responseRate: Proportion { Proportion(responded, of: delivered) }
}
