import FilePaths
import Foundation
import ReminderEngine
import Simulation

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
    /// The response model's draws the run's second look was made with (`--model-draws`); nil: the
    /// scenario's default, which a report rendered again uses too.
    public var modelDraws: Int?
    /// The fingerprint of the recorded logs the run read (`RecordedLogs.fingerprint`); nil when it read none.
    public var recordedData: String?

    public init(results: RunResults, toolVersion: String, createdAt: String, wallSeconds: Double, threads: Int,
                shard: Shard? = nil, modelDraws: Int? = nil, recordedData: String? = nil) {
        (self.results, self.toolVersion, self.createdAt) = (results, toolVersion, createdAt)
        (self.wallSeconds, self.threads, self.shard, self.modelDraws) = (wallSeconds, threads, shard, modelDraws)
        self.recordedData = recordedData
    }

    public var scenario: Scenario { results.scenario }

    /// What the run's described tables are read from.
    public var facts: RunFacts {
        RunFacts(results: results, toolVersion: toolVersion, createdAt: createdAt, wallSeconds: wallSeconds, threads: threads,
                 shard: shard, modelDraws: modelDraws, recordedData: recordedData)
    }
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
    /// Where the database is, when this store made it and nothing has been saved in it yet.
    private var madeHere: StorePlace?
    /// Set when a save failed on a database this store made: it is removed when the store is released,
    /// unless something is saved in it before.
    private var discardWhenReleased = false

    /// How long a writer waits for another process's transaction before giving up.
    public static let busyTimeoutMilliseconds: Int32 = 60_000

    /// Opens the store at `path`, creating it (and its folder) when `create`, and brings its
    /// schema up to date. Refuses a file that is not a ReminderSim database or is newer than
    /// this build, and a path that is not a regular file or a new name in a folder this user can write.
    ///
    /// A `readOnly` store (which must exist) writes nothing but a schema upgrade and leaves no file
    /// behind (see `StorePlace.openForReading`). A database this call makes and cannot set up is
    /// removed again. `onWait` is told, once, when a write has waited a second for another process's lock.
    public init(path: String, create: Bool = true, readOnly: Bool = false, onWait: ((String) -> Void)? = nil)
        throws(StoreError) {
        let create = create && !readOnly
        let place = try StorePlace(path: path, create: create)
        if !place.exists {
            let folder = Path.parent(path)
            if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    // The system's reason, not Foundation's sentence about it.
                    var reason = ""
                    if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
                       underlying.domain == NSPOSIXErrorDomain {
                        reason = ": " + String(cString: strerror(Int32(underlying.code)))
                    }
                    throw StoreError(.io, "\(folder): cannot create the folder for the database\(reason)")
                }
            }
        }
        let made = !place.exists && (try? place.createFile()) == true
        do throws(StoreError) {
            database = readOnly ? try place.openForReading() : try Database(path: path, create: create)
        } catch let error {
            if made { place.discard() }
            throw error
        }
        if made { madeHere = place }
        let seconds = Self.busyTimeoutMilliseconds / 1_000
        database.setBusyTimeout(
            milliseconds: Self.busyTimeoutMilliseconds,
            notice: onWait.map { tell in { tell("waiting up to \(seconds) s for another process writing \(path)") } })
        do throws(StoreError) {
            // Noticed before anything is read: reading a WAL database would leave -wal and -shm files
            // that a read-only connection cannot remove.
            if create && database.isReadOnly {
                throw StoreError(.io, "cannot be written (the file or its folder is read-only to this user)")
            }
            try database.execute("PRAGMA foreign_keys = ON")
            try retryingWhileBusy { () throws(StoreError) in
                try claim(create: create)
                if !readOnly { try enableWAL(create: create) }
            }
            if readOnly && !database.isReadOnly { try database.execute("PRAGMA query_only = ON") }
        } catch let error {
            if made {
                database.close()
                place.discard()
            }
            throw error.prefixed("\(path): ")
        }
    }

    /// What a database file holds, read in one snapshot.
    private struct Contents {
        var version: Int
        var applicationID: Int
        /// The names of its tables and views.
        var objects: Set<String>
    }

    /// Checks whose database this is and, when it is new (or ours and older), brings its schema up to
    /// date, in one transaction: another process creating the same file at the same moment is either
    /// finished before this one looks, or starts after it has finished.
    ///
    /// Refuses a database written by a newer version and another program's database (whatever its
    /// `user_version`), and, for commands that only read, an empty file — without writing to any of them.
    private func claim(create: Bool) throws(StoreError) {
        try database.transaction(create ? .immediate : .deferred) { () throws(StoreError) in
            let contents = try Contents(
                version: Int(database.rows("PRAGMA user_version").first?.integer(0) ?? 0),
                applicationID: Int(database.rows("PRAGMA application_id").first?.integer(0) ?? 0),
                objects: Set(database.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
                    .compactMap { $0.text(0) }))
            try Self.checkOwnership(contents)
            if contents.version == Schema.currentVersion { return }
            if contents.version == 0 && !create {
                throw StoreError(.notFound, StoreError.emptyDatabase)
            }
            if database.isReadOnly {
                throw StoreError(.io, "written by an older ReminderSim (schema version \(contents.version)), and read-only to "
                                 + "this user, so it cannot be upgraded to version \(Schema.currentVersion); open it once "
                                 + "where it can be written")
            }
            for v in contents.version..<Schema.currentVersion {
                do throws(StoreError) {
                    try database.execute(Schema.migrations[v])
                } catch {
                    guard error.kind == .sqlite && !error.isBusy else { throw error }
                    // A step that cannot apply (a column it adds is there already: a version set back by hand) is
                    // damage, not a fault of SQLite's; the transaction leaves the file as it was.
                    throw StoreError(.corrupt, "a damaged ReminderSim database: it says schema version \(contents.version), "
                                     + "but the upgrade to version \(v + 1) does not apply to it (\(error.message)); it was left as it is",
                                     result: error.result)
                }
            }
            try database.execute("PRAGMA user_version = \(Schema.currentVersion)")
            try database.execute("PRAGMA application_id = \(Schema.applicationID)")
        }
    }

    /// Throws unless `contents` are an empty database or one written by some version of ReminderSim.
    private static func checkOwnership(_ contents: Contents) throws(StoreError) {
        func foreign(_ finding: String) -> StoreError {
            StoreError(.corrupt, "not a ReminderSim database (\(finding)); it was left as it is")
        }
        let found = contents.objects.sorted()
        let shown = found.prefix(5).joined(separator: ", ") + (found.count > 5 ? ", …" : "")
        if contents.applicationID != 0 && contents.applicationID != Schema.applicationID {
            throw foreign("another program's file: application id \(contents.applicationID)")
        }
        if contents.version == 0 {
            if !found.isEmpty { throw foreign("it has tables (\(shown)) but no ReminderSim schema version") }
            return
        }
        // No ReminderSim ever wrote a negative version; another program may.
        if contents.version < 0 {
            throw contents.applicationID == Schema.applicationID
                ? StoreError(.corrupt, "a damaged ReminderSim database: its schema version (user_version) is \(contents.version); it was left as it is")
                : foreign("user_version \(contents.version)")
        }
        let expected = Schema.objects(atVersion: min(contents.version, Schema.currentVersion))
        guard expected.isSubset(of: contents.objects) else {
            let missing = expected.subtracting(contents.objects).sorted()
            let lacks = missing.prefix(5).joined(separator: ", ") + (missing.count > 5 ? ", …" : "")
            // ReminderSim's own file with a table or view gone: say which, rather than call it another program's.
            if contents.applicationID == Schema.applicationID && missing.count < expected.count {
                throw StoreError(.corrupt, "a damaged ReminderSim database (schema version \(contents.version)): it lacks "
                    + "\(lacks); it was left as it is")
            }
            throw foreign("user_version \(contents.version), but "
                          + (found.isEmpty ? "no tables" : "its tables are \(shown)") + ", not ReminderSim's")
        }
        if contents.version > Schema.currentVersion {
            throw StoreError(
                .newerSchema,
                "written by a newer ReminderSim (schema version \(contents.version); this build reads up to \(Schema.currentVersion)); upgrade remindersim to read it")
        }
    }

    /// Switches a new database to WAL, so that readers and one writer at a time never block each
    /// other. A store that is not created leaves the journal mode as it finds it if it cannot switch;
    /// a read-only store does not try.
    private func enableWAL(create: Bool) throws(StoreError) {
        if try database.rows("PRAGMA journal_mode").first?.text(0)?.lowercased() == "wal" { return }
        let mode = try database.rows("PRAGMA journal_mode = WAL").first?.text(0)
        if mode?.lowercased() == "wal" || !create { return }
        throw StoreError(.io, "cannot switch the database to WAL mode (journal mode is \(mode ?? "unknown"))")
    }

    /// Runs `body` again while another process holds a lock that SQLite does not wait for with the busy
    /// timeout (switching the journal mode needs the database to itself), up to the busy timeout.
    private func retryingWhileBusy(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(Self.busyTimeoutMilliseconds) * 1_000_000
        while true {
            do throws(StoreError) {
                return try body()
            } catch let error where error.isBusy && DispatchTime.now().uptimeNanoseconds < deadline {
                usleep(10_000)
            }
        }
    }

    /// Writes a run and everything derived from it in one transaction; returns its id.
    public func save(_ run: RunRecord) throws(StoreError) -> Int64 {
        try removingIfNewOnFailure { () throws(StoreError) in
            try database.transaction { () throws(StoreError) in try insert(run) }
        }
    }

    /// Runs `save`, its errors named after the database. If it fails on a database this store made,
    /// the database is removed when the store is released (see `deinit`): a failed first write (a full
    /// disk, the file size limit) leaves nothing behind.
    func removingIfNewOnFailure(_ save: () throws(StoreError) -> Int64) throws(StoreError) -> Int64 {
        do {
            let id = try save()
            (madeHere, discardWhenReleased) = (nil, false)
            return id
        } catch let error {
            if madeHere != nil { discardWhenReleased = true }
            throw error.prefixed("\(database.path): ")
        }
    }

    /// Checks, without making anything, that a database can be made at `path` (it does not exist yet):
    /// the errors `init` would give there. A command that saves once, after long work, checks first
    /// and makes the database only to save into it, so that stopping it (Ctrl-C, bad data) leaves none.
    public static func checkCanCreate(_ path: String) throws(StoreError) {
        _ = try StorePlace(path: path, create: true)
    }

    /// The command that opened the store stops before saving: a database this store made is removed
    /// when the store is released, as after a failed save, if it still holds nothing.
    public func abandon() {
        if madeHere != nil { discardWhenReleased = true }
    }

    /// Removes a database this store made when a save in it failed, if it still holds nothing and no
    /// other process has it open.
    deinit {
        guard discardWhenReleased, let place = madeHere else { return }
        let saved = try? database.rows("SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM tunes)").first?.integer(0)
        guard saved == 0 else { return }
        database.close()
        if !place.isOpenElsewhere() { place.discard() }
    }

    /// A scenario as the store keeps it: its canonical JSON, from which it reads back equal.
    static func storedJSON(_ s: Scenario) throws(StoreError) -> String {
        do {
            return try s.canonicalJSON()
        } catch {
            throw StoreError(.invalid, "the scenario cannot be written as JSON")
        }
    }

    private func insert(_ run: RunRecord) throws(StoreError) -> Int64 {
        // Checked first, for its reason: the row itself would only say the column is NULL.
        _ = try Self.storedJSON(run.scenario)
        let facts = run.facts
        let table = ResultTables.runs.erased
        guard let row = table.rows(facts).first else { throw StoreError(.invalid, "runs: no row for the run") }
        try database.run(
            "INSERT INTO runs (\(table.columns.map(\.name).joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: row.count - 1)))",
            row.map(SQLValue.init))
        let id = database.lastInsertedRowID
        let writer = try RowWriter(database: database, runID: id, scenario: run.scenario)
        try writer.writeDescribedTables(facts)
        for configuration in run.results.all {
            try writer.writeTally(configuration)
        }
        try writer.writeUserSums(run.results)
        return id
    }

    /// Every stored run, oldest first.
    public func list() throws(StoreError) -> [RunListing] {
        let columns = ["run_id", "scenario_name", "seed", "users", "horizon_days", "status", "created_at", "wall_seconds",
                       "configurations"]
        return try everyRow(of: "run_overview", key: "run_id", owner: "run", columns: columns) { (id, r) throws(StoreError) in
            RunListing(
                id: id, scenarioName: try r.text("scenario_name"), seed: Int64(try r.integer("seed", in: 0...Int64(Scenario.maximumSeed))),
                users: Int64(try r.integer("users", in: 1...StoredCounts.limit)),
                horizonDays: Int64(try r.integer("horizon_days", in: 1...Int64(Scenario.maximumHorizonDays))),
                status: try r.text("status"),
                createdAt: try r.timestamp("created_at"), wallSeconds: try r.seconds("wall_seconds"),
                configurations: Int64(try r.integer("configurations", in: 0...Int64.max)))
        }
    }

    /// The stored run ids, in order, read from the runs' own table: a damaged row of another run
    /// (its configurations, its overview) does not keep a command from the run it names.
    public func runIDs() throws(StoreError) -> [Int64] {
        try everyRow(of: "runs", key: "run_id", owner: "run", columns: ["run_id"]) { (id, _) throws(StoreError) in id }
    }

    /// Every row of `table` in the order of its `key` (the first of `columns`), each read by `make`
    /// with its key and its values, named "`owner` <key>" in an error; a damaged row is a `.corrupt`
    /// error naming the database.
    func everyRow<T>(of table: String, key: String, owner: String, columns: [String],
                     _ make: (Int64, StoredRow) throws(StoreError) -> T) throws(StoreError) -> [T] {
        do throws(StoreError) {
            return try database.rows("SELECT \(columns.joined(separator: ", ")) FROM \(table) ORDER BY \(key)")
                .enumerated().map { (n, row) throws(StoreError) -> T in
                    let id = Int64(try StoredRow(row, table: table, columns: columns, owner: "row \(n + 1)").integer(key, in: 1...Int64.max))
                    return try make(id, StoredRow(row, table: table, columns: columns, owner: "\(owner) \(id)"))
                }
        } catch let error {
            throw named(error)
        }
    }

    /// `error` with the database's path in front, unless it names it already: a damaged row, or a
    /// query SQLite refuses on a file whose tables or views were changed by hand.
    func named(_ error: StoreError) -> StoreError {
        error.message.hasPrefix("\(database.path): ") ? error : error.prefixed("\(database.path): ")
    }

    /// Reads a run back: its scenario, metadata and the exact counts, from which its results are rebuilt.
    ///
    /// Every stored number the results depend on is checked first: the users against the scenario, the
    /// shard number, the tallies' layouts against the layouts the scenario gives them, the sizes of the
    /// counts and their magnitude. A damaged or edited row is a `.corrupt` error naming its table and column.
    public func load(_ id: Int64) throws(StoreError) -> StoredRun {
        do throws(StoreError) {
            return try loadChecked(id)
        } catch let error {
            throw named(error)
        }
    }

    private func loadChecked(_ id: Int64) throws(StoreError) -> StoredRun {
        let columns = ["scenario_json", "tool_version", "created_at", "wall_seconds", "threads", "shard_index", "shard_count",
                       "first_user", "end_user", "model_draws", "recorded_data", "scenario_name", "seed", "users", "horizon_days",
                       "start_date", "status"]
        let rows = try database.rows(
            "SELECT \(columns.joined(separator: ", ")) FROM runs WHERE run_id = ?", [.integer(id)])
        guard let first = rows.first else { throw StoreError(.notFound, "\(database.path): no run \(id)") }
        let row = StoredRow(first, table: "runs", columns: columns, owner: "run \(id)")
        let scenario: Scenario
        do {
            scenario = try Scenario.decodeStored(row.text("scenario_json"), source: "run \(id)")
        } catch {
            throw row.damaged("scenario_json", "the scenario cannot be read: \(error)")
        }
        var tallies: [Tally] = []
        for (index, layout) in scenario.tallyLayouts.enumerated() {
            tallies.append(try loadTally(run: id, configuration: index, layout: layout))
        }
        var shard: Shard?
        if let index = try row.optionalInteger("shard_index") {
            let count = try row.integer("shard_count", in: 1...Int64.max)
            guard (0..<Int64(count)).contains(index), let s = Shard(index: Int(index) + 1, count: count) else {
                throw row.damaged("shard_index", "\(index) is not a shard of \(count) (they are numbered from 0)")
            }
            shard = s
        }
        try Self.checkAgainstScenario(row, scenario, shard: shard)
        let end = try row.integer("end_user", in: 0...Int64(scenario.users))
        let start = try row.integer("first_user", in: 0...Int64(end))
        // A whole run covers every user of its scenario; only a shard covers a part.
        if shard == nil && (start != 0 || end != scenario.users) {
            throw row.damaged(start != 0 ? "first_user" : "end_user", "users \(start) to \(end), but a complete run covers "
                + "0 to \(scenario.users), its scenario's users")
        }
        // Every configuration simulates every user of the run once: its user count is the run's.
        for (index, tally) in tallies.enumerated() where tally[.users] != Int64(end - start) {
            throw StoreError(.corrupt, "tallies.counts of run \(id), configuration \(index): \(tally[.users]) users, but the run "
                + "covers \(end - start) (runs.first_user \(start) to end_user \(end))")
        }
        for (index, tally) in tallies.enumerated() {
            if let (i, reason) = tally.firstImpossibleCount() {
                throw StoreError(.corrupt, "tallies.counts of run \(id), configuration \(index): count \(i) is impossible: \(reason)")
            }
        }
        let (sums, recorded) = try loadUserSums(run: id, scenario: scenario, users: Int64(end - start)) ?? (nil, nil)
        if let (i, reason) = sums?.firstDisagreement(with: tallies) {
            throw StoreError(.corrupt, "user_sums.counts of run \(id): sum \(i) disagrees with the run's tallies: \(reason)")
        }
        var modelDraws: Int?
        if try row.optionalInteger("model_draws") != nil {
            modelDraws = try row.integer("model_draws", in: 0...Int64(UncertainDecision.maximumDraws))
        }
        let record = RunRecord(
            results: RunResults(scenario: scenario, tallies: RunTallies(tallies: tallies, users: start..<end, sums: sums,
                                                                        recordedUserSums: recorded)),
            toolVersion: try row.text("tool_version"), createdAt: try row.timestamp("created_at"),
            wallSeconds: try row.seconds("wall_seconds"), threads: try row.integer("threads", in: 0...Int64(Int32.max)),
            shard: shard, modelDraws: modelDraws, recordedData: try row.recordedDataFingerprint("recorded_data", of: scenario))
        return StoredRun(id: id, record: record)
    }

    /// Throws unless the run's row says what its stored scenario says (the columns `list` shows are
    /// copies of the scenario's fields): an edited column would make one command show what another
    /// does not.
    private static func checkAgainstScenario(_ row: StoredRow, _ scenario: Scenario, shard: Shard?) throws(StoreError) {
        func check(_ column: String, _ stored: String, _ expected: String) throws(StoreError) {
            guard stored == expected else {
                throw row.damaged(column, "\(stored), but the run's scenario (scenario_json) says \(expected)")
            }
        }
        try check("scenario_name", "\"\(try row.text("scenario_name"))\"", "\"\(scenario.name)\"")
        try check("seed", String(try row.integer("seed")), String(Int64(bitPattern: scenario.seed)))
        try check("users", String(try row.integer("users")), String(scenario.users))
        try check("horizon_days", String(try row.integer("horizon_days")), String(scenario.horizonDays))
        try check("start_date", try row.text("start_date"), scenario.startDate)
        try check("status", try row.text("status"), shard == nil ? "complete" : "shard")
    }

    /// The run's sums over users, and its totals per recorded user when its population replays
    /// recorded users; nil for a run stored before the sums were kept (schema version 1), and no
    /// totals for a run stored before they were (version 5).
    private func loadUserSums(run id: Int64, scenario: Scenario, users: Int64) throws(StoreError)
        -> (UserSums, RecordedUserSums?)? {
        let columns = ["segments", "counts", "pair_references", "recorded_users", "recorded_user_sums"]
        let rows = try database.rows("SELECT \(columns.joined(separator: ", ")) FROM user_sums WHERE run_id = ?", [.integer(id)])
        guard let first = rows.first else { return nil }
        let row = StoredRow(first, table: "user_sums", columns: columns, owner: "run \(id)")
        let segments = try row.integer("segments")
        guard segments == scenario.population.breakdownGroups else {
            throw row.damaged("segments", "\(segments), but the run's scenario has \(scenario.population.breakdownGroups) segments and platforms")
        }
        let pairs = try StoredPairs.read(row, configurations: scenario.expandedConfigurations.count + 1)
        let layout = scenario.userSumsLayout(pairs: pairs)
        let blob = try row.blob("counts")
        // Sums stored before the per-arm block was kept read back without it.
        let read = blob.count == layout.count * 8 ? UserSums(layout: layout, counts: Tally.decode(blob))
            : blob.count == layout.countWithoutArmSums * 8 ? UserSums.withoutArmSums(layout: layout, stored: Tally.decode(blob)) : nil
        guard let sums = read else {
            throw row.damaged("counts", "\(blob.count) bytes, but the run's scenario needs \(layout.count * 8)")
        }
        try Self.checkMagnitude(sums.counts, row, "counts")
        if let (i, reason) = sums.firstImpossibleSum() {
            throw row.damaged("counts", "sum \(i) is impossible: \(reason)")
        }
        return (sums, try loadRecordedUserSums(row, layout: layout, users: users))
    }

    /// The totals per recorded user of a `user_sums` row whose sums have `layout`, in a run of `users`
    /// users; nil when NULL.
    private func loadRecordedUserSums(_ row: StoredRow, layout: UserSumsLayout, users: Int64) throws(StoreError)
        -> RecordedUserSums? {
        guard let clusters = try row.optionalInteger("recorded_users") else { return nil }
        let blob = try row.blob("recorded_user_sums")
        guard clusters >= 0 && clusters <= Int64(blob.count / 8) else {
            throw row.damaged("recorded_users", "\(clusters), but the totals hold \(blob.count) bytes")
        }
        let recorded = RecordedUserSumsLayout(clusters: Int(clusters), sums: layout)
        guard blob.count == recorded.count * 8, let totals = RecordedUserSums(layout: recorded, counts: Tally.decode(blob)) else {
            throw row.damaged("recorded_user_sums", "\(blob.count) bytes, but \(clusters) recorded users need \(recorded.count * 8)")
        }
        try Self.checkMagnitude(totals.counts, row, "recorded_user_sums")
        guard totals.replaying(of: users) != nil else {
            throw row.damaged("recorded_user_sums", "its recorded users are replayed by more virtual users than the run's \(users), "
                + "or by a negative number")
        }
        return totals
    }

    /// Configuration `index`'s counts, after checking that the stored layout is `layout`, the one the
    /// run's scenario gives it.
    private func loadTally(run id: Int64, configuration index: Int, layout: TallyLayout) throws(StoreError) -> Tally {
        let columns = ["message_slots", "period_slots", "cron_rules", "days", "counts"]
        let rows = try database.rows(
            "SELECT \(columns.joined(separator: ", ")) FROM tallies WHERE run_id = ? AND config_index = ?",
            [.integer(id), .integer(Int64(index))])
        guard let first = rows.first else {
            throw StoreError(.corrupt, "tallies: run \(id) has no counts for configuration \(index)")
        }
        let row = StoredRow(first, table: "tallies", columns: columns, owner: "run \(id), configuration \(index)")
        for (column, expected) in [("message_slots", layout.messageSlots), ("period_slots", layout.periodSlots),
                                   ("cron_rules", layout.cronRules), ("days", layout.days)] {
            let stored = try row.integer(column)
            guard stored == expected else {
                throw row.damaged(column, "\(stored), but the run's scenario gives this configuration \(expected)")
            }
        }
        let blob = try row.blob("counts")
        guard let tally = Tally(layout: layout, encodedCounts: blob) else {
            throw row.damaged("counts", "\(blob.count) bytes, but the layout needs \(layout.count * 8)")
        }
        try Self.checkMagnitude(tally.counts, row, "counts")
        return tally
    }

    /// Throws unless every count is within `StoredCounts.limit`.
    private static func checkMagnitude(_ counts: [Int64], _ row: StoredRow, _ column: String) throws(StoreError) {
        if let i = StoredCounts.firstOutOfRange(counts) {
            throw row.damaged(column, "count \(i) is \(counts[i]), beyond the ±2^50 any run can reach")
        }
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
