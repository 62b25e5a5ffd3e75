import Dispatch
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the built `remindersim` binary that belongs to this test build.
///
/// The tests must exercise the binary built alongside them, not some older copy, so the products
/// directory of the running test bundle (which follows `--scratch-path`) is searched first and the
/// package's default `.build/debug` only after it.
public enum ReminderSimExecutable {
    public static let name = "remindersim"
    /// Set to a path to test a particular binary (for example an installed or release build).
    public static let overrideVariable = "REMINDERSIM_EXECUTABLE"

    /// The binary, or why none was found (every place looked at, so a failure explains itself).
    public static let located: Result<URL, LocateError> = locate()

    public struct LocateError: Error, CustomStringConvertible {
        public let searched: [String]

        public var description: String {
            """
            cannot find the built '\(ReminderSimExecutable.name)' executable. Looked in:
            \(searched.map { "  - " + $0 }.joined(separator: "\n"))
            Build it together with the tests, with the same scratch path as 'swift test', e.g. \
            'swift build --build-tests [--scratch-path DIR]', or set \(ReminderSimExecutable.overrideVariable).
            """
        }
    }

    private static func locate(filePath: String = #filePath) -> Result<URL, LocateError> {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment[overrideVariable], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        candidates += productsDirectories().map { $0.appendingPathComponent(name) }
        if let root = packageRoot(from: filePath) {
            candidates.append(root.appendingPathComponent(".build/debug/\(name)"))
        }

        var seen: Set<String> = []
        var searched: [String] = []
        for candidate in candidates {
            let path = candidate.standardizedFileURL.path
            guard seen.insert(path).inserted else { continue }
            searched.append(path)
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                fileManager.isExecutableFile(atPath: path)
            {
                return .success(URL(fileURLWithPath: path))
            }
        }
        return .failure(LocateError(searched: searched))
    }

    /// Build products directories the running test code may live in, most specific first.
    private static func productsDirectories() -> [URL] {
        var directories: [URL] = []
        // macOS: the tests are a bundle `X.xctest` loaded by a runner; the products sit beside it.
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        // Linux: the tests are an executable `X.xctest` in the products directory itself.
        if let executable = currentExecutable() {
            var url = executable.deletingLastPathComponent()
            // A macOS bundle's executable is at X.xctest/Contents/MacOS/X.
            while url.pathComponents.count > 1 && url.path.contains(".xctest") {
                url = url.deletingLastPathComponent()
            }
            directories.append(url)
        }
        let main = Bundle.main.bundleURL
        directories.append(main.pathExtension == "xctest" ? main.deletingLastPathComponent() : main)
        return directories
    }

    private static func currentExecutable() -> URL? {
        #if os(Linux)
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: resolved)
        }
        #endif
        return Bundle.main.executableURL
    }

    /// The nearest folder above `filePath` that holds a `Package.swift`.
    private static func packageRoot(from filePath: String) -> URL? {
        var url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while url.pathComponents.count > 1 {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
            url = url.deletingLastPathComponent()
        }
        return nil
    }
}

/// A test case that runs the built executable in a fresh, private working directory.
open class ReminderSimTestCase: XCTestCase {
    /// The working directory of every run of this test; removed afterwards.
    public private(set) var workDirectory: URL!
    /// Where captured output is spooled, outside the working directory so it never shows in it.
    public private(set) var spoolDirectory: URL!

    /// When set, runs go through `setpriv` as the user `nobody` if the tests run as root: root ignores
    /// file modes, so read-only files can only be tried by someone else. Call `requireUnprivileged()`
    /// first: it skips the test, saying why, where that is not possible.
    public var unprivileged = false

