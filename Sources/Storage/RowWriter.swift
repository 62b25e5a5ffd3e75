import Foundation
import ReminderEngine
import Simulation

/// Writes one run's rows: the tables `ResultTables` describes, each from the run's results, and the
/// exact counts behind them (`tallies`, `user_sums`).
struct RowWriter {
    let database: Database
    let runID: Int64

    init(database: Database, runID: Int64, scenario: Scenario) throws(StoreError) {
        self.database = database
        self.runID = runID
        guard CalendarDate(iso: scenario.startDate) != nil else {
            throw StoreError(.invalid, "start date \(scenario.startDate) is not a date")
        }
    }

    private func insert(_ table: String, _ columns: [String], _ rows: [[SQLValue]]) throws(StoreError) {
        try database.insert(table, key: ("run_id", .integer(runID)), columns, rows)
    }

    /// Writes every described table's rows of the run but `runs`, whose row gave the run its id.
    func writeDescribedTables(_ run: RunFacts) throws(StoreError) {
        for table in ResultTables.all where table.name != ResultTables.runs.name {
            try insert(table.name, table.columns.map(\.name), table.rows(run).map { $0.map(SQLValue.init) })
        }
    }

    /// Writes the exact counts: one configuration's tally.
    func writeTally(_ result: ConfigurationResult) throws(StoreError) {
        let l = result.tally.layout
        try insert(
            "tallies", ["config_index", "label", "message_slots", "period_slots", "cron_rules", "days", "counts"],
            [[.integer(Int64(result.index)), .text(result.label), .integer(Int64(l.messageSlots)), .integer(Int64(l.periodSlots)),
              .integer(Int64(l.cronRules)), .integer(Int64(l.days)), .blob(result.tally.encodedCounts())]])
    }

    /// Writes the sums over users, when the run has them.
    func writeUserSums(_ results: RunResults) throws(StoreError) {
        guard let sums = results.tallies.sums else { return }
        let references: SQLValue = sums.layout.references.map { .text(StoredPairs.text($0)) } ?? .null
        let recorded = results.tallies.recordedUserSums
        try insert("user_sums", ["segments", "counts", "pair_references", "recorded_users", "recorded_user_sums"],
                   [[.integer(Int64(sums.layout.groups)), .blob(Tally.encode(sums.storedCounts)), references,
                     recorded.map { .integer(Int64($0.layout.clusters)) } ?? .null,
                     recorded.map { .blob(Tally.encode($0.counts)) } ?? .null]])
    }
}

/// Estimates, as the tables of tunes store them: the value and its bounds, or three NULLs.
enum MetricColumns {
    static func estimate(_ e: Estimate?) -> [SQLValue] {
        guard let e else { return [.null, .null, .null] }
        return [.real(e.value), .real(e.low), .real(e.high)]
    }
}

extension SQLValue {
    /// A described table's cell as SQLite stores it.
    init(_ value: ResultValue) {
        switch value {
        case .null: self = .null
        case let .integer(v): self = .integer(v)
        case let .real(v): self = .real(v)
        case let .text(v): self = .text(v)
        }
    }
}
