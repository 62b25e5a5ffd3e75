import Foundation
import ReminderEngine
import Reporting
import Simulation

/// The plain-text summary `run` prints: configurations ranked against the holdout.
enum SummaryText {
    static func render(scenario: Scenario, metrics: [ConfigurationMetrics], wallSeconds: Double, threads: Int,
                       details: [(spec: ConfigurationSpec, tally: Tally)] = []) -> String {
        let sessions = metrics.reduce(Int64(0)) { $0 + $1.opens }
        var out = """
            Scenario "\(printable(scenario.name))": \(group(Int64(scenario.users))) users, \(scenario.horizonDays) days from \
            \(scenario.startDate), seed \(scenario.seed)
            \(metrics.count - 1) configurations and the holdout in \(String(format: "%.2f", wallSeconds)) s \
            (\(group(sessions)) sessions, \(threads) thread\(threads == 1 ? "" : "s"))

            Ranked by opens gained per user over the holdout; [95% intervals]; n/a where nothing was measured.


            """
        let holdout = metrics[0]
        let ranked = metrics.dropFirst().sorted {
            ($0.opensLiftPerUser?.value ?? -.infinity) > ($1.opensLiftPerUser?.value ?? -.infinity)
        }
        var rows: [[String]] = [[
            "#", "configuration", "opens/user vs holdout", "trigger rate", "response rate", "D7", "D7 vs holdout",
            "D30 vs holdout", "opt-outs", "delivered per extra open",
        ]]
        for (i, m) in ranked.enumerated() {
            rows.append([
                String(i + 1), printable(m.label), signed(m.opensLiftPerUser, digits: 3), percent(m.triggerRate),
                percent(m.responseRate), percent(m.retentionD7, withInterval: false), points(m.liftD7), points(m.liftD30),
                group(m.optOuts), m.deliveredPerIncrementalOpen.map { String(format: "%.1f", $0) } ?? "n/a",
            ])
        }
        // The holdout has no rank: its name takes the rank's place, so every line starts at the left.
        rows.append([
            "holdout", "", "—", "—", "—", percent(holdout.retentionD7, withInterval: false), "—", "—", "—", "—",
        ])
        out += table(rows, rightAligned: [2, 3, 4, 5, 6, 7, 8, 9])
        out += """

            Holdout: \(group(holdout.opens)) opens, D1 \(percent(holdout.retentionD1, withInterval: false)), \
            D7 \(percent(holdout.retentionD7, withInterval: false)), D30 \(percent(holdout.retentionD30, withInterval: false)).
            Trigger rate: notifications that fired before the user came back, of those not censored by the horizon.
            Response rate: returns the notification caused (known to the simulator), of notifications delivered.

            """
        for (i, d) in details.enumerated() {
            out += "\n" + detail(d.spec, d.tally, metrics[i + 1], window: scenario.response.attributionWindowHours)
        }
        return out
    }

    /// The engines' mode, with the released versions and the wiring in the original modes.
    static func modeText(_ spec: ConfigurationSpec) -> String {
        spec.mode.isOriginal
            ? "\(spec.mode.rawValue) mode: \(spec.mode.releasedVersions), \(spec.effectiveWiring.rawValue) wiring"
            : "\(spec.mode.rawValue) mode"
    }

    /// One configuration's outcomes, messages, periods and cron rules.
    static func detail(_ spec: ConfigurationSpec, _ tally: Tally, _ m: ConfigurationMetrics, window: Double) -> String {
        var out = "Configuration \"\(printable(spec.label))\" (\(modeText(spec)))\n"
        out += "  notifications: \(group(m.scheduled)) scheduled, \(group(m.cancelled)) cancelled, "
            + "\(group(m.delivered)) delivered, \(group(m.foreground)) foreground, \(group(m.suppressed)) suppressed, "
            + "\(group(m.censored)) censored\n"
        out += "  returns: \(group(m.responded)) caused by a notification, \(group(m.attributed)) attributed "
            + "(opens within \(String(format: "%g", window)) h of a delivery), \(group(m.optOuts)) opt-outs, "
            + "\(group(m.revived)) revived\n"
        for (title, rows) in [("message", SlotMetrics.messages(spec, tally)), ("period", SlotMetrics.periods(spec, tally))] {
            var table: [[String]] = [["", title, "scheduled", "trigger rate", "response rate"]]
            for row in rows {
                let name = spec.reminders.count > 1 ? "[\(row.reminder)] \(printable(row.name))" : printable(row.name)
                table.append(["", name, group(row.scheduled), percent(row.triggerRate), percent(row.responseRate)])
            }
            out += self.table(table, rightAligned: [2, 3, 4], indented: true)
        }
        let rules = CronRuleMetrics.rules(spec, tally)
        if !rules.isEmpty {
            var table: [[String]] = [["", "cron rule", "launches", "block runs", "else runs", "users ran", "first run day (median, p90)"]]
            for r in rules {
                let days = r.firstRunDayMedian.map { "\($0), \(r.firstRunDayP90!)" } ?? "n/a"
                table.append(["", "\"\(printable(r.rule))\"", group(r.launchesEvaluated), group(r.blockRuns),
                              group(r.elseRuns), group(r.usersRan), days])
            }
            out += self.table(table, rightAligned: [2, 3, 4, 5, 6], indented: true)
        }
        return out
    }

    /// User text made safe for one terminal line: control characters shown escaped, long text cut.
    static func printable(_ text: String, limit: Int = 48) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out.count > limit ? String(out.prefix(limit - 1)) + "…" : out
    }

    /// Rows padded into columns; `indented` keeps the leading spaces an empty first column makes.
    static func table(_ rows: [[String]], rightAligned: Set<Int>, indented: Bool = false) -> String {
        let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { c in
                let pad = String(repeating: " ", count: widths[c] - row[c].count)
                return rightAligned.contains(c) ? pad + row[c] : row[c] + pad
            }.joined(separator: "  ").replacingOccurrences(
                of: indented ? "\\s+$" : "^\\s+|\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    static func group(_ n: Int64) -> String { Text.group(n) }

    static func percent(_ p: Proportion, withInterval: Bool = true) -> String { Text.percent(p, withInterval: withInterval) }

    static func signed(_ e: Estimate?, digits: Int) -> String { Text.signed(e, digits: digits) }

    static func points(_ e: Estimate?) -> String { Text.points(e) }
}
