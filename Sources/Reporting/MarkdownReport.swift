import Foundation
import GapFamilies
import Rendering
import ReminderEngine
import Simulation
import Storage

/// The Markdown report of a stored run.
///
/// It holds no timestamps or timings, so the report of a run is the same file whenever the run's
/// results are the same (the wall time and date live in the database and `remindersim list`).
public enum MarkdownReport {
    /// The report text; `charts` are the file names of the charts written beside it, by kind.
    public static func render(_ run: StoredRun, charts: [ChartKind: String] = [:], secondLook: DecisionSecondLook? = nil) -> String {
        let results = run.results
        let s = results.scenario
        var out = "# ReminderSim report: \(Markdown.escapeInline(s.name))\n\n"
        if let d = s.description, !d.isEmpty { out += Markdown.escapeInline(d) + "\n\n" }
        if let shard = run.record.shard {
            // A part of a run: its figures are of a share of the users, and its decision is no call.
            out += "**Shard \(shard.index) of \(shard.count): users \(results.users.lowerBound) to \(results.users.upperBound - 1) of "
                + "\(Text.group(Int64(s.users))) only.** What follows is worked out on these users alone, without the second "
                + "look at the decision: it is not the run's call. Combine the shards with `remindersim merge` for the run's "
                + "report.\n\n"
        }
        out += DecisionReport.section(results, charts: charts, secondLook: secondLook)
        out += SecondLookReport.section(results, secondLook)
        out += runSection(run)
        out += assumptions(s)
        out += ReportSelection.note(results)
        out += configurationsTable(results)
        out += rankingSection(results, charts: charts)
        out += DecisionReport.pairwiseSection(results)
        out += DecisionReport.segmentSection(results)
        out += DecisionReport.platformSection(results)
        out += notificationSection(results)
        out += DeliveryReport.section(results, chart: charts[.deliveriesByHour])
        out += "## Per message\n\n"
        out += slotTable(results, title: "message", rows: \.messages)
        out += "## Per period\n\n"
        out += slotTable(results, title: "period", rows: \.periods)
        if results.configurations.contains(where: { $0.spec.mode.isOriginal }) {
            out += "Each row is a period index and the delay its notifications really used. In the original modes a new "
                + "user's first open already moves to the second period (with the early wiring), so a non-circular "
                + "reminder may never use its first period; `original-1.0.0` uses 1 unit at index 0 whatever "
                + "`timePeriods[0]` says.\n\n"
        }
        out += cronSection(results)
        out += howToRead
        out += "## Files\n\n"
        out += "The same report is beside this file as one self-contained page, `report.html`. "
        out += "Every table of this run is beside this report as CSV (one file per table, RFC 4180, with a header): "
        out += ResultTables.all.map { "`\($0.name).csv`" }.joined(separator: ", ") + ". "
        out += "The decision, its constraints, its second looks and its live test are in `decision.csv`, "
            + "`decision_constraints.csv`, `decision_checks.csv` and `live_test.csv`; the retention and daily-active-users charts' differences with their paired intervals in "
            + "`retention_difference.csv` and `daily_active_difference.csv` (docs/schema.md lists every column).\n"
        return out
    }

    static func runSection(_ run: StoredRun) -> String {
        let results = run.results
        let s = results.scenario
        let users = results.users
        let userText: String
        if let shard = run.record.shard {
            userText = "\(Text.group(Int64(users.count))) (shard \(shard.index) of \(shard.count): users "
                + "\(users.lowerBound) to \(users.upperBound - 1) of \(Text.group(Int64(s.users))))"
        } else {
            userText = Text.group(Int64(s.users))
        }
        return "## Run\n\n" + Markdown.table(header: ["", ""], alignments: [.left, .left], rows: [
            ["Run", "\(run.id), tool \(run.record.toolVersion)"],
            ["Seed", String(s.seed)],
            ["Users", userText],
            ["Horizon", "\(TextLimit.days(s.horizonDays)) from \(s.startDate) (UTC midnight)"],
            ["Configurations", "\(results.configurations.count) and the holdout"],
            ["Sessions simulated", Text.group(results.sessions)],
        ] + replayRows(results)) + "\n"
    }

