import Foundation
import Simulation

/// The summary `run --json` prints: the run, every configuration's headline measures with their
/// intervals, the paired comparisons against the baseline, and the recommendation.
public enum RunJSON {
    struct Document: Encodable {
        let scenario: String
        let seed: UInt64
        let users: Int
        let horizonDays: Int
        let startDate: String
        let runID: Int64?
        let report: String?
        let baseline: String
        let decision: DecisionJSON
        let configurations: [ConfigurationJSON]
        let versusBaseline: [PairJSON]
        /// For a run whose population replays recorded users.
        let replay: ReplayReport.JSONValue?
    }

    struct DecisionJSON: Encodable {
        let objective: String
        let constraints: [ConstraintJSON]
        let recommended: String?
        let runnerUp: String?
        let topTwoToldApart: Bool?
        let usersToSeparateTopTwo: Int64?
        let summary: String
        /// Whether every second look bears the call out (nil without a call or without second looks),
        /// and what doubts it when not.
        let firm: Bool?
        let doubts: [String]?
        let recheck: RecheckJSON?
        let modelDraws: ModelDrawsJSON?
        let sensitivity: [SensitivityJSON]?
        let liveTest: LiveTestReport.JSONValue
    }

    /// The recommendation against the runner-up on other users.
    struct RecheckJSON: Encodable {
        let seed: UInt64
        let users: Int
        let recommended, runnerUp: String
        /// The objective's paired measure and the recommendation minus the runner-up on it.
        let measure: String?, difference: IntervalJSON?
        let survives: Bool, summary: String
    }

    /// The decision under the response model's draws.
    struct ModelDrawsJSON: Encodable {
        let draws: Int
        /// The chance of meeting every constraint a recommendation needs, and the rule in words.
        let feasibilityThreshold: Double, rule: String
        let recommended: String?
        let noneFeasible: Double, summary: String
    }

    struct SensitivityJSON: Encodable {
        let change: String
        let recommended: String?
        /// Whether the change recommends what the same runs recommend with the response unchanged (the
        /// first entry, which has none): the call a change is read against, which on fewer users than the
        /// run's need not be the run's own.
        let sameAsUnchanged: Bool?
    }

    struct ConstraintJSON: Encodable {
        let measure: String
        let min: Double?
        let max: Double?
        let binds: Bool
        let excludes: [String]
        /// The configurations whose interval crosses a limit: they could fall on either side with more users.
        let tooCloseToCall: [String]
    }

    struct ConfigurationJSON: Encodable {
        let configIndex: Int
        let label: String
        let mode: String
        let isHoldout: Bool
        let users: Int64
        let measures: [String: IntervalJSON]
        let notes: [String: String]
        let probabilityBest: Double?
        let probabilityFeasible: Double?
        /// Its exact (Clopper–Pearson) 90% interval over the draws (their Monte Carlo error).
        let probabilityFeasibleInterval: IntervalBoundsJSON?
        /// The share of draws meeting each constraint, by measure.
        let probabilityMeets: [String: Double]?
        let expectedObjective: Double?
        let expectedLoss: Double?
    }

    struct IntervalBoundsJSON: Encodable {
        let low: Double
        let high: Double
    }

    struct PairJSON: Encodable {
        let label: String
        let reference: String
        let measure: String
        let difference: IntervalJSON?
        let usersToSeparate: Int64?
    }

