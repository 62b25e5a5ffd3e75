import Foundation
import Reporting
import Rendering
import Simulation

/// A tune's findings as text: the terminal summary, report.md, recommendation.json and candidates.csv.
struct TuneReport {
    let result: TuneResult
    let wallSeconds: Double
    let threads: Int
    /// The live test of the winner against the baseline; nil without a winner.
    var liveTest: LiveTestPlan? = nil

    var rule: DecisionRule { result.rule }
    func label(_ c: Int) -> String { result.candidates[c].spec.label }
    /// A label or name as the summary shows it: on one line, control and format characters by their codes.
    func shown(_ text: String) -> String { TerminalText.printable(text, limit: 200) }
    func shownLabel(_ c: Int) -> String { shown(label(c)) }

    func show(_ e: Estimate?, _ m: DecisionMeasure) -> String {
        guard let e else { return "n/a" }
        return "\(show(e.value, m)) [\(show(e.low, m)), \(show(e.high, m))]"
    }

    func show(_ x: Double, _ m: DecisionMeasure) -> String {
        guard x.isFinite else { return x > 0 ? "∞" : "−∞" }
        return m.isFraction ? String(format: "%.2f%%", 100 * x) : String(format: "%.3f", x)
    }

    func showDifference(_ c: PairwiseComparison?) -> String {
        guard let c, let d = c.difference else { return "n/a" }
        func f(_ x: Double) -> String { c.measure.isFraction ? String(format: "%+.2f pp", 100 * x) : String(format: "%+.3f", x) }
        return "\(f(d.value)) [\(f(d.low)), \(f(d.high))]"
    }

    func bound(_ b: DecisionBound, _ m: DecisionMeasure) -> String {
        [b.min.map { "≥ \(show($0, m))" }, b.max.map { "≤ \(show($0, m))" }].compactMap { $0 }.joined(separator: " and ")
    }

    var ruleText: String {
        let o = rule.objective
        let constraints = rule.orderedConstraints.map { "\($0.measure.rawValue) \(bound($0.bound, $0.measure))" }
        return "\(o.higherIsBetter ? "maximise" : "minimise") \(o.rawValue) (\(o.title))"
            + (constraints.isEmpty ? "" : " subject to " + constraints.joined(separator: ", "))
            + "; \(rule.minimumDifferenceText)"
    }

    /// One line per stage; `timings` adds each stage's seconds.
    func stageLines(timings: Bool) -> [String] {
        result.stages.enumerated().map { k, s in
            let final = k == result.stages.count - 1
            var parts = ["stage \(k + 1)\(final ? " (final)" : ""): \(TuneCommand.count(s.users)) users",
                         "\(TuneCommand.count(s.evaluated)) evaluated"]
            if s.overCapacity > 0 {
                parts.append("\(TuneCommand.count(s.overCapacity)) left out beforehand (not among the \(TuneCommand.count(s.entered)) it takes)")
            }
            if !final { parts.append("\(TuneCommand.count(s.infeasible)) dropped as clearly infeasible, \(TuneCommand.count(s.worse)) as clearly worse, "
                                   + "\(TuneCommand.count(s.survivors)) go on") }
            if timings { parts.append(String(format: "%.1f s", s.seconds)) }
            return parts.joined(separator: ", ")
        }
    }

    func constraintLines(_ f: CandidateFigures) -> [String] {
        rule.orderedConstraints.map { m, b in
            let met = f.value(m).map(b.admits) ?? false
            let e = f.measures[m]
            let crosses = e.map { b.isCrossed(low: $0.low, high: $0.high) } ?? false
            return "\(m.rawValue) \(show(e, m)), limit \(bound(b, m)): \(met ? "met" : "NOT met")"
                + (crosses ? " on the estimate; its interval crosses the limit, too close to call" : "")
        }
    }

    /// The recommended configuration as a scenario configuration, ready to paste: control and format
    /// characters (a right-to-left override, DEL) written as JSON escapes, which read back as the same text
    /// but show on a terminal and in the report as what they are.
    func configurationJSON(_ c: Int) throws -> String {
        Self.visibleJSON(try result.candidates[c].spec.canonicalJSON())
    }

    /// `json` with every control or format character (found only inside its strings) as a `\u` escape.
    static func visibleJSON(_ json: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            let category = scalar.properties.generalCategory
            guard category == .control || category == .format, scalar != "\n" else {
                out.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 { out.append(contentsOf: String(format: "\\u%04x", unit).unicodeScalars) }
        }
        return String(out)
    }

