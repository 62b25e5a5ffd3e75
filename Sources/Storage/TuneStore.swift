import Foundation
import Simulation

/// A finished tune, as it is written to the store.
public struct TuneRecord: Sendable {
    public var result: TuneResult
    public var toolVersion: String
    /// ISO 8601 UTC time the tune finished.
    public var createdAt: String
    public var wallSeconds: Double
    public var threads: Int
    /// The `--model-draws` the tune was given; nil: the scenario's default, which a report uses too.
    public var modelDraws: Int?
    /// The fingerprint of the recorded logs the tune read (`RecordedLogs.fingerprint`); nil when it read none.
    public var recordedData: String?

    public init(result: TuneResult, toolVersion: String, createdAt: String, wallSeconds: Double, threads: Int,
                modelDraws: Int? = nil, recordedData: String? = nil) {
        (self.result, self.toolVersion, self.createdAt) = (result, toolVersion, createdAt)
        (self.wallSeconds, self.threads, self.modelDraws) = (wallSeconds, threads, modelDraws)
        self.recordedData = recordedData
    }
}

extension RunStore {
    /// Writes a tune, its stages and every candidate it evaluated in one transaction; returns its id.
    public func save(_ tune: TuneRecord) throws(StoreError) -> Int64 {
        try removingIfNewOnFailure { () throws(StoreError) in
            try database.transaction { () throws(StoreError) in try insert(tune) }
        }
    }

