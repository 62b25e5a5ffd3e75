import Foundation
import Rendering
import Simulation

/// The report's decision, pairwise and segment sections, in Markdown.
enum DecisionReport {
    static func ruleText(_ results: RunResults) -> String {
        let rule = results.decision.rule
        var text = "\(rule.objective.higherIsBetter ? "highest" : "lowest") \(rule.objective.title)"
        let limits = rule.orderedConstraints.map { constraintText($0.measure, $0.bound) }
        text += limits.isEmpty ? ", no constraint" : " with " + limits.joined(separator: " and ")
        return text
    }

    static func constraintText(_ m: DecisionMeasure, _ b: DecisionBound) -> String {
        var parts: [String] = []
        if let v = b.min { parts.append("\(m.title) ≥ \(Text.measure(m, v))") }
        if let v = b.max { parts.append("\(m.title) ≤ \(Text.measure(m, v))") }
        return parts.joined(separator: " and ")
    }

    static func label(_ results: RunResults, _ i: Int) -> String { results.all[i].label }

    /// The mark the ranking tables put after a configuration that breaks a constraint of the decision
    /// rule: ranked by opens, it may come first and still not be recommendable.
    static let breaksMark = "‡"

    /// The constraints of the decision rule configuration `i` breaks, in words; empty when it meets them all.
    static func brokenConstraints(_ results: RunResults, _ i: Int) -> [String] {
        results.decision.constraints.filter { $0.excluded.contains(i) }.map { constraintText($0.measure, $0.bound) }
    }

    /// The ranking tables' note on the mark, when a shown configuration carries it.
    /// `name` shows a label in the note's medium (escaped for Markdown, printable for a terminal).
    static func breaksNote(_ results: RunResults, shown: [ConfigurationResult], name: (String) -> String) -> String? {
        guard shown.contains(where: { !$0.isHoldout && !brokenConstraints(results, $0.index).isEmpty }) else { return nil }
        let limits = results.decision.rule.orderedConstraints.map { constraintText($0.measure, $0.bound) }
        if limits.count == 1 {
            return "\(breaksMark) breaks the decision rule's constraint, \(limits[0]), on these estimates: whatever its rank here, "
                + "the rule does not recommend it on them."
        }
        // Several constraints: which each marked configuration breaks, since a mark alone cannot say.
        let which = shown.filter { !$0.isHoldout }.compactMap { c -> String? in
            let broken = brokenConstraints(results, c.index)
            return broken.isEmpty ? nil : "\(name(c.label)): \(broken.joined(separator: " and "))"
        }
        return "\(breaksMark) breaks at least one of the decision rule's constraints on these estimates (whatever its rank here, "
            + "the rule does not recommend it on them): " + which.joined(separator: "; ") + "."
    }

    /// The recommendation in one paragraph of plain text (also used by `run --json` and the terminal).
    static func headline(_ results: RunResults) -> String {
        let d = results.decision
        let users = Text.users(results.holdout.metrics.users)
        guard let best = d.recommended else {
            return "No configuration meets every constraint (\(ruleText(results))): keep \(label(results, d.baseline))."
        }
        let value = Text.measure(d.rule.objective, results.all[best].estimate(d.rule.objective))
        var text = "Ship \(label(results, best)): \(d.rule.objective.title) \(value)"
        // A constraint the recommendation may break with more users.
        let close = d.constraints.filter { tooCloseToCall(results.all[best], $0) }
        if !close.isEmpty {
            text += "; too close to call on " + close.map { c in
                "\(constraintText(c.measure, c.bound)) (\(Text.measure(c.measure, results.all[best].estimate(c.measure))))"
            }.joined(separator: " and ") + ": its interval crosses the limit"
        }
        // A gain over the baseline that is not clear (of the smallest gain worth shipping, when one is
        // stated) is said here too, with the constraints that rule the baseline out.
        if best != d.baseline, let c = d.versusBaseline.first(where: { $0.measure == d.comparedMeasure }),
           let v = verdict(results, c), v != .clearlyBetter {
            text += "; against the baseline, \(label(results, d.baseline)), it is \(v.text) (\(Text.difference(c))"
                + (d.rule.minimumDifference > 0 ? "; \(d.rule.minimumDifferenceText)" : "") + ")"
            let broken = d.constraints.filter { $0.excluded.contains(d.baseline) }
            if !broken.isEmpty {
                text += ", but the baseline breaks " + broken.map { constraintText($0.measure, $0.bound) }.joined(separator: " and ")
            }
        }
        if let runner = d.runnerUp, let toldApart = d.topTwoToldApart, !toldApart,
           let c = d.versusRunnerUp.first(where: { $0.measure == d.comparedMeasure }) {
            text += "; it cannot be told apart from \(label(results, runner)) at \(users) on \(c.measure.title) ("
                + "\(Text.difference(c))" + (c.usersToSeparate.map {
                    ", about \(Text.group($0)) simulated users on common random numbers would separate them, not a live-test size"
                } ?? "") + ")"
        }
        return text + "."
    }

