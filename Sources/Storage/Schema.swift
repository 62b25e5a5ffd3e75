/// The database schema, as forward migrations: migration N brings `user_version` from N − 1 to N.
///
/// `docs/schema.md` documents every table, column and view; keep the two in step.
enum Schema {
    /// The notification counts and rates of one message or one period, in `message_stats` and `period_stats`.
    private static let slotColumns = """
        scheduled INTEGER NOT NULL, cancelled INTEGER NOT NULL, delivered INTEGER NOT NULL,
                    foreground INTEGER NOT NULL, suppressed INTEGER NOT NULL, censored INTEGER NOT NULL,
                    triggered INTEGER NOT NULL,
                    trigger_rate REAL, trigger_rate_low REAL, trigger_rate_high REAL,
                    responded INTEGER NOT NULL,
                    response_rate REAL, response_rate_low REAL, response_rate_high REAL,
        """

    /// The leading key columns of a table with rows per configuration of a run.
    private static let configKey = """
        run_id INTEGER NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
                    config_index INTEGER NOT NULL,
        """

    /// The leading key columns of `message_stats` and `period_stats`: a reminder of a configuration of a run.
    private static let reminderKey = configKey + """

                    reminder_index INTEGER NOT NULL,
        """

    /// The leading key column of a table with rows per tune.
    private static let tuneKey = "tune_id INTEGER NOT NULL REFERENCES tunes (tune_id) ON DELETE CASCADE,"