    /// The findings as the terminal shows them; without `timings` (the report's copy) nothing in it
    /// depends on the machine or the threads.
    func summary(timings: Bool = true) -> String {
        let r = result
        var out: [String] = []
        out.append("Tune of \"\(shown(r.scenario.name))\": \(TuneCommand.count(r.candidates.count)) candidates against the baseline "
                   + "\"\(shown(r.baseline.label))\"; \(ruleText).")
        out.append("  " + spaceLine)
        out.append(contentsOf: stageLines(timings: timings).map { "  " + $0 })
        // Users a racing stage took from the stage before were simulated once, not twice.
        let reused = r.reused > 0 ? " (\(TuneCommand.count(Int(r.reused))) more taken from the stage before)" : ""
        out.append(timings
            ? String(format: "  %@ configuration-users simulated in %.1f s on %d thread%@%@.",
                     TuneCommand.count(Int(r.simulated)), wallSeconds, threads, threads == 1 ? "" : "s", reused)
            : "  \(TuneCommand.count(Int(r.simulated))) configuration-users simulated\(reused).")
        out.append("")
        guard let w = r.winner, let f = r.final.ranking.first(where: { $0.candidate == w })?.figures else {
            out.append("No candidate meets every constraint at \(TuneCommand.count(r.final.users)) users: nothing to recommend.")
            out.append("Finalists: " + r.final.ranking.map { shownLabel($0.candidate) }.joined(separator: ", "))
            out.append("Listed configurations, where they ended:")
            out.append(contentsOf: listedLines(winner: nil).map { "  " + $0 })
            return out.joined(separator: "\n") + "\n"
        }
        let o = rule.objective
        out.append("Recommendation: \"\(shownLabel(w))\"" + listedNote(w))
        let doubts = doubts(winner: w, name: shown)
        if !doubts.isEmpty { out.append("  Not firm: " + doubts.joined(separator: ", and ") + " (see below).") }
        out.append("  \(o.title): \(show(f.measures[o], o)) at \(TuneCommand.count(f.users)) users")
        let pm = r.final.versusRunnerUp?.measure ?? o.pairMeasure
        let vsBase = r.final.versusBaseline.first { $0.measure == pm }
        out.append("  against the baseline \"\(shown(r.baseline.label))\": \(pm.title) \(showDifference(vsBase)) (paired)"
                   + (vsBase.flatMap(verdictText).map { ": " + $0 } ?? ""))
        for line in constraintLines(f) { out.append("  " + line) }
        let broken = rule.orderedConstraints.filter { m, b in !(r.final.baseline.value(m).map(b.admits) ?? false) }
        if !broken.isEmpty {
            out.append("  the baseline itself breaks a constraint here: " + broken.map { m, b in
                "\(m.rawValue) \(show(r.final.baseline.measures[m], m)), limit \(bound(b, m))"
            }.joined(separator: "; "))
        }
        if let ru = r.final.versusRunnerUp, r.final.ranking.filter(\.admissible).count > 1 {
            let second = r.final.ranking.filter(\.admissible)[1].candidate
            out.append("  against the runner-up \"\(shownLabel(second))\": \(showDifference(ru))"
                       + (ru.includesZero ? " — not told apart at this user count"
                          : verdictText(ru).map { " — " + $0 } ?? ""))
        }
        if let re = r.recheck, let rf = re.figures(of: w) {
            let d = re.versusBaseline.first { $0.measure == pm }
            out.append("Re-check on other users (seed \(re.seed), \(TuneCommand.count(re.users)) users): \(o.title) "
                       + "\(show(rf.measures[o], o)); against the baseline \(showDifference(d))"
                       + "; constraints \(re.admits(w) ? "met" : "NOT all met")")
            if let l = r.bestListed, l != w, let c = re.subjectVersus[l] {
                out.append("  against the best listed configuration \"\(shownLabel(l))\" there: \(c.measure.title) "
                           + "\(showDifference(c))" + (verdictText(c).map { ": " + $0 } ?? ""))
            }
        }
        out.append("Listed configurations, where they ended:")
        out.append(contentsOf: listedLines(winner: w).map { "  " + $0 })
        for s in r.sensitivity { out.append("Sensitivity, \(sensitivityLine(s, winner: w))") }
        if !r.sensitivity.isEmpty { out.append(sensitivityVerdict(winner: w)) }
        if let line = modelDrawsLine() { out.append(line) }
        if let plan = liveTest { out.append(LiveTestReport.sentence(plan)) }
        out.append("")
        out.append("Configuration to paste into the scenario's \"configurations\":")
        out.append((try? configurationJSON(w)) ?? "")
        return out.joined(separator: "\n") + "\n"
    }