    /// The run table's rows on replayed recorded users, when the population replays them.
    static func replayRows(_ results: RunResults) -> [[String]] {
        guard let sentence = ReplayReport.sentence(results) else { return [] }
        var rows = [["Recorded users", sentence]]
        if let r = results.replaySummary, let effective = r.effectiveUsers {
            rows.append(["Independent users", "about \(Text.group(effective)) (design effect "
                + String(format: "%.2f", r.designEffect ?? 1) + " for the objective)"])
        }
        return rows
    }

    static func rankingSection(_ results: RunResults, charts: [ChartKind: String]) -> String {
        var out = "## Configurations against the holdout\n\n"
        // A run stored without sums over users (by an early release) has Wilson intervals for its rates over notifications.
        let notificationRates = results.tallies.sums != nil
            ? "rates over notifications (trigger, response) are clustered by user (delta method on per-user totals)"
            : "rates over notifications (trigger, response) are Wilson score intervals, not clustered by user (the run was "
                + "stored without its sums over users), which may be too narrow"
        out += "Ranked by opens gained per user over the holdout. Intervals are 95%: " + notificationRates + ", rates over users "
            + "(retention, users opting out) are Wilson score intervals, the opens lift is a paired normal interval and the retention lifts are Newcombe's "
            + "paired score intervals (not symmetric about the estimate). n/a means there was nothing to measure, "
            + "or (with the reason) that the value is zero by construction; † marks a lift to read with the note below, "
            + "‡ a configuration that breaks a constraint of the decision rule.\n\n"
        if results.replay != nil {
            out += "Users replay recorded users: every interval here (retention and opt-out rates, lifts and rates over "
                + "notifications alike) is clustered by recorded user, the virtual users who replay one recorded user being "
                + "one unit.\n\n"
        }
        let shown = Set(results.shown.map(\.index))
        let rows: [[String]] = results.rankedByOpensLift.enumerated().filter { shown.contains($1.index) }.map { i, c in
            let m = c.metrics
            let perOpen = m.deliveredPerIncrementalOpen.map { String(format: "%.1f", $0) } ?? "n/a"
            // A no-break space: the mark stays with the label's last word when the cell wraps.
            let breaks = DecisionReport.brokenConstraints(results, c.index).isEmpty ? "" : "\u{00A0}" + DecisionReport.breaksMark
            return [
                String(i + 1), m.label + breaks, c.spec.mode.rawValue, Text.signed(m.opensLiftPerUser, digits: 3),
                Text.percent(m.triggerRate), Text.percent(m.responseRate), Text.measure(.optOutRate, c.estimate(.optOutRate)),
                DecisionReport.lift(c, day: 7), DecisionReport.lift(c, day: 30), perOpen,
            ]
        }
        out += Markdown.table(
            header: ["#", "configuration", "mode"] + [Measure.opensLiftPerUser, .triggerRate, .responseRate, .optOutRate,
                                                      .liftD7, .liftD30, .deliveredPerExtraOpen].map(\.title),
            alignments: [.right, .left, .left, .right, .right, .right, .right, .right, .right, .right], rows: rows)
        let holdout = results.holdout.metrics
        out += "\nThe holdout (no reminders): \(Text.group(holdout.opens)) opens, "
            + "D1 \(Text.percent(holdout.retentionD1)), D7 \(Text.percent(holdout.retentionD7)), "
            + "D30 \(Text.percent(holdout.retentionD30)).\n\n"
        var notes = DecisionReport.artifactNotes(results)
        if let breaks = DecisionReport.breaksNote(results, shown: results.shown, name: Markdown.escapeCell) { notes.insert(breaks, at: 0) }
        if !notes.isEmpty { out += notes.map { "- " + $0 + "\n" }.joined() + "\n" }
        for kind in ChartKind.allCases where kind != .tradeOffOptOut && kind != .tradeOffDelivered && kind != .deliveriesByHour {
            if let file = charts[kind] { out += "![\(kind.title)](\(file))\n\n" }
        }
        return out
    }

