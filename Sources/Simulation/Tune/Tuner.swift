import Foundation
import RecordedData

/// Why a tune cannot start.
public struct TuneError: Error, Sendable {
    /// The scenario field at fault ("" for the whole scenario).
    public let path: String
    public let reason: String

    /// "path: reason", or the reason alone for the whole scenario.
    public var located: String { path.isEmpty ? reason : "\(path): \(reason)" }
}

/// How the race is staged, fixed by the number of candidates and the final user count alone (never
/// by timing or threads), so a tune is reproducible.
public struct TunePlan: Sendable {
    /// Candidates in the space.
    public let candidates: Int
    /// Users each stage simulates (the same users 0..<n for every candidate of a stage), the last
    /// being the final user count.
    public let stageUsers: [Int]
    /// The most candidates a stage takes: stage k takes no more than would cost what the first
    /// stage cost, and the last takes the finalists.
    public let capacity: [Int]
    /// Candidates simulated together in one run (with the holdout, the baseline and the leader).
    public let batchSize: Int
    /// The normal quantile an interval must clear to drop a candidate as clearly infeasible: one-sided
    /// 5% split over the racing stages (Bonferroni), so a candidate meeting every constraint survives
    /// every stage with probability ≥ 95% when the intervals hold. The skewed per-user opens make the
    /// normal ones cover less often at small stages, so the opens' intervals allow for skewness
    /// (`Tuner.raceInterval`; docs/scenario.md, *Tuning*, says by how much each errs).
    public let dropZ: Double
    /// Candidates simulated at the full user count: enough that some still meet the constraints when
    /// the leaders of smaller stages sat just inside a limit by chance.
    public let finalists: Int
    public static let defaultFinalists = 20
    /// Finalists re-run in the sensitivity check.
    public static let sensitivityTop = 5
    /// The smallest stage.
    public static let minimumStageUsers = 200
    /// At most this many stages.
    public static let maximumStages = 4

    /// Candidates a stage takes beyond its capacity: the configurations the scenario lists, and the leader.
    public let alwaysTaken: Int

    public init(candidates: Int, finalUsers: Int, finalists: Int = TunePlan.defaultFinalists, alwaysTaken: Int = 0) {
        self.candidates = candidates
        self.alwaysTaken = max(0, alwaysTaken)
        self.finalists = max(1, finalists)
        var users = [finalUsers]
        if candidates > self.finalists {
            while users.count < Self.maximumStages && users[0] / 4 >= Self.minimumStageUsers { users.insert(users[0] / 4, at: 0) }
            // Too few users for a smaller first stage: the race runs on up to 200 of them, then the finalists on all.
            if users.count == 1 { users.insert(min(users[0], Self.minimumStageUsers), at: 0) }
        }
        stageUsers = users
        let first = Double(candidates) * Double(users[0])
        let kept = self.finalists
        capacity = users.indices.map { k in
            if k == 0 { return candidates }
            if k == users.count - 1 { return kept }
            return max(kept, Int((first / Double(users[k])).rounded(.up)))
        }
        batchSize = 60
        let racing = max(1, users.count - 1)
        dropZ = normalQuantile(1 - 0.05 / Double(racing))
    }

    /// The normal quantile a difference from the leader must clear to drop a candidate as clearly worse
    /// at a stage that `entered` candidates entered: the stage's share of 5% split again over the
    /// `entered − 1` others any of them can be compared with. The leader is the best on the stage's
    /// own users, picked from them, so a fixed leader's guarantee does not hold; split this way it
    /// holds whoever leads: the best candidate is dropped in a paired comparison only if its difference
    /// from some other lies below that other's true difference by z standard errors, which has chance at
    /// most (entered − 1) · Φ(−z) (Bonferroni; Hsu's multiple comparisons with the best, 1981). The
    /// bounded comparisons at the stage's end, through the differences from the baseline, can add
    /// about as much again (docs/scenario.md, *Tuning*).
    public func worseZ(entered: Int) -> Double {
        let racing = max(1, stageUsers.count - 1)
        return normalQuantile(1 - 0.05 / Double(racing) / Double(max(1, entered - 1)))
    }

    /// The runs the whole tune makes at most: the racing stages' batches (every stage full), the final
    /// stage's run, the re-check, and the three sensitivity runs or, with `modelDraws`, a run per draw.
    public func runs(modelDraws: Int = 0) -> Int {
        stageUsers.indices.dropLast().reduce(0) { total, k in total + (taken(k) + batchSize - 1) / batchSize }
            + 1 + 1 + (modelDraws > 0 ? modelDraws : 3)
    }

    /// Configurations × users the whole tune simulates at most, the holdout, baseline and leader of
    /// every run included: every stage full, as if no candidate left the race early; the re-check; and
    /// the sensitivity runs or, with `modelDraws`, the finalists under each draw.
    public func simulations(modelDraws: Int = 0) -> Double {
        var total = 0.0
        for (k, n) in stageUsers.enumerated().dropLast() {
            let runs = (taken(k) + batchSize - 1) / batchSize
            total += Double(n) * Double(taken(k) + 3 * runs)
        }
        let k = stageUsers.count - 1, n = Double(stageUsers[k])
        // The final run: its candidates, the holdout and the baseline; the re-check: the winner, the
        // best listed configuration, the holdout and the baseline.
        total += n * Double(taken(k) + 2) + 4 * n
        if modelDraws > 0 { return total + Double(modelDraws) * n * Double(taken(k) + 2) }
        let top = Double(min(Self.sensitivityTop, taken(k)))
        return total + 3 * n * (top + 2)
    }

    /// The most candidates stage k can take: its capacity, and those kept whatever the capacity
    /// (`alwaysTaken`); every candidate at the first.
    func taken(_ k: Int) -> Int {
        k == 0 ? candidates : min(candidates, capacity[k] + alwaysTaken)
    }
}

/// The inverse of the standard normal distribution function, by bisection on erfc.
func normalQuantile(_ p: Double) -> Double {
    var low = -40.0, high = 40.0
    for _ in 0..<200 {
        let mid = (low + high) / 2
        if 0.5 * erfc(-mid / 2.0.squareRoot()) < p { low = mid } else { high = mid }
    }
    return (low + high) / 2
}

/// One candidate's measures in one run.
public struct CandidateFigures: Sendable {
    /// Users the figures come from.
    public let users: Int
    /// Every decision measure the run gives.
    public let measures: [DecisionMeasure: Estimate]
    /// The objective's paired difference from the baseline, when the objective has a paired measure.
    public let versusBaseline: Estimate?
    /// The moments over the run's users of the per-user differences from the holdout in opens and in
    /// notifications delivered, and from the baseline in the objective's paired measure, when the
    /// race kept its users' inputs (`PairInputStore`): its drops then allow for their skewness
    /// (`Tuner.raceInterval`).
    public var opensMoments: CentralMoments?
    public var deliveredMoments: CentralMoments?
    public var versusBaselineMoments: CentralMoments?

    public init(users: Int, measures: [DecisionMeasure: Estimate], versusBaseline: Estimate?) {
        (self.users, self.measures, self.versusBaseline) = (users, measures, versusBaseline)
    }

    public func value(_ m: DecisionMeasure) -> Double? { measures[m]?.value }
}

/// A configuration the scenario lists, and the candidate that is it: one of the space's when the
/// space holds the same configuration under another label.
public struct ListedCandidate: Equatable, Sendable {
    public let label: String
    public let candidate: Int
}

