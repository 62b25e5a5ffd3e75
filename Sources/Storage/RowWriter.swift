import Foundation
import ReminderEngine
import Simulation

/// Writes one run's derived tables from its tallies, with statements prepared once.
struct RowWriter {
    let database: Database
    let runID: Int64
    let scenario: Scenario
    let start: CalendarDate

    init(database: Database, runID: Int64, scenario: Scenario) throws(StoreError) {
        self.database = database
        self.runID = runID
        self.scenario = scenario
        guard let start = CalendarDate(iso: scenario.startDate) else {
            throw StoreError(.invalid, "start date \(scenario.startDate) is not a date")
        }
        self.start = start
    }

    private func insert(_ table: String, _ columns: [String], _ rows: [[SQLValue]]) throws(StoreError) {
        try database.insert(table, key: ("run_id", .integer(runID)), columns, rows)
    }

    /// Writes every table's rows of one configuration.
    func write(_ result: ConfigurationResult) throws(StoreError) {
        let c = SQLValue.integer(Int64(result.index))
        let spec = result.spec
        try insert(
            "configurations", ["config_index", "label", "is_holdout", "mode", "reminders_json", "cron_rules_json"],
            [[c, .text(spec.label), .integer(result.isHoldout ? 1 : 0), .text(spec.mode.rawValue),
              .text(Self.json(spec.reminders)), .text(Self.json(spec.cronRules))]])
        let l = result.tally.layout
        try insert(
            "tallies", ["config_index", "label", "message_slots", "period_slots", "cron_rules", "days", "counts"],
            [[c, .text(spec.label), .integer(Int64(l.messageSlots)), .integer(Int64(l.periodSlots)),
              .integer(Int64(l.cronRules)), .integer(Int64(l.days)), .blob(result.tally.encodedCounts())]])
        try writeReminders(result, c)
        try insert("config_metrics", MetricColumns.names, [[c, .text(spec.label)] + MetricColumns.values(result.metrics)])
        try writeSlots(result, c)
        try writeDays(result, c)
        try writeCronRules(result, c)
        try insert(
            "hourly_stats",
            ["config_index", "label", "local_hour", "delivered", "responded", "response_rate", "response_rate_low",
             "response_rate_high"],
            result.isHoldout ? [] : result.hours.map { h in
                [c, .text(spec.label), .integer(Int64(h.hour)), .integer(h.delivered), .integer(h.responded)]
                    + MetricColumns.rate(h.responseRate)
            })
    }

    private static let slotColumns = [
        "scheduled", "cancelled", "delivered", "foreground", "suppressed", "censored", "triggered",
        "trigger_rate", "trigger_rate_low", "trigger_rate_high", "responded",
        "response_rate", "response_rate_low", "response_rate_high", "capped",
    ]

    private func writeSlots(_ result: ConfigurationResult, _ c: SQLValue) throws(StoreError) {
        try insert(
            "message_stats", ["config_index", "label", "reminder_index", "message_index", "message"] + Self.slotColumns,
            result.messages.map { row in
                [c, .text(result.label), .integer(Int64(row.reminder)), .integer(Int64(row.index)), .text(row.name)] + Self.slotValues(row)
            })
        try insert(
            "period_stats", ["config_index", "label", "reminder_index", "period_index", "period_value", "period_unit"]
                + Self.slotColumns,
            result.periods.map { row in
                // The delay really used at this index, which is not always the configured period.
                [c, .text(result.label), .integer(Int64(row.reminder)), .integer(Int64(row.index)), .integer(Int64(row.periodValue ?? 0)),
                 .text(result.spec.reminders[row.reminder].unit.rawValue)]
                    + Self.slotValues(row)
            })
    }

    private func writeDays(_ result: ConfigurationResult, _ c: SQLValue) throws(StoreError) {
        let tally = result.tally
        try insert(
            "daily_stats", ["config_index", "label", "day", "date", "active_users"],
            (0..<tally.layout.days).map { d in
                [c, .text(result.label), .integer(Int64(d)), .text(start.adding(days: d).description), .integer(tally.daily(d))]
            })
        try insert(
            "retention_curve",
            ["config_index", "label", "day_since_install", "retained", "eligible", "retention", "retention_low",
             "retention_high"],
            (1...retentionCurveDays).map { k in
                let r = tally.retention(day: k)
                return [c, .text(result.label), .integer(Int64(k)), .integer(r.retained), .integer(r.eligible)]
                    + MetricColumns.rate(Proportion(r.retained, of: r.eligible))
            })
    }