    /// What of the checks after the race says the winner is not firm, in words, as `run` says it of
    /// its call: the re-check on other users (the winner misses a constraint there, or the best
    /// listed configuration, meeting every one there, is ahead of it), the sensitivity runs (another
    /// winner, or none, under a change of the response) and the model draws (another
    /// recommendation). Empty when every check there was bears the winner out.
    /// `name` shows a label (the terminal's printable form; JSON takes it as it is).
    func doubts(winner w: Int, name: (String) -> String = { $0 }) -> [String] {
        let r = result, o = rule.objective
        var doubts: [String] = []
        if let re = r.recheck {
            var overtaken = false
            if let l = r.bestListed, l != w, re.admits(l), let x = re.figures(of: w)?.value(o), let y = re.figures(of: l)?.value(o) {
                overtaken = o.higherIsBetter ? y > x : y < x
            }
            if !re.admits(w) || overtaken { doubts.append(SecondLookReport.recheckDoubt) }
        }
        if !r.sensitivity.isEmpty, !r.sensitivity.allSatisfy({ $0.winner == w }) {
            doubts.append(SecondLookReport.responseDoubt)
        }
        if let (members, u) = r.modelDraws {
            let best = u.recommended.map { drawLabel($0, members) }
            if best != label(w) {
                doubts.append("under the response model's draws the rule "
                              + (best.map { "recommends \"\(name($0))\" instead" } ?? "finds no finalist feasible enough"))
            }
        }
        return doubts
    }

    /// The best of the top five by objective alone, whatever the constraints.
    func bestByObjective(_ s: TuneCheck) -> Int? {
        let o = rule.objective
        return s.ranking.max { a, b in
            let x = a.figures.value(o) ?? -.infinity, y = b.figures.value(o) ?? -.infinity
            return o.higherIsBetter ? x < y : x > y
        }?.candidate
    }

    func sensitivityLine(_ s: TuneCheck, winner w: Int) -> String {
        var text = "\(s.name): "
        if let v = s.winner {
            text += "winner \"\(shownLabel(v))\"" + (v == w ? " (the same)" : " (a different one)")
        } else {
            text += "none of the top five meets every constraint"
        }
        if let b = bestByObjective(s), b != s.winner {
            text += "; best on \(rule.objective.rawValue) alone \"\(shownLabel(b))\"" + (b == w ? " (the winner)" : "")
        }
        return text
    }

    func sensitivityVerdict(winner w: Int) -> String {
        let s = result.sensitivity
        if s.allSatisfy({ $0.winner == w }) { return "The winner stays the winner under every change tried." }
        let changed = s.filter { $0.winner != nil && $0.winner != w }.map(\.name)
        let none = s.filter { $0.winner == nil }.map(\.name)
        var parts: [String] = []
        if !changed.isEmpty { parts.append("another finalist wins with \(changed.joined(separator: ", "))") }
        if !none.isEmpty { parts.append("no top-five finalist meets the constraints with \(none.joined(separator: ", "))") }
        return "The winner does NOT stay the winner under every change tried: " + parts.joined(separator: "; ")
            + ". The choice depends on the response model; check its numbers before shipping."
    }

    /// Candidates not beaten on both the objective and `m` by another, each at its last stage (the
    /// most users it was simulated on, as the charts show them), ordered by `m`.
    func paretoFront(_ m: DecisionMeasure) -> [(Int, CandidateFigures)] {
        let o = rule.objective
        let points = result.candidates.indices.compactMap { c -> (Int, CandidateFigures)? in
            guard let f = result.candidates[c].figures, f.value(o) != nil, f.value(m) != nil else { return nil }
            return (c, f)
        }
        // Higher is better on both once the measures where lower is better are negated.
        let front = ParetoFront.nonDominated(points.map { p in
            (a: o.higherIsBetter ? p.1.value(o)! : -p.1.value(o)!, b: m.higherIsBetter ? p.1.value(m)! : -p.1.value(m)!)
        })
        let onFront = points.indices.filter { front[$0] }.map { points[$0] }
        return onFront.sorted { ($0.1.value(m)!, $0.0) < ($1.1.value(m)!, $1.0) }
    }

