import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of a program did.
public struct CommandResult: CustomStringConvertible, Sendable {
    public let arguments: [String]
    /// The exit status, or the signal number when `crashed`.
    public let status: Int32
    /// True when the process was killed by a signal instead of exiting.
    public let crashed: Bool
    public let stdout: String
    public let stderr: String

    public init(arguments: [String], status: Int32, crashed: Bool, stdout: String, stderr: String) {
        self.arguments = arguments
        self.status = status
        self.crashed = crashed
        self.stdout = stdout
        self.stderr = stderr
    }

    public var stdoutLines: [String] { lines(stdout) }
    public var stderrLines: [String] { lines(stderr) }

    private func lines(_ text: String) -> [String] {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    public var description: String {
        let how = crashed ? "killed by signal \(status)" : "exit \(status)"
        return """
            remindersim \(arguments.joined(separator: " ")) → \(how)
            --- stdout ---
            \(stdout.count > 4000 ? String(stdout.prefix(4000)) + "…" : stdout)
            --- stderr ---
            \(stderr.count > 4000 ? String(stderr.prefix(4000)) + "…" : stderr)
            """
    }
}

/// Where a child's standard output goes.
public enum StandardOutputTarget: Sendable {
    /// Captured into `CommandResult.stdout`.
    case captured
    /// An existing file or device, such as `/dev/full`; `CommandResult.stdout` is then empty.
    case path(String)
}

/// A program started in the background, its output spooled to files so that no amount of it can
/// block the child; a test waits for it, kills it, or runs several at once.
public final class ChildProcess: @unchecked Sendable {
    public let arguments: [String]
    public let process: Process
    /// When the process was started, on the uptime clock.
    public let started: DispatchTime
    private let finished = DispatchSemaphore(value: 0)
    private let stdoutURL: URL
    private let stderrURL: URL
    private var handles: [FileHandle]
    private var result: CommandResult?

    /// Starts `executable`; standard input is `stdin` (or `/dev/null`), output goes to files in `spool`.
    public init(executable: URL, arguments: [String], environment: [String: String], directory: URL, spool: URL,
                stdin: String? = nil, stdout target: StandardOutputTarget = .captured) throws {
        self.arguments = arguments
        let tag = UUID().uuidString
        stdoutURL = spool.appendingPathComponent("\(tag).stdout")
        stderrURL = spool.appendingPathComponent("\(tag).stderr")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        let out: FileHandle
        switch target {
        case .captured: out = try FileHandle(forWritingTo: stdoutURL)
        case let .path(path): out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
        let err = try FileHandle(forWritingTo: stderrURL)
        let input: FileHandle
        if let stdin {
            let stdinURL = spool.appendingPathComponent("\(tag).stdin")
            try Data(stdin.utf8).write(to: stdinURL)
            input = try FileHandle(forReadingFrom: stdinURL)
        } else {
            input = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
        }
        handles = [out, err, input]

        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        let finished = self.finished
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        started = .now()
    }

    /// Seconds since the process was started.
    public var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }

    /// CPU time the process has used so far (user and system), from `/proc`; nil where there is no
    /// `/proc` or once the process is gone.
    public var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name, which may hold spaces: state is field 3; utime and stime 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits until the process has used `seconds` of CPU time; false if it ended or `timeout` passed first.
    public func waitForCPU(_ seconds: Double, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning, let used = cpuSeconds else { return false }
            if used >= seconds { return true }
            usleep(20_000)
        }
        return false
    }

    /// Sends SIGKILL if the process is still running; true when the signal was sent to a live process.
    @discardableResult
    public func killNow() -> Bool {
        guard process.isRunning else { return false }
        return kill(process.processIdentifier, SIGKILL) == 0
    }

    /// Waits for the process to end; nil (after stopping it) if it takes longer than `timeout`.
    public func wait(timeout: TimeInterval) -> CommandResult? {
        if let result { return result }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            if finished.wait(timeout: .now() + 5) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                _ = finished.wait(timeout: .now() + 10)
            }
            return nil
        }
        // Foundation may call the termination handler a moment before `terminationReason` is final.
        while process.isRunning { usleep(1000) }
        for handle in handles { try? handle.close() }
        handles = []
        let result = CommandResult(
            arguments: arguments, status: process.terminationStatus,
            crashed: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: (try? Data(contentsOf: stdoutURL)) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self))
        self.result = result
        return result
    }
}
