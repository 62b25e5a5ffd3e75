/// One cell of a run's results table: what the database stores and a CSV file shows.
public enum ResultValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// The SQL type of a column, as the schema declares it.
public enum ColumnType: String, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
}

/// What a column is, without the rows it is read from: the part the schema's documentation and the
/// CSV header need.
public struct ColumnDescription: Sendable, Equatable {
    /// The name in SQL and CSV (snake_case).
    public let name: String
    public let meaning: String
    /// What one unit of the value is: `users`, `notifications`, `fraction`, `text`…
    public let unit: String
    public let type: ColumnType
    /// False for the columns that change from one execution of the same run to the next (wall time,
    /// threads, time of day): stored, but left out of exported files.
    public let exported: Bool
}

/// One column of a results table: its description, and how its value is read from one row.
public struct ResultColumn<Row>: Sendable {
    public let description: ColumnDescription
    let read: @Sendable (Row) -> ResultValue

    public init(_ name: String, _ type: ColumnType, unit: String, exported: Bool = true, _ meaning: String,
                _ read: @escaping @Sendable (Row) -> ResultValue) {
        description = ColumnDescription(name: name, meaning: meaning, unit: unit, type: type, exported: exported)
        self.read = read
    }

    public var name: String { description.name }

    /// The column's value in `row`. A number that is not finite is NULL, as SQLite stores it.
    public func value(_ row: Row) -> ResultValue {
        let value = read(row)
        if case let .real(v) = value, !v.isFinite { return .null }
        return value
    }

    /// A count or index that every row has.
    public static func count(_ name: String, unit: String, _ meaning: String,
                             _ read: @escaping @Sendable (Row) -> Int64) -> ResultColumn {
        ResultColumn(name, .integer, unit: unit, meaning) { .integer(read($0)) }
    }

    /// An index into the scenario (a configuration, reminder, message, day…).
    public static func index(_ name: String, unit: String, _ meaning: String,
                             _ read: @escaping @Sendable (Row) -> Int) -> ResultColumn {
        ResultColumn(name, .integer, unit: unit, meaning) { .integer(Int64(read($0))) }
    }

    /// An integer that some rows do not have (NULL there).
    public static func optionalCount(_ name: String, unit: String, _ meaning: String,
                                     _ read: @escaping @Sendable (Row) -> Int64?) -> ResultColumn {
        ResultColumn(name, .integer, unit: unit, meaning) { read($0).map { .integer($0) } ?? .null }
    }

    /// A real number, NULL where there is none.
    public static func number(_ name: String, unit: String, _ meaning: String,
                              _ read: @escaping @Sendable (Row) -> Double?) -> ResultColumn {
        ResultColumn(name, .real, unit: unit, meaning) { read($0).map { .real($0) } ?? .null }
    }

    public static func text(_ name: String, unit: String = "text", _ meaning: String,
                            _ read: @escaping @Sendable (Row) -> String) -> ResultColumn {
        ResultColumn(name, .text, unit: unit, meaning) { .text(read($0)) }
    }

    /// A rate and the bounds of its 95% interval: `name`, `name_low`, `name_high`; three NULLs when the
    /// rate has nothing to measure.
    public static func rate(_ name: String, unit: String = "fraction", _ meaning: String,
                            _ read: @escaping @Sendable (Row) -> Proportion) -> [ResultColumn] {
        interval(name, unit: unit, meaning) { row in
            let p = read(row)
            guard let r = p.rate, let ci = p.interval else { return nil }
            return Estimate(value: r, low: ci.low, high: ci.high)
        }
    }

    /// A shared measure that is a rate, with its bounds.
    public static func rate(_ m: Measure, _ read: @escaping @Sendable (Row) -> Proportion) -> [ResultColumn] {
        rate(m.name, unit: m.unit, m.meaning, read)
    }

    /// A shared measure that is an estimate, with its bounds.
    public static func interval(_ m: Measure, _ read: @escaping @Sendable (Row) -> Estimate?) -> [ResultColumn] {
        interval(m.name, unit: m.unit, m.meaning, read)
    }

    /// An estimate and the bounds of its 95% interval: `name`, `name_low`, `name_high`; three NULLs
    /// when there is none.
    public static func interval(_ name: String, unit: String, _ meaning: String,
                                _ read: @escaping @Sendable (Row) -> Estimate?) -> [ResultColumn] {
        [
            number(name, unit: unit, meaning) { read($0)?.value },
            number(name + "_low", unit: unit, "low bound of the 95% interval of \(name)") { read($0)?.low },
            number(name + "_high", unit: unit, "high bound of the 95% interval of \(name)") { read($0)?.high },
        ]
    }
}

/// The rows of one table of a run, in the order the table is exported.
public struct ResultTable<Row>: Sendable {
    public let name: String
    public let columns: [ResultColumn<Row>]
    let rows: @Sendable (RunFacts) -> [Row]

    public init(_ name: String, columns: [[ResultColumn<Row>]], rows: @escaping @Sendable (RunFacts) -> [Row]) {
        self.name = name
        self.columns = columns.flatMap { $0 }
        self.rows = rows
    }

    /// The table without its row type, for code that writes every table alike.
    public var erased: RunTable {
        let columns = columns
        return RunTable(name: name, columns: columns.map(\.description)) { run in
            rows(run).map { row in columns.map { $0.value(row) } }
        }
    }
}

/// A results table of a run: its columns' descriptions and its rows' values, column by column.
public struct RunTable: Sendable {
    public let name: String
    public let columns: [ColumnDescription]
    private let cells: @Sendable (RunFacts) -> [[ResultValue]]

    init(name: String, columns: [ColumnDescription], cells: @escaping @Sendable (RunFacts) -> [[ResultValue]]) {
        (self.name, self.columns, self.cells) = (name, columns, cells)
    }

    /// Every row of the table for `run`, each as wide as `columns`.
    public func rows(_ run: RunFacts) -> [[ResultValue]] { cells(run) }

    /// The columns an exported file holds, and where each is in a row.
    public var exportedColumns: [(index: Int, column: ColumnDescription)] {
        columns.enumerated().filter { $0.element.exported }.map { ($0.offset, $0.element) }
    }
}

/// What a run's tables are read from: its results and the facts of the execution that produced them.
public struct RunFacts: Sendable {
    public let results: RunResults
    public let toolVersion: String
    /// ISO 8601 UTC time the run finished.
    public let createdAt: String
    public let wallSeconds: Double
    public let threads: Int
    /// Set for one shard of a split run.
    public let shard: Shard?
    /// The response model's draws the second look was made with; nil: the default for the scenario.
    public let modelDraws: Int?
    /// The fingerprint of the recorded logs the run read (`RecordedLogs.fingerprint`); nil when it read none.
    public let recordedData: String?

    public init(results: RunResults, toolVersion: String, createdAt: String, wallSeconds: Double, threads: Int,
                shard: Shard?, modelDraws: Int? = nil, recordedData: String? = nil) {
        (self.results, self.toolVersion, self.createdAt) = (results, toolVersion, createdAt)
        (self.wallSeconds, self.threads, self.shard, self.modelDraws) = (wallSeconds, threads, shard, modelDraws)
        self.recordedData = recordedData
    }
}
