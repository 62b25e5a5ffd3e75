import Rendering
import Simulation

/// The decision, its second looks and its live-test plan as CSV files, beside the tables' files in a
/// report folder: what the report's decision sections say, in rows an analysis can join on the
/// configurations' labels and indices. They are worked out from the run's results and the second
/// looks in memory, the values the report renders, so the two agree; they are not tables of the
/// database (docs/schema.md, "What is stored of the decision's second look").
public enum DecisionCSV {
    /// The four files: `decision.csv`, `decision_constraints.csv`, `decision_checks.csv` and `live_test.csv`.
    public static func files(_ results: RunResults, runID: Int64, secondLook: DecisionSecondLook?) -> [CSVFile] {
        [CSVFile(name: "decision.csv", table: decision(results, runID: runID, secondLook: secondLook)),
         CSVFile(name: "decision_constraints.csv", table: constraints(results, runID: runID)),
         CSVFile(name: "decision_checks.csv", table: checks(results, runID: runID, secondLook: secondLook)),
         CSVFile(name: "live_test.csv", table: liveTest(results, runID: runID, secondLook: secondLook))]
    }

    static let decisionHeader = [
        "run_id", "config_index", "label", "is_holdout", "is_baseline", "is_recommendation", "is_runner_up", "role", "rank",
        "feasible_rank", "meets_constraints",
        "breaks", "too_close_to_call", "objective", "objective_value", "objective_value_low", "objective_value_high",
        "baseline_label", "versus_baseline_measure", "versus_baseline", "versus_baseline_low", "versus_baseline_high",
        "probability_best", "probability_feasible", "expected_objective", "expected_loss",
        "probability_feasible_low", "probability_feasible_high",
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
            // The holdout's lift over itself is no measure (`config_metrics` leaves it empty too).
            let e = c.isHoldout && RunComparison.isLift(objective) ? nil : c.estimate(objective)
            let versus = i == d.baseline ? nil : results.comparison(i, against: d.baseline, d.comparedMeasure)
            let standing = secondLook?.uncertain?.standing(i)
            return [.integer(runID), .integer(Int64(i)), .text(c.label), flag(c.isHoldout), flag(i == d.baseline),
                    flag(i == d.recommended), flag(i == d.runnerUp), .text(role),
                    integer(rank[i]), integer(feasibleRank[i]), candidate ? flag(broken.isEmpty) : .null,
                    .text(candidate ? broken.joined(separator: ";") : ""), .text(candidate ? close.joined(separator: ";") : ""),
                    .text(objective.rawValue), decimal(e?.value), decimal(e?.low), decimal(e?.high),
                    .text(results.baseline.label), .text(versus == nil ? "" : d.comparedMeasure.rawValue),
                    decimal(versus?.difference?.value), decimal(versus?.difference?.low), decimal(versus?.difference?.high),
                    decimal(standing?.probabilityBest), decimal(standing?.probabilityFeasible),
                    decimal(standing?.expectedObjective), decimal(standing?.expectedLoss),
                    decimal(standing?.probabilityFeasibleInterval.low), decimal(standing?.probabilityFeasibleInterval.high)]
        }
        return CSVTable(header: decisionHeader, rows: rows)
    }

    static let constraintsHeader = [
        "run_id", "config_index", "label", "measure", "min", "max", "value", "value_low", "value_high", "meets",
        "too_close_to_call",
    ]

    /// One row per configuration (the holdout left out: the rule does not rank it) and constraint, in the
    /// rule's order: the estimate the constraint reads with its 95% interval, whether it meets the limit
    /// on the estimate, and whether the interval crosses the limit. Empty (a header) without constraints.
    static func constraints(_ results: RunResults, runID: Int64) -> CSVTable {
        let d = results.decision
        let rows = results.configurations.flatMap { c in
            d.constraints.map { k -> [CSVField] in
                let e = c.estimate(k.measure)
                return [.integer(runID), .integer(Int64(c.index)), .text(c.label), .text(k.measure.rawValue),
                        decimal(k.bound.min), decimal(k.bound.max), decimal(e?.value), decimal(e?.low), decimal(e?.high),
                        flag(!k.excluded.contains(c.index)), flag(DecisionReport.tooCloseToCall(c, k))]
            }
        }
        return CSVTable(header: constraintsHeader, rows: rows)
    }

    static let checksHeader = [
        "run_id", "check", "change", "users", "seed", "draws", "recommends_index", "recommends", "read_against",
        "run_recommends", "bears_out", "reason", "compared_with", "measure", "difference", "difference_low", "difference_high",
        "told_apart", "call_firm",
    ]

    /// One row per second look at the call: the re-check on other users (its difference is the
    /// recommendation's from the runner-up there, `compared_with`), the decision under the model's
    /// draws, or the quick sensitivity runs, the control with the response unchanged first. Each
    /// check's recommendation is read against `read_against`: the run's call, or for a change of the
    /// response the control's (on the same fewer users). `call_firm`, on every row, is the run's call
    /// borne out by every check.
    static func checks(_ results: RunResults, runID: Int64, secondLook: DecisionSecondLook?) -> CSVTable {
        let d = results.decision
        let point = d.recommended
        let pointLabel = point.map { results.all[$0].label } ?? ""
        func index(of label: String?) -> CSVField {
            guard let label, let c = results.all.first(where: { $0.label == label }) else { return .null }
            return .integer(Int64(c.index))
        }
        guard let look = secondLook else { return CSVTable(header: checksHeader, rows: []) }
        let firm: CSVField = point == nil ? .null : flag(SecondLookReport.doubts(results, look).isEmpty)
        func row(_ check: String, change: String = "", users: Int, seed: UInt64? = nil, draws: Int? = nil,
                 recommends: String?, readAgainst: String, bears: Bool?, reason: String,
                 comparison: PairwiseComparison? = nil, comparedWith: String = "") -> [CSVField] {
            let diff = comparison?.difference
            return [.integer(runID), .text(check), .text(change), .integer(Int64(users)), seed.map { .integer(Int64(bitPattern: $0)) } ?? .null,
                    integer(draws), index(of: recommends), .text(recommends ?? ""), .text(readAgainst), .text(pointLabel),
                    point == nil ? .null : bears.map(flag) ?? .null, .text(reason), .text(comparedWith),
                    .text(comparison?.measure.rawValue ?? ""), decimal(diff?.value), decimal(diff?.low), decimal(diff?.high),
                    diff.map { flag($0.low > 0 || $0.high < 0) } ?? .null, firm]
        }
        var rows: [[CSVField]] = []
        if let r = look.recheck {
            let runnerUp = results.all[r.runnerUp].label
            let reason = switch r.outcome {
            case .missesConstraint: "misses \(SecondLookReport.missed(r.missedByRecommended)) there"
            case .overtaken: "\(runnerUp) ranks first there"
            case .overtakenNarrowly: "\(runnerUp) ranks first there, though the two are not told apart"
            case .runnerUpMisses: "survives: \(runnerUp) misses \(SecondLookReport.missed(r.missedByRunnerUp)) there"
            case .tied: "survives, tied: no difference there, ahead by its place in the scenario's order"
            case .survives: "survives"
            case .survivesNarrowly: "survives narrowly: still ahead, not told apart there"
            }
            rows.append(row("recheck", users: r.users, seed: r.seed, recommends: r.picksThere.map { results.all[$0].label },
                            readAgainst: pointLabel, bears: r.survives, reason: reason, comparison: r.comparison, comparedWith: runnerUp))
        }
        if let u = look.uncertain {
            let label = u.recommended.map { results.all[$0].label }
            let reason = u.recommended == nil ? "none meets every constraint often enough"
                : u.recommended == point ? "the same call" : "another call"
            rows.append(row("model_draws", users: results.scenario.users, draws: u.draws, recommends: label, readAgainst: pointLabel,
                            bears: u.recommended == point, reason: reason))
        }
        if !look.sensitivity.isEmpty {
            let users = min(results.scenario.users, DecisionRecheck.maximumUsers)
            let control = look.sensitivityUnchanged
            rows.append(row("sensitivity", change: DecisionSecondLook.unchanged, users: users, recommends: control,
                            readAgainst: "", bears: nil,
                            reason: control == (point.map { results.all[$0].label }) ? "the control: the run's call" : "the control: another call on these users"))
            for (name, recommended) in look.sensitivity {
                rows.append(row("sensitivity", change: name, users: users, recommends: recommended, readAgainst: control ?? "",
                                bears: recommended == control, reason: recommended == control ? "as the control" : "not as the control"))
            }
        }
        return CSVTable(header: checksHeader, rows: rows)
    }

    static let liveTestHeader = [
        "run_id", "config_index", "label", "role", "is_recommendation", "is_baseline", "is_holdout", "share", "users", "total_users",
        "metric", "days", "simulated_days", "alpha", "power", "difference", "live_users", "minimum_detectable_effect",
        "cuped_pre_days", "cuped_users", "cuped_total_users", "cuped_users_without", "cuped_total_users_without",
        "cuped_difference", "cuped_correlation", "cuped_variance_reduction", "cuped_minimum_detectable_effect",
    ]

    /// One row per arm of the live test that would settle the call, with the plan's design on each
    /// row; no rows when there is no recommendation to test. The `cuped_` columns are for another
    /// population than `users`: users who already have the app, with their own simulated difference,
    /// sized with CUPED and (`cuped_users_without`) without it.
    static func liveTest(_ results: RunResults, runID: Int64, secondLook: DecisionSecondLook?) -> CSVTable {
        let plan = results.liveTestPlan(prePeriod: secondLook?.prePeriod)
        let cuped = plan.cuped
        let compared = [results.decision.recommended, results.decision.baseline]
        let rows = plan.arms.enumerated().map { k, arm -> [CSVField] in
            func cupedArm(_ list: [Int64]?) -> CSVField { integer(list.flatMap { k < $0.count ? $0[k] : nil }) }
            // ρ is the recommendation's arm's and the baseline's; a holdout arm beside them has none.
            let rho = compared.firstIndex { $0 == arm.configuration }.flatMap { j in cuped.flatMap { j < $0.correlations.count ? $0.correlations[j] : nil } }
            // A list in a cell is joined by ";", as in every CSV file here ("baseline;holdout").
            let role = arm.role.replacingOccurrences(of: ", ", with: ";")
            return [.integer(runID), .integer(Int64(arm.configuration)), .text(arm.label), .text(role),
                    flag(arm.configuration == results.decision.recommended), flag(arm.configuration == results.decision.baseline),
                    flag(arm.configuration == 0), .decimal(arm.share), integer(arm.users), integer(plan.totalUsers),
                    .text(plan.metric.rawValue), .integer(Int64(plan.days)), .integer(Int64(results.scenario.horizonDays)),
                    .decimal(LiveTestPlan.alpha), .decimal(LiveTestPlan.power),
                    decimal(plan.difference), integer(plan.liveUsers), decimal(plan.minimumDetectableEffect),
                    cuped == nil ? .null : .integer(Int64(plan.preDays)), cupedArm(cuped?.usersPerArm), integer(cuped?.totalUsers),
                    cupedArm(cuped?.usersPerArmWithout), integer(cuped?.totalUsersWithout), decimal(cuped?.difference),
                    decimal(rho), decimal(cuped?.varianceReduction), decimal(cuped?.minimumDetectableEffect)]
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