    /// Skips the test unless runs can happen as a user that file modes apply to.
    public func requireUnprivileged() throws {
        unprivileged = true
        guard getuid() == 0 else { return }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                          "running as root without /usr/bin/setpriv: file modes cannot be tried")
        // The user must be able to reach the working directory and the executable.
        chmod(workDirectory.deletingLastPathComponent().path, 0o755)
    }

    /// Generous for a debug build on a slow machine; the runs themselves take well under a second.
    public static let defaultTimeout: TimeInterval = 60

    override open func setUpWithError() throws {
        try super.setUpWithError()
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("remindersim-cli-\(UUID().uuidString)", isDirectory: true)
        workDirectory = base.appendingPathComponent("work", isDirectory: true)
        spoolDirectory = base.appendingPathComponent("spool", isDirectory: true)
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: spoolDirectory, withIntermediateDirectories: true)
    }

    override open func tearDownWithError() throws {
        if let base = workDirectory?.deletingLastPathComponent() {
            // Undo any permission experiments so the folder can always be removed.
            if let items = FileManager.default.enumerator(atPath: base.path) {
                for case let item as String in items {
                    chmod(base.appendingPathComponent(item).path, 0o700)
                }
            }
            try? FileManager.default.removeItem(at: base)
        }
        try super.tearDownWithError()
    }

    /// Writes `text` to `name` in the working directory and returns its URL.
    @discardableResult
    public func writeFile(_ name: String, _ text: String) throws -> URL {
        try writeFile(name, Data(text.utf8))
    }

    @discardableResult
    public func writeFile(_ name: String, _ data: Data) throws -> URL {
        let url = workDirectory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url
    }

    /// Runs `remindersim` with `arguments`, as a user would from a shell in `workDirectory`.
    ///
    /// Standard input is `/dev/null` unless `stdin` is given; the environment holds only what is set
    /// here (no terminal, no colour); stdout and stderr are spooled to files so that no amount of
    /// output can block the child. Fails the test, and throws, if the binary is missing or the run
    /// exceeds `timeout`.
    public func remindersim(
        _ arguments: String...,
        stdin: String? = nil,
        stdout target: StandardOutputTarget = .captured,
        environment extra: [String: String] = [:],
        timeout: TimeInterval = ReminderSimTestCase.defaultTimeout,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> CommandResult {
        try remindersim(arguments: arguments, stdin: stdin, stdout: target, environment: extra,
                        timeout: timeout, file: file, line: line)
    }

    public func remindersim(
        arguments: [String],
        stdin: String? = nil,
        stdout target: StandardOutputTarget = .captured,
        environment extra: [String: String] = [:],
        timeout: TimeInterval = ReminderSimTestCase.defaultTimeout,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> CommandResult {
        var executable = try executableURL(file: file, line: line)
        var words = arguments
        if unprivileged && getuid() == 0 {
            words = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", executable.path] + arguments
            executable = URL(fileURLWithPath: "/usr/bin/setpriv")
        }
        let child = try ChildProcess(
            executable: executable, arguments: words, environment: environment(extra), directory: workDirectory,
            spool: spoolDirectory, stdin: stdin, stdout: target)
        guard let result = child.wait(timeout: timeout) else {
            XCTFail("remindersim \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s",
                    file: file, line: line)
            throw NotRun(reason: "it timed out")
        }
        return result
    }

    /// Starts `remindersim` in the working directory without waiting for it, with the same
    /// environment `remindersim(...)` uses.
    public func startRemindersim(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ChildProcess {
        try ChildProcess(executable: try executableURL(file: file, line: line), arguments: arguments,
                         environment: environment([:]), directory: workDirectory, spool: spoolDirectory)
    }

    /// The environment of every run: only what is set here (no terminal, no colour), and `extra`.
    public func environment(_ extra: [String: String]) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var environment = [
            "PATH": inherited["PATH"] ?? "/usr/bin:/bin",
            "HOME": workDirectory.path,
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
        ]
        // Only needed by toolchains whose runtime libraries are not on the binary's run path.
        for key in ["LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH"] {
            if let value = inherited[key] { environment[key] = value }
        }
        environment.merge(extra) { $1 }
        return environment
    }

    /// The built binary; fails the test when it is missing.
    public func executableURL(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        switch ReminderSimExecutable.located {
        case let .success(url):
            return url
        case let .failure(error):
            XCTFail(error.description, file: file, line: line)
            throw NotRun(reason: "the executable was not found")
        }
    }

    /// Ends a test whose run could not happen or finish; the reason was already reported with XCTFail.
    public struct NotRun: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "remindersim did not run to completion: \(reason) (see the failure above)" }
    }

    // MARK: Assertions

    /// Checks the exit status, showing the whole run when it is wrong.
    public func assertExit(_ result: CommandResult, _ expected: Int32, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.crashed, "crashed:\n\(result)", file: file, line: line)
        XCTAssertEqual(result.status, expected, "wrong exit status:\n\(result)", file: file, line: line)
    }

    /// Neither stream holds an escape sequence: output that is not a terminal gets no colour or redraws.
    public func assertNoEscapes(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.stdout.contains("\u{1B}"), "escape sequence in stdout:\n\(result)", file: file, line: line)
        XCTAssertFalse(result.stderr.contains("\u{1B}"), "escape sequence in stderr:\n\(result)", file: file, line: line)
        XCTAssertFalse(result.stderr.contains("\r"), "carriage return in stderr:\n\(result)", file: file, line: line)
    }

    public func assertContains(_ text: String, _ fragment: String, _ what: String = "output",
                        file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(text.contains(fragment), "\(what) lacks \"\(fragment)\":\n\(text)", file: file, line: line)
    }

    /// The default scenario, as `remindersim scenario` prints it, parsed with Foundation.
    public func defaultScenario(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try remindersim("scenario", file: file, line: line)
        assertExit(result, 0, file: file, line: line)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try XCTUnwrap(json as? [String: Any], "scenario output is not a JSON object", file: file, line: line)
    }
}

/// A test case with a fresh temporary folder of its own, `folder`, removed after each test (kept
/// when `keepsFolderOnFailure` and the test failed, to look at what it wrote).
open class FolderTestCase: XCTestCase {
    public private(set) var folder: URL!
    /// Starts the folder's name, so a kept folder says which tests made it.
    open var folderPrefix: String { "test" }
    open var keepsFolderOnFailure: Bool { false }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(folderPrefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override open func tearDownWithError() throws {
        if !keepsFolderOnFailure || (testRun?.hasSucceeded ?? false) { try? FileManager.default.removeItem(at: folder) }
        try super.tearDownWithError()
    }
}
