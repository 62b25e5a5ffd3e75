import Foundation
import RecordedData

/// A recorded log that cannot be used, with where it is named in the scenario.
public struct RecordedDataError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// The file does not exist.
        case missing
        /// The file exists but cannot be read.
        case unreadable
        /// The file's content is not usable (a bad row, no events, too short for the run).
        case badData
        /// The format it is read with is not usable (an unknown timestamp pattern, a delimiter that
        /// cannot be one): the fault of whoever gave the format, a scenario or the command line.
        case badFormat
    }

    public let kind: Kind
    /// The scenario path that names the log, e.g. `population.segments[1].returns`.
    public let scenarioPath: String
    public let message: String

    public init(kind: Kind, scenarioPath: String, message: String) {
        (self.kind, self.scenarioPath, self.message) = (kind, scenarioPath, message)
    }

    public var description: String { scenarioPath.isEmpty ? message : "\(scenarioPath): \(message)" }
}

/// The recorded logs a scenario's segments name, each read once by the caller: the simulation reads no
/// files, it is handed what they hold.
public struct RecordedLogs: Sendable {
    private var logs: [RecordedSource: RecordedLog] = [:]

    public init() {}

    /// The log read for `source`, as the scenario names it (its path not resolved against any folder).
    public subscript(source: RecordedSource) -> RecordedLog? {
        get { logs[source] }
        set { logs[source] = newValue }
    }

    /// The recorded logs `scenario` needs, each once, with the scenario path of the first segment that names
    /// it (e.g. `population.segments[1].returns`), in the segments' order.
    public static func sources(of scenario: Scenario) -> [(source: RecordedSource, scenarioPath: String)] {
        var found: [(source: RecordedSource, scenarioPath: String)] = []
        for (i, segment) in scenario.population.segments.enumerated() {
            switch segment.returns {
            case let .recordedGaps(source), let .replay(source):
                if !found.contains(where: { $0.source == source }) {
                    found.append((source, "population.segments[\(i)].returns"))
                }
            default: continue
            }
        }
        return found
    }
}

/// Turns recorded logs into what the simulation samples.
enum RecordedTables {
    /// The log handed in for `source`; a scenario compiled without it cannot be simulated.
    static func log(_ source: RecordedSource, at path: String, in logs: RecordedLogs) throws -> RecordedLog {
        guard let log = logs[source] else {
            throw RecordedDataError(
                kind: .missing, scenarioPath: "\(path).data", message: "\(source.path): the recorded log was not read")
        }
        return log
    }

    /// Kaplan–Meier steps of the log's gaps, appended to the empirical tables.
    static func kaplanMeier(_ source: RecordedSource, at path: String, in logs: RecordedLogs, into tables: inout EmpiricalTables)
        throws -> GapSampler
    {
        let km = KaplanMeier(try log(source, at: path, in: logs).gaps(unit: .days))
        let steps = km.steps.filter { $0.events > 0 }
        guard !steps.isEmpty else {
            throw RecordedDataError(
                kind: .badData, scenarioPath: "\(path).data",
                message: "\(source.path): no user came back within the observation, so there is no gap to resample")
        }
        let start = tables.seconds.count
        for step in steps {
            tables.seconds.append(step.time * 86_400)
            tables.cumulative.append(1 - step.survival)
        }
        return .kaplanMeier(start: start, count: steps.count)
    }

    /// The timelines of the recorded users observed for at least the whole horizon.
    static func replay(_ source: RecordedSource, at path: String, in logs: RecordedLogs, horizonSeconds: Double) throws
        -> ReplayTable
    {
        let log = try log(source, at: path, in: logs)
        var table = ReplayTable()
        table.sourceUsers = log.users.count
        var longest = 0.0
        for user in log.users {
            guard let first = user.visits.first else { continue }
            let observed = log.observationEnd - first
            longest = max(longest, observed)
            // A recording that ends before the run does would pass for a user who stopped coming back.
            guard observed >= horizonSeconds else { continue }
            table.starts.append(table.offsets.count)
            table.counts.append(user.visits.count)
            for v in user.visits { table.offsets.append(v - first) }
        }
        guard !table.starts.isEmpty else {
            throw RecordedDataError(
                kind: .badData, scenarioPath: "\(path).data",
                message: String(format: "%@: no recorded user was observed for the whole run (%.0f days); the longest observation is %.0f days",
                                source.path, horizonSeconds / 86_400, longest / 86_400))
        }
        return table
    }
}

extension RecordedLogs {
    /// A fingerprint of what the simulation reads of the logs `scenario` names, in their order: each
    /// user's visit times (the ids' order, not their text) and each log's observation end and day
    /// resolution. Stored with a run or a tune, it tells whether a log read again later is the one the
    /// run used (the same file, or another with the same visits: a compressed copy matches); nil when
    /// the scenario reads no log. 64 bits of a multiply-xorshift hash over the values' bits, in hex.
    public func fingerprint(of scenario: Scenario) -> String? {
        let sources = Self.sources(of: scenario)
        guard !sources.isEmpty else { return nil }
        var h: UInt64 = 0x5253_696D_5265_6364
        func mix(_ word: UInt64) {
            h ^= word &+ 0x9E37_79B9_7F4A_7C15
            h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
            h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
            h ^= h >> 31
        }
        for (source, _) in sources {
            guard let log = self[source] else {
                mix(0)
                continue
            }
            mix(UInt64(log.users.count))
            for user in log.users {
                mix(UInt64(user.visits.count))
                for t in user.visits { mix(t.bitPattern) }
            }
            mix(log.observationEnd.bitPattern)
            mix(log.calendarDayOffset.map { UInt64(bitPattern: Int64($0)) } ?? UInt64.max)
        }
        return String(h, radix: 16)
    }
}