    func markdown() -> String {
        let r = result
        let o = rule.objective
        var md: [String] = ["# Tune: \(Markdown.escapeInline(r.scenario.name))", ""]
        md.append("Rule: \(ruleText). Baseline: \"\(Markdown.escapeCell(r.baseline.label))\". Seed \(r.scenario.seed), "
                  + "\(TuneCommand.count(r.scenario.users)) final users, \(TuneCommand.count(r.candidates.count)) candidates.")
        md.append("")
        // A fence longer than any run of backticks in the summary, which no label can close.
        let summaryText = summary(timings: false).trimmingCharacters(in: .newlines)
        let fence = String(repeating: "`", count: max(3, Self.longestBacktickRun(summaryText) + 1))
        md.append(fence)
        md.append(summaryText)
        md.append(fence)
        md.append("")
        md.append("## Stages")
        md.append("")
        md.append(String(format: "A candidate is dropped as clearly infeasible when a constrained measure's interval at "
                         + "z = %.3f (one-sided 5%% split over the %d racing stage%@) lies beyond its limit, and as clearly "
                         + "worse when its paired difference from the leader at the stage's z′ (that share split again "
                         + "over the other candidates the stage compared, as the leader is picked from them) lies on the "
                         + "worse side. Intervals of opens and notifications allow for the skewness of the users' "
                         + "differences (docs/scenario.md, *Tuning*).", r.plan.dropZ, max(1, r.plan.stageUsers.count - 1),
                         r.plan.stageUsers.count > 2 ? "s" : "")
                  + " Timings are left out of the report, which is the same for a seed whatever the threads; each "
                  + "stage's seconds are in the database (`tune_stages`).")
        md.append("")
        // Every count `tune_stages` keeps, and those that reached the stage (left out beforehand and evaluated).
        md.append("| stage | users | entered | left out beforehand | evaluated | clearly infeasible | clearly worse | z′ | go on |")
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for (k, s) in r.stages.enumerated() {
            let final = k == r.stages.count - 1
            let n = TuneCommand.count
            md.append("| \(k + 1)\(final ? " (final)" : "") | \(n(s.users)) | \(n(s.entered + s.overCapacity)) | \(n(s.overCapacity)) | "
                      + "\(n(s.entered)) | \(n(s.infeasible)) | \(n(s.worse)) | \(final ? "–" : String(format: "%.3f", s.worseZ)) | "
                      + "\(final ? "–" : n(s.survivors)) |")
        }
        md.append("")
        md.append("## Finalists at \(TuneCommand.count(r.final.users)) users")
        md.append("")
        let measures = [o] + rule.orderedConstraints.map(\.measure).filter { $0 != o }
        md.append("| rank | configuration | " + measures.map(\.title).joined(separator: " | ") + " | admissible |")
        md.append("|---:|---|" + measures.map { _ in "---:|" }.joined() + "---|")
        for (i, x) in r.final.ranking.enumerated() {
            md.append("| \(i + 1) | \(escape(label(x.candidate))) | " + measures.map { show(x.figures.measures[$0], $0) }.joined(separator: " | ")
                      + " | \(x.admissible ? "yes" : "no") |")
        }
        md.append("| – | baseline \(escape(r.baseline.label)) | "
                  + measures.map { show(r.final.baseline.measures[$0], $0) }.joined(separator: " | ") + " | |")
        md.append("")
        md += listedSection()
        md.append("## Sensitivity")
        md.append("")
        if r.sensitivity.isEmpty {
            md.append("Not run: no finalist meets the constraints.")
        } else {
            md.append("The best \(min(TunePlan.sensitivityTop, r.final.ranking.count)) finalists (the order column) re-run on the final users "
                      + "with the response model changed.")
            md.append("")
            md.append("| change | winner | the same? | best on the objective alone | order |")
            md.append("|---|---|---|---|---|")
            for s in r.sensitivity {
                md.append("| \(s.name) | \(s.winner.map { escape(label($0)) } ?? "none") | \(s.winner == r.winner ? "yes" : "no") | "
                          + "\(bestByObjective(s).map { escape(label($0)) } ?? "–") | "
                          + s.ranking.map { escape(label($0.candidate)) + ($0.admissible ? "" : " (inadmissible)") }.joined(separator: ", ") + " |")
            }
        }
        md.append("")
        md += modelDrawsSection()
        if let plan = liveTest { md.append(LiveTestReport.section(plan, heading: "##")) }
        md += paretoSection()
        md.append("Every candidate, the stage it reached and why it left: `candidates.csv`.")
        return md.joined(separator: "\n") + "\n"
    }

