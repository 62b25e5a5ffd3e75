import Foundation
import ReminderEngine

/// The tables of a run's results, each column described once: the database's rows, the CSV files
/// and the documentation all come from here, so a measure has one name and one value everywhere.
///
/// Every table of a run also has `run_id` first, the run's number, which the database gives; it is
/// not described here.
public enum ResultTables {
    /// Every table with rows written from a run's results, in export order.
    public static let all: [RunTable] = [
        runs.erased, configurations.erased, reminders.erased, configMetrics.erased, pairwiseStats.erased,
        segmentMetrics.erased, platformMetrics.erased, messageStats.erased, periodStats.erased, dailyStats.erased, retentionCurve.erased,
        cronRuleStats.erased, cronFirstRunDays.erased, hourlyStats.erased,
    ]

    /// The table called `name`.
    public static func named(_ name: String) -> RunTable? { all.first { $0.name == name } }

    // MARK: Columns shared by the tables

    /// One item of one configuration: a message, period, rule, hour or segment.
    public struct ConfigurationRow<Item: Sendable>: Sendable {
        public let configuration: ConfigurationResult
        public let item: Item
    }

    /// `config_index` and `label`, the key of every table with rows per configuration.
    static func configurationKey<Row>(_ result: @escaping @Sendable (Row) -> ConfigurationResult) -> [ResultColumn<Row>] {
        [
            .index("config_index", unit: "configuration", "the configuration: 0 for the holdout, then 1… in the scenario's order") {
                result($0).index
            },
            .text("label", "the configuration's label (holdout for 0)") { result($0).label },
        ]
    }

    /// A value as JSON with sorted keys, as the tables keep a configuration's reminders and rules.
    public static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    // MARK: runs, configurations, reminders

    /// One row per run: the scenario and how it was run.
    public static let runs = ResultTable<RunFacts>(
        "runs",
        columns: [[
            .text("scenario_name", "the scenario's name") { $0.results.scenario.name },
            ResultColumn("scenario_json", .text, unit: "JSON", "the whole scenario as run, on one line, to re-run or re-render it exactly") {
                (try? $0.results.scenario.compactJSON()).map { .text($0) } ?? .null
            },
            .count("seed", unit: "seed", "the run's seed (its 64 bits as a signed integer)") { Int64(bitPattern: $0.results.scenario.seed) },
            .index("users", unit: "users", "the scenario's user count") { $0.results.scenario.users },
            .index("horizon_days", unit: "days", "days simulated") { $0.results.scenario.horizonDays },
            .text("start_date", unit: "ISO 8601 date", "the first day simulated") { $0.results.scenario.startDate },
            .text("tool_version", "the remindersim version that ran it") { $0.toolVersion },
            .text("status", "complete for a whole run, shard for one share of a split run") { $0.shard == nil ? "complete" : "shard" },
            // The schema counts shards from 0.
            .optionalCount("shard_index", unit: "shard", "which shard, from 0; NULL for a whole run") { $0.shard.map { Int64($0.index - 1) } },
            .optionalCount("shard_count", unit: "shards", "how many shards; NULL for a whole run") { $0.shard.map { Int64($0.count) } },
            .index("first_user", unit: "user", "the first user index simulated") { $0.results.users.lowerBound },
            .index("end_user", unit: "user", "one past the last user index simulated") { $0.results.users.upperBound },
            ResultColumn("created_at", .text, unit: "ISO 8601 time", exported: false, "when the run finished (UTC)") { .text($0.createdAt) },
            ResultColumn("wall_seconds", .real, unit: "seconds", exported: false, "simulation wall time") { .real($0.wallSeconds) },
            ResultColumn("threads", .integer, unit: "threads", exported: false, "worker threads used") { .integer(Int64($0.threads)) },
            .optionalCount("model_draws", unit: "draws",
                           "the response model's draws of the decision's second look (--model-draws); NULL for the default") {
                $0.modelDraws.map(Int64.init)
            },
            ResultColumn("recorded_data", .text, unit: "hex",
                         "a fingerprint of the recorded logs the run read (their visits); NULL when it read none") {
                $0.recordedData.map { .text($0) } ?? .null
            },
        ]],
        rows: { [$0] })

