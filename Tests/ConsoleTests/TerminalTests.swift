import Console
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Terminal detection against a real pseudo-terminal and a pipe.
final class TerminalTests: XCTestCase {
    private var controller: Int32 = -1
    private var terminal: Int32 = -1
    private let pipe = Pipe()

    override func setUpWithError() throws {
        guard let pair = Self.openPseudoTerminal() else { throw XCTSkip("no pseudo-terminal available") }
        (controller, terminal) = pair
    }

    private static func openPseudoTerminal() -> (Int32, Int32)? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        // Glibc's Swift module leaves out posix_openpt, unlockpt and ptsname, so talk to the kernel directly;
        // these request numbers (TIOCSPTLCK, TIOCGPTN) hold on x86_64 and arm64.
        let unlockRequest: UInt = 0x4004_5431
        let numberRequest: UInt = 0x8004_5430
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard controller >= 0 else { return nil }
        var locked: Int32 = 0
        var number: Int32 = 0
        let terminal = ioctl(controller, unlockRequest, &locked) == 0 && ioctl(controller, numberRequest, &number) == 0
            ? open("/dev/pts/\(number)", O_RDWR | O_NOCTTY) : -1
        guard terminal >= 0 else {
            close(controller)
            return nil
        }
        return (controller, terminal)
        #else
        return nil
        #endif
    }

    override func tearDown() {
        if terminal >= 0 { close(terminal) }
        if controller >= 0 { close(controller) }
    }

    private var pipeFD: Int32 { pipe.fileHandleForWriting.fileDescriptor }

    func testInteractiveOnlyForTerminals() {
        XCTAssertTrue(Terminal.isInteractive(fd: terminal))
        XCTAssertFalse(Terminal.isInteractive(fd: pipeFD))
    }

    func testColorFollowsTheTerminalAndNoColorConvention() {
        XCTAssertTrue(Terminal.colorEnabled(environment: ["TERM": "xterm-256color"], fd: terminal))
        XCTAssertTrue(Terminal.colorEnabled(environment: [:], fd: terminal))
        XCTAssertTrue(Terminal.colorEnabled(environment: ["NO_COLOR": ""], fd: terminal), "empty NO_COLOR is ignored")
        XCTAssertFalse(Terminal.colorEnabled(environment: ["NO_COLOR": "1"], fd: terminal))
        XCTAssertFalse(Terminal.colorEnabled(environment: ["NO_COLOR": "0"], fd: terminal), "any non-empty value counts")
        XCTAssertFalse(Terminal.colorEnabled(environment: ["TERM": "dumb"], fd: terminal))
        XCTAssertFalse(Terminal.colorEnabled(environment: [:], fd: pipeFD))
    }

    func testWidth() {
        var size = winsize(ws_row: 24, ws_col: 123, ws_xpixel: 0, ws_ypixel: 0)
        XCTAssertEqual(ioctl(terminal, UInt(TIOCSWINSZ), &size), 0)
        XCTAssertEqual(Terminal.width(fd: terminal), 123)
        XCTAssertNil(Terminal.width(fd: pipeFD))
    }
}
