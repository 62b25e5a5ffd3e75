import Console
import FilePaths
import Foundation
import Reporting

/// Output folders written whole or not at all.
///
/// The files are rendered into a hidden folder beside the destination, `.NAME.partial-PID`, which is
/// then renamed into place: a process killed while writing leaves no half folder under the real
/// name, and the next command that publishes into the same parent folder removes what killed
/// processes left (their partial folders and the old folders they were replacing).
enum FolderPublishing {
    /// What to do with a folder already at the destination.
    enum Existing {
        /// Move it aside and put the new folder in its place (it holds an earlier copy of the same output).
        case replace
        /// Leave it and try `NAME-2`, `NAME-3`… (it holds something else of the same kind).
        case numberAnother
        /// Stop with this error, leaving it alone.
        case refuse(CommandError)
    }

    /// Renders into a partial folder with `render`, then renames it to `folder` (or a numbered
    /// neighbour, as `existing` decides from the folder there and the freshly rendered one). `what`
    /// names the output in messages. Returns the folder written.
    static func publish(_ folder: String, what: String, render: (String) throws -> Void,
                        existing decide: (_ existing: String, _ rendered: String) -> Existing) throws -> String {
        let fileManager = FileManager.default
        let parent = Path.parent(folder)
        let name = Path.lastComponent(folder)
        func inParent(_ child: String) -> String { Path.join(parent, child) }
        func fail(_ path: String, _ error: any Error) -> CommandError {
            CommandError.ioError("\(OutputPaths.shown(path)): cannot write \(what): \(CommandRunner.systemReason(error))")
        }
        do {
            try fileManager.createDirectory(atPath: Path.folder(of: folder), withIntermediateDirectories: true)
        } catch {
            throw fail(Path.folder(of: folder), error)
        }
        removeLeftovers(in: Path.folder(of: folder))
        let partial = inParent(".\(name).partial-\(getpid())")
        try? fileManager.removeItem(atPath: partial)
        do {
            try render(partial)
        } catch {
            try? fileManager.removeItem(atPath: partial)
            throw error
        }
        var candidate = folder
        var number = 1
        while true {
            switch OutputPaths.entry(at: candidate) {
            case .missing:
                do {
                    try fileManager.moveItem(atPath: partial, toPath: candidate)
                } catch {
                    try? fileManager.removeItem(atPath: partial)
                    throw fail(candidate, error)
                }
                return candidate
            case .folder:
                switch decide(candidate, partial) {
                case .replace:
                    // The old folder is moved aside, then the new one takes its name.
                    let old = inParent(".\(Path.lastComponent(candidate)).old-\(getpid())")
                    try? fileManager.removeItem(atPath: old)
                    do {
                        try fileManager.moveItem(atPath: candidate, toPath: old)
                        try fileManager.moveItem(atPath: partial, toPath: candidate)
                    } catch {
                        try? fileManager.removeItem(atPath: partial)
                        throw fail(candidate, error)
                    }
                    try? fileManager.removeItem(atPath: old)
                    return candidate
                case .numberAnother: break
                case let .refuse(error):
                    try? fileManager.removeItem(atPath: partial)
                    throw error
                }
            default: break  // a file, a link or a device of that name is never replaced
            }
            number += 1
            candidate = folder + "-\(number)"
        }
    }

    /// Whether `existing` holds nothing but entries of the names `rendered` holds (and other
    /// publishing processes' working folders): only such a folder is an earlier copy to replace whole;
    /// one that also holds files of someone else's (notes, a database) is left alone.
    static func onlyHoldsNamesOf(_ existing: String, _ rendered: String) -> Bool {
        let fileManager = FileManager.default
        let mine = Set((try? fileManager.contentsOfDirectory(atPath: rendered)) ?? [])
        let theirs = (try? fileManager.contentsOfDirectory(atPath: existing)) ?? []
        return theirs.allSatisfy { mine.contains($0) || ReportFiles.workingProcess($0) != nil }
    }

    /// The first of `inputs` that is a file directly in `folder` (by identity, whatever the name it is
    /// given by), if any: replacing the folder would delete it.
    static func input(in folder: String, of inputs: [String]) -> String? {
        let identities = inputs.compactMap { input in OutputPaths.identity(of: input).map { (input, $0) } }
        guard !identities.isEmpty else { return nil }
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let found = OutputPaths.identity(of: Path.join(folder, entry)) else { continue }
            if let (input, _) = identities.first(where: { $0.1 == found }) { return input }
        }
        return nil
    }

    /// Removes the partial and old folders that processes no longer running left in `parent`
    /// (`ReportFiles.isLeftover`); those of live processes are theirs.
    static func removeLeftovers(in parent: String) {
        let fileManager = FileManager.default
        for entry in (try? fileManager.contentsOfDirectory(atPath: parent)) ?? [] {
            let path = Path.join(parent, entry)
            guard ReportFiles.isLeftover(entry, at: path), OutputPaths.entry(at: path) == .folder else { continue }
            try? fileManager.removeItem(atPath: path)
        }
    }
}