    static func notificationSection(_ results: RunResults) -> String {
        var out = "## Notifications and returns\n\n"
        // Capped and dropped are outcomes too (scheduled is the sum of the outcome columns): shown
        // when some configuration here can have them.
        let capping = results.shown.contains { $0.spec.delivery.frequencyCap != nil || $0.metrics.capped > 0 }
        let dropping = results.shown.contains { $0.metrics.dropped > 0 }
        let outcomes = ["cancelled", "delivered", "foreground", "suppressed", "censored"]
            + (capping ? ["capped"] : []) + (dropping ? ["dropped"] : [])
        let header = ["configuration", "scheduled"] + outcomes + ["responded (caused)", "attributed (window)", "revived"]
        out += Markdown.table(
            header: header,
            alignments: [.left] + Array(repeating: .right, count: header.count - 1),
            rows: results.shown.map { c in
                let m = c.metrics
                let counts = [m.scheduled, m.cancelled, m.delivered, m.foreground, m.suppressed, m.censored]
                    + (capping ? [m.capped] : []) + (dropping ? [m.dropped] : [])
                return [m.label] + (counts + [m.responded, m.attributed, m.revived]).map(Text.group)
            })
        out += "\nScheduled = " + outcomes.joined(separator: " + ") + "."
        if capping { out += " *Capped*: not shown because of a frequency cap, counted as not triggered." }
        if dropping { out += " *Dropped*: discarded by the system past its limit of pending notifications." }
        out += "\n"
        out += "\n*Responded* counts the returns a notification really caused (the simulator knows); *attributed* "
            + "counts opens within \(String(format: "%g", results.scenario.response.attributionWindowHours)) h of a delivery, what "
            + "an analytics tool would credit. The gap between them is the attribution error.\n\n"
        return out
    }

    static func cronSection(_ results: RunResults) -> String {
        var out = "## Cron rules\n\n"
        var ruleRows: [[String]] = []
        // The review prompt's columns appear only when some rule asks for it.
        let prompts = results.shown.contains { c in c.cronRules.contains { $0.prompt != nil } }
        for c in results.shown {
            for r in c.cronRules {
                var row = [c.spec.label, c.spec.mode.rawValue, r.rule, Text.group(r.launchesEvaluated), Text.group(r.blockRuns)]
                if prompts {
                    row += [r.shown.map(Text.group) ?? "n/a",
                            r.usersShown.map { Text.percent(Proportion($0, of: c.metrics.users)) } ?? "n/a"]
                }
                row += [Text.group(r.elseRuns), Text.percent(Proportion(r.usersRan, of: c.metrics.users)),
                        r.firstRunDayMedian.map(String.init) ?? "n/a", r.firstRunDayP90.map(String.init) ?? "n/a"]
                ruleRows.append(row)
            }
        }
        if ruleRows.isEmpty { return out + "No configuration has cron rules.\n\n" }
        let promptColumns = prompts ? ["review prompts shown", "users shown one"] : []
        out += Markdown.table(
            header: ["configuration", "mode", "rule", "launches evaluated", "block runs"] + promptColumns
                + ["else runs", "users it ran for", "first run: median day", "first run: day p90"],
            alignments: [.left, .left, .left] + Array(repeating: .right, count: 6 + promptColumns.count), rows: ruleRows)
        out += "\nDays are counted from install, in the user's local days; a rule's first run is counted once per user.\n"
        if prompts {
            out += "\nEach block run of a rule marked `storeReview` asks for the App Store review prompt; the system shows it "
                + "at most \(ReviewPromptLog.limit) times per user in any 365 days, shared by the configuration's marked rules "
                + "(Apple's documented cap, applied around the cron engine). *Review prompts shown* counts the asks it showed; "
                + "n/a for rules that ask for no prompt.\n"
        }
        return out + "\n"
    }

    static func slotTable(_ results: RunResults, title: String, rows: KeyPath<ConfigurationResult, [SlotMetrics]>) -> String {
        var table: [[String]] = []
        for c in results.shown {
            for row in c[keyPath: rows] {
                table.append([
                    c.spec.label, String(row.reminder), String(row.index + 1), row.name, Text.group(row.scheduled),
                    Text.percent(row.triggerRate), Text.percent(row.responseRate),
                ])
            }
        }
        return Markdown.table(
            header: ["configuration", "reminder", "#", title, "scheduled", Measure.triggerRate.title, Measure.responseRate.title],
            alignments: [.left, .right, .right, .left, .right, .right, .right], rows: table) + "\n"
    }