    /// One row per configuration: what it is.
    public static let configurations = ResultTable<ConfigurationResult>(
        "configurations",
        columns: [
            configurationKey { $0 },
            [
                .count("is_holdout", unit: "flag", "1 for the holdout, else 0") { $0.isHoldout ? 1 : 0 },
                .text("mode", "engine mode: documented, original or original-1.0.0") { $0.spec.mode.rawValue },
                .text("reminders_json", unit: "JSON", "the configuration's reminders") { json($0.spec.reminders) },
                .text("cron_rules_json", unit: "JSON", "its cron rules, an array of strings (objects for rules that ask for a prompt)") { json($0.spec.cronRules) },
            ],
        ],
        rows: { $0.results.all })

    /// One reminder's period at one position of one configuration.
    public struct ReminderPosition: Sendable {
        public let configuration: ConfigurationResult
        public let reminderIndex: Int
        public let position: Int
        public var reminder: ReminderSpec { configuration.spec.reminders[reminderIndex] }
        /// The delay the engine really uses at this position.
        public var used: Int { configuration.spec.periodValue(reminder: reminderIndex, index: position) }
        public var seconds: Double { Double(used) * reminder.unit.seconds }
    }

    /// One row per configuration, reminder and period position.
    public static let reminders = ResultTable<ReminderPosition>(
        "reminders",
        columns: [
            configurationKey(\.configuration),
            [
                .index("reminder_index", unit: "reminder", "the reminder's place in the configuration, from 0") { $0.reminderIndex },
                .index("position", unit: "position", "the place in timePeriods, from 0") { $0.position },
                .index("period_value", unit: "period unit", "the period as written") { $0.reminder.timePeriods[$0.position] },
                .index("period_used", unit: "period unit", "the delay the engine really uses at that position") { $0.used },
                .text("period_unit", "the reminder's unit") { $0.reminder.unit.rawValue },
                .number("period_seconds", unit: "seconds", "the delay used, in seconds") { $0.seconds },
                .number("period_days", unit: "days", "the delay used, in days") { $0.seconds / 86_400 },
                .count("circular", unit: "flag", "1 when the periods repeat") { $0.reminder.circularTimePeriod ? 1 : 0 },
                .count("random_message", unit: "flag", "1 when messages are picked at random") { $0.reminder.randomMessage ? 1 : 0 },
                .text("app_domain", "the reminder's app domain") { $0.reminder.appDomain },
                .text("messages_json", unit: "JSON", "the reminder's messages, an array") { json($0.reminder.messages) },
            ],
        ],
        rows: { run in
            run.results.all.flatMap { c in
                c.spec.reminders.enumerated().flatMap { r, reminder in
                    reminder.timePeriods.indices.map { ReminderPosition(configuration: c, reminderIndex: r, position: $0) }
                }
            }
        })

    // MARK: config_metrics

