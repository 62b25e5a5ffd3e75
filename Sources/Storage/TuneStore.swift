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

    public init(result: TuneResult, toolVersion: String, createdAt: String, wallSeconds: Double, threads: Int) {
        (self.result, self.toolVersion, self.createdAt) = (result, toolVersion, createdAt)
        (self.wallSeconds, self.threads) = (wallSeconds, threads)
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
                               winner_index, winner_label, simulated, tool_version, created_at, wall_seconds, threads)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(s.name), .text(json), .integer(Int64(bitPattern: s.seed)), .integer(Int64(s.users)),
                .integer(Int64(r.candidates.count)), .text(r.baseline.label), .text(r.rule.objective.rawValue),
                .real(r.plan.dropZ), r.winner.map { .integer(Int64($0)) } ?? .null,
                r.winner.map { .text(r.candidates[$0].spec.label) } ?? .null, .integer(Int64(r.simulated)),
                .text(tune.toolVersion), .text(tune.createdAt), .real(tune.wallSeconds), .integer(Int64(tune.threads)),
            ])
        let writer = TuneWriter(database: database, tuneID: database.lastInsertedRowID, result: r)
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

    private func insert(_ table: String, _ columns: [String], _ rows: [[SQLValue]]) throws(StoreError) {
        try database.insert(table, key: ("tune_id", .integer(tuneID)), columns, rows)
    }

    func writeStages() throws(StoreError) {
        let last = result.stages.count - 1
        try insert(
            "tune_stages",
            ["stage", "is_final", "users", "left_out", "evaluated", "clearly_infeasible", "clearly_worse", "went_on", "seconds"],
            result.stages.enumerated().map { k, s in
                [.integer(Int64(k + 1)), .integer(k == last ? 1 : 0), .integer(Int64(s.users)), .integer(Int64(s.overCapacity)),
                 .integer(Int64(s.evaluated)), .integer(Int64(s.infeasible)), .integer(Int64(s.worse)),
                 k == last ? .null : .integer(Int64(s.survivors)), .real(s.seconds)]
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
        for (c, candidate) in result.candidates.enumerated() {
            let json: String
            do {
                json = try candidate.spec.canonicalJSON()
            } catch {
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
