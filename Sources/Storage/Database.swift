import FilePaths
import Foundation
import ReminderSimSQLite

/// A raw SQLite connection handle.
typealias SQLiteConnection = OpaquePointer
/// A raw SQLite prepared statement handle.
typealias SQLiteStatement = OpaquePointer

/// What SQLite answered, by name: the wrapper's view of a result code, so that no other code
/// needs SQLite's numbers.
public struct SQLiteResult: Equatable, Sendable, CustomStringConvertible {
    /// The families of failure the rest of the program acts on.
    public enum Category: Equatable, Sendable {
        /// Another connection holds the lock (SQLITE_BUSY, SQLITE_LOCKED): worth trying again.
        case busy
        /// The file, its folder or the device cannot be read or written.
        case io
        /// The file is not an SQLite database, or is damaged.
        case corrupt
        /// A constraint of the schema was broken.
        case constraint
        /// Anything else: a misuse, a syntax error, a missing table.
        case other
    }

    /// The extended result code: kept inside the wrapper.
    let extended: Int32

    init(_ extended: Int32) { self.extended = extended }

    public var category: Category {
        switch extended & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_READONLY, SQLITE_FULL, SQLITE_PERM, SQLITE_AUTH: return .io
        case SQLITE_NOTADB, SQLITE_CORRUPT: return .corrupt
        case SQLITE_CONSTRAINT: return .constraint
        default: return .other
        }
    }

    /// The number, as SQLite's documentation lists its result codes.
    public var description: String { "SQLite code \(extended)" }
}

/// A failure of the database, with what SQLite answered, its message and the SQL that failed.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// The file cannot be opened, read or written (permissions, a directory, a full disk).
        case io
        /// The file is not a ReminderSim database, or is damaged.
        case corrupt
        /// The database was written by a newer ReminderSim.
        case newerSchema
        /// A run, shard or row asked for does not exist or does not fit.
        case notFound
        case invalid
        /// Anything else SQLite reports.
        case sqlite
    }

    public let kind: Kind
    public let message: String
    /// The message of a database without a schema (a new SQLite file) opened by a command that only reads.
    public static let emptyDatabase = "holds no runs (an empty database)"
    /// Whether this is that refusal: a command that lists may take it for a database with nothing in it.
    public var isEmptyDatabase: Bool { kind == .notFound && message.hasSuffix(Self.emptyDatabase) }
    /// What SQLite answered, when SQLite produced the error.
    public let result: SQLiteResult?
    public let sql: String?

    public init(_ kind: Kind, _ message: String, result: SQLiteResult? = nil, sql: String? = nil) {
        self.kind = kind
        self.message = message
        self.result = result
        self.sql = sql
    }

    /// The same failure, its message preceded by `prefix` (the database's path).
    func prefixed(_ prefix: String) -> StoreError {
        StoreError(kind, prefix + message, result: result, sql: sql)
    }

    /// True when another connection held the lock: the operation may succeed if tried again.
    public var isBusy: Bool { result?.category == .busy }

    public var description: String {
        var text = message
        if let result { text += " (\(result))" }
        if let sql { text += " in: \(sql.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))" }
        return text
    }

    static func from(code: Int32, connection: SQLiteConnection?, sql: String?, message: String? = nil) -> StoreError {
        var text = message ?? connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        let result = SQLiteResult(code)
        // SQLite says "disk I/O error" for every failed read or write; the system's reason says which
        // ("File too large", "No space left on device").
        if code & 0xFF == SQLITE_IOERR || code & 0xFF == SQLITE_FULL, let connection {
            // A failed -shm file (a file-size limit as it is sized) is kept only as the last system error.
            let number = lastSystemError(connection) != 0 ? lastSystemError(connection) : sqlite3_system_errno(connection)
            if number != 0 { text += ": " + String(cString: strerror(number)) }
        }
        let kind: Kind
        switch result.category {
        case .io: kind = .io
        case .corrupt: kind = .corrupt
        case .busy, .constraint, .other: kind = .sqlite
        }
        return StoreError(kind, text, result: result, sql: sql)
    }
}

/// The system's error number of the last failed read or write of the database file or, failing
/// that, of its journal or -wal file; 0 when there is none. (`sqlite3_system_errno` does not keep the
/// number of a failed write.)
private func lastSystemError(_ connection: SQLiteConnection) -> Int32 {
    var number: Int32 = 0
    sqlite3_file_control(connection, "main", SQLITE_FCNTL_LAST_ERRNO, &number)
    if number != 0 { return number }
    var journal: UnsafeMutablePointer<sqlite3_file>?
    sqlite3_file_control(connection, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal)
    if let journal, let control = journal.pointee.pMethods?.pointee.xFileControl {
        _ = control(journal, SQLITE_FCNTL_LAST_ERRNO, &number)
    }
    return number
}