    /// The headline measures, one row per configuration.
    public static let configMetrics = ResultTable<ConfigurationResult>(
        "config_metrics",
        columns: [
            configurationKey { $0 },
            configMetricCounts,
            ResultColumn.rate(Measure.triggerRate) { $0.metrics.triggerRate },
            [.count("responded", unit: "notifications", "returns a notification caused (ground truth)") { $0.metrics.responded }],
            ResultColumn.rate(Measure.responseRate) { $0.metrics.responseRate },
            [
                .count("attributed", unit: "opens", "opens within the attribution window after a delivery") { $0.metrics.attributed },
                .count("opt_outs", unit: "users", "users who turned notifications off") { $0.metrics.optOuts },
                .count("revived", unit: "users", "dormant users brought back by a notification") { $0.metrics.revived },
            ],
            retention(1) { $0.metrics.retentionD1 },
            retention(7) { $0.metrics.retentionD7 },
            retention(30) { $0.metrics.retentionD30 },
            [
                .optionalCount("incremental_opens", unit: "opens", "opens above the holdout, summed over users (NULL for the holdout)") {
                    $0.isHoldout ? nil : $0.metrics.incrementalOpens
                },
            ],
            ResultColumn.interval(Measure.opensLiftPerUser) { $0.metrics.opensLiftPerUser },
            incrementalRetained(7) { $0.metrics.incrementalRetainedD7 },
            ResultColumn.interval(Measure.liftD7) { $0.metrics.liftD7 },
            incrementalRetained(30) { $0.metrics.incrementalRetainedD30 },
            ResultColumn.interval(Measure.liftD30) { $0.metrics.liftD30 },
            [
                .number(Measure.deliveredPerExtraOpen.name, unit: Measure.deliveredPerExtraOpen.unit,
                        Measure.deliveredPerExtraOpen.meaning) { $0.metrics.deliveredPerIncrementalOpen },
                .count("capped", unit: "notifications", "notifications not shown because of the configuration's frequency cap") {
                    $0.metrics.capped
                },
                .count("deferred", unit: "notifications", "scheduled notifications a delivery policy moved out of quiet hours") {
                    $0.metrics.deferred
                },
                .count("shifted", unit: "notifications", "scheduled notifications a delivery policy moved into the send window") {
                    $0.metrics.shifted
                },
            ],
            ResultColumn.rate(Measure.optOutRate) { $0.metrics.optOutRate },
            ResultColumn.interval(Measure.deliveredPerUser) { $0.metrics.deliveredPerUser },
            ResultColumn.rate("opt_outs_per_delivered", unit: "opt-outs per notification", "opt-outs / delivered (clustered)") {
                $0.metrics.optOutsPerDelivered
            },
            ResultColumn.rate("attributed_per_delivered", unit: "opens per notification", "attributed opens / delivered (clustered)") {
                $0.metrics.attributedPerDelivered
            },
            [
                .text("rate_interval", "clustered when the notification rates' intervals are clustered by user, wilson otherwise") {
                    $0.metrics.triggerRate.clustered != nil ? "clustered" : "wilson"
                },
                // Platform rules (schema version 7, so last).
                .count("dropped", unit: "notifications", "notifications the system discarded past its limit of pending ones (iOS)") {
                    $0.metrics.dropped
                },
                .count("no_permission", unit: "notifications", "of the suppressed, those not shown because the user had not allowed notifications") {
                    $0.metrics.noPermission
                },
                .count("quiet_delivered", unit: "notifications", "of the delivered, those delivered quietly under provisional authorisation (iOS)") {
                    $0.metrics.quietDelivered
                },
                .count("dozed", unit: "notifications", "alarms an idle device deferred to its next maintenance window (Android)") {
                    $0.metrics.dozed
                },
                .count("permission_asked", unit: "users", "users shown the notification permission prompt") { $0.metrics.permissionAsked },
                .count("permission_granted", unit: "users", "users who allowed notifications when asked") { $0.metrics.permissionGranted },
            ],
            // Schema version 10, so last.
            deliveredPerExtraOpenBounds { $0.estimate(.deliveredPerExtraOpen) },
        ],
        rows: { $0.results.all })

    // MARK: pairwise_stats, segment_metrics

    /// One paired comparison with the configurations it compares.
    public struct Pair: Sendable {
        public let comparison: PairwiseComparison
        public let configuration: ConfigurationResult
        public let reference: ConfigurationResult
        public let referenceIsBaseline: Bool
    }