    /// For each measure the front is drawn against, its chart and the front's candidates.
    func paretoSection() -> [String] {
        let o = rule.objective
        var md = ["## Pareto front", ""]
        for m in frontMeasures {
            md.append("\(o.title) against \(m.title), every candidate at its last stage (the most users it was "
                      + "simulated on; those dropped early carry wider intervals): the candidates no other beats on both.")
            md.append("")
            md.append("![\(o.title) against \(m.title)](\(Self.chartFile(m)))")
            md.append("")
            // "Within this limit" is the plotted measure's alone: a candidate on the front can break another
            // constraint, which the last column says, so that a front above the recommendation does not read
            // as better candidates passed over.
            let others = rule.orderedConstraints.count > (rule.constraints[m] == nil ? 0 : 1)
            md.append("A point beats another when it is at least as good on both and better on one. "
                      + (others ? "The last column reads every constraint, the plotted one and the others, on the "
                          + "candidate's figures at its last stage; " : "")
                      + "the recommendation is the best candidate meeting every constraint on the final users, "
                      + "listed after the front when it is not on it.")
            md.append("")
            md.append("| configuration | stage | users | \(o.title) | \(m.title) | within this limit | meets every constraint |")
            md.append("|---|---:|---:|---:|---:|---|---|")
            let b = rule.constraints[m]
            let front = paretoFront(m)
            var rows = front.map { (c: $0.0, f: $0.1, name: escape(label($0.0))) }
            if let w = result.winner, !front.contains(where: { $0.0 == w }), let f = result.candidates[w].figures {
                rows.append((w, f, "recommendation: " + escape(label(w))))
            }
            for (c, f, name) in rows {
                let meetsAll = rule.orderedConstraints.allSatisfy { m, b in f.value(m).map(b.admits) ?? false }
                md.append("| \(name) | \(result.candidates[c].stage + 1) | \(TuneCommand.count(f.users)) | \(show(f.measures[o], o)) | "
                          + "\(show(f.measures[m], m)) | \(b.map { f.value(m).map($0.admits) ?? false ? "yes" : "no" } ?? "–") | "
                          + "\(meetsAll ? "yes" : "no") |")
            }
            md.append("")
        }
        return md
    }

    func escape(_ s: String) -> String { Markdown.escapeCell(s) }