/// Why a candidate left the race before the final stage.
public struct CandidateDrop: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A constrained measure's interval at the race's z (`Tuner.raceInterval`) lies wholly beyond its limit.
        case clearlyInfeasible = "clearly_infeasible"
        /// Its difference from the leader on the objective, at the stage's z′ (`TunePlan.worseZ`), lies
        /// wholly on the worse side.
        case clearlyWorse = "clearly_worse"
        /// Not among the candidates a stage takes when more remain than it takes.
        case leftOut = "left_out"
    }

    /// How a clearly worse candidate was compared with the leader.
    public enum Comparison: String, Sendable {
        /// The paired difference of the two in the same run.
        case paired
        /// The difference of their paired differences from the baseline, its spread bounded without
        /// their covariance (they met different leaders in different runs).
        case bounded
        /// The two's own intervals, for an objective without a paired measure.
        case unpaired
    }

    public let kind: Kind
    /// The stage (0-based) it left at: the stage that dropped it, or the one that did not take it.
    public let stage: Int
    /// The sentence reports give.
    public let reason: String
    /// The constrained measure whose limit it clearly breaks.
    public var measure: DecisionMeasure?
    /// The leader it is clearly worse than, and how the two were compared.
    public var leader: Int?
    public var comparison: Comparison?
    /// The interval that decided: the constrained measure at the race's z; or, at the stage's z′, the
    /// difference candidate − leader on the objective (paired or bounded), or the candidate's own
    /// objective when unpaired.
    public var interval: Estimate?

    init(kind: Kind, stage: Int, measure: DecisionMeasure? = nil, leader: Int? = nil, comparison: Comparison? = nil,
         interval: Estimate? = nil, reason: String) {
        (self.kind, self.stage, self.reason) = (kind, stage, reason)
        (self.measure, self.leader, self.comparison, self.interval) = (measure, leader, comparison, interval)
    }
}

/// What became of one candidate.
public struct CandidateOutcome: Sendable {
    public let spec: ConfigurationSpec
    /// The last stage (0-based) that simulated it.
    public var stage: Int
    /// Why it left the race, or nil when it reached the final stage.
    public var drop: CandidateDrop?
    /// The reason it left the race, or nil when it reached the final stage.
    public var dropped: String? { drop?.reason }
    /// Its figures at its last stage.
    public var figures: CandidateFigures?
    /// Its figures at the first stage, where every candidate saw the same users.
    public var firstStage: CandidateFigures?
}

/// One stage of the race.
public struct StageSummary: Sendable {
    public let users: Int
    public var entered = 0
    /// The quantile its differences from the leader had to clear to drop a candidate as clearly worse
    /// (`TunePlan.worseZ`).
    public var worseZ = 0.0
    public var evaluated = 0
    public var infeasible = 0
    public var worse = 0
    /// Left out before the stage because more remained than it takes.
    public var overCapacity = 0
    public var seconds = 0.0
    /// Configurations × users the stage's runs simulated, and those they took from the stage before
    /// (`Tuner.keepsStageShares`).
    public var simulated = 0
    public var reused = 0
    public var survivors: Int { evaluated - infeasible - worse }
}

/// A run of a few configurations, as the tune reports it.
public struct TuneCheck: Sendable {
    public let name: String
    public let users: Int
    public let seed: UInt64
    /// Candidates in the order the rule ranks them: the admissible ones best first, then the others.
    public let ranking: [(candidate: Int, figures: CandidateFigures, admissible: Bool)]
    /// Every paired measure of the first-ranked admissible candidate (or, when none is, the first)
    /// against the baseline.
    public let versusBaseline: [PairwiseComparison]
    /// The objective's paired comparison between the top two admissible candidates.
    public let versusRunnerUp: PairwiseComparison?
    /// The candidate the comparisons with the baseline are of, and its paired comparison with every
    /// other candidate of the run on the objective's measure (it minus the other).
    public let subject: Int?
    public let subjectVersus: [Int: PairwiseComparison]
    /// The baseline's own figures in this run.
    public let baseline: CandidateFigures

    public var winner: Int? { ranking.first(where: \.admissible)?.candidate }

    /// A candidate's figures in this run.
    public func figures(of c: Int) -> CandidateFigures? { ranking.first { $0.candidate == c }?.figures }
    /// Whether a candidate meets every constraint in this run.
    public func admits(_ c: Int) -> Bool { ranking.first { $0.candidate == c }?.admissible ?? false }
}

/// Progress of a tune, for a progress line.
public struct TuneProgress: Sendable {
    public let stage: Int
    public let stages: Int
    public let users: Int
    public let evaluated: Int
    public let entered: Int
    /// Candidates still in the race.
    public let left: Int
    /// Configurations × users simulated so far, and at most in all.
    public let simulated: Double
    public let planned: Double
    /// What the tune is doing when past the race ("final", "re-check", "sensitivity").
    public let phase: String
}

/// Everything a tune found.
public struct TuneResult: Sendable {
    public let scenario: Scenario
    public let plan: TunePlan
    public let baseline: ConfigurationSpec
    public let rule: DecisionRule
    public let candidates: [CandidateOutcome]
    /// How many candidates each part of the space gave, then the listed configurations.
    public let parts: [TunePart]
    /// The configurations listed in the scenario (the baseline among them) and their candidates.
    public let listed: [ListedCandidate]
    public let stages: [StageSummary]
    /// The finalists at the full user count, ranked.
    public let final: TuneCheck
    /// The winner against the baseline, and the best listed configuration that met every constraint
    /// at the final stage, on fresh users.
    public let recheck: TuneCheck?
    /// The finalists with the response model changed.
    public let sensitivity: [TuneCheck]
    /// Configurations × users simulated.
    public let simulated: Double
    /// Configurations × users a racing stage took from the stage before rather than simulate again
    /// (`Tuner.keepsStageShares`).
    public internal(set) var reused = 0.0
    /// The finalists (candidates, in the final ranking's order) and the decision under the response
    /// model's draws, on the final users; nil when no draws were asked for. In the decision's
    /// positions, 1 is the baseline and j + 2 the finalist `members[j]`.
    public internal(set) var modelDraws: (members: [Int], decision: UncertainDecision)? = nil

    public var winner: Int? { final.winner }
    /// Whether the winner is a configuration the scenario lists.
    public var winnerIsListed: Bool { winner.map { w in listed.contains { $0.candidate == w } } ?? false }
    /// The listed configuration that ranks first among those meeting every constraint at the final stage.
    public var bestListed: Int? {
        final.ranking.first { x in x.admissible && listed.contains { $0.candidate == x.candidate } }?.candidate
    }
}

