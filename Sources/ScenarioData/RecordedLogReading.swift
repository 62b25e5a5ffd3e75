import FilePaths
import Foundation
import RecordedData
import Simulation

extension RecordedSource {
    /// Reads the log at `path` as it is (not resolved against any folder); its problems name it `name`
    /// when given (standard input, read as /dev/stdin), `path` otherwise (escaped as `Path.shown`).
    public func read(onBadRow: BadRowPolicy = .stop, outliers: OutlierPolicy = .exclude, scenarioPath: String = "",
                     name: String? = nil) throws -> RecordedLog
    {
        // A path with a line break or control character is named escaped, on one line.
        let escaped = Path.shown(path, limit: .max)
        let name = name ?? (escaped == path ? nil : escaped)
        // Missing: nothing there, a link to nothing, or a path through a file. Anything else (a loop of
        // links, a file that cannot be read) is for the reader to name.
        var status = stat()
        if stat(path, &status) != 0 && (errno == ENOENT || errno == ENOTDIR) {
            throw RecordedDataError(kind: .missing, scenarioPath: scenarioPath, message: "\(name ?? path): no such file")
        }
        do {
            return try RecordedLog.read(
                file: path, name: name, format: logFormat, observationEnd: observationEndSeconds, onBadRow: onBadRow, outliers: outliers)
        } catch let error as ImportError {
            if case .cannotRead = error {
                throw RecordedDataError(kind: .unreadable, scenarioPath: scenarioPath, message: "\(error)")
            }
            if case .invalidFormat = error {
                throw RecordedDataError(kind: .badFormat, scenarioPath: scenarioPath, message: "\(error)")
            }
            throw RecordedDataError(kind: .badData, scenarioPath: scenarioPath, message: "\(error)")
        } catch {
            throw RecordedDataError(kind: .badData, scenarioPath: scenarioPath, message: "\(error)")
        }
    }

    /// The file's path, resolved against `folder` when relative.
    public func resolvedPath(in folder: String?) -> String {
        Path.resolve(path, relativeTo: folder)
    }
}

extension RecordedLogs {
    /// The files of the recorded logs `scenario`'s segments name, resolved against `folder` as `read`
    /// resolves them: inputs a command must not write over.
    public static func files(of scenario: Scenario, folder: String?) -> [String] {
        sources(of: scenario).map { $0.0.resolvedPath(in: folder) }
    }

    /// Reads every recorded log `scenario`'s segments name, in their order, from paths relative to `folder`
    /// (the scenario file's folder; nil: the working folder). A file named twice in the same format is read
    /// once. The first log that is missing, unreadable or bad stops the reading with a `RecordedDataError`
    /// naming the segment's `data` field.
    public static func read(for scenario: Scenario, folder: String?) throws -> RecordedLogs {
        var logs = RecordedLogs()
        var read: [(key: String, log: RecordedLog)] = []
        for (source, path) in sources(of: scenario) {
            let file = source.resolvedPath(in: folder)
            let key = "\(file)|\(source.format)|\(source.observationEnd ?? "")"
            if let earlier = read.first(where: { $0.key == key }) {
                logs[source] = earlier.log
                continue
            }
            let log = try RecordedSource(path: file, format: source.format, observationEnd: source.observationEnd)
                .read(scenarioPath: "\(path).data")
            read.append((key, log))
            logs[source] = log
        }
        return logs
    }
}
