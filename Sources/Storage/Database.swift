import Foundation
import ReminderSimSQLite

/// A raw SQLite connection handle.
typealias SQLiteConnection = OpaquePointer
/// A raw SQLite prepared statement handle.
typealias SQLiteStatement = OpaquePointer

/// A failure of the database, with SQLite's code and message and the SQL that failed.
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
    /// The SQLite result code, when SQLite produced the error.
    public let code: Int32?
    public let sql: String?

    public init(_ kind: Kind, _ message: String, code: Int32? = nil, sql: String? = nil) {
        self.kind = kind
        self.message = message
        self.code = code
        self.sql = sql
    }

    public var description: String {
        var text = message
        if let code { text += " (SQLite code \(code))" }
        if let sql { text += " in: \(sql.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))" }
        return text
    }

    static func from(code: Int32, connection: SQLiteConnection?, sql: String?) -> StoreError {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        let primary = code & 0xFF
        let kind: Kind
        switch primary {
        case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_READONLY, SQLITE_FULL, SQLITE_PERM, SQLITE_AUTH: kind = .io
        case SQLITE_NOTADB, SQLITE_CORRUPT: kind = .corrupt
        default: kind = .sqlite
        }
        return StoreError(kind, message, code: code, sql: sql)
    }
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

/// One SQLite database file. Closing is explicit; statements are finalized as they go.
public final class Database {
    let handle: SQLiteConnection
    public let path: String

    /// Opens (or creates, when `create`) the database at `path`.
    public init(path: String, create: Bool = true, readOnly: Bool = false) throws(StoreError) {
        var handle: SQLiteConnection?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        let code = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let error = StoreError.from(code: code, connection: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw StoreError(error.kind == .sqlite ? .io : error.kind, "\(path): \(error.message)", code: code)
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Waits up to `milliseconds` for another process's lock before failing with SQLITE_BUSY.
    public func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one or more statements that take no parameters.
    public func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            var error = StoreError.from(code: code, connection: handle, sql: sql)
            error = StoreError(error.kind, text, code: code, sql: sql)
            throw error
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

    /// All rows of a query, each as its column values.
    public func rows(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var rows: [Row] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in one IMMEDIATE transaction: all of it is committed, or none of it.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
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

    /// Binds `values` to parameters 1, 2, … after clearing the previous ones.
    public func bind(_ values: [SQLValue]) throws(StoreError) {
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