/// Searches a scenario's tune space by racing with common random numbers.
///
/// Stage k simulates every remaining candidate on the same users 0..<n_k (with the holdout, the
/// baseline and the current leader in every run, so differences to them are paired per user). A
/// candidate leaves when its interval at `TunePlan.dropZ` lies beyond a constraint's limit, or when
/// its paired difference from the leader at the stage's `TunePlan.worseZ` lies wholly on the worse
/// side (intervals of opens and notifications allowing for skewness, `raceInterval`). The finalists
/// run together at the full user count; the winner is re-checked on other users (another seed).
/// Every run's counts are integers summed over users, so the outcome does not depend on threads.
public struct Tuner: Sendable {
    public let scenario: Scenario
    public let spec: TuneSpec
    /// The rule's constraints in measure order, worked out once: every candidate is checked against them.
    let constraints: [(measure: DecisionMeasure, bound: DecisionBound)]
    public let baseline: ConfigurationSpec
    public let candidates: [ConfigurationSpec]
    /// How many candidates each part of the space gave, then the listed configurations.
    public let parts: [TunePart]
    /// The configurations listed in the scenario and their candidates: never left out for want of
    /// places, dropped only when clearly infeasible or clearly worse.
    public let listed: [ListedCandidate]
    public let plan: TunePlan
    public var threads: Int
    /// The recorded logs the scenario's segments name, read by the caller.
    public var recorded: RecordedLogs
    /// Draws of the response model the finalists are simulated under after the final stage, in place
    /// of the sensitivity runs; 0 for none.
    public var modelDraws = 0
    /// Whether a racing batch keeps its users' pair inputs to pair a new leader (`PairInputStore`)
    /// rather than run its users again; the outcome is the same either way.
    public var keepsPairInputs = true
    /// Whether the runs on the race's seed keep each user's holdout run for the next (`HoldoutCache`)
    /// rather than run it again in every batch; the outcome is the same either way.
    public var keepsHoldouts = true
    /// Whether each racing stage keeps what it counted of the candidates that go on (`StageShares`),
    /// so that the next stage simulates only its users beyond the stage's; the outcome is the same
    /// either way.
    public var keepsStageShares = true

    /// Checks the scenario's tune block and lays out the race for `scenario.users` final users.
    public init(scenario: Scenario, threads: Int, recorded: RecordedLogs = RecordedLogs(),
                finalists: Int = TunePlan.defaultFinalists) throws(TuneError) {
        guard let spec = scenario.tune else {
            throw TuneError(path: "tune", reason: "the scenario has no \"tune\" block; docs/scenario.md shows one")
        }
        guard let baseline = scenario.tuneBaseline else {
            throw TuneError(path: "tune.baseline", reason: "the scenario has no configuration to use as the baseline")
        }
        let raw = spec.space.rawCount
        if raw > TuneSpec.maximumCandidates * 4 {
            let lists = spec.space.timePeriodsRawCount
            let shares = [(lists, "timePeriods lists", "space.periods or space.sequenceLength"),
                         (spec.space.sequenceAndMixCount, "sequences and mixes", "space.sequences or space.mix")]
            let largest = shares.max { $0.0 < $1.0 } ?? shares[0]
            throw TuneError(path: "tune.space", reason: "holds \(raw == Int.max ? "too many" : Self.grouped(raw)) candidates before "
                + "alike ones are merged, most of them \(largest.1); at most \(Self.grouped(TuneSpec.maximumCandidates)) can be raced: "
                + "narrow \(largest.2)")
        }
        var candidates = spec.space.candidates(baseline: baseline)
        var parts: [TunePart] = []
        if spec.space.periods != nil { parts.append(TunePart(name: "timePeriods", candidates: candidates.count)) }
        if spec.space.sequences != nil {
            let sequences = spec.space.sequenceCandidates(baseline: baseline)
            parts.append(TunePart(name: "sequences", candidates: sequences.count))
            candidates += sequences
        }
        if spec.space.mix != nil {
            let mixes = spec.space.mixCandidates(baseline: baseline)
            parts.append(TunePart(name: "mix", candidates: mixes.count))
            candidates += mixes
        }
        if candidates.isEmpty { throw TuneError(path: "tune.space", reason: "holds no candidate") }
        let listed = Self.addListed(scenario.expandedConfigurations, to: &candidates)
        parts.append(TunePart(name: "listed", candidates: listed.count))
        if candidates.count > TuneSpec.maximumCandidates {
            let largest = parts.max { $0.candidates < $1.candidates }?.name ?? "timePeriods"
            let field = ["timePeriods": "space.periods or space.sequenceLength", "sequences": "space.sequences",
                         "mix": "space.mix", "listed": "the configurations listed"][largest] ?? "the space"
            throw TuneError(path: "tune.space", reason: "holds \(Self.grouped(candidates.count)) candidates; at most "
                + "\(Self.grouped(TuneSpec.maximumCandidates)) can be raced: narrow \(field)")
        }
        self.scenario = scenario
        self.spec = spec
        constraints = spec.rule.orderedConstraints
        self.baseline = baseline
        self.candidates = candidates
        self.parts = parts
        self.listed = listed
        plan = TunePlan(candidates: candidates.count, finalUsers: scenario.users, finalists: finalists,
                        alwaysTaken: listed.count + 1)
        self.threads = max(1, threads)
        self.recorded = recorded
    }

    /// Adds the listed configurations to the candidates: one the space already holds (the same in
    /// everything but its label) is that candidate, another is added at the end. Returns, in the
    /// scenario's order, each listed label with its candidate.
    static func addListed(_ listed: [ConfigurationSpec], to candidates: inout [ConfigurationSpec]) -> [ListedCandidate] {
        func unlabelled(_ c: ConfigurationSpec) -> ConfigurationSpec {
            var c = c
            c.label = ""
            return c
        }
        return listed.map { config in
            let bare = unlabelled(config)
            if let i = candidates.firstIndex(where: { unlabelled($0) == bare }) {
                return ListedCandidate(label: config.label, candidate: i)
            }
            // A listed configuration named as a different one of the space is told apart from it in every
            // table and sentence of the tune: "2d (listed)".
            var added = config
            var n = 1
            while candidates.contains(where: { $0.label == added.label }) {
                n += 1
                added.label = config.label + (n == 2 ? " (listed)" : " (listed \(n - 1))")
            }
            candidates.append(added)
            return ListedCandidate(label: config.label, candidate: candidates.count - 1)
        }
    }

    /// The seed of the re-check: the scenario's with bit 52 flipped, so its users are others.
    public var recheckSeed: UInt64 { Self.recheckSeed(scenario.seed) }
    public static func recheckSeed(_ seed: UInt64) -> UInt64 { seed ^ (1 << 52) }

    /// The objective's paired measure, when a difference of it between two configurations is the
    /// difference of their objectives.
    var pairedMeasure: PairMeasure? {
        switch spec.rule.objective {
        case .opensLiftPerUser: return .opensPerUser
        case .liftD7, .retentionD7: return .retentionD7
        case .liftD30, .retentionD30: return .retentionD30
        case .optOutRate: return .optOutRate
        case .deliveredPerUser: return .deliveredPerUser
        case .deliveredPerExtraOpen, .triggerRate, .responseRate: return nil
        }
    }

    /// The results of one run of `specs` beside the baseline, and the run's index of each spec.
    struct Batch {
        let results: RunResults
        func index(_ k: Int) -> Int { k + 2 }
        let baselineIndex = 1
        /// The users taken from the stage before (`StageShares`) rather than simulated: 0..<reused.
        var reused = 0
    }

