import Rendering
import Simulation

/// The decision, its second looks and its live-test plan as CSV files, beside the tables' files in a
/// report folder: what the report's decision sections say, in rows an analysis can join on the
/// configurations' labels and indices. They are worked out from the run's results and the second
/// looks in memory, the values the report renders, so the two agree; they are not tables of the
/// database (docs/schema.md, "What is stored of the decision's second look").
public enum DecisionCSV {
    /// The three files: `decision.csv`, `decision_checks.csv` and `live_test.csv`.
    public static func files(_ results: RunResults, runID: Int64, secondLook: DecisionSecondLook?) -> [CSVFile] {
        [CSVFile(name: "decision.csv", table: decision(results, runID: runID, secondLook: secondLook)),
         CSVFile(name: "decision_checks.csv", table: checks(results, runID: runID, secondLook: secondLook)),
         CSVFile(name: "live_test.csv", table: liveTest(results, runID: runID, secondLook: secondLook))]
    }

    static let decisionHeader = [
        "run_id", "config_index", "label", "is_holdout", "is_baseline", "role", "rank", "feasible_rank", "meets_constraints",
        "breaks", "too_close_to_call", "objective", "objective_value", "objective_low", "objective_high",
        "baseline_label", "versus_baseline_measure", "versus_baseline", "versus_baseline_low", "versus_baseline_high",
        "probability_best", "probability_feasible", "expected_objective", "expected_loss",
    ]

    /// One row per configuration, the holdout first: its place in the rule's ranking, the constraints it
    /// breaks, its objective and its paired difference from the baseline on the objective's measure;
    /// under the response model's draws, its standing there.
    static func decision(_ results: RunResults, runID: Int64, secondLook: DecisionSecondLook?) -> CSVTable {
        let d = results.decision
        let objective = d.rule.objective
        var rank: [Int: Int] = [:], feasibleRank: [Int: Int] = [:]
        for (k, i) in d.ranked.enumerated() { rank[i] = k + 1 }
        for (k, i) in d.admissible.enumerated() { feasibleRank[i] = k + 1 }
        let rows = results.all.map { c -> [CSVField] in
            let i = c.index
            var role = ""
            if i == d.recommended { role = "recommendation" } else if i == d.runnerUp { role = "runner-up" }
            let candidate = !c.isHoldout
            let broken = d.constraints.filter { $0.excluded.contains(i) }.map(\.measure.rawValue)
            let close = d.constraints.filter { DecisionReport.tooCloseToCall(c, $0) }.map(\.measure.rawValue)
            let e = c.estimate(objective)
            let versus = i == d.baseline ? nil : results.comparison(i, against: d.baseline, d.comparedMeasure)
            let standing = secondLook?.uncertain?.standing(i)
            return [.integer(runID), .integer(Int64(i)), .text(c.label), flag(c.isHoldout), flag(i == d.baseline), .text(role),
                    integer(rank[i]), integer(feasibleRank[i]), candidate ? flag(broken.isEmpty) : .null,
                    .text(candidate ? broken.joined(separator: ";") : ""), .text(candidate ? close.joined(separator: ";") : ""),
                    .text(objective.rawValue), decimal(e?.value), decimal(e?.low), decimal(e?.high),
                    .text(results.baseline.label), .text(versus == nil ? "" : d.comparedMeasure.rawValue),
                    decimal(versus?.difference?.value), decimal(versus?.difference?.low), decimal(versus?.difference?.high),
                    decimal(standing?.probabilityBest), decimal(standing?.probabilityFeasible),
                    decimal(standing?.expectedObjective), decimal(standing?.expectedLoss)]
        }
        return CSVTable(header: decisionHeader, rows: rows)
    }

    static let checksHeader = [
        "run_id", "check", "change", "users", "seed", "draws", "recommends_index", "recommends", "run_recommends",
        "bears_out", "measure", "difference", "difference_low", "difference_high",
    ]

