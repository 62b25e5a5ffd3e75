import Foundation
import ReminderEngine
import Simulation

/// The plain-text summary `run` prints: configurations ranked against the holdout.
public enum SummaryText {
    public static func render(_ results: RunResults, wallSeconds: Double, threads: Int, secondLook: DecisionSecondLook? = nil) -> String {
        let scenario = results.scenario
        var out = """
            Scenario "\(TerminalText.printable(scenario.name))": \(Text.users(Int64(scenario.users))), \(TextLimit.days(scenario.horizonDays)) from \
            \(scenario.startDate), seed \(scenario.seed)
            \(Text.group(Int64(results.configurations.count))) configuration\(results.configurations.count == 1 ? "" : "s") and the holdout in \(String(format: "%.2f", wallSeconds)) s \
            (\(Text.group(results.sessions)) sessions, \(threads) thread\(threads == 1 ? "" : "s"))

            Decision (\(DecisionReport.ruleText(results))): \(TerminalText.printable(DecisionReport.headline(results), limit: 2_000))
            \(caveatLine(results, secondLook))\(TerminalText.printable(LiveTestReport.sentence(results.liveTestPlan(prePeriod: secondLook?.prePeriod)), limit: 2_000))
            \(secondLookLines(results, secondLook))\(replayLine(results))
            Ranked by opens gained per user over the holdout; [95% intervals]; n/a where nothing was measured.


            """
        let holdout = results.holdout.metrics
        let rankedResults = results.rankedByOpensLift
        let ranked = rankedResults.map(\.metrics)
        var rows: [[String]] = [[
            "#", "configuration", "opens/user vs holdout", "trigger rate", "response rate", "D7", "D7 vs holdout",
            "D30 vs holdout", "opt-out rate", "delivered per extra open",
        ]]
        for (i, m) in ranked.enumerated() {
            rows.append([
                String(i + 1), TerminalText.printable(m.label)
                    + (DecisionReport.brokenConstraints(results, rankedResults[i].index).isEmpty ? "" : " " + DecisionReport.breaksMark),
                Text.signed(m.opensLiftPerUser, digits: 3), Text.percent(m.triggerRate),
                Text.percent(m.responseRate), Text.percent(m.retentionD7, withInterval: false),
                DecisionReport.lift(rankedResults[i], day: 7), DecisionReport.lift(rankedResults[i], day: 30),
                Text.measure(.optOutRate, rankedResults[i].estimate(.optOutRate)), m.deliveredPerIncrementalOpen.map { String(format: "%.1f", $0) } ?? "n/a",
            ])
        }
        // The holdout has no rank: its name takes the rank's place, so every line starts at the left.
        rows.append([
            "holdout", "", "—", "—", "—", Text.percent(holdout.retentionD7, withInterval: false), "—", "—", "—", "—",
        ])
        out += TerminalText.table(rows, rightAligned: [2, 3, 4, 5, 6, 7, 8, 9])
        if let breaks = DecisionReport.breaksNote(results, shown: rankedResults, name: { TerminalText.printable($0) }) { out += breaks + "\n" }
        out += daggerNotes(rankedResults)
        out += """

            Holdout: \(Text.group(holdout.opens)) opens, D1 \(Text.percent(holdout.retentionD1, withInterval: false)), \
            D7 \(Text.percent(holdout.retentionD7, withInterval: false)), D30 \(Text.percent(holdout.retentionD30, withInterval: false)).
            Trigger rate: notifications that fired before the user came back, of those not censored by the horizon.
            Response rate: returns the notification caused (known to the simulator), of notifications delivered.

            """
        for c in results.configurations {
            out += "\n" + detail(c, window: scenario.response.attributionWindowHours)
        }
        return out
    }

    /// What replaying recorded users does to the intervals, a line, when the population replays them.
    static func replayLine(_ results: RunResults) -> String {
        ReplayReport.sentence(results).map { TerminalText.printable($0, limit: 2_000) + "\n" } ?? ""
    }

    /// "Not firm: …" under the decision when a second look doubts the call, as the report says it
    /// under its headline; empty otherwise.
    static func caveatLine(_ results: RunResults, _ look: DecisionSecondLook?) -> String {
        SecondLookReport.caveat(results, look).map { TerminalText.printable($0, limit: 2_000) + "\n" } ?? ""
    }