    /// One row per pair the run holds and measure, ordered by configuration, reference and measure name.
    public static let pairwiseStats = ResultTable<Pair>(
        "pairwise_stats",
        columns: [
            configurationKey(\.configuration),
            [
                .index("reference_index", unit: "configuration", "the configuration compared with") { $0.reference.index },
                .text("reference_label", "its label") { $0.reference.label },
                .count("reference_is_baseline", unit: "flag", "1 when the reference is the scenario's baseline") {
                    $0.referenceIsBaseline ? 1 : 0
                },
                .text("measure", unit: "measure name", "what is compared: \(PairMeasure.allCases.map(\.rawValue).joined(separator: ", "))") {
                    $0.comparison.measure.rawValue
                },
            ],
            ResultColumn.interval("difference", unit: "the measure's unit",
                                  "mean over the same users of configuration minus reference (paired)") { $0.comparison.difference },
            [
                .count("pairs", unit: "users", "users (or users whose day K was observed) the difference is over") {
                    $0.comparison.pairs
                },
                .optionalCount("users_to_separate", unit: "users",
                               "users a run would need for a difference this size to show at 5% with 80% power") {
                    $0.comparison.usersToSeparate
                },
                // Schema version 10, so last.
                .text("unit", "the unit of difference: the measure's (opens per user, a fraction of users, notifications per user)") {
                    $0.comparison.measure.measure.unit
                },
            ],
        ],
        rows: { run in
            let all = run.results.all, baseline = run.results.baselineIndex
            return run.results.pairwise
                .filter { all.indices.contains($0.configuration) && all.indices.contains($0.reference) }
                .sorted { a, b in
                    (a.configuration, a.reference) != (b.configuration, b.reference)
                        ? (a.configuration, a.reference) < (b.configuration, b.reference)
                        // As SQLite orders text: byte by byte.
                        : a.measure.rawValue.utf8.lexicographicallyPrecedes(b.measure.rawValue.utf8)
                }
                .map { Pair(comparison: $0, configuration: all[$0.configuration], reference: all[$0.reference],
                            referenceIsBaseline: $0.reference == baseline) }
        })

    /// One row per configuration and segment.
    public static let segmentMetrics = groupMetrics(
        "segment_metrics", group: "segment", place: "the segment's place in the population, from 0",
        name: "the segment's name", rows: \.segments)

    /// One row per configuration and platform, when the population names platforms.
    public static let platformMetrics = groupMetrics(
        "platform_metrics", group: "platform", place: "the platform's place in population.platforms, from 0",
        name: "the platform's name", rows: \.platforms)

    /// The headline measures per group of users (segment or platform).
    static func groupMetrics(_ table: String, group: String, place: String, name: String,
                             rows: KeyPath<RunResults, [SegmentMetrics]> & Sendable) -> ResultTable<ConfigurationRow<SegmentMetrics>> {
        ResultTable<ConfigurationRow<SegmentMetrics>>(
        table,
        columns: [
            configurationKey(\.configuration),
            [
                .index("\(group)_index", unit: group, place) { $0.item.segment },
                .text(group, name) { $0.item.segmentName },
                .count("users", unit: "users", "the \(group)'s users") { $0.item.users },
                .count("opens", unit: "opens", "their opens") { $0.item.opens },
                .count("delivered", unit: "notifications", "notifications delivered to them") { $0.item.delivered },
            ],
            ResultColumn.interval(Measure.opensLiftPerUser) { $0.item.opensLiftPerUser },
            ResultColumn.rate(Measure.triggerRate) { $0.item.triggerRate },
            ResultColumn.rate(Measure.responseRate) { $0.item.responseRate },
            ResultColumn.rate(Measure.retentionD7) { $0.item.retentionD7 },
            ResultColumn.interval(Measure.liftD7) { $0.item.liftD7 },
            ResultColumn.rate(Measure.retentionD30) { $0.item.retentionD30 },
            ResultColumn.interval(Measure.liftD30) { $0.item.liftD30 },
            [.count("opt_outs", unit: "users", "users who turned notifications off") { $0.item.optOutRate.count }],
            ResultColumn.rate(Measure.optOutRate) { $0.item.optOutRate },
            [
                .number(Measure.deliveredPerExtraOpen.name, unit: Measure.deliveredPerExtraOpen.unit,
                        Measure.deliveredPerExtraOpen.meaning) { $0.item.deliveredPerIncrementalOpen },
            ],
            // Schema version 10, so last: the interval above, and the counts behind the rates, so that
            // groups can be added up again.
            deliveredPerExtraOpenBounds { $0.item.deliveredPerExtraOpen },
            [
                .count("scheduled", unit: "notifications", "notifications scheduled for the \(group)'s users") { $0.item.scheduled },
                .count("censored", unit: "notifications", "of them, those that would fire after the horizon") { $0.item.censored },
                .count("triggered", unit: "notifications", "of them, those that fired before the user came back (trigger_rate's numerator; "
                       + "its denominator is scheduled − censored)") { $0.item.triggerRate.count },
                .count("responded", unit: "notifications", "returns a notification caused (response_rate's numerator; its denominator "
                       + "is delivered)") { $0.item.responseRate.count },
                .count("retained_d7", unit: "users", "users with an open on local day 7 after install") { $0.item.retentionD7.count },
                .count("eligible_d7", unit: "users", "users whose day 7 ends inside the horizon") { $0.item.retentionD7.total },
                .count("retained_d30", unit: "users", "users with an open on local day 30 after install") { $0.item.retentionD30.count },
                .count("eligible_d30", unit: "users", "users whose day 30 ends inside the horizon") { $0.item.retentionD30.total },
            ],
        ],
        rows: { run in
            let all = run.results.all
            return run.results[keyPath: rows].filter { all.indices.contains($0.configuration) }
                .map { ConfigurationRow(configuration: all[$0.configuration], item: $0) }
        })
    }