    /// One row per second look at the call: the re-check on other users (its difference is the
    /// recommendation's from the runner-up there), the decision under the model's draws, or the quick
    /// sensitivity runs (the control with the response unchanged first; each change bears the call out
    /// when it recommends what the control does). The call is firm when every row bears it out.
    static func checks(_ results: RunResults, runID: Int64, secondLook: DecisionSecondLook?) -> CSVTable {
        let d = results.decision
        let point = d.recommended
        let pointLabel: CSVField = point.map { .text(results.all[$0].label) } ?? .text("")
        func index(of label: String?) -> CSVField {
            guard let label, let c = results.all.first(where: { $0.label == label }) else { return .null }
            return .integer(Int64(c.index))
        }
        var rows: [[CSVField]] = []
        guard let look = secondLook else { return CSVTable(header: checksHeader, rows: rows) }
        if let r = look.recheck {
            // What ranks first there: the recommendation when it survives, the runner-up when it overtakes; unknown
            // when the recommendation misses a constraint there.
            let first: Int? = r.survives ? r.recommended : (r.stillAdmissible ? r.runnerUp : nil)
            let diff = r.comparison?.difference
            rows.append([.integer(runID), .text("recheck"), .text(""), .integer(Int64(r.users)), .integer(Int64(bitPattern: r.seed)),
                         .null, first.map { .integer(Int64($0)) } ?? .null, .text(first.map { results.all[$0].label } ?? ""),
                         pointLabel, flag(r.survives), .text(r.comparison?.measure.rawValue ?? ""),
                         decimal(diff?.value), decimal(diff?.low), decimal(diff?.high)])
        }
        if let u = look.uncertain {
            rows.append([.integer(runID), .text("model_draws"), .text(""), .integer(Int64(results.scenario.users)), .null,
                         .integer(Int64(u.draws)), u.recommended.map { .integer(Int64($0)) } ?? .null,
                         .text(u.recommended.map { results.all[$0].label } ?? ""), pointLabel,
                         point == nil ? .null : flag(u.recommended == point), .text(""), .null, .null, .null])
        }
        if !look.sensitivity.isEmpty {
            let users = Int64(min(results.scenario.users, DecisionRecheck.maximumUsers))
            let control = look.sensitivityUnchanged
            for (name, recommended) in [(DecisionSecondLook.unchanged, control)] + look.sensitivity {
                let bears: CSVField = name == DecisionSecondLook.unchanged || point == nil ? .null : flag(recommended == control)
                rows.append([.integer(runID), .text("sensitivity"), .text(name), .integer(users), .null, .null,
                             index(of: recommended), .text(recommended ?? ""), pointLabel, bears, .text(""), .null, .null, .null])
            }
        }
        return CSVTable(header: checksHeader, rows: rows)
    }

    static let liveTestHeader = [
        "run_id", "arm", "config_index", "role", "share", "users", "users_with_cuped", "metric", "days", "alpha", "power",
        "difference", "difference_with_cuped", "live_users", "minimum_detectable_effect", "minimum_detectable_effect_with_cuped",
    ]

    /// One row per arm of the live test that would settle the call, with the plan's design on each
    /// row; no rows when there is no recommendation to test.
    static func liveTest(_ results: RunResults, runID: Int64, secondLook: DecisionSecondLook?) -> CSVTable {
        let plan = results.liveTestPlan(prePeriod: secondLook?.prePeriod)
        let cuped = plan.cuped
        let rows = plan.arms.enumerated().map { k, arm -> [CSVField] in
            let withCuped = cuped.flatMap { k < $0.usersPerArm.count ? $0.usersPerArm[k] : nil }
            return [.integer(runID), .text(arm.label), .integer(Int64(arm.configuration)), .text(arm.role), .decimal(arm.share),
                    integer(arm.users), integer(withCuped), .text(plan.metric.rawValue), .integer(Int64(plan.days)),
                    .decimal(LiveTestPlan.alpha), .decimal(LiveTestPlan.power), decimal(plan.difference),
                    decimal(cuped?.difference), integer(plan.liveUsers), decimal(plan.minimumDetectableEffect),
                    decimal(cuped?.minimumDetectableEffect)]
        }
        return CSVTable(header: liveTestHeader, rows: rows)
    }

    private static func flag(_ b: Bool) -> CSVField { .integer(b ? 1 : 0) }
    private static func integer<T: BinaryInteger>(_ v: T?) -> CSVField { v.map { .integer(Int64($0)) } ?? .null }
    private static func decimal(_ v: Double?) -> CSVField {
        guard let v, v.isFinite else { return .null }
        return .decimal(v)
    }
}
