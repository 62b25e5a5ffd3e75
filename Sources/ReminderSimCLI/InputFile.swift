import Console
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole input file, or standard input, with `read(2)`: never more than a limit (a device that
/// never ends, such as /dev/zero, is refused once the limit is passed), and every failure as the tool's
/// exit code: 66 missing or closed, 74 unreadable, 65 too long.
enum InputFile {
    /// The largest scenario (or results) file read: far beyond any real one, small enough to hold.
    static let maximumBytes = 64 << 20

    /// The path that means standard input.
    static let standardInput = "-"

    /// How an input's path is named in messages: standard input as `<stdin>`, whichever command reads
    /// it; a path on one line, its control characters escaped (`OutputPaths.shown`).
    static func displayName(_ path: String) -> String {
        path == standardInput ? "<stdin>" : OutputPaths.shown(path)
    }

    /// The bytes of `path` (`-`: standard input), at most `limit` of them. `kind` names the file in
    /// messages ("a scenario file").
    static func bytes(_ path: String, kind: String, limit: Int = maximumBytes) throws -> [UInt8] {
        let name = displayName(path)
        let descriptor: Int32
        if path == standardInput {
            guard !ProcessSetup.standardInputIsClosed else {
                throw CommandError.noInput("\(name): standard input is closed")
            }
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                if code == ENOENT || code == ENOTDIR { throw CommandError.noInput("\(name): no such file") }
                if code == EACCES { throw CommandError.ioError("\(name): cannot be read (check its permissions)") }
                throw CommandError.ioError("\(name): cannot be read: \(String(cString: strerror(code)))")
            }
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw CommandError.ioError("\(name): is a directory, not \(kind)")
        }
        return try readAll(descriptor, name: name, kind: kind, limit: limit)
    }

    /// Reads `descriptor` to its end, refusing more than `limit` bytes without reading much past it.
    private static func readAll(_ descriptor: Int32, name: String, kind: String, limit: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return out }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw CommandError.ioError("\(name): cannot be read: \(String(cString: strerror(code)))")
            }
            guard out.count + count <= limit else {
                throw CommandError.dataError("\(name): longer than \(megabytes(limit)) (the limit for \(kind))")
            }
            out.append(contentsOf: chunk[..<count])
        }
    }

    /// A size in whole MiB, as limits are stated.
    static func megabytes(_ bytes: Int) -> String { "\(bytes >> 20) MiB" }

    /// Refuses standard input named more than once among `paths`: it can be read only once.
    static func requireStandardInputOnce(_ paths: [String?]) throws {
        if paths.filter({ $0 == standardInput }).count > 1 {
            throw UsageError("'-' (standard input) is named more than once, but it can be read only once")
        }
    }
}