    public static func render(_ results: RunResults, runID: Int64?, report: String?, secondLook: DecisionSecondLook? = nil) -> String {
        let d = results.decision
        let s = results.scenario
        func name(_ i: Int?) -> String? { i.map { results.all[$0].label } }
        let runnerUp = d.versusRunnerUp.first { $0.measure == d.comparedMeasure }
        // What doubts the call, when there is a call and second looks to read it against.
        let doubts = secondLook.flatMap { look in d.recommended.map { _ in SecondLookReport.doubts(results, look) } }
        let doc = Document(
            scenario: s.name, seed: s.seed, users: s.users, horizonDays: s.horizonDays, startDate: s.startDate, runID: runID,
            report: report, baseline: results.baseline.label,
            decision: DecisionJSON(
                objective: d.rule.objective.rawValue,
                constraints: d.constraints.map { c in
                    ConstraintJSON(measure: c.measure.rawValue, min: c.bound.min, max: c.bound.max, binds: c.binds,
                                   excludes: c.excluded.map { results.all[$0].label },
                                   tooCloseToCall: results.shown.filter { DecisionReport.tooCloseToCall($0, c) }.map(\.label))
                },
                recommended: name(d.recommended), runnerUp: name(d.runnerUp), topTwoToldApart: d.topTwoToldApart,
                usersToSeparateTopTwo: runnerUp?.usersToSeparate, summary: DecisionReport.headline(results),
                firm: doubts.map(\.isEmpty), doubts: doubts,
                recheck: secondLook.flatMap { look in
                    look.recheck.map { r in
                        RecheckJSON(seed: r.seed, users: r.users, recommended: results.all[r.recommended].label, runnerUp: results.all[r.runnerUp].label,
                                    measure: r.comparison?.measure.rawValue, difference: IntervalJSON(r.comparison?.difference),
                                    survives: r.survives, summary: SecondLookReport.recheckText(results, look) ?? "")
                    }
                },
                modelDraws: secondLook.flatMap { look in
                    look.uncertain.map { u in
                        ModelDrawsJSON(draws: u.draws, feasibilityThreshold: UncertainDecision.feasibilityThreshold, rule: u.ruleText,
                                       recommended: name(u.recommended), noneFeasible: u.noneFeasible,
                                       summary: SecondLookReport.uncertainText(results, look) ?? "")
                    }
                },
                sensitivity: secondLook.flatMap { look in
                    // The control first: the same runs with the response unchanged, which each change is read against.
                    look.sensitivity.isEmpty ? nil : [SensitivityJSON(change: DecisionSecondLook.unchanged,
                                                                      recommended: look.sensitivityUnchanged, sameAsUnchanged: nil)]
                        + look.sensitivity.map {
                            SensitivityJSON(change: $0.name, recommended: $0.recommended,
                                            sameAsUnchanged: $0.recommended == look.sensitivityUnchanged)
                        }
                },
                liveTest: LiveTestReport.JSONValue(results.liveTestPlan(prePeriod: secondLook?.prePeriod))),
            configurations: results.all.map { c in
                var measures: [String: IntervalJSON] = [:]
                for m in DecisionMeasure.allCases {
                    if c.isHoldout && RunComparison.isLift(m) { continue }
                    // A lift zero by construction is left out; `notes` says why.
                    if m == .liftD7 || m == .liftD30, case .zeroByConstruction? = c.liftNote(day: m == .liftD7 ? 7 : 30) {
                        continue
                    }
                    if let e = IntervalJSON(c.estimate(m)) { measures[m.rawValue] = e }
                }
                var notes: [String: String] = [:]
                for k in [7, 30] { if let n = c.liftNote(day: k) { notes["liftD\(k)"] = n.text(day: k) } }
                let standing = secondLook?.uncertain?.standing(c.index)
                return ConfigurationJSON(configIndex: c.index, label: c.label, mode: c.spec.mode.rawValue, isHoldout: c.isHoldout,
                                         users: c.metrics.users, measures: measures, notes: notes,
                                         probabilityBest: standing?.probabilityBest, probabilityFeasible: standing?.probabilityFeasible,
                                         probabilityFeasibleInterval: standing.map {
                                             IntervalBoundsJSON(low: $0.probabilityFeasibleInterval.low, high: $0.probabilityFeasibleInterval.high)
                                         },
                                         probabilityMeets: standing.map { s in
                                             Dictionary(uniqueKeysWithValues: s.probabilityMeets.map { ($0.measure.rawValue, $0.probability) })
                                         },
                                         expectedObjective: standing?.expectedObjective, expectedLoss: standing?.expectedLoss)
            },
            versusBaseline: results.all.indices.filter { $0 != results.baselineIndex }.flatMap { i in
                results.comparisons(i, against: results.baselineIndex).map {
                    PairJSON(label: results.all[i].label, reference: results.baseline.label, measure: $0.measure.rawValue,
                             difference: IntervalJSON($0.difference), usersToSeparate: $0.usersToSeparate)
                }
            },
            replay: ReplayReport.JSONValue(results))
        return JSONOutput.encode(doc)
    }
}
