import Foundation
import Rendering
import Simulation

/// The second looks at a run's decision, in words: the re-check on other users, and the decision
/// under the response model's draws or the quick sensitivity check.
public enum SecondLookReport {
    /// The most configurations the model-draws table lists, best expected objective first.
    static let tableRows = 20

    /// Whether the re-check leaves the call standing, in one sentence; nil without a re-check.
    public static func recheckText(_ results: RunResults, _ look: DecisionSecondLook) -> String? {
        guard let r = look.recheck else { return nil }
        let a = results.all[r.recommended].label, b = results.all[r.runnerUp].label
        var text = "Re-check on other users (seed \(r.seed), \(Text.users(Int64(r.users)))): "
        text += "\(a) − \(b) " + (r.comparison.map { "\(Text.difference($0)) \($0.measure.title)" } ?? "n/a")
        switch r.outcome {
        case .runnerUpMisses: text += "; the call survives: \(b) misses \(missed(r.missedByRunnerUp)) there."
        case .tied: text += "; the call survives, tied: no difference there, ahead only by its place in the scenario's order."
        case .survives: text += "; the call survives."
        case .survivesNarrowly: text += "; the call survives, narrowly: still ahead, but not told apart there."
        case .missesConstraint: text += "; the call does not survive: \(a) misses \(missed(r.missedByRecommended)) there."
        case .overtaken: text += "; the call does not survive: \(b) ranks first there."
        case .overtakenNarrowly: text += "; the call does not survive: \(b) ranks first there, though the two are not told apart."
        }
        return text
    }

    /// The constraints a configuration misses on the re-check's users, each with its estimate there
    /// ("opt-out rate ≤ 3.0% (3.18% [2.95%, 3.43%])"), so that a reader sees by how much.
    static func missed(_ readings: [DecisionRecheck.ConstraintReading]) -> String {
        guard !readings.isEmpty else { return "a constraint" }
        return readings.map { "\(DecisionReport.constraintText($0.measure, $0.bound)) (\(Text.measure($0.measure, $0.estimate)))" }
            .joined(separator: " and ")
    }

    /// The recommendation under the model draws in one sentence; nil without draws.
    public static func uncertainText(_ results: RunResults, _ look: DecisionSecondLook) -> String? {
        guard let u = look.uncertain else { return nil }
        var text = "Under \(u.draws) draw\(u.draws == 1 ? "" : "s") of the response model: "
        let threshold = UncertainDecision.feasibilityPercent
        guard let best = u.recommended, let s = u.standing(best) else {
            text += "no configuration meets every constraint in at least \(threshold)% of the draws"
            // Those the draws cannot yet place on either side of the threshold.
            let unsettled = u.standings.filter(\.feasibilityUnsettled)
            if !unsettled.isEmpty {
                text += "; too close to tell with \(u.draws) for "
                    + unsettled.map { "\(results.all[$0.index].label) (\(feasibleText($0)))" }.joined(separator: ", ")
                    + ": more draws would settle it"
            }
            return text + "."
        }
        text += "ship \(results.all[best].label) (probability best \(percent(s.probabilityBest)), feasible "
            + "\(percent(s.probabilityFeasible)), expected loss \(value(u.rule.objective, s.expectedLoss)))"
        if let point = results.decision.recommended, point != best {
            text += "; the point estimate's choice, \(results.all[point].label), is not what the draws recommend"
        }
        if s.feasibilityUnsettled {
            text += "; whether \(results.all[best].label) meets every constraint in \(threshold)% of draws is too close to tell "
                + "with \(u.draws) (\(feasibleText(s))): more draws would settle it"
        }
        return text + "."
    }

    /// P(feasible) with its interval over the draws, the bounds rounded outwards ("97% [89, 100]"), so that a
    /// bound just below the threshold never reads as on it.
    static func feasibleText(_ s: DrawStanding) -> String {
        percent(s.probabilityFeasible) + " " + feasibleInterval(s)
    }