    /// A run of `specs` beside the baseline. `references`: the run's configurations (as `Batch.index`
    /// numbers them, the baseline 1) every configuration is compared with, besides the holdout; nil
    /// for every pair.
    ///
    /// With `shares` holding every configuration of the run under `keys` (the holdout's, the
    /// baseline's, then the specs'), users 0..<shares.users are taken from there and only the others
    /// simulated; the counts are the same (see `StageShares`). A user past the session limit is an
    /// error naming the run (`look`) and the configuration by its own label.
    func simulate(_ specs: [ConfigurationSpec], users: Int, seed: UInt64, response: ResponseModel,
                  references: [Int]? = nil, keepsDetail: Bool = true, pairInputs: PairInputStore? = nil,
                  holdouts: HoldoutCache? = nil, shares: StageShares? = nil, keys: [Int] = [], look: String,
                  progress: @escaping @Sendable (Int) -> Void) throws(TuneError) -> Batch {
        var s = scenario
        var base = baseline
        base.label = "baseline"
        s.configurations = [base] + specs.enumerated().map { k, c in
            var c = c
            c.label = "candidate \(k + 1)"
            return c
        }
        s.grid = nil
        s.baseline = "baseline"
        s.decision = spec.rule
        s.tune = nil
        s.users = users
        s.seed = seed
        s.response = response
        let model: CompiledModel
        do {
            model = try CompiledModel(s, recorded: recorded)
        } catch let error as ScenarioError {
            let first = error.issues.first
            throw TuneError(path: first?.path ?? "", reason: first?.reason ?? "cannot be simulated")
        } catch let error as RecordedDataError {
            throw TuneError(path: "", reason: error.description)
        } catch {
            throw TuneError(path: "", reason: "cannot be simulated")
        }
        // Chunks small enough that the threads finish a batch together: a racing batch is short.
        let chunk = max(16, min(2_048, users / (threads * 16)))
        var options = RunOptions(threads: threads, users: 0..<users, chunkSize: chunk, progress: progress,
                                 pairs: references.map { .references($0) } ?? .all)
        options.keepsDetail = keepsDetail
        options.pairInputs = pairInputs
        options.holdoutCache = holdouts
        // The users kept by the stage before, as a run of them would count them, in this run's layouts.
        var prefix: RunTallies?
        if let shares, shares.users <= users, keys.count == model.configurations.count {
            var pairs: PairSet?
            switch options.pairs {
            case let .references(r): pairs = .against(Set([0] + r.filter { model.configurations.indices.contains($0) }).sorted())
            case .all: pairs = .all
            case .decision: pairs = nil
            }
            prefix = pairs.flatMap { shares.tallies(keys, layouts: model.configurations.indices.map { model.layout($0) },
                                                    sums: model.userSumsLayout(pairs: $0, keepsDetail: keepsDetail)) }
        }
        if let prefix {
            shares?.fill(pairInputs, keys: keys)
            options.users = prefix.users.upperBound..<users
        }
        var tallies = model.run(options: options)
        if let breach = tallies.sessionLimitBreach {
            // The run's labels are its own ("baseline", "candidate k"): the user's are the specs'.
            let label = breach.configuration == 1 ? baseline.label
                : specs.indices.contains(breach.configuration - 2) ? specs[breach.configuration - 2].label : nil
            throw TuneError(path: "", reason: "in \(look), " + model.explain(breach, label: label))
        }
        if var whole = prefix {
            guard whole.sums?.layout == tallies.sums?.layout else {
                return try simulate(specs, users: users, seed: seed, response: response, references: references, keepsDetail: keepsDetail,
                                    pairInputs: pairInputs, holdouts: holdouts, look: look, progress: progress)
            }
            whole.merge(tallies)
            whole.users = 0..<users
            tallies = whole
        }
        return Batch(results: RunResults(scenario: s, tallies: tallies), reused: prefix?.users.count ?? 0)
    }

    /// What the race costs on this machine, measured by `cost()`.
    public struct Cost: Sendable {
        /// Wall seconds per configuration × user of a racing batch.
        public var perSimulation: Double
        /// Wall seconds a run costs whatever its users (setting it up, starting its threads): what the
        /// smallest timed batch took beyond its users' work at `perSimulation`; 0 when only one batch was
        /// timed (its setting up is then in `perSimulation`).
        public var perRun: Double
        /// The users of the batch `perSimulation` was read from.
        public var users: Int

        /// The plan's runs and configuration-users at these costs, with `modelDraws` draws of the
        /// response model after the final stage.
        public func seconds(_ plan: TunePlan, modelDraws: Int) -> Double {
            perSimulation * plan.simulations(modelDraws: modelDraws) + perRun * Double(plan.runs(modelDraws: modelDraws))
        }
    }

    /// A timed batch long enough to be read: shorter ones are mostly setting up.
    public static let calibrationSeconds = 0.1

    /// The race's costs here, timed on racing batches on this tuner's threads: up to
    /// `plan.batchSize` candidates taken evenly across the space, with the holdout and the baseline, on
    /// the race's first 16 users, then four times as many each time until a batch takes
    /// `calibrationSeconds` or runs the first stage's users. The configurations of a tune ride on one
    /// holdout, so a run of the scenario's own few configurations would cost each several times more;
    /// and a small batch is mostly setting up, so one is not enough.
    public func cost() throws(TuneError) -> Cost {
        let count = min(plan.batchSize, candidates.count)
        let picked = (0..<count).map { candidates[$0 * candidates.count / count] }
        let limit = max(1, plan.stageUsers.first ?? 1)
        var users = min(16, limit)
        var smallest: (users: Int, seconds: Double)?
        while true {
            let started = DispatchTime.now()
            _ = try simulate(picked, users: users, seed: scenario.seed, response: scenario.response, references: [1],
                             keepsDetail: false, look: "the run that times a racing batch (\(Self.grouped(users)) users)") { _ in }
            let took = Self.seconds(since: started)
            if took >= Self.calibrationSeconds || users >= limit {
                let perSimulation = took / Double(users * (count + 2))
                let setUp = smallest.map { max(0, $0.seconds - perSimulation * Double($0.users * (count + 2))) } ?? 0
                return Cost(perSimulation: perSimulation, perRun: setUp, users: users)
            }
            if smallest == nil { smallest = (users, took) }
            users = min(limit, users * 4)
        }
    }

    /// Configuration i's figures in `batch`, with the moments its drops read (see `raceInterval`)
    /// when `moments` holds them.
    func figures(_ batch: Batch, _ i: Int, moments: BatchMoments? = nil) -> CandidateFigures {
        let r = batch.results.all[i]
        var measures: [DecisionMeasure: Estimate] = [:]
        for m in DecisionMeasure.allCases { if let e = r.estimate(m) { measures[m] = e } }
        let vs = pairedMeasure.flatMap { batch.results.comparison(i, against: batch.baselineIndex, $0)?.difference }
        var f = CandidateFigures(users: batch.results.users.count, measures: measures, versusBaseline: vs)
        f.opensMoments = moments?.opens?[i]
        f.deliveredMoments = moments?.delivered?[i]
        f.versusBaselineMoments = moments?.versusBaseline?[i]
        return f
    }

    /// Per configuration of a racing batch, the moments of its users' differences the race reads
    /// (`PairInputStore.differenceMoments`): from the holdout in opens when a constraint reads the
    /// opens lift, in notifications delivered when one reads them per user, and from the baseline in
    /// the objective's paired measure.
    struct BatchMoments {
        var opens: [CentralMoments]?
        var delivered: [CentralMoments]?
        var versusBaseline: [CentralMoments]?
    }

    func moments(_ store: PairInputStore, baseline: Int) -> BatchMoments {
        let read = Set(constraints.map(\.measure))
        // Read in one pass over the store; a request the race does not need is of a measure without moments.
        let none = PairMeasure.optOutRate
        let m = store.differenceMoments([
            (0, read.isDisjoint(with: [.opensLiftPerUser, .deliveredPerExtraOpen]) ? none : .opensPerUser),
            (0, read.contains(.deliveredPerUser) ? .deliveredPerUser : none),
            (baseline, pairedMeasure ?? none),
        ])
        return BatchMoments(opens: m[0], delivered: m[1], versusBaseline: m[2])
    }