    // MARK: message_stats, period_stats

    /// The notification counts and rates of a message or a period, after its key.
    static let slotColumns: [[ResultColumn<ConfigurationRow<SlotMetrics>>]] = [
        [
            .count("scheduled", unit: "notifications", "notifications scheduled") { $0.item.scheduled },
            .count("cancelled", unit: "notifications", "cancelled before they fired") { $0.item.cancelled },
            .count("delivered", unit: "notifications", "shown while the app was not in use") { $0.item.delivered },
            .count("foreground", unit: "notifications", "fired while the app was open") { $0.item.foreground },
            .count("suppressed", unit: "notifications", "fired with notifications turned off") { $0.item.suppressed },
            .count("censored", unit: "notifications", "would fire after the horizon") { $0.item.censored },
            .count("triggered", unit: "notifications", "delivered + foreground + suppressed") { $0.item.triggered },
        ],
        ResultColumn.rate(Measure.triggerRate) { $0.item.triggerRate },
        [.count("responded", unit: "notifications", "returns a notification caused") { $0.item.responded }],
        ResultColumn.rate(Measure.responseRate) { $0.item.responseRate },
        [
            .count("capped", unit: "notifications", "not shown because of the frequency cap") { $0.item.capped },
            .count("dropped", unit: "notifications", "discarded by the system past its limit of pending notifications") { $0.item.dropped },
        ],
    ]

    public static let messageStats = ResultTable<ConfigurationRow<SlotMetrics>>(
        "message_stats",
        columns: [
            configurationKey(\.configuration),
            [
                .index("reminder_index", unit: "reminder", "the reminder's place in the configuration, from 0") { $0.item.reminder },
                .index("message_index", unit: "message", "the message's place in messages, from 0") { $0.item.index },
                .text("message", "the message text") { $0.item.name },
            ],
        ] + slotColumns,
        rows: { run in run.results.all.flatMap { c in c.messages.map { ConfigurationRow(configuration: c, item: $0) } } })

    public static let periodStats = ResultTable<ConfigurationRow<SlotMetrics>>(
        "period_stats",
        columns: [
            configurationKey(\.configuration),
            [
                .index("reminder_index", unit: "reminder", "the reminder's place in the configuration, from 0") { $0.item.reminder },
                .index("period_index", unit: "period", "the period's place in timePeriods, from 0") { $0.item.index },
                .index("period_value", unit: "period unit", "the delay really used at that index") { $0.item.periodValue ?? 0 },
                .text("period_unit", "its unit") { $0.configuration.spec.reminders[$0.item.reminder].unit.rawValue },
            ],
        ] + slotColumns + [[
            // Schema version 10, so last: one unit for every reminder's periods.
            .number("period_days", unit: "days", "the delay really used, in days (whatever the reminder's unit)") {
                row in row.item.periodValue.map { Double($0) * row.configuration.spec.reminders[row.item.reminder].unit.seconds / 86_400 }
            },
        ]],
        rows: { run in run.results.all.flatMap { c in c.periods.map { ConfigurationRow(configuration: c, item: $0) } } })

