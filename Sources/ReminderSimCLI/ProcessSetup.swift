import Console
import Foundation

/// What the process sets up before a command runs.
enum ProcessSetup {
    /// A write to a closed pipe returns EPIPE instead of killing the process with SIGPIPE: a run whose
    /// output goes to `head` still finishes writing its report, then ends quietly (see
    /// `CommandRunner`). A write past the file-size limit (`ulimit -f`) fails with EFBIG instead of
    /// SIGXFSZ killing the process in the middle of writing the database: the command reports it as
    /// an I/O error, like a full disk, and cleans up after itself.
    static func ignoreWriteSignals() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Whether standard input was closed (`<&-`) when the process started: set by
    /// `holdClosedStandardInput`, read wherever `-` names standard input.
    nonisolated(unsafe) static var standardInputWasClosed = false

    /// Puts /dev/null where a closed standard input was, and remembers that it was closed: otherwise
    /// the first file a command opens gets descriptor 0, and a later read of `-` would read that file
    /// (or whatever else took the descriptor) as if it were standard input.
    static func holdClosedStandardInput() {
        guard fcntl(STDIN_FILENO, F_GETFD) == -1 else { return }
        standardInputWasClosed = true
        let null = open("/dev/null", O_RDONLY)
        if null > STDIN_FILENO {
            dup2(null, STDIN_FILENO)
            close(null)
        }
    }

    /// Whether `-` (standard input) can be read: it was open when the process started.
    static var standardInputIsClosed: Bool {
        standardInputWasClosed || fcntl(STDIN_FILENO, F_GETFD) == -1
    }

    /// The exit status when standard output or standard error is closed (`>&-`), after saying so where
    /// that can still be said; nil when both are open. A command must not start then: the next file it
    /// opens would get the closed stream's descriptor, and its output would land in that file.
    static func closedStandardStream() -> Int32? {
        let outClosed = fcntl(STDOUT_FILENO, F_GETFD) == -1
        let errClosed = fcntl(STDERR_FILENO, F_GETFD) == -1
        guard outClosed || errClosed else { return nil }
        if !errClosed {
            let message = "remindersim: error: standard output is closed; send it to a file or to /dev/null instead\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        return ExitCode.ioError.rawValue
    }
}