    static func section(_ results: RunResults, charts: [ChartKind: String], secondLook: DecisionSecondLook? = nil) -> String {
        let d = results.decision
        let s = results.scenario
        var out = "## Decision\n\n"
        out += "Rule: \(ruleText(results))" + (s.decision == nil ? " (the default rule; set `decision` in the scenario to state yours)" : "")
            + "; \(d.rule.minimumDifferenceText)"
            + ". Baseline: \(Markdown.escapeInline(label(results, d.baseline)))"
            + (s.baseline == nil ? " (the default; set `baseline` to compare with what you ship today)" : "") + ".\n\n"
        out += "**" + Markdown.escapeCell(headline(results)) + "**\n\n"
        if let caveat = SecondLookReport.caveat(results, secondLook) { out += Markdown.escapeCell(caveat) + "\n\n" }
        if let best = d.recommended {
            out += reasons(results, best: best)
        }
        out += constraintsText(results)
        out += LiveTestReport.section(results, secondLook)
        let notes = artifactNotes(results)
        if !notes.isEmpty {
            out += "Measurement notes:\n\n" + notes.map { "- " + $0 + "\n" }.joined() + "\n"
        }
        for kind in [ChartKind.tradeOffOptOut, .tradeOffDelivered] {
            if let file = charts[kind] { out += "![\(kind.title)](\(file))\n\n" }
        }
        return out
    }

    /// Why `best` is recommended: the paired differences to the baseline and the runner-up, and whether
    /// the runner-up can be told apart.
    static func reasons(_ results: RunResults, best: Int) -> String {
        let d = results.decision
        var out = "Why: among the configurations that meet every constraint, \(Markdown.escapeCell(label(results, best))) has the "
            + "\(d.rule.objective.higherIsBetter ? "highest" : "lowest") \(d.rule.objective.title)."
        if results.pairwise.isEmpty {
            out += " This run was stored without sums over users, so no paired comparison is available."
        }
        out += pairedTable(results, best: best)
        out += baselineVerdictText(results, best: best)
        guard let runner = d.runnerUp else {
            return out + "No other configuration meets every constraint, so there is no runner-up to compare with.\n\n"
        }
        if let c = d.versusRunnerUp.first(where: { $0.measure == d.comparedMeasure }) {
            out += runnerUpText(results, best: best, runner: runner, on: c)
        }
        return out
    }

