import Foundation
import Simulation

/// Reading back what a database holds, where a damaged or edited file shows.
///
/// Every stored value that a computation depends on (an integer that becomes a range, a size or an
/// index; a blob of counts) is read through `StoredRow` and checked before it is used: a value that
/// is missing, of the wrong type or out of range is a `.corrupt` error naming its table, column and
/// row, never a trap.
struct StoredRow {
    let row: Row
    let table: String
    /// Which row, in messages: "run 3", "run 3, configuration 2".
    let owner: String
    private let columns: [String: Int]

    /// `columns` are the names of the row's values, in the order of the query's result columns.
    init(_ row: Row, table: String, columns: [String], owner: String) {
        self.row = row
        self.table = table
        self.owner = owner
        self.columns = Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The error for a value of `column` that cannot be used, and why.
    func damaged(_ column: String, _ reason: String) -> StoreError {
        StoreError(.corrupt, "\(table).\(column) of \(owner): \(reason)")
    }

    private func value(_ column: String) -> SQLValue {
        guard let i = columns[column], i < row.values.count else { return .null }
        return row.values[i]
    }

    /// A whole number; a real is taken only when it is one exactly.
    func integer(_ column: String) throws(StoreError) -> Int64 {
        try read(column, "a whole number") { row.integer($0) }
    }

    /// The value of `column` as `get` reads it at the column's position, or the error naming what it is
    /// instead of `what`.
    private func read<T>(_ column: String, _ what: String, _ get: (Int) -> T?) throws(StoreError) -> T {
        guard let i = columns[column], i < row.values.count, let v = get(i) else {
            throw damaged(column, "\(Self.describe(value(column))), not \(what)")
        }
        return v
    }

    /// A whole number, or nil for NULL.
    func optionalInteger(_ column: String) throws(StoreError) -> Int64? {
        if case .null = value(column) { return nil }
        return try integer(column)
    }

    /// A whole number inside `range`.
    func integer(_ column: String, in range: ClosedRange<Int64>) throws(StoreError) -> Int {
        let v = try integer(column)
        guard range.contains(v) else {
            throw damaged(column, "\(v) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(v)
    }

    func real(_ column: String) throws(StoreError) -> Double {
        try read(column, "a number") { row.real($0) }
    }

    /// A duration in seconds: a finite number ≥ 0.
    func seconds(_ column: String) throws(StoreError) -> Double {
        let v = try real(column)
        // A run or tune of more than 30 years' wall time is no duration this tool measured.
        guard v.isFinite, v >= 0, v <= 1e9 else { throw damaged(column, "\(v) is not a duration in seconds") }
        return v
    }

    func text(_ column: String) throws(StoreError) -> String {
        try read(column, "text") { row.text($0) }
    }

    /// A date and time as the tool writes one (ISO 8601 in UTC, `2026-12-07T18:06:20Z`).
    func timestamp(_ column: String) throws(StoreError) -> String {
        let v = try text(column)
        guard v.utf8.count <= 40, ISO8601DateFormatter().date(from: v) != nil else {
            throw damaged(column, "\(StoredRow.describe(.text(v))) is not a date and time (ISO 8601, such as 2026-12-07T18:06:20Z)")
        }
        return v
    }

    /// Text, or nil for NULL.
    func optionalText(_ column: String) throws(StoreError) -> String? {
        if case .null = value(column) { return nil }
        return try text(column)
    }

    /// A fingerprint of recorded logs (`RecordedLogs.fingerprint`: up to 16 lowercase hexadecimal
    /// digits), or nil for NULL: an edited one would be taken for other logs.
    /// The fingerprint of the recorded logs a run or tune of `scenario` read: NULL exactly when the
    /// scenario reads none (a fingerprint there would send `report` after logs nobody read).
    func recordedDataFingerprint(_ column: String, of scenario: Scenario) throws(StoreError) -> String? {
        let fingerprint = try optionalFingerprint(column)
        if fingerprint != nil && RecordedLogs.sources(of: scenario).isEmpty {
            throw damaged(column, "\(Self.describe(value(column))), a fingerprint of recorded logs, but the stored scenario reads none")
        }
        return fingerprint
    }

    func optionalFingerprint(_ column: String) throws(StoreError) -> String? {
        guard let text = try optionalText(column) else { return nil }
        guard (1...16).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw damaged(column, "\(Self.describe(value(column))) is not a fingerprint (1 to 16 hexadecimal digits)")
        }
        return text
    }

    func blob(_ column: String) throws(StoreError) -> [UInt8] {
        try read(column, "a blob") { row.blob($0) }
    }

    /// A stored value as a message shows it: its type, and a short value.
    static func describe(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case let .integer(v): return "the integer \(v)"
        case let .real(v): return "the real \(v)"
        case let .text(v): return "the text \"\(printable(v))\""
        case let .blob(v): return "a blob of \(v.count) bytes"
        }
    }

    /// At most 40 characters of `text`, anything but printable ASCII shown as `?`.
    private static func printable(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(40).map { (0x20..<0x7F).contains($0.value) ? Character($0) : "?" }
        return String(shown) + (text.unicodeScalars.count > 40 ? "…" : "")
    }
}

/// The bound on stored counts.
enum StoredCounts {
    /// The largest magnitude a stored count may have: 2^50, about 10^15, more than any run can count
    /// (a billion users with a million events each) and small enough that the measures, which add up
    /// to a few thousand counts at a time, cannot overflow.
    static let limit: Int64 = 1 << 50

    /// The index of the first count beyond `limit`, if any.
    static func firstOutOfRange(_ counts: [Int64]) -> Int? {
        counts.firstIndex { $0 > limit || $0 < -limit }
    }
}

/// `user_sums.pair_references`: which pairs of configurations a run's sums hold. NULL (as written by
/// schema versions before 5) for every pair; otherwise the references, ascending indices separated
/// by commas, each compared with every configuration.
enum StoredPairs {
    static func text(_ references: [Int]) -> String { references.map(String.init).joined(separator: ",") }

    /// The pairs a row's sums hold, checked: the references are distinct, ascending configurations,
    /// the holdout among them.
    static func read(_ row: StoredRow, configurations: Int) throws(StoreError) -> PairSet {
        guard let text = try row.optionalText("pair_references") else { return .all }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let references = parts.compactMap { $0.count <= 18 ? Int($0) : nil }
        guard references.count == parts.count, !references.isEmpty,
              references.allSatisfy({ (0..<configurations).contains($0) }),
              zip(references, references.dropFirst()).allSatisfy(<), references.first == 0 else {
            throw row.damaged("pair_references", "\(StoredRow.describe(.text(text))) is not a list of distinct ascending "
                + "configuration indices below \(configurations), starting with the holdout's 0")
        }
        return .against(references)
    }
}