/// A valid pointer to bind as the empty string.
private nonisolated(unsafe) let emptyText: UnsafePointer<CChar> = {
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    p.initialize(to: 0)
    return UnsafePointer(p)
}()

/// A value bound to or read from a statement.
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// How a transaction takes its locks.
public enum TransactionKind: Sendable {
    /// Takes the write lock at once (waiting for it with the busy timeout): for transactions that write.
    case immediate
    /// Reads one consistent snapshot and takes the write lock only if it writes.
    case deferred
}

/// One connection to an SQLite database file. It is closed when the value is released; statements
/// are finalized as they go.
public final class Database {
    let handle: SQLiteConnection
    public let path: String

    /// Set once `close()` has closed the connection.
    private var closed = false
    /// The busy handler's state, kept alive as long as the connection that calls it.
    private var busyWait: BusyWait?

    /// Opens (or creates, when `create`) the database at `path`.
    ///
    /// `readOnly` opens it for reading only; `immutable` (with `readOnly`) also tells SQLite that no one
    /// changes the file while it is open, so that it takes no locks and makes no -wal or -shm file: the
    /// only way to read a WAL database whose folder cannot be written.
    public init(path: String, create: Bool = true, readOnly: Bool = false, immutable: Bool = false) throws(StoreError) {
        var handle: SQLiteConnection?
        let flags = readOnly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        let name = readOnly ? Self.uri(path, immutable: immutable) : path
        let code = sqlite3_open_v2(name, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let error = StoreError.from(code: code, connection: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw StoreError(error.kind == .sqlite ? .io : error.kind, "\(Path.shown(path)): \(error.message)", result: error.result)
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    /// A read-only `file:` URI for `path`: every byte but unreserved ones and `/` percent-encoded, so
    /// that `?`, `#` and `%` in a name stay part of it.
    static func uri(_ path: String, immutable: Bool) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        var encoded = ""
        for byte in path.utf8 {
            if unreserved.contains(byte) {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        // An absolute path gets an empty authority ("file:///…"), so that one starting "//" is not read as a host.
        return "file:" + (path.hasPrefix("/") ? "//" : "") + encoded + "?mode=ro" + (immutable ? "&immutable=1" : "")
    }

    // Released statements are finalized first, so closing here always succeeds: the last connection to
    // a WAL database checkpoints it and removes its -wal and -shm files.
    deinit { close() }

    /// Closes the connection now (for one whose file is about to be removed); it must not be used after.
    func close() {
        guard !closed else { return }
        closed = true
        sqlite3_close_v2(handle)
    }

    /// True when the connection cannot write: the file (or, for a new file, its folder) is read-only to
    /// this process, and SQLite opened it for reading only.
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Waits up to `milliseconds` for another process's lock before failing with SQLITE_BUSY. When a
    /// wait has lasted `noticeAfter` milliseconds, `notice` is called, once for the connection's life.
    public func setBusyTimeout(milliseconds: Int32, noticeAfter: Int32 = 1_000, notice: (() -> Void)? = nil) {
        guard let notice else {
            busyWait = nil
            sqlite3_busy_timeout(handle, milliseconds)
            return
        }
        let wait = BusyWait(limit: milliseconds, noticeAfter: noticeAfter, notice: notice)
        busyWait = wait
        sqlite3_busy_handler(handle, { context, attempts in
            guard let context else { return 0 }
            return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().waitAgain(attempts: attempts) ? 1 : 0
        }, Unmanaged.passUnretained(wait).toOpaque())
    }

    /// Runs one or more statements that take no parameters.
    public func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw StoreError.from(code: code, connection: handle, sql: sql, message: text)
        }
    }

    public func prepare(_ sql: String) throws(StoreError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs `sql` with `values` bound, for statements that return no rows.
    public func run(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) {
        let statement = try prepare(sql)
        try statement.bind(values)
        try statement.step()
    }

    /// Inserts `rows` into `table` with one prepared statement, each row after the value of the key
    /// column it belongs to (a run's or a tune's id).
    func insert(_ table: String, key: (column: String, value: SQLValue), _ columns: [String],
                _ rows: [[SQLValue]]) throws(StoreError) {
        guard !rows.isEmpty else { return }
        let statement = try prepare(
            "INSERT INTO \(table) (\(key.column), \(columns.joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: columns.count)))")
        for row in rows {
            try statement.bind([key.value] + row)
            try statement.step()
        }
    }

    /// All rows of a query, each as its column values.
    public func rows(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var rows: [Row] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in one transaction: all of it is committed, or none of it.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute(kind == .immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `PRAGMA user_version`: the schema version this database was written with.
    public var userVersion: Int {
        get throws(StoreError) { Int(try rows("PRAGMA user_version").first?.integer(0) ?? 0) }
    }
}

/// A prepared statement; finalized when released.
public final class Statement {
    let handle: SQLiteStatement
    unowned let database: Database
    public let sql: String

    init(database: Database, sql: String) throws(StoreError) {
        var handle: SQLiteStatement?
        let code = sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw StoreError.from(code: code, connection: database.handle, sql: sql)
        }
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to parameters 1, 2, … after clearing the previous ones. Refuses as many values
    /// as the statement has not parameters: a value left out would bind NULL silently, or shift
    /// every later one.
    public func bind(_ values: [SQLValue]) throws(StoreError) {
        let parameters = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == parameters else {
            throw StoreError(.invalid, "\(values.count) values for \(parameters) parameters", sql: sql)
        }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case let .integer(v): code = sqlite3_bind_int64(handle, index, v)
            case let .real(v): code = sqlite3_bind_double(handle, index, v)
            case let .text(v):
                // An explicit byte count keeps text after an embedded NUL.
                var text = v
                code = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        // SQLite reads no bytes for an empty string, but the pointer must not be NULL
                        // (that would bind NULL instead of '').
                        sqlite3_bind_text(handle, index, $0.baseAddress ?? emptyText, Int32($0.count),
                                          reminder_sim_sqlite_transient())
                    }
                }
            case let .blob(v):
                code = v.withUnsafeBytes {
                    sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), reminder_sim_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw StoreError.from(code: code, connection: database.handle, sql: sql) }
        }
    }

    /// Advances; true while a row is available.
    @discardableResult
    public func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw StoreError.from(code: code, connection: database.handle, sql: sql)
        }
    }

    func row() -> Row {
        Row(values: (0..<sqlite3_column_count(handle)).map { i in
            switch sqlite3_column_type(handle, i) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
            case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(handle, i))
                guard count > 0, let bytes = sqlite3_column_text(handle, i) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, i))
                guard count > 0, let bytes = sqlite3_column_blob(handle, i) else { return .blob([]) }
                return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
            default: return .null
            }
        })
    }
}