    private func writeCronRules(_ result: ConfigurationResult, _ c: SQLValue) throws(StoreError) {
        try insert(
            "cron_rule_stats",
            ["config_index", "label", "rule_index", "rule", "launches_evaluated", "block_runs", "else_runs", "users_ran",
             "first_run_day_median", "first_run_day_p90"],
            result.cronRules.map { r in
                [c, .text(result.label), .integer(Int64(r.index)), .text(r.rule), .integer(r.launchesEvaluated), .integer(r.blockRuns),
                 .integer(r.elseRuns), .integer(r.usersRan), MetricColumns.optional(r.firstRunDayMedian),
                 MetricColumns.optional(r.firstRunDayP90)]
            })
        let tally = result.tally
        var histogram: [[SQLValue]] = []
        for r in result.cronRules.indices {
            for day in 0...tally.layout.days where tally.firstRun(r, day: day) > 0 {
                histogram.append([c, .text(result.label), .integer(Int64(r)), .integer(Int64(day)),
                                  .integer(tally.firstRun(r, day: day))])
            }
        }
        try insert("cron_first_run_days", ["config_index", "label", "rule_index", "day_since_install", "users"], histogram)
    }

    /// One row per reminder and period position, so a configuration's periods need no JSON parsing.
    private func writeReminders(_ result: ConfigurationResult, _ c: SQLValue) throws(StoreError) {
        var rows: [[SQLValue]] = []
        let spec = result.spec
        for (r, reminder) in spec.reminders.enumerated() {
            for (i, value) in reminder.timePeriods.enumerated() {
                let used = spec.periodValue(reminder: r, index: i)
                let seconds = Double(used) * reminder.unit.seconds
                rows.append([
                    c, .text(spec.label), .integer(Int64(r)), .integer(Int64(i)), .integer(Int64(value)), .integer(Int64(used)),
                    .text(reminder.unit.rawValue), .real(seconds), .real(seconds / 86_400),
                    .integer(reminder.circularTimePeriod ? 1 : 0), .integer(reminder.randomMessage ? 1 : 0),
                    .text(reminder.appDomain), .text(Self.json(reminder.messages)),
                ])
            }
        }
        try insert(
            "reminders",
            ["config_index", "label", "reminder_index", "position", "period_value", "period_used", "period_unit",
             "period_seconds", "period_days", "circular", "random_message", "app_domain", "messages_json"], rows)
    }

    /// The run-wide tables: sums over users, paired comparisons and per-segment measures.
    func writeRunTables(_ results: RunResults) throws(StoreError) {
        guard let sums = results.tallies.sums else { return }
        let references: SQLValue = sums.layout.references.map { .text(StoredPairs.text($0)) } ?? .null
        try insert("user_sums", ["segments", "counts", "pair_references"],
                   [[.integer(Int64(sums.layout.segments)), .blob(Tally.encode(sums.counts)), references]])
        let all = results.all
        try insert(
            "pairwise_stats",
            ["config_index", "label", "reference_index", "reference_label", "reference_is_baseline", "measure",
             "difference", "difference_low", "difference_high", "pairs", "users_to_separate"],
            results.pairwise.map { p in
                [.integer(Int64(p.configuration)), .text(all[p.configuration].label), .integer(Int64(p.reference)),
                 .text(all[p.reference].label), .integer(p.reference == results.baselineIndex ? 1 : 0), .text(p.measure.rawValue)]
                    + MetricColumns.estimate(p.difference) + [.integer(p.pairs), p.usersToSeparate.map { .integer($0) } ?? .null]
            })
        try insert(
            "segment_metrics",
            ["config_index", "label", "segment_index", "segment", "users", "opens", "delivered",
             "opens_lift_per_user", "opens_lift_per_user_low", "opens_lift_per_user_high",
             "trigger_rate", "trigger_rate_low", "trigger_rate_high", "response_rate", "response_rate_low", "response_rate_high",
             "retention_d7", "retention_d7_low", "retention_d7_high", "lift_d7", "lift_d7_low", "lift_d7_high",
             "retention_d30", "retention_d30_low", "retention_d30_high", "lift_d30", "lift_d30_low", "lift_d30_high",
             "opt_outs", "opt_out_rate", "opt_out_rate_low", "opt_out_rate_high", "delivered_per_incremental_open"],
            results.segments.map { m in
                [.integer(Int64(m.configuration)), .text(all[m.configuration].label), .integer(Int64(m.segment)),
                 .text(m.segmentName), .integer(m.users), .integer(m.opens), .integer(m.delivered)]
                    + MetricColumns.estimate(m.opensLiftPerUser) + MetricColumns.rate(m.triggerRate)
                    + MetricColumns.rate(m.responseRate) + MetricColumns.rate(m.retentionD7) + MetricColumns.estimate(m.liftD7)
                    + MetricColumns.rate(m.retentionD30) + MetricColumns.estimate(m.liftD30)
                    + [.integer(m.optOutRate.count)] + MetricColumns.rate(m.optOutRate)
                    + [m.deliveredPerIncrementalOpen.map { .real($0) } ?? .null]
            })
    }

