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
    /// The longest time away, in seconds, after which a return is still a warm resume for some segment
    /// of the run's population: what the day-k notes allow for (`liftNote`).
    let warmWithin: Double

    init(index: Int, spec: ConfigurationSpec, tally: Tally, isHoldout: Bool, sums: UserSums?, replay: ReplayClustering?,
         warmWithin: Double = Segment.defaultColdLaunchAfterMinutes * 60) {
        self.warmWithin = warmWithin
        self.index = index
        self.spec = spec
        self.isHoldout = isHoldout
        self.tally = tally
        metrics = ConfigurationMetrics(label: spec.label, tally: tally, isHoldout: isHoldout, sums: sums, index: index,
                                       replay: replay)
        messages = SlotMetrics.messages(spec, tally, sums: sums, index: index)
        periods = SlotMetrics.periods(spec, tally, sums: sums, index: index)
        cronRules = CronRuleMetrics.rules(spec, tally)
        hours = (0..<24).map { HourMetrics(hour: $0, delivered: tally.hour($0, .delivered), responded: tally.hour($0, .responded)) }
    }

    public var label: String { spec.label }

    /// What to say about the retention lift at day k (see `ConfigurationSpec.liftNote`), for the run's population.
    public func liftNote(day k: Int) -> LiftNote? { spec.liftNote(day: k, warmWithin: warmWithin) }

    /// The retention lift at day k (7 or 30) unless it is zero by construction.
    public func lift(day k: Int) -> Estimate? {
        if case .zeroByConstruction = liftNote(day: k) { return nil }
        return k == 7 ? metrics.liftD7 : k == 30 ? metrics.liftD30 : nil
    }
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
    /// The holdout, then every configuration: the order of the run's tables.
    public let all: [ConfigurationResult]
    /// Every pair of configurations (and the holdout) the run's sums hold, both ways round, on the same
    /// users, in the order (configuration, reference, measure); empty for a run stored without sums
    /// over users.
    public let pairwise: [PairwiseComparison]
    /// Where the comparisons of (configuration a, reference b) start in `pairwise`, by a · K + b.
    private let pairwiseStart: [Int: Int]
    /// Every configuration's headline measures per segment, in the order (configuration, segment).
    public let segments: [SegmentMetrics]
    /// The same per platform, when the population names platforms (`segment` is then the platform's index).
    public let platforms: [SegmentMetrics]
    /// The index of the configuration others are compared with first (0: the holdout).
    public let baselineIndex: Int
    /// The recommendation the scenario's decision rule makes.
    public let decision: DecisionOutcome
    /// For a run whose population replays recorded users (and kept their totals): the intervals
    /// clustered by recorded user, which every configuration measure and paired comparison that has
    /// one uses.
    public let replay: ReplayClustering?

    /// - Precondition: `tallies` holds the holdout's tally followed by one per configuration of `scenario`.
    public init(scenario: Scenario, tallies: RunTallies) {
        let specs = scenario.expandedConfigurations
        precondition(tallies.tallies.count == specs.count + 1, "RunResults: one tally per configuration and the holdout")
        self.scenario = scenario
        self.tallies = tallies
        let sums = tallies.sums
        let replay = sums.flatMap { s in
            tallies.recordedUserSums.flatMap { ReplayClustering($0, sums: s, users: tallies.tallies[0][.users]) }
        }
        self.replay = replay
        let warmWithin = (scenario.population.segments.map(\.coldLaunchAfterMinutes).max() ?? Segment.defaultColdLaunchAfterMinutes) * 60
        holdout = ConfigurationResult(index: 0, spec: .holdout, tally: tallies.tallies[0], isHoldout: true, sums: sums,
                                      replay: replay, warmWithin: warmWithin)
        configurations = specs.enumerated().map { i, spec in
            ConfigurationResult(index: i + 1, spec: spec, tally: tallies.tallies[i + 1], isHoldout: false, sums: sums,
                                replay: replay, warmWithin: warmWithin)
        }
        let all = [holdout] + configurations
        self.all = all
        let users = holdout.metrics.users
        if let sums {
            var rows: [PairwiseComparison] = [], starts: [Int: Int] = [:]
            for (a, b) in Self.heldPairs(sums.layout) {
                starts[a * all.count + b] = rows.count
                rows += PairwiseComparison.all(a, b, sums: sums, users: users, tally: all[a].tally, replay: replay)
            }
            pairwise = rows
            pairwiseStart = starts
            // Without the detail the segments' and platforms' rows are not kept (`UserSumsLayout.keepsDetail`).
            let groups = sums.layout.keepsDetail
            segments = !groups ? [] : all.indices.flatMap { c in
                scenario.population.segments.enumerated().map { s, segment in
                    SegmentMetrics(configuration: c, segment: s, name: segment.name, sums: sums, isHoldout: c == 0)
                }
            }
            // The platforms' rows follow the segments' in the sums; numbered from 0 among themselves.
            let first = scenario.population.segments.count
            platforms = !groups ? [] : all.indices.flatMap { c in
                (scenario.population.platforms ?? []).enumerated().map { p, platform in
                    SegmentMetrics(configuration: c, segment: first + p, name: platform.name, sums: sums, isHoldout: c == 0,
                                   number: p)
                }
            }
        } else {
            pairwise = []
            pairwiseStart = [:]
            segments = []
            platforms = []
        }
        baselineIndex = scenario.baselineIndex
        decision = Self.decide(rule: scenario.effectiveDecision, baseline: baselineIndex, all: all, sums: sums, replay: replay)
    }

    /// The ordered pairs (configuration, reference) the sums hold, configuration by configuration and
    /// references ascending: every other one for a reference, the references for any other.
    static func heldPairs(_ layout: UserSumsLayout) -> [(Int, Int)] {
        let k = layout.configurations
        guard let references = layout.references else {
            return (0..<k).flatMap { a in (0..<k).filter { $0 != a }.map { (a, $0) } }
        }
        let isReference = Set(references)
        return (0..<k).flatMap { a in
            (isReference.contains(a) ? Array(0..<k) : references).filter { $0 != a }.map { (a, $0) }
        }
    }

    /// Whether the run's sums hold the pair of configurations a and b.
    public func holdsPair(_ a: Int, _ b: Int) -> Bool { tallies.sums?.layout.holds(a, b) ?? false }

    /// The comparisons of configuration `a` against `reference`, every measure; empty when the run does not hold the pair.
    public func comparisons(_ a: Int, against reference: Int) -> [PairwiseComparison] {
        guard let start = pairwiseStart[a * all.count + reference] else { return [] }
        return Array(pairwise[start..<(start + PairMeasure.allCases.count)])
    }

    /// One paired comparison, if the run holds the pair.
    public func comparison(_ a: Int, against reference: Int, _ m: PairMeasure) -> PairwiseComparison? {
        guard a >= 0, reference >= 0, a < all.count, reference < all.count,
              let start = pairwiseStart[a * all.count + reference] else { return nil }
        return pairwise[start + PairMeasure.index(m)]
    }

    /// The baseline's result.
    public var baseline: ConfigurationResult { all[baselineIndex] }

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