    /// The interval at normal quantile `z` the race reads a candidate's measure `m` by. For the opens
    /// lift, notifications delivered per user and per extra open, when the figures hold the moments
    /// of the per-user differences behind them, Hall's skewness-corrected interval of their mean
    /// (`CentralMoments.interval`): the normal interval misses the mean of these skewed differences on
    /// its upper side several times as often as its level says at the race's first stages, so the
    /// race dropped candidates whose lift was good. Otherwise the figures' 95% interval widened to z.
    /// `skewed` says which.
    func raceInterval(_ f: CandidateFigures, _ m: DecisionMeasure, z: Double) -> (interval: Estimate, skewed: Bool)? {
        switch m {
        case .opensLiftPerUser:
            if let e = f.opensMoments?.interval(z: z) { return (e, true) }
        case .deliveredPerUser:
            if let e = f.deliveredMoments?.interval(z: z) { return (e, true) }
        case .deliveredPerExtraOpen:
            if let lift = f.opensMoments?.interval(z: z), let value = f.value(.deliveredPerExtraOpen),
               let perUser = f.value(.deliveredPerUser) {
                return (Estimate.deliveredPerExtraOpen(value, perUser: perUser, lift: lift), true)
            }
        default:
            break
        }
        return f.measures[m].map { (Self.widened($0, z: z), false) }
    }

    /// Meets every constraint on the estimates (the decision rule's test).
    func admissible(_ f: CandidateFigures) -> Bool {
        spec.rule.constraints.allSatisfy { m, b in f.value(m).map(b.admits) ?? false }
    }

    /// Admissible first, each part best on the objective first (a candidate without it last), ties to
    /// the earlier candidate. Each candidate's admissibility and objective are read once, not at every
    /// comparison of the sort.
    func ranked(_ items: [(Int, CandidateFigures)]) -> [(Int, CandidateFigures)] {
        let o = spec.rule.objective
        let worst = o.higherIsBetter ? -Double.infinity : Double.infinity
        let keys = items.map { (admissible: admissible($0.1), value: $0.1.value(o) ?? worst) }
        let order = items.indices.sorted { i, j in
            let (a, b) = (keys[i], keys[j])
            if a.admissible != b.admissible { return a.admissible }
            if a.value != b.value { return o.higherIsBetter ? a.value > b.value : a.value < b.value }
            return items[i].0 < items[j].0
        }
        return order.map { items[$0] }
    }

    static let shortlistRule = "half the best by estimate meeting the constraints, then the best whose 95% intervals "
        + "lie within every limit"

    /// The `capacity` candidates a stage takes: half of them the best on the estimates (those meeting
    /// every constraint first), the rest the best of those whose 95% intervals lie within every limit,
    /// then the next best on the estimates. The best on the estimates sit at a limit when the objective
    /// and a constrained measure grow together, and half of them cross it on more users; the others
    /// keep candidates that will still meet the constraints. Those in `kept` (the listed
    /// configurations and the leader) are taken beyond the capacity. In the estimates' order.
    func shortlist(_ alive: [Int], _ capacity: Int, _ outcomes: [CandidateOutcome], keeping kept: Set<Int> = []) -> [Int] {
        let items = alive.map { ($0, outcomes[$0].figures!) }
        let byEstimate = ranked(items).map(\.0)
        let safe = ranked(items.filter { clearlyAdmissible($0.1) }).map(\.0)
        var chosen = Set(byEstimate.prefix((capacity + 1) / 2))
        for c in safe where chosen.count < capacity { chosen.insert(c) }
        for c in byEstimate where chosen.count < capacity { chosen.insert(c) }
        return byEstimate.filter { chosen.contains($0) || kept.contains($0) }
    }

    /// Every constrained measure's interval at z (`raceInterval`) lies within its bound.
    func clearlyAdmissible(_ f: CandidateFigures, z: Double = z95) -> Bool {
        constraints.allSatisfy { m, b in
            guard let e = raceInterval(f, m, z: z)?.interval else { return false }
            return (b.min.map { e.low >= $0 } ?? true) && (b.max.map { e.high <= $0 } ?? true)
        }
    }

    /// A whole number with its thousands grouped by commas, as the reports write counts: 12,500.
    static func grouped(_ n: Int) -> String { TextLimit.grouped(n) }

    /// The two-sided level of an interval widened to the race's z, as its drops say it: "96.7%".
    var dropLevel: String { Self.level(plan.dropZ) }

    /// The two-sided level of a normal interval of half-width z standard errors.
    static func level(_ z: Double) -> String {
        let covered = 100 * erf(z / 2.0.squareRoot())
        let shown = String(format: "%.1f%%", covered)
        return shown == "100.0%" ? String(format: "%.3f%%", min(covered, 99.999)) : shown
    }

    /// An interval widened from 95% to `z`.
    static func widened(_ e: Estimate, z: Double) -> Estimate {
        let f = z / z95
        return Estimate(value: e.value, low: e.value - (e.value - e.low) * f, high: e.value + (e.high - e.value) * f)
    }

    /// The first constraint a candidate clearly breaks at stage k, as its drop.
    func clearlyInfeasible(_ f: CandidateFigures, stage k: Int) -> CandidateDrop? {
        for (m, b) in constraints {
            guard let (w, skewed) = raceInterval(f, m, z: plan.dropZ) else { continue }
            var beyond: String?
            if let max = b.max, w.low > max {
                beyond = "above its max \(Self.show(max, m))"
            } else if let min = b.min, w.high < min {
                beyond = "below its min \(Self.show(min, m))"
            }
            if let beyond {
                let skew = skewed ? ", allowing for skewness" : ""
                return CandidateDrop(kind: .clearlyInfeasible, stage: k, measure: m, interval: w,
                                     reason: "clearly infeasible at \(Self.grouped(f.users)) users: \(m.rawValue) \(Self.show(w, m)) "
                                         + "(\(dropLevel) interval\(skew)) lies \(beyond)")
            }
        }
        return nil
    }

    /// Whether a difference (candidate − leader, at the stage's z′) lies wholly on the worse side.
    func clearlyWorse(_ d: Estimate) -> Bool {
        spec.rule.objective.higherIsBetter ? d.high < 0 : d.low > 0
    }

    static func show(_ e: Estimate, _ m: DecisionMeasure) -> String { "\(show(e.value, m)) [\(show(e.low, m)), \(show(e.high, m))]" }
    static func show(_ x: Double, _ m: DecisionMeasure) -> String {
        guard x.isFinite else { return x > 0 ? "∞" : "−∞" }
        return m.isFraction ? String(format: "%.2f%%", 100 * x) : String(format: "%.3f", x)
    }

    /// What the race keeps from one step to the next.
    struct Race {
        var outcomes: [CandidateOutcome]
        /// Candidates still in the race, in the order the next stage takes them.
        var alive: [Int]
        /// The best candidate that clearly meets every constraint, once one does.
        var leader: Int?
        var stages: [StageSummary] = []
        /// What the stage before counted of the candidates still racing, and the holdout and the
        /// baseline, on its users (`StageShares`), for this stage to take; and what this stage keeps
        /// for the next.
        var shares: StageShares?
        var nextShares: StageShares?
    }

    /// One racing stage while it runs.
    struct StageState {
        var summary: StageSummary
        /// Candidates of the stage not dropped so far.
        var remaining: Set<Int>
        var evaluated = Set<Int>()
        /// The quantile the stage's differences from the leader must clear (`TunePlan.worseZ`).
        var worseZ: Double { summary.worseZ }