    static func feasibleInterval(_ s: DrawStanding) -> String {
        let low = (s.probabilityFeasibleInterval.low * 100 + 1e-9).rounded(.down)
        let high = (s.probabilityFeasibleInterval.high * 100 - 1e-9).rounded(.up)
        return String(format: "[%.0f, %.0f]", low, high)
    }

    /// What of the second looks says the run's call is not firm, in words ("the re-check on other
    /// users does not bear it out"); empty when every look there was bears it out, or there is no call.
    /// The doubts in the words every output uses, a run's and a tune's alike.
    public static let recheckDoubt = "the re-check on other users does not bear it out"
    public static let responseDoubt = "it does not hold under every change of the response model"

    public static func doubts(_ results: RunResults, _ look: DecisionSecondLook) -> [String] {
        guard let point = results.decision.recommended else { return [] }
        var doubts: [String] = []
        if let r = look.recheck, !r.survives { doubts.append(recheckDoubt) }
        if let u = look.uncertain, u.recommended != point {
            doubts.append("under the response model's draws the rule "
                + (u.recommended.map { "recommends \(results.all[$0].label) instead" } ?? "finds no configuration feasible enough"))
        }
        if !changedResponses(look).isEmpty { doubts.append(responseDoubt) }
        return doubts
    }

    /// The response changes under which the sensitivity runs recommend other than with the response unchanged.
    static func changedResponses(_ look: DecisionSecondLook) -> [String] {
        look.sensitivity.filter { $0.recommended != look.sensitivityUnchanged }.map(\.name)
    }

    /// The sentence after the headline when the second looks doubt the call; nil when they do not.
    public static func caveat(_ results: RunResults, _ look: DecisionSecondLook?) -> String? {
        guard let look else { return nil }
        let doubts = doubts(results, look)
        guard !doubts.isEmpty else { return nil }
        return "Not firm: " + doubts.joined(separator: ", and ") + " (see the second look at the decision)."
    }

    /// The quick sensitivity check in one sentence; nil when it was not run.
    ///
    /// Each change's recommendation is read against the same runs' with the response unchanged: on fewer
    /// users than the run, that one need not be the run's own call, and a change that only repeats it
    /// changed nothing.
    public static func sensitivityText(_ results: RunResults, _ look: DecisionSecondLook) -> String? {
        guard !look.sensitivity.isEmpty else { return nil }
        let point = results.decision.recommended.map { results.all[$0].label }
        let control = look.sensitivityUnchanged
        let parts = look.sensitivity.map { s in
            "\(s.name): \(s.recommended ?? "none meets the constraints")" + (s.recommended == control ? " (same)" : "")
        }
        let users = min(results.scenario.users, DecisionRecheck.maximumUsers)
        // The best five by the objective, and those meeting every constraint when they are others (`SecondLookRunner`).
        let d = results.decision
        let admitted = Set(d.admissible.prefix(5)).isSubset(of: Set(d.ranked.prefix(5))) ? "" : ", the five best that meet every constraint"
        var text = "Response sensitivity (the best five\(admitted) and the baseline re-run on \(Text.users(Int64(users)))): "
        if control != point {
            // On fewer users than the run's, the two may simply not be told apart there.
            let fewer = users < results.scenario.users ? " (too close to tell apart on \(Text.users(Int64(users))))" : ""
            text += "with the response unchanged, these runs recommend \(control ?? "none (none meets the constraints)") rather "
                + "than \(point ?? "none")\(fewer), and against that: "
        }
        text += parts.joined(separator: "; ") + "."
        guard point != nil else { return text }
        let changed = changedResponses(look)
        if changed.isEmpty {
            // Read against another pick than the run's, say what holding means here.
            return text + (control != point ? " Each change recommends what the unchanged response does there, so the call "
                + "holds under each change." : " The call holds under each change.")
        }
        return text + " The call does NOT hold under every change (" + changed.joined(separator: ", ")
            + "): it depends on the response model; check its numbers, or give them ranges or run calibrate, before shipping."
    }