    /// The paired differences of `best` from the baseline and from the runner-up, a column each. The
    /// baseline's column is left out when the baseline itself is recommended (it would only say
    /// "X − X"), and the whole table when no column is left.
    static func pairedTable(_ results: RunResults, best: Int) -> String {
        let d = results.decision
        var columns: [(title: String, comparisons: [PairwiseComparison])] = []
        if best != d.baseline {
            columns.append(("\(label(results, best)) − \(label(results, d.baseline)) (baseline)", d.versusBaseline))
        }
        if let r = d.runnerUp { columns.append(("\(label(results, best)) − \(label(results, r)) (runner-up)", d.versusRunnerUp)) }
        guard !columns.isEmpty else {
            return " It is the baseline itself, so there is no difference from it to show.\n\n"
        }
        let rows = PairMeasure.allCases.map { m -> [String] in
            [m.title + (m.isFraction ? " (pp)" : "")]
                + columns.map { column in column.comparisons.first { $0.measure == m }.map(Text.difference) ?? "n/a" }
        }
        return (best == d.baseline ? " It is the baseline itself." : "") + " Paired differences on the same users (95% intervals):\n\n"
            + Markdown.table(header: ["measure"] + columns.map(\.title), alignments: [.left] + columns.map { _ in .right }, rows: rows)
            + "\n"
    }

    /// The top two on the measure they are compared on: clearly apart, or not, with what would separate
    /// them and where the other measures differ clearly.
    static func runnerUpText(_ results: RunResults, best: Int, runner: Int, on c: PairwiseComparison) -> String {
        if let text = runnerUpVerdictText(results, runner: runner, on: c) { return text }
        guard c.includesZero else {
            return "The runner-up, \(Markdown.escapeCell(label(results, runner))), is clearly behind on \(c.measure.title): "
                + "its paired interval excludes zero.\n\n"
        }
        var out = "**Cannot be told apart:** \(Markdown.escapeCell(label(results, best))) and "
            + "\(Markdown.escapeCell(label(results, runner))) differ by \(Text.difference(c)) in \(c.measure.title) at "
            + "\(Text.users(results.holdout.metrics.users)); the interval holds zero. "
            + (c.usersToSeparate.map {
                "About \(Text.group($0)) simulated users on common random numbers would separate them (80% power, 5% two-sided, "
                    + "if the difference is as large as estimated); a live test, with different users in each arm, needs the "
                    + "size of the live-test plan."
            } ?? "No user count would separate them: the estimated difference is zero.")
        // Where the objective cannot choose, the other paired measures may.
        let clear = results.decision.versusRunnerUp.filter { $0.measure != c.measure && !$0.includesZero }.compactMap { p -> String? in
            guard let e = p.difference else { return nil }
            let lowerIsBetter = p.measure == .optOutRate || p.measure == .deliveredPerUser
            let better = (e.value > 0) != lowerIsBetter ? label(results, best) : label(results, runner)
            return "\(Markdown.escapeCell(better)) on \(p.measure.title)"
        }
        out += clear.isEmpty ? "\n\n"
            : " Where they differ clearly (the runner-up column above), the better one is "
            + clear.joined(separator: ", ") + ".\n\n"
        return out
    }

    /// Whether `config`'s interval on `c`'s measure crosses one of its limits: with more users it could
    /// fall on either side.
    static func tooCloseToCall(_ config: ConfigurationResult, _ c: ConstraintCheck) -> Bool {
        guard let e = config.estimate(c.measure) else { return false }
        return c.bound.isCrossed(low: e.low, high: e.high)
    }

    /// Each constraint: whether it binds, what it excludes and which configurations are too close to call.
    static func constraintsText(_ results: RunResults) -> String {
        let constraints = results.decision.constraints
        guard !constraints.isEmpty else { return "" }
        var out = "Constraints:\n\n"
        out += Markdown.table(
            header: ["constraint", "binds", "configurations it excludes", "too close to call (interval crosses the limit)"],
            alignments: [.left, .left, .left, .left],
            rows: constraints.map { c in
                let close = results.shown.filter { tooCloseToCall($0, c) }
                return [constraintText(c.measure, c.bound),
                 c.binds ? "yes: it excludes a configuration that would otherwise win" : "no",
                 c.excluded.isEmpty ? "none" : c.excluded.map { "\(label(results, $0)) (\(Text.measure(c.measure, results.all[$0].estimate(c.measure))))" }
                    .joined(separator: "; "),
                 close.isEmpty ? "none" : close.map { "\($0.label) (\(c.excluded.contains($0.index) ? "excluded" : "admitted"))" }
                    .joined(separator: "; ")]
            }) + "\n"
        // Only the measures the trade-off charts plot have a limit line there.
        let charted = constraints.map(\.measure).filter { $0 == .optOutRate || $0 == .deliveredPerUser }
        out += "Constraints are checked on the estimates. A configuration whose interval crosses a limit could fall "
            + "on either side of it with more users"
            + (charted.isEmpty ? ".\n\n"
               : "; in the trade-off chart of \(charted.map(\.title).joined(separator: " and of ")) its whiskers cross the limit line.\n\n")
        return out
    }

