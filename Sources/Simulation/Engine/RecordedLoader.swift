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
    }

    public let kind: Kind
    /// The scenario path that names the log, e.g. `population.segments[1].returns`.
    public let scenarioPath: String
    public let message: String

    public var description: String { scenarioPath.isEmpty ? message : "\(scenarioPath): \(message)" }
}

extension RecordedSource {
    /// Reads the log at `path` as it is (not resolved against any folder).
    public func read(onBadRow: BadRowPolicy = .stop, outliers: OutlierPolicy = .exclude, scenarioPath: String = "") throws
        -> RecordedLog
    {
        guard FileManager.default.fileExists(atPath: path) else {
            throw RecordedDataError(kind: .missing, scenarioPath: scenarioPath, message: "\(path): no such file")
        }
        do {
            return try RecordedLog.read(
                file: path, format: logFormat, observationEnd: observationEndSeconds, onBadRow: onBadRow, outliers: outliers)
        } catch let error as ImportError {
            if case .cannotRead = error {
                throw RecordedDataError(kind: .unreadable, scenarioPath: scenarioPath, message: "\(error)")
            }
            throw RecordedDataError(kind: .badData, scenarioPath: scenarioPath, message: "\(error)")
        } catch {
            throw RecordedDataError(kind: .badData, scenarioPath: scenarioPath, message: "\(error)")
        }
    }
}

/// Reads each recorded log a scenario names once, and turns it into what the simulation samples.
struct RecordedLoader {
    let folder: String?
    private var cache: [(key: String, log: RecordedLog)] = []

    init(folder: String?) { self.folder = folder }

    mutating func log(_ source: RecordedSource, at path: String) throws -> RecordedLog {
        let file = source.resolvedPath(in: folder)
        let key = "\(file)|\(source.format)|\(source.observationEnd ?? "")"
        if let hit = cache.first(where: { $0.key == key }) { return hit.log }
        guard FileManager.default.fileExists(atPath: file) else {
            throw RecordedDataError(kind: .missing, scenarioPath: "\(path).data", message: "\(file): no such file")
        }
        let log = try RecordedSource(path: file, format: source.format, observationEnd: source.observationEnd)
            .read(scenarioPath: "\(path).data")
        cache.append((key, log))
        return log
    }

    /// Kaplan–Meier steps of the log's gaps, appended to the empirical tables.
    mutating func kaplanMeier(_ source: RecordedSource, at path: String, into tables: inout EmpiricalTables) throws
        -> GapSampler
    {
        let km = KaplanMeier(try log(source, at: path).gaps(unit: .days))
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
    mutating func replay(_ source: RecordedSource, at path: String, horizonSeconds: Double) throws -> ReplayTable {
        let log = try log(source, at: path)
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