    /// What each configuration runs: engine versions, wiring, reminder settings and the delays really used.
    static func configurationsTable(_ results: RunResults) -> String {
        var out = "### Configurations\n\n"
        var rows: [[String]] = []
        for c in results.shown {
            let spec = c.spec
            let periods = c.periods
            let several = spec.reminders.count > 1
            var settings: [String] = [], used: [String] = []
            for (r, reminder) in spec.reminders.enumerated() {
                let prefix = several ? "\(r): " : ""
                let configured = reminder.timePeriods.map(String.init).joined(separator: ", ")
                settings.append(prefix + "\(reminder.messages.count) message\(reminder.messages.count == 1 ? "" : "s") "
                    + "\(reminder.randomMessage ? "at random" : "in turn"), timePeriods \(configured) "
                    + (reminder.timePeriods == [1] ? String(reminder.unit.rawValue.dropLast()) : reminder.unit.rawValue) + ", "
                    + (reminder.circularTimePeriod ? "circular" : "stays on the last"))
                let rows = periods.filter { $0.reminder == r }
                let scheduled = rows.reduce(Int64(0)) { $0 + $1.scheduled }
                // Index order, and one entry per delay: two indices may share one.
                var shares: [(name: String, count: Int64)] = []
                for row in rows where row.scheduled > 0 {
                    let name = SlotMetrics.periodText(row.periodValue ?? 0, reminder.unit)
                    if let k = shares.firstIndex(where: { $0.name == name }) { shares[k].count += row.scheduled }
                    else { shares.append((name, row.scheduled)) }
                }
                used.append(prefix + (scheduled == 0 ? "none scheduled" : shares.map {
                    "\($0.name) (\(Text.percent(Proportion($0.count, of: scheduled), withInterval: false)))"
                }.joined(separator: ", ")))
            }
            if let sequence = spec.sequence {
                // One sequence, not a list of reminders: its steps are the reminders.
                let days = sequence.afterDays.map(String.init).joined(separator: ", ")
                settings = ["sequence (an extension, not in the library): \(sequence.afterDays.count) step"
                    + "\(sequence.afterDays.count == 1 ? "" : "s"), \(days) days after the last session"]
                used = ["each step its own delay"]
            }
            rows.append([
                spec.label, spec.mode.rawValue + (spec.mode.isOriginal ? " (\(spec.mode.releasedVersions))" : ""),
                spec.reminders.isEmpty ? "—" : spec.effectiveWiring.rawValue,
                settings.isEmpty ? "no reminder" : settings.joined(separator: "; "),
                used.isEmpty ? "—" : used.joined(separator: "; "),
                String(spec.cronRules.count),
            ])
        }
        out += Markdown.table(
            header: ["configuration", "mode", "wiring", "reminder", "delays used (share of scheduled)", "cron rules"],
            alignments: [.left, .left, .left, .left, .left, .right], rows: rows) + "\n"
        if results.configurations.contains(where: { $0.spec.mode.isOriginal && !$0.spec.reminders.isEmpty }) {
            out += "*Wiring* says where the app sets the reminder's settings. `early`: before the first check of every "
                + "launch, as an app should. `readme`: only when the app goes to the background, as the ACPReminder "
                + "README and its sample app do; the check at a cold launch then runs unconfigured, so a notification "
                + "scheduled under another `appDomain` counts as fired (the next message advances) and the period "
                + "index stays where it was (a circular reminder goes back to its first period). The index then moves only at a warm resume after a fire, which periods "
                + "of days almost never allow: a README-wired `[7, 10]` waits 7 days every time.\n\n"
        }
        return out
    }