    /// Flags on retention lifts that mislead when read at face value.
    static func artifactNotes(_ results: RunResults) -> [String] {
        var notes: [String] = []
        for c in results.shown {
            for k in [7, 30] {
                if let note = c.liftNote(day: k) {
                    notes.append("\(Markdown.escapeCell(c.label)), D\(k) vs holdout: \(note.text(day: k)).")
                }
            }
        }
        return notes
    }

    /// A retention lift with its flag: n/a with the reason when zero by construction, † when a period is k days.
    static func lift(_ c: ConfigurationResult, day k: Int) -> String {
        switch c.liftNote(day: k) {
        case .zeroByConstruction?: return "n/a (zero by construction)"
        case .periodEqualsDay?: return Text.points(c.lift(day: k)) + " †"
        case nil: return Text.points(c.lift(day: k))
        }
    }

    static func pairwiseSection(_ results: RunResults) -> String {
        var out = "## Paired comparisons\n\n"
        guard !results.pairwise.isEmpty else {
            return out + "This run was stored before paired comparisons were kept; run it again to get them.\n\n"
        }
        let b = results.baselineIndex
        out += "Each configuration minus the baseline (\(Markdown.escapeInline(results.baseline.label))), on the same users: "
            + "mean per-user differences with paired 95% intervals; retention and opt-out in percentage points.\n\n"
        let others = results.shownAll.map(\.index).filter { $0 != b }
        out += Markdown.table(
            header: ["configuration"] + PairMeasure.allCases.map(\.title),
            alignments: [.left] + PairMeasure.allCases.map { _ in .right },
            rows: others.map { i in
                [results.all[i].label] + PairMeasure.allCases.map { m in pairCell(results, i, against: b, m) }
            }) + "\n"
        let idx = results.shownAll.map(\.index)
        guard idx.allSatisfy({ a in idx.allSatisfy { a == $0 || results.holdsPair(a, $0) } }) else {
            return out + recommendationPairs(results, shown: others)
        }
        for m in [PairMeasure.opensPerUser, .optOutRate] {
            out += "Every pair, \(m.title) (row minus column\(m.isFraction ? ", pp" : "")):\n\n"
            out += Markdown.table(
                header: [""] + idx.map { results.all[$0].label },
                alignments: [.left] + idx.map { _ in .right },
                rows: idx.map { a in
                    [results.all[a].label] + idx.map { r in
                        a == r ? "—" : results.comparison(a, against: r, m).map(Text.difference) ?? "n/a"
                    }
                }) + "\n"
        }
        out += "`pairwise_stats.csv` holds every pair and every measure, with the users a run would need to separate each pair.\n\n"
        return out
    }

    /// One cell of a paired table: a − b on `m`, or n/a with the reason when the difference is zero by
    /// construction (a retention day that ends before any notification of either can fire), as the
    /// ranking table shows a lift over the holdout.
    static func pairCell(_ results: RunResults, _ a: Int, against b: Int, _ m: PairMeasure) -> String {
        if zeroByConstruction(results, a, b, m) { return "n/a (zero by construction)" }
        return results.comparison(a, against: b, m).map(Text.difference) ?? "n/a"
    }