        /// Drops `c` as clearly worse than the leader.
        mutating func dropWorse(_ c: Int, _ drop: CandidateDrop, _ race: inout Race) {
            race.outcomes[c].drop = drop
            summary.worse += 1
            remaining.remove(c)
        }
    }

    /// Counts configurations × users simulated, from worker threads, and reports progress.
    struct Meter: Sendable {
        let done = SimulatedCounter()
        /// Configurations × users taken from the stage before rather than simulated.
        let reused = SimulatedCounter()
        let planned: Double
        let progress: (@Sendable (TuneProgress) -> Void)?
        /// The users' holdout runs kept from batch to batch and stage to stage (see `keepsHoldouts`).
        var holdouts: HoldoutCache?
    }

    /// Runs the race, the re-check and the sensitivity runs.
    public func run(progress: (@Sendable (TuneProgress) -> Void)? = nil) throws(TuneError) -> TuneResult {
        var meter = Meter(planned: plan.simulations(modelDraws: modelDraws), progress: progress)
        if keepsHoldouts { meter.holdouts = HoldoutCache(for: scenario, users: plan.stageUsers.last ?? 0) }
        defer { meter.holdouts?.deallocate() }
        var race = Race(outcomes: candidates.map { CandidateOutcome(spec: $0, stage: -1, drop: nil, figures: nil, firstStage: nil) },
                        alive: Array(candidates.indices))
        for k in plan.stageUsers.indices.dropLast() {
            try runStage(k, &race, meter)
        }
        let final = try runFinalStage(&race, meter)
        var recheck: TuneCheck?
        if let w = final.winner {
            // The best listed configuration beside the winner, so the two meet again on users the race never saw.
            let listedBest = final.ranking.first { x in x.admissible && listed.contains { $0.candidate == x.candidate } }?.candidate
            let members = [w] + (listedBest.map { $0 == w ? [] : [$0] } ?? [])
            recheck = try check(DecisionSecondLook.recheck, members, users: final.users, seed: recheckSeed, response: scenario.response,
                                meter: meter, subject: w)
        }
        let sensitivity = modelDraws > 0 ? [] : try sensitivityChecks(final, meter)
        let draws = try modelDrawCheck(final, meter)
        var result = TuneResult(scenario: scenario, plan: plan, baseline: baseline, rule: spec.rule, candidates: race.outcomes,
                                parts: parts, listed: listed, stages: race.stages, final: final, recheck: recheck,
                                sensitivity: sensitivity, simulated: meter.done.value)
        result.modelDraws = draws
        result.reused = meter.reused.value
        return result
    }

    /// Leaves out, before stage k, the candidates beyond the most it takes (see `shortlist`); says
    /// whether any were.
    func leaveOutBeyondCapacity(_ k: Int, _ race: inout Race, _ summary: inout StageSummary) -> Bool {
        let capacity = plan.capacity[k]
        guard race.alive.count > capacity else { return false }
        let kept = Set(listed.map(\.candidate)).union(race.leader.map { [$0] } ?? []).intersection(race.alive)
        let keep = shortlist(race.alive, capacity, race.outcomes, keeping: kept)
        let place = k == plan.stageUsers.count - 1 ? "go to the final stage" : "stage \(k + 1) takes"
        for c in race.alive where !keep.contains(c) {
            race.outcomes[c].drop = CandidateDrop(kind: .leftOut, stage: k,
                                                  reason: "not among the \(Self.grouped(keep.count)) that \(place) (\(Self.shortlistRule))")
        }
        summary.overCapacity = race.alive.count - keep.count
        race.alive = keep
        return true
    }

    /// Racing stage k: the candidates it takes, simulated in batches on its users; the clearly
    /// infeasible and the clearly worse leave the race.
    func runStage(_ k: Int, _ race: inout Race, _ meter: Meter) throws(TuneError) {
        let started = DispatchTime.now()
        var summary = StageSummary(users: plan.stageUsers[k])
        if !leaveOutBeyondCapacity(k, &race, &summary) && k > 0 {
            race.alive = ranked(race.alive.map { ($0, race.outcomes[$0].figures!) }).map(\.0)
        }
        summary.entered = race.alive.count
        summary.worseZ = plan.worseZ(entered: summary.entered)
        let always: Set<Int> = [StageShares.holdout, StageShares.baseline]
        race.shares?.keepOnly(always.union(race.alive))
        // The next stage takes what this one counts (the final stage too).
        race.nextShares = keepsStageShares && keepsPairInputs ? StageShares(users: plan.stageUsers[k], threads: threads) : nil
        var stage = StageState(summary: summary, remaining: Set(race.alive))
        var queue = race.alive.filter { $0 != race.leader }
        while !queue.isEmpty {
            let batch = Array(queue.prefix(plan.batchSize))
            queue.removeFirst(batch.count)
            try runBatch(batch, stage: k, &race, &stage, meter)
        }
        dropWorseThanLastLeader(stage: k, &race, &stage)
        stage.summary.evaluated = stage.evaluated.count
        stage.summary.seconds = Self.seconds(since: started)
        race.stages.append(stage.summary)
        race.alive = race.alive.filter { stage.remaining.contains($0) }
        race.shares = race.nextShares
        race.nextShares = nil
        race.shares?.keepOnly(always.union(race.alive))
    }

