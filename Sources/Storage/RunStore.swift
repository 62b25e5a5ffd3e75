import Foundation
import ReminderEngine
import Simulation

/// SQLite's SQLITE_BUSY, without importing the C module into every file.
let SQLITE_BUSY_CODE: Int32 = 5

/// A finished simulation, as it is written to the store.
public struct RunRecord: Sendable {
    public var results: RunResults
    public var toolVersion: String
    /// ISO 8601 UTC time the run finished.
    public var createdAt: String
    public var wallSeconds: Double
    public var threads: Int
    /// Set for one shard of a split run.
    public var shard: Shard?

    public init(results: RunResults, toolVersion: String, createdAt: String, wallSeconds: Double, threads: Int,
                shard: Shard? = nil) {
        (self.results, self.toolVersion, self.createdAt) = (results, toolVersion, createdAt)
        (self.wallSeconds, self.threads, self.shard) = (wallSeconds, threads, shard)
    }

    public var scenario: Scenario { results.scenario }
}

/// A run read back from the store.
public struct StoredRun: Sendable {
    public let id: Int64
    public let record: RunRecord

    public init(id: Int64, record: RunRecord) {
        (self.id, self.record) = (id, record)
    }

    public var results: RunResults { record.results }
}

/// One line of `list`.
public struct RunListing: Sendable, Equatable {
    public let id: Int64
    public let scenarioName: String
    public let seed: Int64
    public let users: Int64
    public let horizonDays: Int64
    public let status: String
    public let createdAt: String
    public let wallSeconds: Double
    public let configurations: Int64
}

/// The SQLite database of runs: the only place that knows the schema.
public final class RunStore {
    public let database: Database

    /// How long a writer waits for another process's transaction before giving up.
    public static let busyTimeoutMilliseconds: Int32 = 60_000