    static let migrations: [String] = [
        // 1: the first schema.
        """
        CREATE TABLE runs (
            run_id INTEGER PRIMARY KEY,
            scenario_name TEXT NOT NULL,
            scenario_json TEXT NOT NULL,
            seed INTEGER NOT NULL,
            users INTEGER NOT NULL,
            horizon_days INTEGER NOT NULL,
            start_date TEXT NOT NULL,
            tool_version TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('complete', 'shard')),
            shard_index INTEGER,
            shard_count INTEGER,
            first_user INTEGER NOT NULL,
            end_user INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            wall_seconds REAL NOT NULL,
            threads INTEGER NOT NULL
        );
        CREATE TABLE configurations (
            \(configKey)
            label TEXT NOT NULL,
            is_holdout INTEGER NOT NULL,
            mode TEXT NOT NULL,
            reminders_json TEXT NOT NULL,
            cron_rules_json TEXT NOT NULL,
            PRIMARY KEY (run_id, config_index)
        );
        CREATE TABLE tallies (
            \(configKey)
            message_slots INTEGER NOT NULL,
            period_slots INTEGER NOT NULL,
            cron_rules INTEGER NOT NULL,
            days INTEGER NOT NULL,
            counts BLOB NOT NULL,
            PRIMARY KEY (run_id, config_index)
        );
        CREATE TABLE config_metrics (
            \(configKey)
            label TEXT NOT NULL,
            users INTEGER NOT NULL,
            opens INTEGER NOT NULL,
            organic_opens INTEGER NOT NULL,
            response_opens INTEGER NOT NULL,
            launches INTEGER NOT NULL,
            scheduled INTEGER NOT NULL,
            cancelled INTEGER NOT NULL,
            delivered INTEGER NOT NULL,
            foreground INTEGER NOT NULL,
            suppressed INTEGER NOT NULL,
            censored INTEGER NOT NULL,
            triggered INTEGER NOT NULL,
            trigger_rate REAL, trigger_rate_low REAL, trigger_rate_high REAL,
            responded INTEGER NOT NULL,
            response_rate REAL, response_rate_low REAL, response_rate_high REAL,
            attributed INTEGER NOT NULL,
            opt_outs INTEGER NOT NULL,
            revived INTEGER NOT NULL,
            retained_d1 INTEGER NOT NULL, eligible_d1 INTEGER NOT NULL,
            retention_d1 REAL, retention_d1_low REAL, retention_d1_high REAL,
            retained_d7 INTEGER NOT NULL, eligible_d7 INTEGER NOT NULL,
            retention_d7 REAL, retention_d7_low REAL, retention_d7_high REAL,
            retained_d30 INTEGER NOT NULL, eligible_d30 INTEGER NOT NULL,
            retention_d30 REAL, retention_d30_low REAL, retention_d30_high REAL,
            incremental_opens INTEGER,
            opens_lift_per_user REAL, opens_lift_per_user_low REAL, opens_lift_per_user_high REAL,
            incremental_retained_d7 INTEGER,
            lift_d7 REAL, lift_d7_low REAL, lift_d7_high REAL,
            incremental_retained_d30 INTEGER,
            lift_d30 REAL, lift_d30_low REAL, lift_d30_high REAL,
            delivered_per_incremental_open REAL,
            PRIMARY KEY (run_id, config_index)
        );
        CREATE TABLE message_stats (
            \(reminderKey)
            message_index INTEGER NOT NULL,
            message TEXT NOT NULL,
            \(slotColumns)
            PRIMARY KEY (run_id, config_index, reminder_index, message_index)
        );
        CREATE TABLE period_stats (
            \(reminderKey)
            period_index INTEGER NOT NULL,
            period_value INTEGER NOT NULL,
            period_unit TEXT NOT NULL,
            \(slotColumns)
            PRIMARY KEY (run_id, config_index, reminder_index, period_index)
        );
        CREATE TABLE daily_stats (
            \(configKey)
            day INTEGER NOT NULL,
            date TEXT NOT NULL,
            active_users INTEGER NOT NULL,
            PRIMARY KEY (run_id, config_index, day)
        );
        CREATE TABLE retention_curve (
            \(configKey)
            day_since_install INTEGER NOT NULL,
            retained INTEGER NOT NULL,
            eligible INTEGER NOT NULL,
            retention REAL, retention_low REAL, retention_high REAL,
            PRIMARY KEY (run_id, config_index, day_since_install)
        );
        CREATE TABLE cron_rule_stats (
            \(configKey)
            rule_index INTEGER NOT NULL,
            rule TEXT NOT NULL,
            launches_evaluated INTEGER NOT NULL,
            block_runs INTEGER NOT NULL,
            else_runs INTEGER NOT NULL,
            users_ran INTEGER NOT NULL,
            first_run_day_median INTEGER,
            first_run_day_p90 INTEGER,
            PRIMARY KEY (run_id, config_index, rule_index)
        );
        CREATE TABLE cron_first_run_days (
            \(configKey)
            rule_index INTEGER NOT NULL,
            day_since_install INTEGER NOT NULL,
            users INTEGER NOT NULL,
            PRIMARY KEY (run_id, config_index, rule_index, day_since_install)
        );
        CREATE VIEW configuration_summary AS
            SELECT m.run_id, m.config_index, m.label, c.mode, c.is_holdout, m.users,
                   m.trigger_rate, m.trigger_rate_low, m.trigger_rate_high,
                   m.response_rate, m.response_rate_low, m.response_rate_high,
                   m.opens_lift_per_user, m.opens_lift_per_user_low, m.opens_lift_per_user_high,
                   m.retention_d7, m.lift_d7, m.retention_d30, m.lift_d30,
                   m.opt_outs, m.delivered_per_incremental_open
            FROM config_metrics m JOIN configurations c USING (run_id, config_index);
        CREATE VIEW run_overview AS
            SELECT r.run_id, r.scenario_name, r.seed, r.users, r.horizon_days, r.status, r.created_at,
                   r.wall_seconds, COUNT(c.config_index) - 1 AS configurations
            FROM runs r LEFT JOIN configurations c USING (run_id)
            GROUP BY r.run_id;
        """,
        // 2: delivery policies (counts of capped, deferred and shifted notifications) and deliveries by local hour.
        """
        ALTER TABLE config_metrics ADD COLUMN capped INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE config_metrics ADD COLUMN deferred INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE config_metrics ADD COLUMN shifted INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE message_stats ADD COLUMN capped INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE period_stats ADD COLUMN capped INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE hourly_stats (
            \(configKey)
            label TEXT NOT NULL,
            local_hour INTEGER NOT NULL,
            delivered INTEGER NOT NULL,
            responded INTEGER NOT NULL,
            response_rate REAL, response_rate_low REAL, response_rate_high REAL,
            PRIMARY KEY (run_id, config_index, local_hour)
        );
        """,
        // 3: sums over users (clustered intervals, pairs, segments), paired comparisons, per-segment
        // measures, a tidy reminders table, `label` beside every `config_index`, opt-out rates with intervals.
        """
        CREATE TABLE user_sums (
            run_id INTEGER PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
            segments INTEGER NOT NULL,
            counts BLOB NOT NULL
        );
        CREATE TABLE reminders (
            \(configKey)
            label TEXT NOT NULL,
            reminder_index INTEGER NOT NULL,
            position INTEGER NOT NULL,
            period_value INTEGER NOT NULL,
            period_used INTEGER NOT NULL,
            period_unit TEXT NOT NULL,
            period_seconds REAL NOT NULL,
            period_days REAL NOT NULL,
            circular INTEGER NOT NULL,
            random_message INTEGER NOT NULL,
            app_domain TEXT NOT NULL,
            messages_json TEXT NOT NULL,
            PRIMARY KEY (run_id, config_index, reminder_index, position)
        );
        CREATE TABLE pairwise_stats (
            \(configKey)
            label TEXT NOT NULL,
            reference_index INTEGER NOT NULL,
            reference_label TEXT NOT NULL,
            reference_is_baseline INTEGER NOT NULL,
            measure TEXT NOT NULL,
            difference REAL, difference_low REAL, difference_high REAL,
            pairs INTEGER NOT NULL,
            users_to_separate INTEGER,
            PRIMARY KEY (run_id, config_index, reference_index, measure)
        );
        CREATE TABLE segment_metrics (
            \(configKey)
            label TEXT NOT NULL,
            segment_index INTEGER NOT NULL,
            segment TEXT NOT NULL,
            users INTEGER NOT NULL,
            opens INTEGER NOT NULL,
            delivered INTEGER NOT NULL,
            opens_lift_per_user REAL, opens_lift_per_user_low REAL, opens_lift_per_user_high REAL,
            trigger_rate REAL, trigger_rate_low REAL, trigger_rate_high REAL,
            response_rate REAL, response_rate_low REAL, response_rate_high REAL,
            retention_d7 REAL, retention_d7_low REAL, retention_d7_high REAL,
            lift_d7 REAL, lift_d7_low REAL, lift_d7_high REAL,
            retention_d30 REAL, retention_d30_low REAL, retention_d30_high REAL,
            lift_d30 REAL, lift_d30_low REAL, lift_d30_high REAL,
            opt_outs INTEGER NOT NULL,
            opt_out_rate REAL, opt_out_rate_low REAL, opt_out_rate_high REAL,
            delivered_per_incremental_open REAL,
            PRIMARY KEY (run_id, config_index, segment_index)
        );
        ALTER TABLE config_metrics ADD COLUMN opt_out_rate REAL;
        ALTER TABLE config_metrics ADD COLUMN opt_out_rate_low REAL;
        ALTER TABLE config_metrics ADD COLUMN opt_out_rate_high REAL;
        ALTER TABLE config_metrics ADD COLUMN delivered_per_user REAL;
        ALTER TABLE config_metrics ADD COLUMN delivered_per_user_low REAL;
        ALTER TABLE config_metrics ADD COLUMN delivered_per_user_high REAL;
        ALTER TABLE config_metrics ADD COLUMN opt_outs_per_delivered REAL;
        ALTER TABLE config_metrics ADD COLUMN opt_outs_per_delivered_low REAL;
        ALTER TABLE config_metrics ADD COLUMN opt_outs_per_delivered_high REAL;
        ALTER TABLE config_metrics ADD COLUMN attributed_per_delivered REAL;
        ALTER TABLE config_metrics ADD COLUMN attributed_per_delivered_low REAL;
        ALTER TABLE config_metrics ADD COLUMN attributed_per_delivered_high REAL;
        ALTER TABLE config_metrics ADD COLUMN rate_interval TEXT;
        UPDATE config_metrics SET opt_out_rate = CAST(opt_outs AS REAL) / users WHERE users > 0;
        UPDATE config_metrics SET rate_interval = 'wilson';
        ALTER TABLE message_stats ADD COLUMN label TEXT NOT NULL DEFAULT '';
        ALTER TABLE period_stats ADD COLUMN label TEXT NOT NULL DEFAULT '';
        ALTER TABLE daily_stats ADD COLUMN label TEXT NOT NULL DEFAULT '';
        ALTER TABLE retention_curve ADD COLUMN label TEXT NOT NULL DEFAULT '';
        ALTER TABLE cron_rule_stats ADD COLUMN label TEXT NOT NULL DEFAULT '';
        ALTER TABLE cron_first_run_days ADD COLUMN label TEXT NOT NULL DEFAULT '';
        ALTER TABLE tallies ADD COLUMN label TEXT NOT NULL DEFAULT '';
        UPDATE message_stats SET label = (SELECT c.label FROM configurations c WHERE c.run_id = message_stats.run_id AND c.config_index = message_stats.config_index);
        UPDATE period_stats SET label = (SELECT c.label FROM configurations c WHERE c.run_id = period_stats.run_id AND c.config_index = period_stats.config_index);
        UPDATE daily_stats SET label = (SELECT c.label FROM configurations c WHERE c.run_id = daily_stats.run_id AND c.config_index = daily_stats.config_index);
        UPDATE retention_curve SET label = (SELECT c.label FROM configurations c WHERE c.run_id = retention_curve.run_id AND c.config_index = retention_curve.config_index);
        UPDATE cron_rule_stats SET label = (SELECT c.label FROM configurations c WHERE c.run_id = cron_rule_stats.run_id AND c.config_index = cron_rule_stats.config_index);
        UPDATE cron_first_run_days SET label = (SELECT c.label FROM configurations c WHERE c.run_id = cron_first_run_days.run_id AND c.config_index = cron_first_run_days.config_index);
        UPDATE tallies SET label = (SELECT c.label FROM configurations c WHERE c.run_id = tallies.run_id AND c.config_index = tallies.config_index);
        DROP VIEW configuration_summary;
        CREATE VIEW configuration_summary AS
            SELECT m.run_id, m.config_index, m.label, c.mode, c.is_holdout, m.users,
                   m.trigger_rate, m.trigger_rate_low, m.trigger_rate_high,
                   m.response_rate, m.response_rate_low, m.response_rate_high,
                   m.opens_lift_per_user, m.opens_lift_per_user_low, m.opens_lift_per_user_high,
                   m.retention_d7, m.lift_d7, m.retention_d30, m.lift_d30,
                   m.opt_outs, m.opt_out_rate, m.opt_out_rate_low, m.opt_out_rate_high,
                   m.delivered_per_user, m.delivered_per_incremental_open
            FROM config_metrics m JOIN configurations c USING (run_id, config_index);
        """,
        // 4: tunes, their stages, and every candidate they evaluated with its measures and fate.
        """
        CREATE TABLE tunes (
            tune_id INTEGER PRIMARY KEY,
            scenario_name TEXT NOT NULL,
            scenario_json TEXT NOT NULL,
            seed INTEGER NOT NULL,
            users INTEGER NOT NULL,
            candidates INTEGER NOT NULL,
            baseline_label TEXT NOT NULL,
            objective TEXT NOT NULL,
            drop_z REAL NOT NULL,
            winner_index INTEGER,
            winner_label TEXT,
            simulated INTEGER NOT NULL,
            tool_version TEXT NOT NULL,
            created_at TEXT NOT NULL,
            wall_seconds REAL NOT NULL,
            threads INTEGER NOT NULL
        );
        CREATE TABLE tune_stages (
            \(tuneKey)
            stage INTEGER NOT NULL,
            is_final INTEGER NOT NULL,
            users INTEGER NOT NULL,
            left_out INTEGER NOT NULL,
            evaluated INTEGER NOT NULL,
            clearly_infeasible INTEGER NOT NULL,
            clearly_worse INTEGER NOT NULL,
            went_on INTEGER,
            seconds REAL NOT NULL,
            PRIMARY KEY (tune_id, stage)
        );
        CREATE TABLE tune_candidates (
            \(tuneKey)
            candidate_index INTEGER NOT NULL,
            label TEXT NOT NULL,
            configuration_json TEXT NOT NULL,
            stage INTEGER NOT NULL,
            stage_users INTEGER NOT NULL,
            outcome TEXT NOT NULL
                CHECK (outcome IN ('winner', 'finalist', 'clearly_infeasible', 'clearly_worse', 'left_out')),
            left_stage INTEGER,
            final_rank INTEGER,
            reason TEXT,
            constraint_measure TEXT,
            leader_index INTEGER,
            leader_label TEXT,
            comparison TEXT CHECK (comparison IN ('paired', 'bounded', 'unpaired')),
            decisive REAL, decisive_low REAL, decisive_high REAL,
            objective_value REAL, objective_value_low REAL, objective_value_high REAL,
            versus_baseline REAL, versus_baseline_low REAL, versus_baseline_high REAL,
            PRIMARY KEY (tune_id, candidate_index)
        );
        CREATE TABLE tune_constraint_values (
            \(tuneKey)
            candidate_index INTEGER NOT NULL,
            measure TEXT NOT NULL,
            value REAL, value_low REAL, value_high REAL,
            limit_min REAL,
            limit_max REAL,
            met INTEGER,
            PRIMARY KEY (tune_id, candidate_index, measure)
        );
        """,
        // 5: which pairs of configurations a run's sums over users hold: NULL for every pair, else the
        // references every configuration is compared with.
        """
        ALTER TABLE user_sums ADD COLUMN pair_references TEXT;
        """,
        // 6: for a run whose population replays recorded users, the totals per recorded user behind the
        // intervals clustered by recorded user: NULL for other runs and runs stored before.
        """
        ALTER TABLE user_sums ADD COLUMN recorded_users INTEGER;
        ALTER TABLE user_sums ADD COLUMN recorded_user_sums BLOB;
        """,
        // 7: platform rules: notifications dropped past a pending limit, not shown for want of permission,
        // delivered quietly, alarms deferred by an idle device, users asked for permission and allowing it;
        // the headline measures per platform. Cron rules whose block asks for the App Store review prompt:
        // the prompt, the prompts shown under the system's cap and the users shown one; NULL for other
        // rules and for runs stored before.
        """
        ALTER TABLE config_metrics ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE config_metrics ADD COLUMN no_permission INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE config_metrics ADD COLUMN quiet_delivered INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE config_metrics ADD COLUMN dozed INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE config_metrics ADD COLUMN permission_asked INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE config_metrics ADD COLUMN permission_granted INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE message_stats ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE period_stats ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE platform_metrics (
            \(configKey)
            label TEXT NOT NULL,
            platform_index INTEGER NOT NULL,
            platform TEXT NOT NULL,
            users INTEGER NOT NULL,
            opens INTEGER NOT NULL,
            delivered INTEGER NOT NULL,
            opens_lift_per_user REAL, opens_lift_per_user_low REAL, opens_lift_per_user_high REAL,
            trigger_rate REAL, trigger_rate_low REAL, trigger_rate_high REAL,
            response_rate REAL, response_rate_low REAL, response_rate_high REAL,
            retention_d7 REAL, retention_d7_low REAL, retention_d7_high REAL,
            lift_d7 REAL, lift_d7_low REAL, lift_d7_high REAL,
            retention_d30 REAL, retention_d30_low REAL, retention_d30_high REAL,
            lift_d30 REAL, lift_d30_low REAL, lift_d30_high REAL,
            opt_outs INTEGER NOT NULL,
            opt_out_rate REAL, opt_out_rate_low REAL, opt_out_rate_high REAL,
            delivered_per_incremental_open REAL,
            PRIMARY KEY (run_id, config_index, platform_index)
        );
        ALTER TABLE cron_rule_stats ADD COLUMN prompt TEXT;
        ALTER TABLE cron_rule_stats ADD COLUMN shown INTEGER;
        ALTER TABLE cron_rule_stats ADD COLUMN users_shown INTEGER;
        """,
        // 8: the draws of the response model a run's second look, or a tune's finalists, were simulated
        // under (`--model-draws`), so that a report rendered again and a merge of shards decide as the
        // run did; NULL when none was asked for (and for runs and tunes stored before): the default.
        """
        ALTER TABLE runs ADD COLUMN model_draws INTEGER;
        ALTER TABLE tunes ADD COLUMN model_draws INTEGER;
        """,
        // 9: a fingerprint of the recorded logs a run or a tune read (`RecordedLogs.fingerprint`), so that a
        // report worked out again, or a merge of shards, knows a log read later for the one it used; NULL for
        // a scenario that reads none (and for runs and tunes stored before).
        """
        ALTER TABLE runs ADD COLUMN recorded_data TEXT;
        ALTER TABLE tunes ADD COLUMN recorded_data TEXT;
        """,
        // 10: the interval of notifications delivered per extra open, per configuration and per group, the
        // counts behind the groups' rates (to add groups up again), each period's delay in days and each
        // paired difference's unit; NULL for runs stored before.
        """
        ALTER TABLE config_metrics ADD COLUMN delivered_per_incremental_open_low REAL;
        ALTER TABLE config_metrics ADD COLUMN delivered_per_incremental_open_high REAL;
        ALTER TABLE segment_metrics ADD COLUMN delivered_per_incremental_open_low REAL;
        ALTER TABLE segment_metrics ADD COLUMN delivered_per_incremental_open_high REAL;
        ALTER TABLE segment_metrics ADD COLUMN scheduled INTEGER;
        ALTER TABLE segment_metrics ADD COLUMN censored INTEGER;
        ALTER TABLE segment_metrics ADD COLUMN triggered INTEGER;
        ALTER TABLE segment_metrics ADD COLUMN responded INTEGER;
        ALTER TABLE segment_metrics ADD COLUMN retained_d7 INTEGER;
        ALTER TABLE segment_metrics ADD COLUMN eligible_d7 INTEGER;
        ALTER TABLE segment_metrics ADD COLUMN retained_d30 INTEGER;
        ALTER TABLE segment_metrics ADD COLUMN eligible_d30 INTEGER;
        ALTER TABLE platform_metrics ADD COLUMN delivered_per_incremental_open_low REAL;
        ALTER TABLE platform_metrics ADD COLUMN delivered_per_incremental_open_high REAL;
        ALTER TABLE platform_metrics ADD COLUMN scheduled INTEGER;
        ALTER TABLE platform_metrics ADD COLUMN censored INTEGER;
        ALTER TABLE platform_metrics ADD COLUMN triggered INTEGER;
        ALTER TABLE platform_metrics ADD COLUMN responded INTEGER;
        ALTER TABLE platform_metrics ADD COLUMN retained_d7 INTEGER;
        ALTER TABLE platform_metrics ADD COLUMN eligible_d7 INTEGER;
        ALTER TABLE platform_metrics ADD COLUMN retained_d30 INTEGER;
        ALTER TABLE platform_metrics ADD COLUMN eligible_d30 INTEGER;
        ALTER TABLE period_stats ADD COLUMN period_days REAL;
        ALTER TABLE pairwise_stats ADD COLUMN unit TEXT;
        """,
        // 11: the normal quantile a racing stage's differences from its leader had to clear to drop a
        // candidate as clearly worse (split over the candidates it compared); NULL for tunes stored
        // before, whose stages used `tunes.drop_z`.
        """
        ALTER TABLE tune_stages ADD COLUMN worse_z REAL;
        """,
    ]