    /// One run of a racing stage: `batch` with the leader, the holdout and the baseline. Drops the
    /// clearly infeasible, picks the leader again, and drops what is clearly worse than it.
    func runBatch(_ batch: [Int], stage k: Int, _ race: inout Race, _ stage: inout StageState,
                  _ meter: Meter) throws(TuneError) {
        let n = plan.stageUsers[k]
        let members = (race.leader.map { [$0] } ?? []) + batch
        let stages = plan.stageUsers.count
        let (width, soFar, entered, left) = (members.count + 2, stage.evaluated.count, stage.summary.entered, stage.remaining.count)
        let report: @Sendable (Int) -> Void = { users in
            let total = meter.done.add(Double(users * width)) + meter.reused.value
            meter.progress?(TuneProgress(stage: k + 1, stages: stages, users: n, evaluated: soFar, entered: entered,
                                         left: left, simulated: total, planned: meter.planned, phase: "race"))
        }
        // A racing batch reads each candidate against the baseline and the leader (the first member)
        // only, and configuration-level estimates only.
        let references = [1] + (race.leader == nil ? [] : [2])
        // Each user's pair inputs, kept where they fit in memory: the moments the drops read (see
        // `raceInterval`), and to pair a new leader without running again.
        let store = PairInputStore(users: 0..<n, configurations: members.count + 2)
        // The configurations as `StageShares` knows them.
        let keys = [StageShares.holdout, StageShares.baseline] + members
        let run = try simulate(members.map { candidates[$0] }, users: n, seed: scenario.seed, response: scenario.response,
                               references: references, keepsDetail: false, pairInputs: store, holdouts: meter.holdouts,
                               shares: race.shares, keys: keys, look: "stage \(k + 1) (\(Self.grouped(n)) users)", progress: report)
        _ = meter.reused.add(Double(run.reused * width))
        stage.summary.simulated += (n - run.reused) * width
        stage.summary.reused += run.reused * width
        defer {
            // What the next stage takes of those still racing once the batch has dropped its own; the
            // batch's shares of the stage before are used up, but for the leader's, which serves
            // every batch after (a leader that gives way never comes back: it is in no later batch).
            if let next = race.nextShares {
                next.keep(keys.enumerated().filter { i, key in i < 2 || stage.remaining.contains(key) }.map { ($1, $0) },
                          of: run.results.tallies, store: store)
                // Only those the next stage can take are worth their memory, and no more than fit:
                // the shortlist of the kept, or, when fewer fit, the best of them on the estimates (the
                // next stage runs its candidates in that order). The leader serves every run.
                let kept = next.keys.filter { $0 >= 0 }
                let (capacity, fitting) = (plan.capacity[k + 1], next.fitting)
                if kept.count > min(capacity, fitting) {
                    let chosen = capacity <= fitting
                        ? shortlist(kept.sorted(), capacity, race.outcomes,
                                    keeping: Set(listed.map(\.candidate)).union(race.leader.map { [$0] } ?? []))
                        : ranked(kept.sorted().map { ($0, race.outcomes[$0].figures!) }).prefix(max(0, fitting - 1)).map(\.0)
                            + (race.leader.map { [$0] } ?? [])
                    next.keepOnly(Set(chosen).union([StageShares.holdout, StageShares.baseline]))
                }
            }
            for c in members where c != race.leader { race.shares?.remove(c) }
        }
        var here: [Int: Int] = [:]
        let moments = store.map { self.moments($0, baseline: run.baselineIndex) }
        for (j, c) in members.enumerated() {
            here[c] = run.index(j)
            let f = figures(run, run.index(j), moments: moments)
            race.outcomes[c].figures = f
            race.outcomes[c].stage = k
            if k == 0 { race.outcomes[c].firstStage = f }
            stage.evaluated.insert(c)
        }
        for c in batch {
            if let drop = clearlyInfeasible(race.outcomes[c].figures!, stage: k) {
                race.outcomes[c].drop = drop
                stage.summary.infeasible += 1
                stage.remaining.remove(c)
            }
        }
        // The leader must clearly meet the constraints: a candidate inside a limit only by chance
        // would drop better ones that do meet them.
        let contenders = members.filter { stage.remaining.contains($0) && clearlyAdmissible(race.outcomes[$0].figures!, z: plan.dropZ) }
        race.leader = ranked(contenders.map { ($0, race.outcomes[$0].figures!) }).first?.0
        guard let l = race.leader, let li = here[l] else { return }
        // Each candidate paired with the leader: from the moments of the users' kept inputs, skewness
        // allowed for as in `raceInterval`; for a measure without moments, from the pair sums of a new
        // leader of this batch, added from the kept inputs or, where they were not kept, from the same
        // users run again (the draws are the same, so is every count; only the pairs kept differ).
        let versusLeader = pairedMeasure.flatMap { store?.differenceMoments(minus: li, of: $0) }
        var paired = run
        if versusLeader == nil, !references.contains(li), pairedMeasure != nil,
           batch.contains(where: { stage.remaining.contains($0) && $0 != l }) {
            if keepsPairInputs, let store, let sums = run.results.tallies.sums,
               let more = store.adding(reference: li, to: sums, threads: threads) {
                var tallies = run.results.tallies
                tallies.sums = more
                paired = Batch(results: RunResults(scenario: run.results.scenario, tallies: tallies))
            } else {
                paired = try simulate(members.map { candidates[$0] }, users: n, seed: scenario.seed,
                                      response: scenario.response, references: [1, li], keepsDetail: false,
                                      holdouts: meter.holdouts, look: "stage \(k + 1) (\(Self.grouped(n)) users)") { _ in }
            }
        }
        for c in batch where stage.remaining.contains(c) && c != l {
            let d = pairedMeasure.flatMap { m -> (Estimate, CandidateDrop.Comparison, Bool)? in
                if let e = versusLeader?[here[c]!].interval(z: stage.worseZ) { return (e, .paired, true) }
                return paired.results.comparison(here[c]!, against: li, m)?.difference.map { (Self.widened($0, z: stage.worseZ), .paired, false) }
            }
            if let drop = worseDrop(c, than: l, stage: k, z: stage.worseZ, difference: d, race.outcomes) {
                stage.dropWorse(c, drop, &race)
            }
        }
    }

    /// Candidates met an earlier leader than the last: compare them with it through their paired
    /// differences from the baseline. Without the two's covariance the spread is bounded by the sum
    /// of the two standard errors (Cauchy–Schwarz), so this only drops what is worse whatever it is.
    func dropWorseThanLastLeader(stage k: Int, _ race: inout Race, _ stage: inout StageState) {
        guard let l = race.leader else { return }
        let z = stage.worseZ
        for c in race.alive where stage.remaining.contains(c) && c != l {
            var bounded: (Estimate, CandidateDrop.Comparison, Bool)?
            if pairedMeasure != nil, let (a, skewA) = versusBaseline(race.outcomes[c].figures, z: z),
               let (b, skewB) = versusBaseline(race.outcomes[l].figures, z: z) {
                // Each side of c − l takes the sides of the two intervals that reach that way.
                let d = a.value - b.value
                bounded = (Estimate(value: d, low: d - (a.value - a.low) - (b.high - b.value),
                                    high: d + (a.high - a.value) + (b.value - b.low)), .bounded, skewA && skewB)
            }
            if let drop = worseDrop(c, than: l, stage: k, z: z, difference: bounded, race.outcomes) {
                stage.dropWorse(c, drop, &race)
            }
        }
    }

    /// The objective's paired difference from the baseline at normal quantile z: skewness allowed for
    /// as in `raceInterval` when the figures hold its moments, else the 95% interval widened.
    func versusBaseline(_ f: CandidateFigures?, z: Double) -> (interval: Estimate, skewed: Bool)? {
        if let e = f?.versusBaselineMoments?.interval(z: z) { return (e, true) }
        return f?.versusBaseline.map { (Self.widened($0, z: z), false) }
    }

    /// Candidate `c`'s drop at stage k as clearly worse than the leader `l`, or nil. `difference` is
    /// c − l on the objective at the race's z, paired or bounded, and whether it allows for skewness;
    /// without one, the two's own widened intervals are compared.
    func worseDrop(_ c: Int, than l: Int, stage k: Int, z: Double,
                   difference: (interval: Estimate, comparison: CandidateDrop.Comparison, skewed: Bool)?,
                   _ outcomes: [CandidateOutcome]) -> CandidateDrop? {
        guard let difference else {
            return unpairedWorse(outcomes[c].figures!, than: outcomes[l].figures!, leader: l, stage: k, z: z)
        }
        guard clearlyWorse(difference.interval) else { return nil }
        let shown = Self.show(difference.interval, spec.rule.objective)
        let bounded = difference.comparison == .bounded
        let skew = difference.skewed ? ", allowing for skewness" : ""
        return CandidateDrop(kind: .clearlyWorse, stage: k, leader: l, comparison: difference.comparison,
                             interval: difference.interval,
                             reason: "clearly worse than \"\(candidates[l].label)\" at \(Self.grouped(plan.stageUsers[k])) users: "
                                 + (bounded ? "difference \(shown) (\(Self.level(z)) interval\(skew), bounded without pairing)"
                                         : "paired difference \(shown) (\(Self.level(z)) interval\(skew))"))
    }