    static func zeroByConstruction(_ results: RunResults, _ a: Int, _ b: Int, _ m: PairMeasure) -> Bool {
        let day: Int
        switch m {
        case .retentionD7: day = 7
        case .retentionD30: day = 30
        default: return false
        }
        func silent(_ i: Int) -> Bool {
            let c = results.all[i]
            if c.isHoldout { return true }
            if case .zeroByConstruction? = c.liftNote(day: day) { return true }
            return false
        }
        return silent(a) && silent(b)
    }

    /// For a run that kept the pairs its decision needs: each configuration shown minus the
    /// recommendation, and which pairs `pairwise_stats.csv` holds.
    static func recommendationPairs(_ results: RunResults, shown: [Int]) -> String {
        var out = ""
        if let best = results.decision.recommended {
            out += "Each configuration minus the recommendation (\(Markdown.escapeInline(label(results, best)))), on the same users:\n\n"
            out += Markdown.table(
                header: ["configuration"] + PairMeasure.allCases.map(\.title),
                alignments: [.left] + PairMeasure.allCases.map { _ in .right },
                rows: shown.filter { $0 != best }.map { i in
                    [results.all[i].label] + PairMeasure.allCases.map { m in pairCell(results, i, against: best, m) }
                }) + "\n"
        }
        return out + "This run kept each configuration paired with the holdout, the baseline, the recommendation and the "
            + "runner-up, not every pair (`run --all-pairs` keeps every pair). `pairwise_stats.csv` holds those pairs and "
            + "every measure, with the users a run would need to separate each pair.\n\n"
    }

    static func segmentSection(_ results: RunResults) -> String {
        var out = "## Per segment\n\n"
        guard !results.segments.isEmpty else {
            return out + "This run was stored before per-segment measures were kept; run it again to get them.\n\n"
        }
        out += "Every configuration's headline measures among the users of each segment (95% intervals).\n\n"
        return out + groupTable(results, results.segments, group: "segment")
    }

    /// The same per platform, when the population names platforms.
    static func platformSection(_ results: RunResults) -> String {
        guard results.scenario.population.platforms != nil, !results.platforms.isEmpty else { return "" }
        return "## Per platform\n\n"
            + "Every configuration's headline measures among the users of each platform (95% intervals), under the "
            + "platform rules listed with the assumptions. The trigger rate counts every notification that fired, those "
            + "not shown for want of permission included; `platform_metrics.csv` gives each platform's deliveries.\n\n"
            + groupTable(results, results.platforms, group: "platform")
    }

    static func groupTable(_ results: RunResults, _ rows: [SegmentMetrics], group: String) -> String {
        let shown = Set(results.shownAll.map(\.index))
        return Markdown.table(
            header: ["configuration", group, "users"] + [Measure.opensLiftPerUser, .triggerRate, .responseRate, .retentionD7,
                                                             .liftD7, .liftD30, .optOutRate, .deliveredPerExtraOpen].map(\.title),
            alignments: [.left, .left] + Array(repeating: .right, count: 9),
            rows: rows.filter { shown.contains($0.configuration) }.map { m in
                let c = results.all[m.configuration]
                let zero7: Bool, zero30: Bool
                if case .zeroByConstruction? = c.liftNote(day: 7) { zero7 = true } else { zero7 = false }
                if case .zeroByConstruction? = c.liftNote(day: 30) { zero30 = true } else { zero30 = false }
                return [
                    c.label, m.segmentName, Text.group(m.users),
                    m.configuration == 0 ? "—" : Text.signed(m.opensLiftPerUser, digits: 3),
                    Text.percent(m.triggerRate), Text.percent(m.responseRate), Text.percent(m.retentionD7),
                    m.configuration == 0 ? "—" : zero7 ? "n/a (zero by construction)" : Text.points(m.liftD7),
                    m.configuration == 0 ? "—" : zero30 ? "n/a (zero by construction)" : Text.points(m.liftD30),
                    // With two decimals, as the ranking shows it beside its limit.
                    Text.measure(.optOutRate, m.optOutRate.estimate),
                    m.deliveredPerIncrementalOpen.map { String(format: "%.1f", $0) } ?? "n/a",
                ]
            }) + "\n"
    }
}