    /// The version this build writes.
    static var currentVersion: Int { migrations.count }

    /// `PRAGMA application_id` of a ReminderSim database: "RSim" in ASCII, so that `file` and other
    /// tools can tell it from other SQLite files. Databases made before it was set hold 0.
    static let applicationID = 0x5253_696D

    /// The tables and views a database at `version` holds, found by applying the migrations to an
    /// empty in-memory database, so that they never disagree with the migrations themselves.
    static func objects(atVersion version: Int) -> Set<String> {
        precondition((0...currentVersion).contains(version), "no schema version \(version)")
        return objectsByVersion[version]
    }

    private static let objectsByVersion: [Set<String>] = {
        do {
            let database = try Database(path: ":memory:")
            var result: [Set<String>] = [[]]
            for migration in migrations {
                try database.execute(migration)
                result.append(Set(try database.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
                    .compactMap { $0.text(0) }))
            }
            return result
        } catch {
            preconditionFailure("the schema's migrations do not apply to an empty database: \(error)")
        }
    }()

    /// Tables with one row set per run, in export order.
    static let exportedTables: [(name: String, order: String)] = [
        ("runs", "run_id"),
        ("configurations", "config_index"),
        ("reminders", "config_index, reminder_index, position"),
        ("config_metrics", "config_index"),
        ("pairwise_stats", "config_index, reference_index, measure"),
        ("segment_metrics", "config_index, segment_index"),
        ("platform_metrics", "config_index, platform_index"),
        ("message_stats", "config_index, reminder_index, message_index"),
        ("period_stats", "config_index, reminder_index, period_index"),
        ("daily_stats", "config_index, day"),
        ("retention_curve", "config_index, day_since_install"),
        ("cron_rule_stats", "config_index, rule_index"),
        ("cron_first_run_days", "config_index, rule_index, day_since_install"),
        ("hourly_stats", "config_index, local_hour"),
    ]
}