    // MARK: daily_stats, retention_curve

    /// One day of one configuration.
    public struct Day: Sendable {
        public let configuration: ConfigurationResult
        public let day: Int
        /// The day's date, nil when the scenario's start date is not one.
        public let date: CalendarDate?
    }

    public static let dailyStats = ResultTable<Day>(
        "daily_stats",
        columns: [
            configurationKey(\.configuration),
            [
                .index("day", unit: "day", "UTC days from the start date, from 0") { $0.day },
                ResultColumn("date", .text, unit: "ISO 8601 date", "the day's date") { $0.date.map { .text($0.description) } ?? .null },
                .count("active_users", unit: "users", "users with at least one open that day") { $0.configuration.tally.daily($0.day) },
            ],
        ],
        rows: { run in
            let start = CalendarDate(iso: run.results.scenario.startDate)
            return run.results.all.flatMap { c in
                (0..<c.tally.layout.days).map { Day(configuration: c, day: $0, date: start?.adding(days: $0)) }
            }
        })

    public static let retentionCurve = ResultTable<Day>(
        "retention_curve",
        columns: [
            configurationKey(\.configuration),
            [.index("day_since_install", unit: "day", "local days since install, 1 to 30") { $0.day }],
            [
                .count("retained", unit: "users", "users with an open on that day") { $0.configuration.tally.retention(day: $0.day).retained },
                .count("eligible", unit: "users", "users whose day ends inside the horizon") {
                    $0.configuration.tally.retention(day: $0.day).eligible
                },
            ],
            ResultColumn.rate("retention", "retained / eligible") { row in
                let r = row.configuration.tally.retention(day: row.day)
                return Proportion(r.retained, of: r.eligible)
            },
        ],
        rows: { run in
            run.results.all.flatMap { c in (1...retentionCurveDays).map { Day(configuration: c, day: $0, date: nil) } }
        })

    // MARK: cron_rule_stats, cron_first_run_days, hourly_stats

    public static let cronRuleStats = ResultTable<ConfigurationRow<CronRuleMetrics>>(
        "cron_rule_stats",
        columns: [
            configurationKey(\.configuration),
            [
                .index("rule_index", unit: "rule", "the rule's place in cronRules, from 0") { $0.item.index },
                .text("rule", "the rule's text") { $0.item.rule },
                .count("launches_evaluated", unit: "launches", "launches the rule was evaluated at") { $0.item.launchesEvaluated },
                .count("block_runs", unit: "launches", "launches its block ran at") { $0.item.blockRuns },
                .count("else_runs", unit: "launches", "launches its else ran at") { $0.item.elseRuns },
                .count("users_ran", unit: "users", "users for whom the block ran at least once") { $0.item.usersRan },
                .optionalCount("first_run_day_median", unit: "day", "median local day from install to the first run") {
                    $0.item.firstRunDayMedian.map(Int64.init)
                },
                .optionalCount("first_run_day_p90", unit: "day", "90th percentile of that day") {
                    $0.item.firstRunDayP90.map(Int64.init)
                },
                ResultColumn("prompt", .text, unit: "text", "the system prompt its block asks for (storeReview), NULL for none") {
                    $0.item.prompt.map { .text($0.rawValue) } ?? .null
                },
                .optionalCount("shown", unit: "prompts", "prompts the system showed of the block runs that asked; NULL for none") {
                    $0.item.shown
                },
                .optionalCount("users_shown", unit: "users", "users shown the prompt at least once; NULL when it asks for none") {
                    $0.item.usersShown
                },
            ],
        ],
        rows: { run in run.results.all.flatMap { c in c.cronRules.map { ConfigurationRow(configuration: c, item: $0) } } })

    /// The users whose first run of one rule came on one day since install.
    public struct FirstRunDay: Sendable {
        public let configuration: ConfigurationResult
        public let rule: Int
        public let day: Int
        public var users: Int64 { configuration.tally.firstRun(rule, day: day) }
    }

