import Foundation

/// A text sink that may be shared between threads.
public protocol OutputWriter: AnyObject, Sendable {
    func write(_ text: String)
    /// Pushes out anything buffered and reports the first write failure, if any, once.
    func flush() throws
}

extension OutputWriter {
    public func writeLine(_ text: String = "") {
        write(text + "\n")
    }
}

/// Writes to a file handle, buffering unless every write should appear at once.
public final class FileHandleWriter: OutputWriter, @unchecked Sendable {
    private let handle: FileHandle
    private let buffered: Bool
    private let lock = NSLock()
    private var pending = Data()
    private var failure: (any Error)?
    private var failureReported = false
    /// Large enough that bulk output costs few system calls, small enough to stay in cache.
    private static let bufferLimit = 64 * 1024

    public init(handle: FileHandle, buffered: Bool) {
        self.handle = handle
        self.buffered = buffered
    }

    public func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        pending.append(contentsOf: text.utf8)
        if !buffered || pending.count >= Self.bufferLimit {
            drain()
        }
    }

    public func flush() throws {
        lock.lock()
        defer { lock.unlock() }
        drain()
        // The failure is reported once; the stream stays unusable after it.
        if let failure, !failureReported {
            failureReported = true
            throw failure
        }
    }

    private func drain() {
        guard !pending.isEmpty else { return }
        // After one failure the stream is unusable; keep the first error for `flush` to report.
        if failure == nil {
            do { try handle.write(contentsOf: pending) } catch { failure = error }
        }
        pending.removeAll(keepingCapacity: true)
    }
}

/// Collects everything written, for tests.
public final class MemoryWriter: OutputWriter, @unchecked Sendable {
    private let lock = NSLock()
    private var collected = ""

    public init() {}

    public var text: String {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    public func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        collected += text
    }

    public func flush() throws {}
}

/// The streams a command writes to, plus what is known about the terminal behind stderr.
public struct ConsoleIO: Sendable {
    public let stdout: any OutputWriter
    public let stderr: any OutputWriter
    public let stderrIsTerminal: Bool
    public let stderrColorEnabled: Bool
    /// False when stderr's terminal knows no escape sequences (`TERM=dumb`).
    public let stderrUnderstandsEscapes: Bool

    public init(stdout: any OutputWriter, stderr: any OutputWriter,
                stderrIsTerminal: Bool = false, stderrColorEnabled: Bool = false, stderrUnderstandsEscapes: Bool = true) {
        self.stdout = stdout
        self.stderr = stderr
        self.stderrIsTerminal = stderrIsTerminal
        self.stderrColorEnabled = stderrColorEnabled
        self.stderrUnderstandsEscapes = stderrUnderstandsEscapes
    }

    /// The process's real stdout and stderr.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> ConsoleIO {
        // A person watching a terminal should see lines as they are written; a pipe or file prefers big writes.
        let stdoutBuffered = !Terminal.isInteractive(fd: STDOUT_FILENO)
        return ConsoleIO(
            stdout: FileHandleWriter(handle: .standardOutput, buffered: stdoutBuffered),
            stderr: FileHandleWriter(handle: .standardError, buffered: false),
            stderrIsTerminal: Terminal.isInteractive(fd: STDERR_FILENO),
            stderrColorEnabled: Terminal.colorEnabled(environment: environment, fd: STDERR_FILENO),
            stderrUnderstandsEscapes: Terminal.understandsEscapes(environment: environment))
    }
}