    static func assumptions(_ s: Scenario) -> String {
        var out = "### Assumptions in force\n\n"
        out += "Every number below is an assumption of the scenario, to be replaced by a team's own measurements.\n\n"
        let totalWeight = s.population.segments.reduce(0) { $0 + $1.weight }
        out += Markdown.table(
            header: ["segment", "share", "returns", "dropout per session", "session median", "cold launch after"],
            alignments: [.left, .right, .left, .right, .right, .right],
            rows: s.population.segments.map { seg in
                [seg.name, String(format: "%.1f%%", seg.weight / totalWeight * 100), describe(seg.returns),
                 String(format: "%g", seg.dropoutPerSession), String(format: "%g min", seg.sessionLength.medianMinutes),
                 String(format: "%g min", seg.coldLaunchAfterMinutes)]
            }) + "\n"
        let offsets = s.population.utcOffsets.map { share in
            share.zone.map { String(format: "%@ (weight %g)", $0, share.weight) }
                ?? String(format: "UTC%+g (weight %g)", share.hours, share.weight)
        }
        let r = s.response
        let quiet = r.quietHours.map { "\($0.start):00–\($0.end):00 local, factor \(String(format: "%g", r.quietFactor))" } ?? "none"
        out += Markdown.table(header: ["", ""], alignments: [.left, .left], rows: [
            ["Time zones", offsets.joined(separator: ", ")],
            ["Installs", String(format: "spread uniformly over %g days", s.population.installSpreadDays)],
        ] + returnPatternRows(s.population.returnPattern) + [

            ["Base response", String(format: "%g", r.baseResponse)],
            ["Fatigue", String(format: "×%g per notification delivered since the last organic open", r.fatigue)],
            ["Quiet hours", quiet],
            ["Dormant users", String(format: "response ×%g; a response revives them", r.dormantFactor)],
            ["Response delay", String(format: "exponential, mean %g min", r.responseDelayMinutes)],
            ["Opt-out", String(format: "%g per delivery", r.optOutPerDelivery)],
            ["Attribution window", String(format: "%g h", r.attributionWindowHours)],
            ["Message weights", r.messageWeights.isEmpty ? "all 1"
                : r.messageWeights.keys.sorted().map { "\($0): \(String(format: "%g", r.messageWeights[$0]!))" }.joined(separator: "; ")],
        ]) + "\n"
        return out + platformAssumptions(s.population)
    }

    /// The return pattern's row, when returns follow one: the factors that differ from the most common
    /// one, as given (the run scales them to a weekly mean of 1).
    static func returnPatternRows(_ pattern: ReturnPattern?) -> [[String]] {
        guard let pattern, !pattern.isFlat else { return [] }
        func listed(_ values: [Double], _ names: [String]) -> String {
            let common = values.max { a, b in values.filter { $0 == a }.count < values.filter { $0 == b }.count }!
            let differing = values.indices.filter { values[$0] != common }.map { "\(names[$0]) ×\(String(format: "%g", values[$0]))" }
            return differing.isEmpty ? "flat" : differing.joined(separator: ", ") + String(format: " (others ×%g)", common)
        }
        let days = ReturnPattern.dayNames.map { $0.prefix(1).uppercased() + $0.dropFirst(1).prefix(2) }
        let hourNames = (0..<24).map { String(format: "%02d h", $0) }
        let differing = pattern.hours.filter { $0 != pattern.hours[0] }.count
        // Many hours apart from the rest: all 24 in order reads better than a list of exceptions.
        let hours = differing > 6 && Set(pattern.hours).count > 2
            ? "0–23 h: " + pattern.hours.map { String(format: "%g", $0) }.joined(separator: " ")
            : listed(pattern.hours, hourNames)
        return [["Return pattern", "organic return intensity by local weekday: \(listed(pattern.weekdays, days)); by local hour, "
                 + "\(hours); scaled to a weekly mean of 1"]]
    }