    public static let cronFirstRunDays = ResultTable<FirstRunDay>(
        "cron_first_run_days",
        columns: [
            configurationKey(\.configuration),
            [
                .index("rule_index", unit: "rule", "the rule's place in cronRules, from 0") { $0.rule },
                .index("day_since_install", unit: "day", "local days from install to the first run") { $0.day },
                .count("users", unit: "users", "users whose first run came that day") { $0.users },
            ],
        ],
        rows: { run in
            run.results.all.flatMap { c in
                c.cronRules.indices.flatMap { r in
                    (0...c.tally.layout.days).map { FirstRunDay(configuration: c, rule: r, day: $0) }.filter { $0.users > 0 }
                }
            }
        })

    public static let hourlyStats = ResultTable<ConfigurationRow<HourMetrics>>(
        "hourly_stats",
        columns: [
            configurationKey(\.configuration),
            [
                .index("local_hour", unit: "hour", "the user's own clock, 0 to 23") { $0.item.hour },
                .count("delivered", unit: "notifications", "notifications delivered in that hour") { $0.item.delivered },
                .count("responded", unit: "notifications", "those that brought the user back") { $0.item.responded },
            ],
            ResultColumn.rate(Measure.responseRate) { $0.item.responseRate },
        ],
        rows: { run in
            run.results.configurations.flatMap { c in c.hours.map { ConfigurationRow(configuration: c, item: $0) } }
        })

    /// The counts of `config_metrics`, from `users` to `triggered`.
    private static let configMetricCounts: [ResultColumn<ConfigurationResult>] = [
        .count("users", unit: "users", "users simulated") { $0.metrics.users },
        .count("opens", unit: "opens", "organic_opens + response_opens") { $0.metrics.opens },
        .count("organic_opens", unit: "opens", "opens the user made on their own") { $0.metrics.organicOpens },
        .count("response_opens", unit: "opens", "opens a notification caused") { $0.metrics.responseOpens },
        .count("launches", unit: "launches", "cold launches") { $0.metrics.launches },
        .count("scheduled", unit: "notifications", "notifications scheduled") { $0.metrics.scheduled },
        .count("cancelled", unit: "notifications", "scheduled notifications cancelled before they fired") { $0.metrics.cancelled },
        .count("delivered", unit: "notifications", "notifications shown while the app was not in use") { $0.metrics.delivered },
        .count("foreground", unit: "notifications", "notifications that fired while the app was open") { $0.metrics.foreground },
        .count("suppressed", unit: "notifications", "notifications that fired with notifications turned off") {
            $0.metrics.suppressed
        },
        .count("censored", unit: "notifications", "notifications that would fire after the horizon") { $0.metrics.censored },
        .count("triggered", unit: "notifications", "delivered + foreground + suppressed") { $0.metrics.triggered },
    ]

    /// `retained_dK`, `eligible_dK` and `retention_dK` with its bounds.
    static func retention<Row>(_ k: Int, _ read: @escaping @Sendable (Row) -> Proportion) -> [ResultColumn<Row>] {
        [
            .count("retained_d\(k)", unit: "users", "users with an open on local day \(k) after install") { read($0).count },
            .count("eligible_d\(k)", unit: "users", "users whose day \(k) ends inside the horizon") { read($0).total },
        ] + ResultColumn.rate("retention_d\(k)", "retained_d\(k) / eligible_d\(k)", read)
    }

    /// The bounds of `delivered_per_incremental_open`'s interval; the high one NULL when unbounded (the
    /// opens lift's interval reaches 0).
    static func deliveredPerExtraOpenBounds<Row>(_ read: @escaping @Sendable (Row) -> Estimate?) -> [ResultColumn<Row>] {
        let name = Measure.deliveredPerExtraOpen.name, unit = Measure.deliveredPerExtraOpen.unit
        return [
            .number(name + "_low", unit: unit, "low bound of the 95% interval of \(name)") { read($0)?.low },
            .number(name + "_high", unit: unit, "high bound of the 95% interval of \(name); NULL when unbounded (the opens "
                    + "lift's interval reaches 0)") { read($0).flatMap { $0.high.isFinite ? $0.high : nil } },
        ]
    }