/// One result row.
public struct Row: Sendable {
    public let values: [SQLValue]

    public func integer(_ i: Int) -> Int64? {
        switch values[i] {
        case let .integer(v): return v
        case let .real(v): return Int64(exactly: v)
        default: return nil
        }
    }

    public func real(_ i: Int) -> Double? {
        switch values[i] {
        case let .real(v): return v
        case let .integer(v): return Double(v)
        default: return nil
        }
    }

    public func text(_ i: Int) -> String? {
        if case let .text(v) = values[i] { return v }
        return nil
    }

    public func blob(_ i: Int) -> [UInt8]? {
        if case let .blob(v) = values[i] { return v }
        return nil
    }
}

/// A busy handler's state: when the current wait began, and whether it has been announced.
final class BusyWait {
    let limit: UInt64
    let noticeAfter: UInt64
    let notice: () -> Void
    private var began: UInt64 = 0
    private var announced = false

    init(limit milliseconds: Int32, noticeAfter: Int32, notice: @escaping () -> Void) {
        limit = UInt64(max(0, milliseconds)) * 1_000_000
        self.noticeAfter = UInt64(max(0, noticeAfter)) * 1_000_000
        self.notice = notice
    }

    /// Called by SQLite each time a lock is refused (`attempts` times already for this lock): sleeps a
    /// little and returns true to try again, or false once the wait has lasted `limit`.
    func waitAgain(attempts: Int32) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if attempts == 0 { began = now }
        let waited = now - min(began, now)
        guard waited < limit else { return false }
        if !announced && waited >= noticeAfter {
            announced = true
            notice()
        }
        // Short sleeps first, as SQLite's own busy timeout does: most locks are held for milliseconds.
        let sleep = min(UInt64([1, 2, 5, 10, 20, 50][min(Int(max(0, attempts)), 5)]) * 1_000_000, limit - waited)
        usleep(UInt32(sleep / 1_000))
        return true
    }
}

extension String {
    /// The string with `0` put before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