    /// The platform rules in force, when the population names platforms (docs/scenario.md, "Platforms").
    static func platformAssumptions(_ p: Population) -> String {
        guard let platforms = p.platforms else { return "" }
        let total = platforms.reduce(0) { $0 + $1.weight }
        func permission(_ x: PlatformSpec) -> String {
            guard let q = x.permission else { return "not asked: notifications allowed from the install" }
            let when = q.ask == .install ? "at the install" : "at the first cold launch matching \"\(q.ask.text)\""
            let quiet = q.provisional.map { String(format: "; until then delivered quietly (response ×%g)", $0) }
                ?? "; nothing is shown before"
            return String(format: "%g%% allow when asked ", q.granted * 100) + when + quiet
        }
        func alarms(_ x: PlatformSpec) -> String {
            guard let a = x.alarms else { return "on time" }
            if a.exact { return "exact alarms: on time" }
            return String(format: "inexact: up to %g min late; idle %g%% of the time, then at the next maintenance window (every %g min)",
                          a.windowMinutes, a.idleShare * 100, a.maintenanceMinutes)
        }
        return "Platforms (their rules change which notifications are shown):\n\n" + Markdown.table(
            header: ["platform", "share", "permission", "pending limit", "alarms", "segments"],
            alignments: [.left, .right, .left, .right, .left, .left],
            rows: platforms.map { x in
                [x.name + (x.name == x.platform.rawValue ? "" : " (\(x.platform.rawValue))"),
                 String(format: "%.1f%%", x.weight / total * 100), permission(x),
                 x.pendingLimit.map { "\($0) soonest kept" } ?? "none", alarms(x),
                 x.segmentWeights.map { w in w.keys.sorted().map { "\($0) \(String(format: "%g", w[$0] ?? 0))" }.joined(separator: ", ") }
                    ?? "the population's shares"]
            }) + "\n"
    }

    static func describe(_ p: ReturnProcess) -> String {
        switch p {
        case let .parametric(family, values, unit): return family.describe(values, unit: unit.rawValue)
        case let .empirical(values, _, unit): return "empirical, \(values.count) recorded gaps in \(unit.rawValue)"
        case let .recordedGaps(source): return "gaps resampled from \(source.path) (Kaplan–Meier, censoring-aware)"
        case let .replay(source): return "recorded timelines replayed from \(source.path) (a response adds a visit)"
        }
    }

    static let howToRead = """
        ## How to read this

        - **Opens/user vs holdout** is the reminder's lift: extra opens per user over the same users \
        simulated without reminders (common random numbers, so the comparison is paired).
        - **Trigger rate** is the share of scheduled notifications that fired before the user came back \
        (delivered, shown in the foreground, or suppressed by an opt-out), leaving out those still pending \
        when the simulation ended.
        - **Response rate** is the share of delivered notifications that brought the user back, as the \
        simulator knows it. Analytics tools see *attributed* opens instead, which include users who would \
        have come back anyway.
        - **Delivered per extra open** is the cost side: how many notifications users receive for each \
        open the reminder adds. Fewer is better.
        - **D7 / D30 vs holdout** are differences in retention (an open on day 7 / 30 after install), in \
        percentage points.
        - Every number is a consequence of the scenario's assumptions above. Replace them with your own \
        measurements before you act on a ranking.


        """
}

/// The charts a report shows.
public enum ChartKind: String, CaseIterable, Sendable {
    case tradeOffOptOut = "trade-off-opt-out"
    case tradeOffDelivered = "trade-off-delivered"
    case byPeriod = "opens-lift-by-period"
    case triggerRate = "trigger-rate"
    case opensLift = "opens-lift"
    case dailyActiveUsers = "daily-active-users"
    case retention = "retention"
    case triggerByPeriod = "trigger-rate-by-period"
    case deliveriesByHour = "deliveries-by-hour"

    public var title: String {
        switch self {
        case .tradeOffOptOut: return "Trade-off: extra opens against users opting out"
        case .tradeOffDelivered: return "Trade-off: extra opens against notifications delivered"
        case .byPeriod: return "Extra opens by reminder period"
        case .triggerRate: return "Trigger rate per configuration"
        case .opensLift: return "Opens per user gained over the holdout"
        case .dailyActiveUsers: return "Daily active users: difference from the holdout"
        case .retention: return "Retention by day since install: difference from the holdout"
        case .triggerByPeriod: return "Trigger rate by period"
        case .deliveriesByHour: return "Deliveries by local hour"
        }
    }

    public var fileName: String { rawValue + ".svg" }
}