    /// The report's section.
    public static func section(_ results: RunResults, _ look: DecisionSecondLook?) -> String {
        guard let look else { return "" }
        var out = "## Second look at the decision\n\n"
        if let text = recheckText(results, look) {
            out += Markdown.escapeCell(text) + " The recommendation and the runner-up (with the holdout and the baseline) "
                + "are simulated again for other users, with the scenario's seed with bit 52 flipped.\n\n"
        } else if results.decision.recommended == nil {
            out += "No re-check: no configuration meets every constraint, so there is no call to check.\n\n"
        } else {
            out += "No re-check: no other configuration meets every constraint, so there is no runner-up to check the call against.\n\n"
        }
        if let u = look.uncertain {
            out += uncertainSection(results, u)
        } else if let text = sensitivityText(results, look) {
            out += Markdown.escapeCell(text) + " The scenario gives no uncertainty for its response parameters: give a "
                + "parameter a range, or run `calibrate`, to decide under the model's uncertainty (docs/scenario.md).\n\n"
        }
        return out
    }

    static func uncertainSection(_ results: RunResults, _ u: UncertainDecision) -> String {
        let o = u.rule.objective
        var out = "**" + Markdown.escapeCell(uncertainText(results, DecisionSecondLook(recheck: nil, uncertain: u, sensitivity: [])) ?? "")
            + "**\n\n"
        out += "Every configuration is simulated under \(u.draws) draw\(u.draws == 1 ? "" : "s") of the response parameters, on the same users at every "
            + "draw. Recommendation rule: \(u.ruleText). Probability best: share of draws in which it is the best "
            + "configuration that meets every constraint (a tie at the top shared); P(feasible) with its exact 90% interval "
            + "over the draws (Clopper–Pearson: their Monte Carlo error, each side a one-sided test at 5%); expected loss: the \(o.title) given up against each draw's best feasible "
            + "configuration, averaged over the draws in which this one meets every constraint itself.\n\n"
        if u.noneFeasible > 0 {
            out += "In \(percent(u.noneFeasible)) of the draws no configuration meets every constraint.\n\n"
        }
        let constraints = u.rule.orderedConstraints
        var header = ["configuration", "P(best)", "P(feasible)"]
        header += constraints.map { "P(\(DecisionReport.constraintText($0.measure, $0.bound)))" }
        header += ["expected \(o.title)", "expected loss"]
        let sorted = u.standings.sorted { a, b in
            let x = a.expectedObjective ?? -.infinity, y = b.expectedObjective ?? -.infinity
            if x != y { return o.higherIsBetter ? x > y : x < y }
            return a.index < b.index
        }
        let rows = sorted.prefix(tableRows).map { s -> [String] in
            [results.all[s.index].label, percent(s.probabilityBest),
             feasibleText(s)]
                + s.probabilityMeets.map { percent($0.probability) }
                + [value(o, s.expectedObjective), value(o, s.expectedLoss)]
        }
        out += Markdown.table(header: header, alignments: [.left] + Array(repeating: .right, count: header.count - 1), rows: rows)
        if sorted.count > tableRows { out += "\nThe \(tableRows) best of \(sorted.count) by expected \(o.title).\n" }
        let unsettled = sorted.filter(\.feasibilityUnsettled)
        if !unsettled.isEmpty {
            let threshold = UncertainDecision.feasibilityPercent
            out += "\nToo close to the \(threshold)% threshold to tell with \(u.draws) draw\(u.draws == 1 ? "" : "s"): "
                + unsettled.map { Markdown.escapeInline(results.all[$0.index].label) }.joined(separator: ", ")
                + " (the interval of P(feasible) holds \(threshold)%); more draws (--model-draws) would settle whether the "
                + "rule may recommend \(unsettled.count == 1 ? "it" : "them").\n"
        }
        return out + "\n"
    }

    static func percent(_ p: Double) -> String { String(format: "%.0f%%", p * 100) }

    static func value(_ m: DecisionMeasure, _ v: Double?) -> String {
        guard let v else { return "n/a" }
        return m.isFraction ? String(format: "%.2f%%", v * 100) : String(format: "%.4f", v)
    }
}