    private func insert(_ tune: TuneRecord) throws(StoreError) -> Int64 {
        let r = tune.result
        let s = r.scenario
        let json = try Self.storedJSON(s)
        try database.run(
            """
            INSERT INTO tunes (scenario_name, scenario_json, seed, users, candidates, baseline_label, objective, drop_z,
                               winner_index, winner_label, simulated, tool_version, created_at, wall_seconds, threads,
                               model_draws, recorded_data)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(s.name), .text(json), .integer(Int64(bitPattern: s.seed)), .integer(Int64(s.users)),
                .integer(Int64(r.candidates.count)), .text(r.baseline.label), .text(r.rule.objective.rawValue),
                .real(r.plan.dropZ), r.winner.map { .integer(Int64($0)) } ?? .null,
                r.winner.map { .text(r.candidates[$0].spec.label) } ?? .null, .integer(Int64(r.simulated)),
                .text(tune.toolVersion), .text(tune.createdAt), .real(tune.wallSeconds), .integer(Int64(tune.threads)),
                tune.modelDraws.map { .integer(Int64($0)) } ?? .null, tune.recordedData.map { .text($0) } ?? .null,
            ])
        let writer = TuneWriter(database: database, tuneID: database.lastInsertedRowID, result: r, threads: tune.threads)
        try writer.writeStages()
        try writer.writeCandidates()
        return writer.tuneID
    }
}

/// Writes one tune's stages and candidates, the rows of a tune's tables other than `tunes`.
struct TuneWriter {
    let database: Database
    let tuneID: Int64
    let result: TuneResult
    /// Threads to write the candidates' configurations as JSON on.
    var threads = 1

    private func insert(_ table: String, _ columns: [String], _ rows: [[SQLValue]]) throws(StoreError) {
        try database.insert(table, key: ("tune_id", .integer(tuneID)), columns, rows)
    }

    func writeStages() throws(StoreError) {
        let last = result.stages.count - 1
        try insert(
            "tune_stages",
            ["stage", "is_final", "users", "left_out", "evaluated", "clearly_infeasible", "clearly_worse", "went_on", "seconds",
             "worse_z"],
            result.stages.enumerated().map { k, s in
                [.integer(Int64(k + 1)), .integer(k == last ? 1 : 0), .integer(Int64(s.users)), .integer(Int64(s.overCapacity)),
                 .integer(Int64(s.evaluated)), .integer(Int64(s.infeasible)), .integer(Int64(s.worse)),
                 k == last ? .null : .integer(Int64(s.survivors)), .real(s.seconds), k == last ? .null : .real(s.worseZ)]
            })
    }

    /// What became of a candidate that was not dropped: the recommendation, or one of the finalists.
    func outcome(_ c: Int) -> String {
        result.candidates[c].drop?.kind.rawValue ?? (c == result.winner ? "winner" : "finalist")
    }

    func writeCandidates() throws(StoreError) {
        let rank = Dictionary(uniqueKeysWithValues: result.final.ranking.enumerated().map { ($1.candidate, $0 + 1) })
        let objective = result.rule.objective
        var rows: [[SQLValue]] = []
        var constraints: [[SQLValue]] = []
        let jsons = ConfigurationSpec.canonicalJSON(of: result.candidates.map(\.spec), threads: threads)
        for (c, candidate) in result.candidates.enumerated() {
            guard let json = jsons[c] else {
                throw StoreError(.invalid, "candidate \(candidate.spec.label) cannot be written as JSON")
            }
            precondition(candidate.stage >= 0, "every candidate is simulated at the first stage")
            let drop = candidate.drop
            let f = candidate.figures
            rows.append(
                [.integer(Int64(c)), .text(candidate.spec.label), .text(json), .integer(Int64(candidate.stage + 1)),
                 .integer(Int64(result.plan.stageUsers[candidate.stage])), .text(outcome(c)),
                 drop.map { .integer(Int64($0.stage + 1)) } ?? .null, rank[c].map { .integer(Int64($0)) } ?? .null,
                 drop.map { .text($0.reason) } ?? .null, drop?.measure.map { .text($0.rawValue) } ?? .null,
                 drop?.leader.map { .integer(Int64($0)) } ?? .null,
                 drop?.leader.map { .text(result.candidates[$0].spec.label) } ?? .null,
                 drop?.comparison.map { .text($0.rawValue) } ?? .null]
                    + MetricColumns.estimate(drop?.interval) + MetricColumns.estimate(f?.measures[objective])
                    + MetricColumns.estimate(f?.versusBaseline))
            for (m, bound) in result.rule.orderedConstraints {
                let e = f?.measures[m]
                constraints.append(
                    [.integer(Int64(c)), .text(m.rawValue)] + MetricColumns.estimate(e)
                        + [bound.min.map { .real($0) } ?? .null, bound.max.map { .real($0) } ?? .null,
                           e.map { .integer(bound.admits($0.value) ? 1 : 0) } ?? .null])
            }
        }
        try insert(
            "tune_candidates",
            ["candidate_index", "label", "configuration_json", "stage", "stage_users", "outcome", "left_stage", "final_rank",
             "reason", "constraint_measure", "leader_index", "leader_label", "comparison", "decisive", "decisive_low",
             "decisive_high", "objective_value", "objective_value_low", "objective_value_high", "versus_baseline",
             "versus_baseline_low", "versus_baseline_high"], rows)
        try insert(
            "tune_constraint_values",
            ["candidate_index", "measure", "value", "value_low", "value_high", "limit_min", "limit_max", "met"], constraints)
    }
}

/// A stored tune as `list` shows it.
public struct TuneListing: Sendable, Equatable {
    public let id: Int64
    public let scenarioName: String
    public let seed: Int64
    public let users: Int64
    public let candidates: Int64
    /// The recommended candidate's label; nil when no candidate met every constraint.
    public let winnerLabel: String?
    public let createdAt: String
    public let wallSeconds: Double
}

/// A stored tune read back: what its report is worked out again from, and what it recommended.
public struct StoredTune: Sendable {
    public let id: Int64
    public let scenario: Scenario
    public let winnerLabel: String?
    public let toolVersion: String
    /// The `--model-draws` the tune was given; nil: the default.
    public let modelDraws: Int?
    /// The tune's wall time and threads when it ran.
    public let wallSeconds: Double
    public let threads: Int
    /// The fingerprint of the recorded logs the tune read; nil when it read none (or was stored before it was kept).
    public let recordedData: String?
}

extension RunStore {
    /// The tables that hold a tune, in the order `export` writes them.
    public static let tuneTables = ["tunes", "tune_stages", "tune_candidates", "tune_constraint_values"]

    /// Every stored tune, oldest first.
    public func tunes() throws(StoreError) -> [TuneListing] {
        let columns = ["tune_id", "scenario_name", "seed", "users", "candidates", "winner_label", "created_at", "wall_seconds"]
        return try everyRow(of: "tunes", key: "tune_id", owner: "tune", columns: columns) { (id, r) throws(StoreError) in
            TuneListing(
                id: id, scenarioName: try r.text("scenario_name"), seed: Int64(try r.integer("seed", in: 0...Int64(Scenario.maximumSeed))),
                users: Int64(try r.integer("users", in: 1...Int64.max)),
                candidates: Int64(try r.integer("candidates", in: 1...Int64.max)), winnerLabel: try r.optionalText("winner_label"),
                createdAt: try r.timestamp("created_at"), wallSeconds: try r.seconds("wall_seconds"))
        }
    }

    /// Reads tune `id` back: its scenario (with its seed and final users) and its recommendation.
    public func loadTune(_ id: Int64) throws(StoreError) -> StoredTune {
        let columns = ["scenario_json", "winner_label", "tool_version", "seed", "users", "model_draws", "wall_seconds", "threads",
                       "recorded_data"]
        let rows = try database.rows("SELECT \(columns.joined(separator: ", ")) FROM tunes WHERE tune_id = ?", [.integer(id)])
        guard let first = rows.first else { throw StoreError(.notFound, "\(database.path): no tune \(id)") }
        let row = StoredRow(first, table: "tunes", columns: columns, owner: "tune \(id)")
        do throws(StoreError) {
            let scenario: Scenario
            do {
                scenario = try Scenario.decodeStored(row.text("scenario_json"), source: "tune \(id)")
            } catch {
                throw row.damaged("scenario_json", "the scenario cannot be read: \(error)")
            }
            // The report is worked out again from the scenario: its seed and users must be the tune's own.
            guard try row.integer("seed") == Int64(bitPattern: scenario.seed) else {
                throw row.damaged("seed", "the tune's seed differs from its stored scenario's (\(scenario.seed))")
            }
            guard try row.integer("users", in: 1...Int64.max) == scenario.users else {
                throw row.damaged("users", "the tune's final users differ from its stored scenario's (\(scenario.users))")
            }
            var modelDraws: Int?
            if try row.optionalInteger("model_draws") != nil {
                modelDraws = try row.integer("model_draws", in: 0...Int64(UncertainDecision.maximumDraws))
            }
            return StoredTune(id: id, scenario: scenario, winnerLabel: try row.optionalText("winner_label"),
                              toolVersion: try row.text("tool_version"), modelDraws: modelDraws,
                              wallSeconds: try row.seconds("wall_seconds"), threads: Int(try row.integer("threads", in: 1...4_096)),
                              recordedData: try row.recordedDataFingerprint("recorded_data", of: scenario))
        } catch let error {
            throw named(error)
        }
    }

    /// One of a tune's tables (see `tuneTables`): its columns, and the tune's rows in key order.
    public func tuneTable(_ table: String, tune id: Int64) throws(StoreError) -> (columns: [String], rows: [[SQLValue]]) {
        guard Self.tuneTables.contains(table) else { throw StoreError(.invalid, "\(table) is not a table of tunes") }
        let info = try database.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
        let columns = info.compactMap { $0.text(0) }
        let types = info.map { $0.text(1)?.uppercased() ?? "" }
        let order = table == "tunes" ? "tune_id" : table == "tune_stages" ? "stage"
            : table == "tune_candidates" ? "candidate_index" : "candidate_index, measure"
        let rows = try database.rows("SELECT * FROM \(table) WHERE tune_id = ? ORDER BY \(order)", [.integer(id)])
        // Rows go out as stored, but only values of the kinds the tool stores: a number where the schema
        // declares one, text where it declares text. (An interval with no upper bound is stored as an
        // infinite real, written as an empty field.)
        for row in rows {
            for (k, value) in row.values.enumerated() where k < types.count {
                let fits: Bool
                switch (types[k], value) {
                case (_, .null): fits = true
                case ("INTEGER", .integer): fits = true
                case ("REAL", .integer): fits = true
                case ("REAL", .real): fits = true
                case ("TEXT", .text): fits = true
                case ("BLOB", .blob): fits = true
                default: fits = !["INTEGER", "REAL", "TEXT", "BLOB"].contains(types[k])
                }
                guard fits else {
                    throw StoreError(.corrupt, "\(database.path): \(table).\(columns[k]) of tune \(id): "
                        + "\(StoredRow.describe(value)) where the schema holds \(types[k].lowercased())")
                }
            }
        }
        return (columns, rows.map(\.values))
    }
}