    /// The most backticks in a row in `text`.
    static func longestBacktickRun(_ text: String) -> Int {
        var longest = 0, run = 0
        for byte in text.utf8 {
            run = byte == UInt8(ascii: "`") ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    /// Every candidate with its last figures, as RFC 4180 CSV written as every other CSV file is
    /// (`CSVTable`); `safe` puts a `'` before a text a spreadsheet would run as a formula.
    func candidatesCSV(tuneID: Int64, safe: Bool = false) -> String {
        let o = rule.objective
        let measures = [o] + rule.orderedConstraints.map(\.measure).filter { $0 != o }
        // Named as every table names them: (`tune_id`, `candidate_index`) joins `tune_candidates` in a database
        // holding several tunes, measures by their snake_case names.
        var table = CSVTable(header: ["tune_id", "candidate_index", "label", "listed_label", "is_baseline", "is_winner", "final_rank",
                                      "meets_constraints", "stage", "users", "dropped"]
            + measures.flatMap { [$0.measure.name, "\($0.measure.name)_low", "\($0.measure.name)_high"] })
        func number(_ x: Double?) -> CSVField { x.map { $0.isFinite ? .decimal($0) : .null } ?? .null }
        // The scenario's own labels of the listed configurations, and the final stage's ranking.
        // Listed configurations alike but for their labels race as one candidate: its labels joined by ";".
        let listedLabels = Dictionary(result.listed.map { ($0.candidate, $0.label) }, uniquingKeysWith: { "\($0);\($1)" })
        var finalRank: [Int: (rank: Int, admissible: Bool)] = [:]
        for (k, entry) in result.final.ranking.enumerated() where finalRank[entry.candidate] == nil {
            finalRank[entry.candidate] = (k + 1, entry.admissible)
        }
        table.rows.reserveCapacity(result.candidates.count)
        for (index, c) in result.candidates.enumerated() {
            let f = c.figures
            let listed = listedLabels[index]
            let final = finalRank[index]
            var row: [CSVField] = [.integer(tuneID), .integer(Int64(index)), .text(c.spec.label), .text(listed ?? ""),
                                   .integer(result.listed.contains { $0.candidate == index && $0.label == result.baseline.label } ? 1 : 0),
                                   .integer(result.winner == index ? 1 : 0),
                                   final.map { .integer(Int64($0.rank)) } ?? .null, final.map { .integer($0.admissible ? 1 : 0) } ?? .null,
                                   .integer(Int64(c.stage + 1)), f.map { .integer(Int64($0.users)) } ?? .null,
                                   c.dropped.map { .text($0) } ?? .null]
            for m in measures {
                let e = f?.measures[m]
                row += [number(e?.value), number(e?.low), number(e?.high)]
            }
            table.rows.append(row)
        }
        return table.encoded(neutralizeFormulas: safe)
    }

    /// `recommendation.json`: the recommended configuration with its estimates, constraints, re-check
    /// and sensitivity, or a null configuration when no candidate met every constraint.
    func recommendationJSON() throws -> String {
        try JSONFlag.text(recommendation())
    }

    /// What `tune --json` prints: the tune as saved (`tuneID`, `database`, `report`), the run's
    /// `wallSeconds` and `threads`, the text summary `tune` prints otherwise, and the recommendation
    /// exactly as in `recommendation.json`.
    func commandJSON(tuneID: Int64, database: String, report: String) throws -> String {
        try JSONFlag.text([
            "tuneID": tuneID, "database": database, "report": report, "wallSeconds": JSONFlag.number(wallSeconds), "threads": threads,
            "summary": summary(), "recommendation": recommendation(),
        ])
    }

    private func recommendation() throws -> [String: Any] {
        let r = result
        func estimate(_ e: Estimate?) -> Any {
            guard let e else { return NSNull() }
            func n(_ x: Double) -> Any { x.isFinite ? x : NSNull() }
            return ["value": n(e.value), "low": n(e.low), "high": n(e.high)]
        }
        func difference(_ c: PairwiseComparison?) -> Any {
            guard let c else { return NSNull() }
            return ["measure": c.measure.rawValue, "difference": estimate(c.difference), "pairs": c.pairs]
        }
        func constraints(_ f: CandidateFigures) -> [String: Any] {
            Dictionary(uniqueKeysWithValues: rule.orderedConstraints.map { m, b in
                (m.rawValue, ["estimate": estimate(f.measures[m]), "min": b.min ?? NSNull(), "max": b.max ?? NSNull(),
                              "met": f.value(m).map(b.admits) ?? false,
                              // Met or not on the estimate, with an interval that crosses a limit: the text's "too close to call".
                              "tooCloseToCall": f.measures[m].map { b.isCrossed(low: $0.low, high: $0.high) } ?? false]
                    as [String: Any])
            })
        }
        var root: [String: Any] = [
            "scenario": r.scenario.name, "seed": r.scenario.seed, "users": r.scenario.users,
            "objective": rule.objective.rawValue, "baseline": r.baseline.label, "candidates": r.candidates.count,
            "minimumDifference": rule.minimumDifference,
            "space": Dictionary(uniqueKeysWithValues: r.parts.map { ($0.name, $0.candidates) }),
            // A racing stage's z′ (`tune_stages.worse_z`); the final stage drops nothing.
            "stages": r.stages.enumerated().map { k, stage in
                var entry: [String: Any] = ["users": stage.users, "evaluated": stage.evaluated, "clearlyInfeasible": stage.infeasible,
                                            "clearlyWorse": stage.worse, "leftOutBeforehand": stage.overCapacity]
                if k < r.stages.count - 1 { entry["worseZ"] = stage.worseZ }
                return entry
            },
        ]
        if let plan = liveTest { root["liveTest"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(LiveTestReport.JSONValue(plan))) }
        // The baseline beside the finalists, on the final users: its figures there, whatever stage it left at as a candidate.
        root["baselineAtFinal"] = ["users": r.final.users, "objectiveEstimate": estimate(r.final.baseline.measures[rule.objective]),
                                   "constraints": constraints(r.final.baseline)] as [String: Any]
        let pm = r.final.versusRunnerUp?.measure ?? rule.objective.pairMeasure
        if let w = r.winner, let f = r.final.ranking.first(where: { $0.candidate == w })?.figures {
            let encoded = try JSONEncoder().encode(r.candidates[w].spec)
            root["configuration"] = try JSONSerialization.jsonObject(with: encoded)
            root["objectiveEstimate"] = estimate(f.measures[rule.objective])
            root["versusBaseline"] = difference(r.final.versusBaseline.first { $0.measure == pm })
            root["versusRunnerUp"] = difference(r.final.versusRunnerUp)
            root["constraints"] = constraints(f)
            root["listed"] = r.winnerIsListed
            // As `run --json` says of its call: firm when every check after the race bears the winner out.
            let doubts = doubts(winner: w)
            root["firm"] = doubts.isEmpty
            root["doubts"] = doubts
            // The scenario's own label of a listed winner ("5 days" for the candidate "5d"), as a run of it names it.
            if let listed = r.listed.first(where: { $0.candidate == w }) { root["listedLabel"] = listed.label }
            if let re = r.recheck, let rf = re.figures(of: w) {
                var recheck: [String: Any] = [
                    "seed": re.seed, "users": re.users, "objectiveEstimate": estimate(rf.measures[rule.objective]),
                    "versusBaseline": difference(re.versusBaseline.first { $0.measure == pm }),
                    "constraints": constraints(rf), "admissible": re.admits(w)]
                if let l = r.bestListed, l != w, let c = re.subjectVersus[l] {
                    recheck["versusBestListed"] = ["configuration": label(l), "comparison": difference(c)] as [String: Any]
                }
                root["recheck"] = recheck
            }
            if let (members, u) = r.modelDraws {
                root["modelDraws"] = [
                    "draws": u.draws, "rule": u.ruleText, "recommended": u.recommended.map { drawLabel($0, members) } ?? NSNull(),
                    "noneFeasible": u.noneFeasible,
                    "configurations": u.standings.map { s in
                        ["label": drawLabel(s.index, members), "probabilityBest": s.probabilityBest,
                         "probabilityFeasible": s.probabilityFeasible,
                         "expectedObjective": s.expectedObjective.map { $0 as Any } ?? NSNull(),
                         "expectedLoss": s.expectedLoss.map { $0 as Any } ?? NSNull()] as [String: Any]
                    },
                ] as [String: Any]
            }
            root["sensitivity"] = r.sensitivity.map { s in
                ["change": s.name, "winner": s.winner.map { label($0) } ?? NSNull(), "sameWinner": s.winner == w,
                 "bestOnObjectiveAlone": bestByObjective(s).map { label($0) } ?? NSNull()] as [String: Any]
            }
        } else {
            root["configuration"] = NSNull()
        }
        return root
    }
}

extension TuneReport {
    /// The space's size per part, and the listed configurations beside it.
    var spaceLine: String {
        let r = result
        let names = ["timePeriods": "timePeriods lists", "sequences": "inactivity sequences", "mix": "mixes of a reminder and a sequence"]
        let space = r.parts.filter { $0.name != "listed" }
        let inSpace = spaceSize
        let added = r.candidates.count - inSpace
        // A listed configuration the same as an earlier listed one (but for its label) is that one's candidate.
        let repeated = r.listed.count - r.listed.filter { $0.candidate < inSpace }.count - added
        return "space: " + space.map { "\(TuneCommand.count($0.candidates)) \(names[$0.name] ?? $0.name)" }.joined(separator: ", ")
            + "; \(TuneCommand.count(r.listed.count)) listed configuration\(r.listed.count == 1 ? "" : "s") in the race"
            + " (\(TuneCommand.count(r.listed.count - added - repeated)) of them in the space, \(TuneCommand.count(added)) added"
            + (repeated > 0 ? ", \(TuneCommand.count(repeated)) the same as another listed one" : "") + ")"
    }

    /// The candidates the space itself gave; the listed configurations it does not hold come after them.
    var spaceSize: Int { result.parts.filter { $0.name != "listed" }.reduce(0) { $0 + $1.candidates } }

    /// What the recommendation's line adds when the winner is a listed configuration.
    func listedNote(_ w: Int) -> String {
        let names = result.listed.filter { $0.candidate == w }.map(\.label)
        guard let first = names.first else { return "" }
        let quoted = names.map { "\"\(shown($0))\"" }.joined(separator: ", ")
        if first == result.baseline.label || names.contains(result.baseline.label) {
            return " — the baseline \(quoted) itself, as the scenario lists it: keep it"
        }
        return " — a configuration the scenario lists" + (names == [label(w)] ? "" : ", as \(quoted)")
    }

    /// The verdict on a paired comparison of the objective, held to the minimum difference; nil when
    /// the compared measure is not the objective's own.
    func verdictText(_ c: PairwiseComparison) -> String? {
        guard rule.objective.hasPairedDifference, c.measure == rule.objective.pairMeasure else { return nil }
        return rule.verdict(c)?.text
    }

    /// Where one listed configuration ended: its rank among the finalists with the winner's paired
    /// difference from it, or the stage that dropped it and why.
    func listedEnd(_ c: Int, winner w: Int?) -> String {
        let r = result
        let o = rule.objective
        let outcome = r.candidates[c]
        guard outcome.drop == nil, let rank = r.final.ranking.firstIndex(where: { $0.candidate == c }) else {
            let stage = (outcome.drop?.stage ?? outcome.stage) + 1
            return "left at stage \(stage): \(outcome.dropped ?? "not simulated")"
        }
        let x = r.final.ranking[rank]
        var text = "final stage, rank \(rank + 1) of \(r.final.ranking.count), \(o.rawValue) \(show(x.figures.measures[o], o))"
        if !x.admissible {
            // Ranked after every finalist that meets the constraints, whatever its objective.
            let broken = rule.orderedConstraints.filter { m, b in !(x.figures.value(m).map(b.admits) ?? false) }
            text += ", breaks " + (broken.isEmpty ? "a constraint" : broken.map { m, b in
                "\(m.rawValue) \(x.figures.value(m).map { show($0, m) } ?? "n/a") (limit \(bound(b, m)))"
            }.joined(separator: " and ")) + ", so ranked after those meeting every one"
        }
        if c == w { return text + "; the recommendation" }
        if let w, r.final.subject == w, let d = r.final.subjectVersus[c] {
            text += "; recommendation − it \(showDifference(d))" + (verdictText(d).map { " (\($0))" } ?? "")
        }
        return text
    }

    func listedLines(winner w: Int?) -> [String] {
        result.listed.map { x in
            "\"\(shown(x.label))\"" + (x.label == label(x.candidate) ? ""
                : x.candidate < spaceSize ? " (in the space as \"\(shownLabel(x.candidate))\")"
                : " (the same as \"\(shownLabel(x.candidate))\")")
                + ": \(listedEnd(x.candidate, winner: w))"
        }
    }
}

extension TuneReport {
    /// Where each configuration the scenario lists ended in the race, beside the space's parts.
    func listedSection() -> [String] {
        let r = result
        var md = ["## Listed configurations", ""]
        md.append("The space holds " + r.parts.filter { $0.name != "listed" }.map { "\(TuneCommand.count($0.candidates)) \($0.name)" }
            .joined(separator: ", ") + " candidates. Every configuration the scenario lists races too, whether or not the "
            + "space holds it; it is never left out for want of places, only dropped when clearly infeasible or clearly worse.")
        md.append("")
        md.append("| listed | candidate | where it ended |")
        md.append("|---|---|---|")
        for x in r.listed {
            md.append("| \(escape(x.label)) | \(escape(label(x.candidate))) | \(escape(listedEnd(x.candidate, winner: r.winner))) |")
        }
        md.append("")
        return md
    }
}

extension TuneReport {
    /// The label of position `i` of the model-draw runs: 1 is the baseline, j + 2 the finalist `members[j]`.
    func drawLabel(_ i: Int, _ members: [Int]) -> String {
        i == 1 ? "baseline \(result.baseline.label)" : i - 2 < members.count && i >= 2 ? label(members[i - 2]) : "?"
    }

    /// The decision under the model's draws in one line; nil without draws.
    func modelDrawsLine() -> String? {
        guard let (members, u) = result.modelDraws else { return nil }
        guard let best = u.recommended, let s = u.standing(best) else {
            return "Under \(u.draws) draws of the response model: no finalist meets every constraint in at least "
                + "\(UncertainDecision.feasibilityPercent)% of the draws."
        }
        var line = "Under \(u.draws) draws of the response model: \"\(shown(drawLabel(best, members)))\" (probability best "
            + String(format: "%.0f%%, feasible %.0f%%", s.probabilityBest * 100, s.probabilityFeasible * 100) + ")"
        if let w = result.winner, drawLabel(best, members) != label(w) { line += "; not the point winner \"\(shownLabel(w))\"" }
        return line + "."
    }

    /// The report's section on the model draws: every finalist and the baseline.
    func modelDrawsSection() -> [String] {
        guard let (members, u) = result.modelDraws else { return [] }
        let o = rule.objective
        var md = ["## Under the response model's uncertainty", ""]
        md.append(Markdown.escapeInline(modelDrawsLine() ?? "") + " The finalists and the baseline are simulated on the final users under "
                  + "\(u.draws) draws of the response parameters, the same users at every draw. Rule: \(u.ruleText).")
        md.append("")
        md.append("| configuration | P(best) | P(feasible) | expected \(o.title) | expected loss |")
        md.append("|---|---:|---:|---:|---:|")
        for s in u.standings {
            func v(_ x: Double?) -> String { x.map { show($0, o) } ?? "n/a" }
            md.append("| \(escape(drawLabel(s.index, members))) | " + String(format: "%.0f%% | %.0f%%", s.probabilityBest * 100,
                                                                           s.probabilityFeasible * 100)
                      + " | \(v(s.expectedObjective)) | \(v(s.expectedLoss)) |")
        }
        md.append("")
        return md
    }
}