    /// `incremental_retained_dK`: users retained on day K only with reminders, minus users retained only without.
    static func incrementalRetained(_ k: Int, _ read: @escaping @Sendable (ConfigurationResult) -> Int64)
        -> [ResultColumn<ConfigurationResult>] {
        [
            .optionalCount("incremental_retained_d\(k)", unit: "users",
                           "users retained on day \(k) only with reminders, minus users retained only without") {
                $0.isHoldout ? nil : read($0)
            },
        ]
    }
}

/// A measure that several tables and outputs hold: one name (snake_case, in SQL, CSV and JSON
/// files), title (the words a report's tables and text use), meaning and unit for all.
public struct Measure: Sendable, Equatable {
    public let name: String
    public let title: String
    public let meaning: String
    public let unit: String

    public static let opensPerUser = Measure(
        name: "opens_per_user", title: "opens per user", meaning: "mean opens per user", unit: "opens per user")
    public static let opensLiftPerUser = Measure(
        name: "opens_lift_per_user", title: "opens per user vs holdout",
        meaning: "mean per-user opens above the holdout (paired)", unit: "opens per user")
    public static let liftD7 = Measure(
        name: "lift_d7", title: "D7 retention vs holdout",
        meaning: "D7 retention above the holdout, a difference of fractions (paired)", unit: "fraction")
    public static let liftD30 = Measure(
        name: "lift_d30", title: "D30 retention vs holdout",
        meaning: "D30 retention above the holdout, a difference of fractions (paired)", unit: "fraction")
    public static let retentionD7 = Measure(
        name: "retention_d7", title: "D7 retention",
        meaning: "users with an open on local day 7 after install / users whose day 7 was observed", unit: "fraction")
    public static let retentionD30 = Measure(
        name: "retention_d30", title: "D30 retention",
        meaning: "users with an open on local day 30 after install / users whose day 30 was observed", unit: "fraction")
    public static let optOutRate = Measure(
        name: "opt_out_rate", title: "opt-out rate", meaning: "users who turned notifications off / users (Wilson)",
        unit: "fraction")
    public static let deliveredPerUser = Measure(
        name: "delivered_per_user", title: "notifications delivered per user",
        meaning: "notifications delivered per user, with a normal interval", unit: "notifications per user")
    public static let deliveredPerExtraOpen = Measure(
        name: "delivered_per_incremental_open", title: "notifications delivered per extra open",
        meaning: "notifications delivered per open gained; NULL when none was gained", unit: "notifications per open")
    public static let triggerRate = Measure(
        name: "trigger_rate", title: "trigger rate", meaning: "triggered / (scheduled − censored)", unit: "fraction")
    public static let responseRate = Measure(
        name: "response_rate", title: "response rate", meaning: "responded / delivered", unit: "fraction")
}

extension PairMeasure {
    /// The measure's name, title, meaning and unit in tables and files.
    public var measure: Measure {
        switch self {
        case .opensPerUser: return .opensPerUser
        case .retentionD7: return .retentionD7
        case .retentionD30: return .retentionD30
        case .optOutRate: return .optOutRate
        case .deliveredPerUser: return .deliveredPerUser
        }
    }
}

extension DecisionMeasure {
    /// The measure's name, meaning and unit in tables and files.
    public var measure: Measure {
        switch self {
        case .opensLiftPerUser: return .opensLiftPerUser
        case .liftD7: return .liftD7
        case .liftD30: return .liftD30
        case .retentionD7: return .retentionD7
        case .retentionD30: return .retentionD30
        case .optOutRate: return .optOutRate
        case .deliveredPerUser: return .deliveredPerUser
        case .deliveredPerExtraOpen: return .deliveredPerExtraOpen
        case .triggerRate: return .triggerRate
        case .responseRate: return .responseRate
        }
    }
}