    /// Opens the store at `path`, creating it (and its folder) when `create`, and brings its
    /// schema up to date. Refuses a file that is not a ReminderSim database or is newer than
    /// this build.
    public init(path: String, create: Bool = true) throws(StoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw StoreError(.io, "\(path): is a directory, not a database file") }
        } else if !create {
            throw StoreError(.notFound, "\(path): no such database")
        } else {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw StoreError(.io, "\(folder): cannot create the folder for the database: \(error.localizedDescription)")
                }
            }
        }
        database = try Database(path: path, create: create)
        database.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
        do throws(StoreError) {
            try database.execute("PRAGMA foreign_keys = ON")
            // Checked before anything is written, so that a file that is not ours stays as it was.
            try checkOwnership(create: create)
            try enableWAL(create: create)
            try migrate()
        } catch let error {
            throw error.kind == .sqlite || error.kind == .corrupt || error.kind == .io
                ? StoreError(error.kind, "\(path): \(error.message)", code: error.code, sql: error.sql) : error
        }
    }

    /// Refuses a database written by a newer version, another program's database, and (for commands
    /// that only read) an empty file, without changing any of them.
    private func checkOwnership(create: Bool) throws(StoreError) {
        let version = try database.userVersion
        if version > Schema.currentVersion {
            throw StoreError(
                .newerSchema,
                "\(database.path): written by a newer ReminderSim (schema version \(version); this build reads up to \(Schema.currentVersion)); upgrade remindersim to read it")
        }
        guard version == 0 else { return }
        let tables = try database.rows("SELECT count(*) FROM sqlite_master").first?.integer(0) ?? 0
        if tables > 0 {
            throw StoreError(.corrupt, "not a ReminderSim database (it has tables but no ReminderSim schema version)")
        }
        if !create { throw StoreError(.notFound, "\(database.path): holds no runs (an empty database)") }
    }

    /// Switches a new database to WAL, so that readers and one writer at a time never block each
    /// other. The switch needs the database to itself and SQLite does not wait for that with the busy
    /// timeout, so a process that meets another one mid-switch or mid-write waits and tries again.
    private func enableWAL(create: Bool) throws(StoreError) {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(Self.busyTimeoutMilliseconds) * 1_000_000
        while true {
            do throws(StoreError) {
                if try database.rows("PRAGMA journal_mode").first?.text(0)?.lowercased() == "wal" { return }
                let mode = try database.rows("PRAGMA journal_mode = WAL").first?.text(0)
                if mode?.lowercased() == "wal" || !create { return }
                throw StoreError(.io, "cannot switch the database to WAL mode (journal mode is \(mode ?? "unknown"))")
            } catch let error where error.code.map({ $0 & 0xFF }) == SQLITE_BUSY_CODE {
                guard DispatchTime.now().uptimeNanoseconds < deadline else { throw error }
                usleep(10_000)
            }
        }
    }

    private func migrate() throws(StoreError) {
        var version = try database.userVersion
        if version > Schema.currentVersion {
            throw StoreError(
                .newerSchema,
                "\(database.path): written by a newer ReminderSim (schema version \(version); this build reads up to \(Schema.currentVersion)); upgrade remindersim to read it")
        }
        guard version < Schema.currentVersion else { return }
        do {
            try database.transaction {
                // Another process may have migrated while this one waited for the lock.
                version = try database.userVersion
                if version == 0 {
                    let tables = try database.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
                    if tables.first?.integer(0) ?? 0 > 0 {
                        throw StoreError(.corrupt, "not a ReminderSim database (it has tables but no ReminderSim schema version)")
                    }
                }
                for v in version..<Schema.currentVersion {
                    try database.execute(Schema.migrations[v])
                }
                try database.execute("PRAGMA user_version = \(Schema.currentVersion)")
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.sqlite, "\(error)")
        }
    }

    /// Writes a run and everything derived from it in one transaction; returns its id.
    public func save(_ run: RunRecord) throws(StoreError) -> Int64 {
        do {
            return try database.transaction { try insert(run) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.sqlite, "\(error)")
        }
    }

    private func insert(_ run: RunRecord) throws -> Int64 {
        let s = run.scenario
        let json = try s.canonicalJSON()
        let users = run.results.users
        try database.run(
            """
            INSERT INTO runs (scenario_name, scenario_json, seed, users, horizon_days, start_date, tool_version, status,
                              shard_index, shard_count, first_user, end_user, created_at, wall_seconds, threads)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(s.name), .text(json), .integer(Int64(bitPattern: s.seed)), .integer(Int64(s.users)),
                .integer(Int64(s.horizonDays)), .text(s.startDate), .text(run.toolVersion),
                .text(run.shard == nil ? "complete" : "shard"),
                // The schema counts shards from 0.
                run.shard.map { .integer(Int64($0.index - 1)) } ?? .null, run.shard.map { .integer(Int64($0.count)) } ?? .null,
                .integer(Int64(users.lowerBound)), .integer(Int64(users.upperBound)),
                .text(run.createdAt), .real(run.wallSeconds), .integer(Int64(run.threads)),
            ])
        let id = database.lastInsertedRowID
        let writer = try RowWriter(database: database, runID: id, scenario: s)
        for configuration in run.results.all {
            try writer.write(configuration)
        }
        try writer.writeRunTables(run.results)
        return id
    }

    /// Every stored run, oldest first.
    public func list() throws(StoreError) -> [RunListing] {
        try database.rows(
            """
            SELECT run_id, scenario_name, seed, users, horizon_days, status, created_at, wall_seconds, configurations
            FROM run_overview ORDER BY run_id
            """
        ).map {
            RunListing(
                id: $0.integer(0)!, scenarioName: $0.text(1) ?? "", seed: $0.integer(2) ?? 0, users: $0.integer(3) ?? 0,
                horizonDays: $0.integer(4) ?? 0, status: $0.text(5) ?? "", createdAt: $0.text(6) ?? "",
                wallSeconds: $0.real(7) ?? 0, configurations: $0.integer(8) ?? 0)
        }
    }

    /// Reads a run back: its scenario, metadata and the exact counts, from which its results are rebuilt.
    public func load(_ id: Int64) throws(StoreError) -> StoredRun {
        let rows = try database.rows(
            """
            SELECT scenario_json, tool_version, created_at, wall_seconds, threads, shard_index, shard_count,
                   first_user, end_user
            FROM runs WHERE run_id = ?
            """, [.integer(id)])
        guard let row = rows.first else { throw StoreError(.notFound, "\(database.path): no run \(id)") }
        let scenario: Scenario
        do {
            scenario = try Scenario.decode(row.text(0) ?? "", source: "run \(id)")
        } catch {
            throw StoreError(.corrupt, "\(database.path): the scenario stored with run \(id) cannot be read: \(error)")
        }
        var tallies: [Tally] = []
        for index in 0...scenario.expandedConfigurations.count {
            tallies.append(try loadTally(run: id, configuration: index))
        }
        var shard: Shard?
        if let index = row.integer(5) {
            guard let count = row.integer(6), let s = Shard(index: Int(index) + 1, count: Int(count)) else {
                throw StoreError(.corrupt, "\(database.path): run \(id) has an impossible shard number")
            }
            shard = s
        }
        let users = Int(row.integer(7) ?? 0)..<Int(row.integer(8) ?? 0)
        let sums = try loadUserSums(run: id, scenario: scenario, tallies: tallies)
        let record = RunRecord(
            results: RunResults(scenario: scenario, tallies: RunTallies(tallies: tallies, users: users, sums: sums)),
            toolVersion: row.text(1) ?? "", createdAt: row.text(2) ?? "", wallSeconds: row.real(3) ?? 0,
            threads: Int(row.integer(4) ?? 0), shard: shard)
        return StoredRun(id: id, record: record)
    }

    /// The run's sums over users; nil for a run stored before they were kept (schema version 1).
    private func loadUserSums(run id: Int64, scenario: Scenario, tallies: [Tally]) throws(StoreError) -> UserSums? {
        let rows = try database.rows("SELECT segments, counts FROM user_sums WHERE run_id = ?", [.integer(id)])
        guard let row = rows.first else { return nil }
        let layout = UserSumsLayout(
            segments: Int(row.integer(0) ?? 0), messageSlots: tallies.map(\.layout.messageSlots),
            periodSlots: tallies.map(\.layout.periodSlots), days: tallies.first?.layout.days ?? 0)
        guard layout.segments == scenario.population.segments.count, let blob = row.blob(1), blob.count == layout.count * 8,
              let sums = UserSums(layout: layout, counts: Tally.decode(blob))
        else {
            throw StoreError(.corrupt, "\(database.path): run \(id): the sums over users have the wrong size")
        }
        return sums
    }

    private func loadTally(run id: Int64, configuration index: Int) throws(StoreError) -> Tally {
        let rows = try database.rows(
            "SELECT message_slots, period_slots, cron_rules, days, counts FROM tallies WHERE run_id = ? AND config_index = ?",
            [.integer(id), .integer(Int64(index))])
        guard let t = rows.first, let blob = t.blob(4) else {
            throw StoreError(.corrupt, "\(database.path): run \(id) has no counts for configuration \(index)")
        }
        let layout = TallyLayout(
            messageSlots: Int(t.integer(0) ?? 0), periodSlots: Int(t.integer(1) ?? 0),
            cronRules: Int(t.integer(2) ?? 0), days: Int(t.integer(3) ?? 0))
        guard let tally = Tally(layout: layout, encodedCounts: blob) else {
            throw StoreError(.corrupt, "\(database.path): run \(id), configuration \(index): counts have the wrong size")
        }
        return tally
    }

    /// A table's rows for one run, in a fixed order, with its column names: what CSV export writes.
    /// Columns that change from one execution to the next (time of day, wall time, threads) are left out.
    public func export(table: String, run id: Int64) throws(StoreError) -> (columns: [String], rows: [[SQLValue]]) {
        guard let order = Schema.exportedTables.first(where: { $0.name == table })?.order else {
            throw StoreError(.invalid, "no table \(table)")
        }
        var columns = try database.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
            .compactMap { $0.text(0) }
            .filter { !Self.volatileColumns.contains($0) }
        // A database migrated from version 1 has `label` last: it is exported next to `config_index`.
        if let c = columns.firstIndex(of: "config_index"), let l = columns.firstIndex(of: "label"), l != c + 1 {
            columns.remove(at: l)
            columns.insert("label", at: columns.firstIndex(of: "config_index")! + 1)
        }
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let rows = try database.rows("SELECT \(list) FROM \(table) WHERE run_id = ? ORDER BY \(order)", [.integer(id)])
        return (columns, rows.map(\.values))
    }

    public static let volatileColumns: Set<String> = ["created_at", "wall_seconds", "threads"]

    public static var exportedTables: [String] { Schema.exportedTables.map(\.name) }

    /// The schema version this build writes.
    public static var schemaVersion: Int { Schema.currentVersion }
}
