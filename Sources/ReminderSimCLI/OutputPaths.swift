import Console
import FilePaths
import Foundation
import Reporting

/// Checks, before any work, that a command can write where it was told to, and never over something
/// it should not replace: an input, a device, a link, a folder of someone else's files.
///
/// Every command that writes a file or a folder calls one of these before it reads or simulates, so a
/// bad output path costs nothing but the message.
enum OutputPaths {
    /// A path as messages show it: on one line, control characters escaped, very long ones cut.
    static func shown(_ path: String) -> String {
        TerminalText.printable(path, limit: 160)
    }

    /// A path as a command's results on stdout name it (a saved run's database, a written file): on
    /// one line, control characters escaped as `shown` does, never cut.
    static func listed(_ path: String) -> String {
        Path.shown(path, limit: .max)
    }

    /// What is at a path, without following a final symbolic link.
    indirect enum Entry: Equatable {
        case missing
        case regularFile
        case folder
        /// A symbolic link to a file or a folder.
        case link(to: Entry)
        /// A symbolic link to nothing, or a loop of links; `code` is what following it gave.
        case brokenLink(code: Int32)
        /// A device, a pipe, a socket.
        case special
    }

    static func entry(at path: String) -> Entry {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .missing }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFDIR: return .folder
        case S_IFLNK:
            var target = stat()
            guard stat(path, &target) == 0 else { return .brokenLink(code: errno) }
            switch target.st_mode & S_IFMT {
            case S_IFREG: return .link(to: .regularFile)
            case S_IFDIR: return .link(to: .folder)
            default: return .link(to: .special)
            }
        default: return .special
        }
    }

    /// The device and inode of an existing file (links followed): the file's identity, whatever its name.
    static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// A file a command replaces only when an earlier run of the command wrote it: missing, or a
    /// regular file whose first line (read up to 1 MiB; a file with a longer one is not the
    /// command's) and first 64 KiB `ours` recognises. Anything else at the path (a file of the
    /// user's own, a link, a folder, a device) is refused (64), with `advice`. `what` names what the
    /// file would be ("an export of the runs table").
    static func checkReplaceable(_ path: String, what: String, advice: String,
                                 ours: (_ firstLine: String, _ start: String) -> Bool) throws {
        let shownPath = shown(path)
        switch entry(at: path) {
        case .missing: return
        case .regularFile:
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CommandError.ioError("\(shownPath): exists and cannot be read to check it is \(what); \(advice)")
            }
            defer { try? handle.close() }
            var start = Data()
            while start.count < 1 << 20, !start.contains(UInt8(ascii: "\n")) || start.count < 1 << 16,
                  let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                start.append(chunk)
            }
            let line = start.firstIndex(of: UInt8(ascii: "\n")).map { start[..<$0] }
                ?? (start.count < 1 << 20 ? start[...] : nil)
            guard let line, ours(String(decoding: line, as: UTF8.self), String(decoding: start.prefix(1 << 16), as: UTF8.self)) else {
                throw UsageError("\(shownPath): already exists and is not \(what); \(advice)")
            }
        case .folder, .link(to: .folder):
            throw UsageError("\(shownPath): is a folder where the command writes a file; \(advice)")
        case .link, .brokenLink:
            throw UsageError("\(shownPath): is a symbolic link where the command writes a file; \(advice)")
        case .special:
            throw UsageError("\(shownPath): is a device, pipe or socket where the command writes a file; \(advice)")
        }
    }

    /// The first `limit` bytes of the file at `path` as text (invalid UTF-8 repaired), or nil when it
    /// cannot be read.
    static func leadingText(of path: String, limit: Int = 1 << 12) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: limit) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The longest name of one file or folder, and of a whole path, in bytes (Linux's NAME_MAX and
    /// PATH_MAX less its terminating NUL).
    static let maximumNameBytes = 255
    static let maximumPathBytes = 4095

    /// Refuses a path the system would refuse only when the work is done: a name too long (64), or a
    /// file where a folder belongs (74).
    static func checkReachable(_ path: String, option: String) throws {
        try checkNameLengths(path, option: option)
        if partIsAFile(path) {
            throw CommandError.ioError("\(shown(path)): a part of it is a file, not a folder (\(option))")
        }
    }

    /// Refuses (64) a path the system would refuse as too long only when the work is done.
    static func checkNameLengths(_ path: String, option: String) throws {
        if path.utf8.count > maximumPathBytes {
            throw UsageError("\(option): the path is \(path.utf8.count) bytes long; at most \(maximumPathBytes)")
        }
        if let long = path.split(separator: "/").first(where: { $0.utf8.count > maximumNameBytes }) {
            throw UsageError("\(shown(path)): the name \(shown(String(long.prefix(40))))… is \(long.utf8.count) bytes long; "
                + "a file or folder name may have at most \(maximumNameBytes) (\(option))")
        }
    }

    /// Whether a part of `path` before its last is an existing file rather than a folder (`notes.txt/x`,
    /// or `notes.txt/` itself).
    static func partIsAFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) != 0 && errno == ENOTDIR
    }

    /// Nil when a folder can be made (and is removed again) in `folder`; otherwise why not.
    static func cannotMakeFolders(in folder: String) -> String? {
        // A name no one else uses: one already there (made by someone else) proves nothing.
        for _ in 0..<8 {
            let probe = Path.join(folder, ".remindersim-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            if mkdir(probe, 0o700) == 0 {
                rmdir(probe)
                return nil
            }
            let code = errno
            if code != EEXIST { return String(cString: strerror(code)) }
        }
        return "no new name could be made there"
    }

    /// Whether this user may create and remove entries in `folder`.
    static func writable(_ folder: String) -> Bool {
        access(folder, W_OK | X_OK) == 0
    }

    /// A file the command will write whole (`option` names it in messages): a new name in an existing,
    /// writable folder, or an existing regular file that is none of `inputs`. Symbolic links, devices
    /// and folders are refused: the file is replaced by a rename, which would put a plain file where
    /// they were.
    static func checkFile(_ path: String, option: String, inputs: [String]) throws {
        guard !path.isEmpty else { throw UsageError("\(option): empty; name the file to write") }
        // Everywhere else '-' is standard input or output; this option writes a file, and the command it
        // would suggest (`run -`) would read standard input instead.
        if path == "-" {
            throw UsageError("\(option): '-' is not a file: \(option) names the file to write, not standard output "
                + "(a file named '-' is ./-)")
        }
        let shownPath = shown(path)
        if path.hasSuffix("/") { throw UsageError("\(shownPath): ends in /, as a folder does; \(option) must name a file") }
        try checkReachable(path, option: option)
        switch entry(at: path) {
        case .missing: break
        case .regularFile:
            if let output = identity(of: path),
               let input = inputs.first(where: { identity(of: $0).map { $0 == output } ?? false }) {
                let what = input == path ? "is an input of this command" : "is the same file as the input \(shown(input))"
                throw UsageError("\(shownPath): \(what); \(option) must name another file")
            }
        case .folder, .link(to: .folder):
            throw UsageError("\(shownPath): is a folder; \(option) must name a file")
        case .link, .brokenLink:
            throw UsageError("\(shownPath): is a symbolic link; \(option) must name the file itself")
        case .special:
            throw UsageError("\(shownPath): is not a regular file (a device, pipe or socket); \(option) must name a file")
        }
        let folder = Path.folder(of: path)
        switch entry(at: folder) {
        case .folder, .link(to: .folder): break
        case .missing: throw CommandError.ioError("\(shownPath): the folder \(shown(folder)) does not exist (\(option))")
        default: throw CommandError.ioError("\(shownPath): \(shown(folder)) is not a folder (\(option))")
        }
        guard writable(folder) else {
            throw CommandError.ioError("\(shownPath): cannot be written: the folder \(shown(folder)) is read-only to this user (\(option))")
        }
        if let reason = cannotMakeFolders(in: folder) {
            throw CommandError.ioError("\(shownPath): cannot be written: nothing can be made in \(shown(folder)) (\(reason)) (\(option))")
        }
    }

    /// A folder the command will write into, made if missing: an existing folder this user can
    /// write, or a new name whose nearest existing ancestor is one. Checked without creating anything.
    static func checkFolder(_ path: String, option: String) throws {
        guard !path.isEmpty else { throw UsageError("\(option): empty; name a folder (. for the current one)") }
        // Everywhere else '-' is standard input or output: a folder of that name is ./-.
        if path == "-" {
            throw UsageError("\(option): '-' is not a folder: \(option) names the folder to write into, not standard output "
                + "(a folder named '-' is ./-)")
        }
        let shownPath = shown(path)
        try checkReachable(path, option: option)
        var existing = path
        while true {
            let found = entry(at: existing)
            // The part of `path` that is in the way, as the message names it.
            let part = existing == path ? "" : "\(shown(existing)) "
            switch found {
            case .missing:
                let parent = Path.folder(of: existing)
                if parent == existing { throw CommandError.ioError("\(shownPath): no part of it exists (\(option))") }
                existing = parent
                continue
            case .folder, .link(to: .folder):
                guard writable(existing) else {
                    throw CommandError.ioError(part.isEmpty
                        ? "\(shownPath): cannot be written: the folder is read-only to this user (\(option))"
                        : "\(shownPath): cannot be written: \(part)is read-only to this user (\(option))")
                }
                // Permissions are not the whole story (a read-only file system, /proc, /sys): a folder
                // made and removed at once shows whether anything can be made there.
                if let reason = cannotMakeFolders(in: existing) {
                    throw CommandError.ioError("\(shownPath): cannot be written: nothing can be made in "
                        + "\(part.isEmpty ? "the folder" : shown(existing)) (\(reason)) (\(option))")
                }
                return
            case let .brokenLink(code):
                let what = code == ELOOP ? "a loop of symbolic links" : "a symbolic link to nothing"
                throw CommandError.ioError("\(shownPath): \(part)is \(what); \(option) must name a folder")
            case .regularFile, .link(to: .regularFile):
                throw CommandError.ioError("\(shownPath): \(part)is a file, not a folder; \(option) must name a folder")
            case .special, .link:
                throw CommandError.ioError("\(shownPath): \(part)is not a folder (a device, pipe or socket); \(option) must name a folder")
            }
        }
    }
}