    /// The re-check and the model draws (or the sensitivity check), a line each.
    static func secondLookLines(_ results: RunResults, _ look: DecisionSecondLook?) -> String {
        guard let look else { return "" }
        let lines = [SecondLookReport.recheckText(results, look), SecondLookReport.uncertainText(results, look),
                     SecondLookReport.sensitivityText(results, look)].compactMap { $0 }
        return lines.map { TerminalText.printable($0, limit: 2_000) + "\n" }.joined()
    }

    /// What each † in the table means: the notification whose period equals the day, one line per lift.
    static func daggerNotes(_ ranked: [ConfigurationResult]) -> String {
        ranked.flatMap { c in
            [7, 30].compactMap { k -> String? in
                guard case .periodEqualsDay? = c.liftNote(day: k), let note = c.liftNote(day: k) else { return nil }
                return "† \(TerminalText.printable(c.label)), D\(k) vs holdout: \(note.text(day: k)).\n"
            }
        }.joined()
    }

    /// The notification outcomes of one configuration: they add up to those scheduled, the capped
    /// ones among them when the configuration has a frequency cap.
    static func outcomesLine(_ c: ConfigurationResult) -> String {
        let m = c.metrics
        let capped = c.spec.delivery.frequencyCap != nil || m.capped > 0 ? "\(Text.group(m.capped)) capped, " : ""
        // Platform rules: notifications the system discarded, and those suppressed for want of permission.
        let dropped = m.dropped > 0 ? "\(Text.group(m.dropped)) dropped, " : ""
        let unpermitted = m.noPermission > 0 ? " (\(Text.group(m.noPermission)) without permission)" : ""
        return "  notifications: \(Text.group(m.scheduled)) scheduled: \(Text.group(m.cancelled)) cancelled, "
            + "\(Text.group(m.delivered)) delivered, \(Text.group(m.foreground)) foreground, \(Text.group(m.suppressed)) suppressed"
            + unpermitted + ", " + capped + dropped + "\(Text.group(m.censored)) censored\n"
    }

    /// The engines' mode, with the released versions and the wiring in the original modes.
    public static func modeText(_ spec: ConfigurationSpec) -> String {
        spec.mode.isOriginal
            ? "\(spec.mode.rawValue) mode: \(spec.mode.releasedVersions), \(spec.effectiveWiring.rawValue) wiring"
            : "\(spec.mode.rawValue) mode"
    }

    /// One configuration's outcomes, messages, periods and cron rules.
    static func detail(_ c: ConfigurationResult, window: Double) -> String {
        let spec = c.spec, m = c.metrics
        var out = "Configuration \"\(TerminalText.printable(spec.label))\" (\(modeText(spec)))\n"
        out += outcomesLine(c)
        out += "  returns: \(Text.group(m.responded)) caused by a notification, \(Text.group(m.attributed)) attributed "
            + "(opens within \(String(format: "%g", window)) h of a delivery), \(Text.group(m.optOuts)) opt-outs, "
            + "\(Text.group(m.revived)) revived\n"
        for (title, rows) in [("message", c.messages), ("period", c.periods)] {
            var table: [[String]] = [["", title, "scheduled", "trigger rate", "response rate"]]
            for row in rows {
                let name = spec.reminders.count > 1 ? "[\(row.reminder)] \(TerminalText.printable(row.name))" : TerminalText.printable(row.name)
                table.append(["", name, Text.group(row.scheduled), Text.percent(row.triggerRate), Text.percent(row.responseRate)])
            }
            out += TerminalText.table(table, rightAligned: [2, 3, 4], indented: true)
        }
        let rules = c.cronRules
        if !rules.isEmpty {
            // The review prompts shown appear only when some rule asks for one.
            let prompts = rules.contains { $0.prompt != nil }
            var table: [[String]] = [["", "cron rule", "launches", "block runs"] + (prompts ? ["prompts shown"] : [])
                + ["else runs", "users ran", "first run day (median, p90)"]]
            for r in rules {
                let days = r.firstRunDayMedian.map { "\($0), \(r.firstRunDayP90!)" } ?? "n/a"
                table.append(["", "\"\(TerminalText.printable(r.rule))\"", Text.group(r.launchesEvaluated), Text.group(r.blockRuns)]
                    + (prompts ? [r.shown.map(Text.group) ?? "n/a"] : [])
                    + [Text.group(r.elseRuns), Text.group(r.usersRan), days])
            }
            out += TerminalText.table(table, rightAligned: Set(2..<(prompts ? 8 : 7)), indented: true)
        }
        return out
    }
}