    /// The final stage: the best few together at the full user count, ranked.
    func runFinalStage(_ race: inout Race, _ meter: Meter) throws(TuneError) -> TuneCheck {
        let started = DispatchTime.now()
        let last = plan.stageUsers.count - 1
        var summary = StageSummary(users: plan.stageUsers[last])
        if last > 0 { _ = leaveOutBeyondCapacity(last, &race, &summary) }
        summary.entered = race.alive.count
        // The finalists' runs on the last racing stage's users, taken from there; nothing after takes them.
        let (done, reused) = (meter.done.value, meter.reused.value)
        let final = try check("final", race.alive, users: plan.stageUsers[last], seed: scenario.seed,
                              response: scenario.response, meter: meter, shares: race.shares)
        race.shares = nil
        (summary.simulated, summary.reused) = (Int(meter.done.value - done), Int(meter.reused.value - reused))
        for (c, f, _) in final.ranking {
            race.outcomes[c].figures = f
            race.outcomes[c].stage = last
            if last == 0 { race.outcomes[c].firstStage = f }
        }
        summary.evaluated = race.alive.count
        summary.seconds = Self.seconds(since: started)
        race.stages.append(summary)
        return final
    }

    /// The top five finalists re-run on the final users with the base response halved, doubled, and
    /// with opt-outs doubled; nothing when no finalist meets the constraints.
    func sensitivityChecks(_ final: TuneCheck, _ meter: Meter) throws(TuneError) -> [TuneCheck] {
        guard final.winner != nil else { return [] }
        let top = Array(final.ranking.map(\.candidate).prefix(TunePlan.sensitivityTop))
        let r = scenario.response
        var half = r, double = r, optOut = r
        half.baseResponse = r.baseResponse / 2
        double.baseResponse = min(1, r.baseResponse * 2)
        optOut.optOutPerDelivery = min(1, r.optOutPerDelivery * 2)
        var checks: [TuneCheck] = []
        for (name, response) in [("base response halved", half), ("base response doubled", double),
                                 ("opt-outs doubled", optOut)] {
            checks.append(try check(name, top, users: final.users, seed: scenario.seed, response: response, meter: meter))
        }
        return checks
    }

    /// The finalists and the baseline simulated on the final users under each of `modelDraws` draws of
    /// the response model (the same users at every draw), and what the draws decide; nil without draws.
    func modelDrawCheck(_ final: TuneCheck, _ meter: Meter) throws(TuneError) -> (members: [Int], decision: UncertainDecision)? {
        guard modelDraws > 0 else { return nil }
        let members = final.ranking.map(\.candidate)
        var runs: [[ConfigurationResult]] = []
        let (stages, count, users, draws) = (plan.stageUsers.count, members.count, final.users, modelDraws)
        for k in 0..<modelDraws {
            let response = scenario.response.draw(k, seed: scenario.seed)
            let batch = try simulate(members.map { candidates[$0] }, users: users, seed: scenario.seed, response: response,
                                     look: "model draw \(k + 1) of \(modelDraws)") { u in
                let total = meter.done.add(Double(u * (count + 2))) + meter.reused.value
                meter.progress?(TuneProgress(stage: stages, stages: stages, users: users, evaluated: 0, entered: count, left: count,
                                             simulated: total, planned: meter.planned, phase: "model draw \(k + 1)/\(draws)"))
            }
            runs.append(batch.results.all)
        }
        return (members, UncertainDecision(rule: spec.rule, baseline: 1, draws: runs))
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// The drop of a candidate whose interval on the objective, widened to z, lies wholly on the worse
    /// side of the leader's, or nil.
    func unpairedWorse(_ c: CandidateFigures, than l: CandidateFigures, leader: Int, stage k: Int, z: Double) -> CandidateDrop? {
        let o = spec.rule.objective
        guard let a = c.measures[o], let b = l.measures[o] else { return nil }
        let x = Self.widened(a, z: z), y = Self.widened(b, z: z)
        guard o.higherIsBetter ? x.high < y.low : x.low > y.high else { return nil }
        return CandidateDrop(kind: .clearlyWorse, stage: k, leader: leader, comparison: .unpaired, interval: x,
                             reason: "clearly worse than \"\(candidates[leader].label)\" at \(Self.grouped(c.users)) users: "
                                 + "\(Self.show(x, o)) against \(Self.show(y, o)) (\(Self.level(z)) intervals)")
    }

    /// How a check's run is named in errors: "the final stage (100,000 users)", "the sensitivity run with
    /// base response doubled (100,000 users)".
    static func lookName(_ name: String, users: Int) -> String {
        let run = name == "final" ? "the final stage" : DecisionSecondLook.lookName(name)
        return "\(run) (\(grouped(users)) users)"
    }

    /// A run of `members` beside the baseline, ranked. `subject` is the candidate compared with the
    /// baseline and with every other member; nil: the first admissible, or the first.
    ///
    /// `shares`: what the last racing stage counted of the members, on the race's seed and response
    /// (see `StageShares`), for the final stage only.
    func check(_ name: String, _ members: [Int], users: Int, seed: UInt64, response: ResponseModel,
               meter: Meter, subject: Int? = nil, shares: StageShares? = nil) throws(TuneError) -> TuneCheck {
        let stages = plan.stageUsers.count
        let count = members.count
        // The re-check's other seed leaves the kept holdout runs alone (`HoldoutCache.fits`).
        let run = try simulate(members.map { candidates[$0] }, users: users, seed: seed, response: response, keepsDetail: false,
                               holdouts: meter.holdouts, shares: shares,
                               keys: [StageShares.holdout, StageShares.baseline] + members,
                               look: Self.lookName(name, users: users)) { u in
            let total = meter.done.add(Double(u * (count + 2))) + meter.reused.value
            meter.progress?(TuneProgress(stage: stages, stages: stages, users: users, evaluated: 0, entered: count, left: count,
                                         simulated: total, planned: meter.planned, phase: name))
        }
        _ = meter.reused.add(Double(run.reused * (count + 2)))
        let items = members.enumerated().map { j, c in (c, figures(run, run.index(j))) }
        let order = ranked(items)
        let ranking = order.map { (candidate: $0.0, figures: $0.1, admissible: admissible($0.1)) }
        let position = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1, run.index($0)) })
        let admitted = ranking.filter(\.admissible).map(\.candidate)
        var versusBaseline: [PairwiseComparison] = []
        var versusRunnerUp: PairwiseComparison?
        let pm = pairedMeasure ?? spec.rule.objective.pairMeasure
        if let first = admitted.first, admitted.count > 1 {
            versusRunnerUp = run.results.comparison(position[first]!, against: position[admitted[1]]!, pm)
        }
        // The first admissible, or the first at all (the re-check of a winner that misses a limit there).
        let lead = subject ?? admitted.first ?? ranking.first?.candidate
        var subjectVersus: [Int: PairwiseComparison] = [:]
        if let w = lead, let wi = position[w] {
            versusBaseline = run.results.comparisons(wi, against: run.baselineIndex)
            for c in members where c != w {
                if let ci = position[c] { subjectVersus[c] = run.results.comparison(wi, against: ci, pm) }
            }
        }
        return TuneCheck(name: name, users: users, seed: seed, ranking: ranking, versusBaseline: versusBaseline,
                         versusRunnerUp: versusRunnerUp, subject: lead, subjectVersus: subjectVersus,
                         baseline: figures(run, run.baselineIndex))
    }
}

/// Configurations × users simulated so far, shared by worker threads.
final class SimulatedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0.0

    func add(_ x: Double) -> Double {
        lock.lock()
        defer { lock.unlock() }
        total += x
        return total
    }

    var value: Double {
        lock.lock()
        defer { lock.unlock() }
        return total
    }
}