    static func slotValues(_ row: SlotMetrics) -> [SQLValue] {
        [.integer(row.scheduled), .integer(row.cancelled), .integer(row.delivered), .integer(row.foreground),
         .integer(row.suppressed), .integer(row.censored), .integer(row.triggered)]
            + MetricColumns.rate(row.triggerRate) + [.integer(row.responded)] + MetricColumns.rate(row.responseRate)
            + [.integer(row.capped)]
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// The `config_metrics` columns after `config_index, label`, and their values.
enum MetricColumns {
    static let names = [
        "config_index", "label", "users", "opens", "organic_opens", "response_opens", "launches", "scheduled",
        "cancelled", "delivered", "foreground", "suppressed", "censored", "triggered",
        "trigger_rate", "trigger_rate_low", "trigger_rate_high", "responded",
        "response_rate", "response_rate_low", "response_rate_high", "attributed", "opt_outs", "revived",
        "retained_d1", "eligible_d1", "retention_d1", "retention_d1_low", "retention_d1_high",
        "retained_d7", "eligible_d7", "retention_d7", "retention_d7_low", "retention_d7_high",
        "retained_d30", "eligible_d30", "retention_d30", "retention_d30_low", "retention_d30_high",
        "incremental_opens", "opens_lift_per_user", "opens_lift_per_user_low", "opens_lift_per_user_high",
        "incremental_retained_d7", "lift_d7", "lift_d7_low", "lift_d7_high",
        "incremental_retained_d30", "lift_d30", "lift_d30_low", "lift_d30_high",
        "delivered_per_incremental_open", "capped", "deferred", "shifted",
        "opt_out_rate", "opt_out_rate_low", "opt_out_rate_high",
        "delivered_per_user", "delivered_per_user_low", "delivered_per_user_high",
        "opt_outs_per_delivered", "opt_outs_per_delivered_low", "opt_outs_per_delivered_high",
        "attributed_per_delivered", "attributed_per_delivered_low", "attributed_per_delivered_high",
        "rate_interval",
    ]

    static func values(_ m: ConfigurationMetrics) -> [SQLValue] {
        let holdout = m.isHoldout
        return [
            .integer(m.users), .integer(m.opens), .integer(m.organicOpens), .integer(m.responseOpens),
            .integer(m.launches), .integer(m.scheduled), .integer(m.cancelled), .integer(m.delivered),
            .integer(m.foreground), .integer(m.suppressed), .integer(m.censored), .integer(m.triggered),
        ] + rate(m.triggerRate) + [.integer(m.responded)] + rate(m.responseRate)
            + [.integer(m.attributed), .integer(m.optOuts), .integer(m.revived)]
            + [.integer(m.retentionD1.count), .integer(m.retentionD1.total)] + rate(m.retentionD1)
            + [.integer(m.retentionD7.count), .integer(m.retentionD7.total)] + rate(m.retentionD7)
            + [.integer(m.retentionD30.count), .integer(m.retentionD30.total)] + rate(m.retentionD30)
            + [holdout ? .null : .integer(m.incrementalOpens)] + estimate(m.opensLiftPerUser)
            + [holdout ? .null : .integer(m.incrementalRetainedD7)] + estimate(m.liftD7)
            + [holdout ? .null : .integer(m.incrementalRetainedD30)] + estimate(m.liftD30)
            + [m.deliveredPerIncrementalOpen.map { .real($0) } ?? .null]
            + [.integer(m.capped), .integer(m.deferred), .integer(m.shifted)]
            + rate(m.optOutRate) + estimate(m.deliveredPerUser) + rate(m.optOutsPerDelivered) + rate(m.attributedPerDelivered)
            + [m.triggerRate.clustered != nil ? .text("clustered") : .text("wilson")]
    }

    /// A rate and its Wilson interval, or three NULLs.
    static func rate(_ p: Proportion) -> [SQLValue] {
        guard let r = p.rate, let ci = p.interval else { return [.null, .null, .null] }
        return [.real(r), .real(ci.low), .real(ci.high)]
    }

    static func estimate(_ e: Estimate?) -> [SQLValue] {
        guard let e else { return [.null, .null, .null] }
        return [.real(e.value), .real(e.low), .real(e.high)]
    }

    static func optional(_ v: Int?) -> SQLValue { v.map { .integer(Int64($0)) } ?? .null }
}