extension RunTallies {
    /// The references every configuration is compared with in a first pass when a run keeps the pairs its
    /// decision needs: the holdout and the baseline.
    public static func firstReferences(_ scenario: Scenario) -> [Int] { Array(Set([0, scenario.baselineIndex])).sorted() }

    /// The recommendation and the runner-up, unless among `first`, from counts whose sums hold every
    /// configuration against `first` (all the decision reads).
    func laterReferences(scenario: Scenario, first: [Int]) -> [Int] {
        let decision = RunResults(scenario: scenario, tallies: self).decision
        return Array(Set([decision.recommended, decision.runnerUp].compactMap { $0 }).subtracting(first)).sorted()
    }

    /// These counts with only the pairs a run of `.decision` pairs keeps, from sums that hold every pair
    /// (a merged sharded run, whose shards cannot know the recommendation); unchanged when the run
    /// keeps every pair or its sums hold other pairs.
    public func keepingDecisionPairs(scenario: Scenario) -> RunTallies {
        guard tallies.count - 1 > PairSet.everyPairUpTo, let sums, sums.layout.pairs == .all else { return self }
        let first = Self.firstReferences(scenario)
        guard let firstPass = sums.gathering(.against(first)) else { return self }
        var narrowed = self
        narrowed.sums = firstPass
        narrowed.recordedUserSums = recordedUserSums?.gathering(firstPass.layout)
        let references = (first + narrowed.laterReferences(scenario: scenario, first: first)).sorted()
        narrowed.sums = sums.gathering(.against(references))
        narrowed.recordedUserSums = narrowed.sums.flatMap { recordedUserSums?.gathering($0.layout) }
        return narrowed
    }
}

extension Scenario {
    /// The index of the configuration others are compared with first: the `baseline`'s, or 0 (the holdout).
    public var baselineIndex: Int {
        let specs = expandedConfigurations
        return baseline.flatMap { label in specs.firstIndex { $0.label == label }.map { $0 + 1 } } ?? 0
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
