import Console
import Dispatch
import Foundation
import XCTest

/// A clock the test moves by hand.
private final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var nanoseconds: UInt64 = 0

    var now: UInt64 {
        get { lock.lock(); defer { lock.unlock() }; return nanoseconds }
        set { lock.lock(); defer { lock.unlock() }; nanoseconds = newValue }
    }
}

/// Progress text rendering, ETA arithmetic, rate limiting and thread safety.
final class ProgressBarTests: XCTestCase {
    func testDurationFormatting() {
        XCTAssertEqual(ProgressBar.formatDuration(0), "0s")
        XCTAssertEqual(ProgressBar.formatDuration(5), "5s")
        XCTAssertEqual(ProgressBar.formatDuration(59.4), "59s")
        XCTAssertEqual(ProgressBar.formatDuration(59.6), "1m00s")
        XCTAssertEqual(ProgressBar.formatDuration(65), "1m05s")
        XCTAssertEqual(ProgressBar.formatDuration(3599), "59m59s")
        XCTAssertEqual(ProgressBar.formatDuration(3725), "1h02m")
        XCTAssertEqual(ProgressBar.formatDuration(90_000), "25h00m")
        XCTAssertEqual(ProgressBar.formatDuration(nil), "--")
        XCTAssertEqual(ProgressBar.formatDuration(-1), "--")
        XCTAssertEqual(ProgressBar.formatDuration(.infinity), "--")
        XCTAssertEqual(ProgressBar.formatDuration(.nan), "--")
    }

    func testRateFormatting() {
        XCTAssertEqual(ProgressBar.formatRate(0), "0.0/s")
        XCTAssertEqual(ProgressBar.formatRate(2.5), "2.5/s")
        XCTAssertEqual(ProgressBar.formatRate(840.2), "840/s")
        XCTAssertEqual(ProgressBar.formatRate(12_345), "12.3k/s")
        XCTAssertEqual(ProgressBar.formatRate(4_100_000), "4.1M/s")
        XCTAssertEqual(ProgressBar.formatRate(.infinity), "--/s")
    }

    func testETA() {
        XCTAssertNil(ProgressBar.eta(done: 0, total: 100, elapsed: 10))
        XCTAssertNil(ProgressBar.eta(done: 10, total: 100, elapsed: 0))
        XCTAssertEqual(ProgressBar.eta(done: 25, total: 100, elapsed: 10), 30)
        XCTAssertEqual(ProgressBar.eta(done: 100, total: 100, elapsed: 10), 0)
        XCTAssertEqual(ProgressBar.eta(done: 1, total: 66, elapsed: 1), 65)
    }

    func testRenderInProgress() {
        XCTAssertEqual(ProgressBar.render(done: 25, total: 100, elapsed: 10, width: 60),
                       "[########........................]  25% 25/100 2.5/s ETA 30s")
        XCTAssertEqual(ProgressBar.render(done: 1, total: 66, elapsed: 1, width: 50, label: "sim"),
                       "sim [..................]   1% 1/66 1.0/s ETA 1m05s")
    }

    func testRenderAtStartAndEnd() {
        XCTAssertEqual(ProgressBar.render(done: 0, total: 10, elapsed: 0, width: 40),
                       "[................]   0% 0/10 --/s ETA --")
        XCTAssertEqual(ProgressBar.render(done: 10, total: 10, elapsed: 65, width: 40),
                       "[############] 100% 10/10 0.2/s in 1m05s")
    }

    func testRenderFitsTheWidth() {
        for done in stride(from: 0, through: 12_345, by: 617) {
            let line = ProgressBar.render(done: done, total: 12_345, elapsed: 3.7, width: 72, label: "users")
            XCTAssertEqual(line.count, 72, line)
        }
    }

    func testRenderNeverShowsHundredPercentEarly() {
        XCTAssertTrue(ProgressBar.render(done: 999, total: 1000, elapsed: 1, width: 80).contains(" 99% "))
        XCTAssertTrue(ProgressBar.render(done: 29, total: 100, elapsed: 1, width: 80).contains(" 29% "))
    }

    func testRenderDropsTheBarWhenTooNarrow() {
        XCTAssertEqual(ProgressBar.render(done: 5, total: 10, elapsed: 1, width: 22),
                       " 50% 5/10 5.0/s ETA 1s")
        XCTAssertEqual(ProgressBar.render(done: 5, total: 10, elapsed: 1, width: 30, label: "simulating"),
                       " 50% 5/10 5.0/s ETA 1s", "the label goes first")
        XCTAssertEqual(ProgressBar.render(done: 5, total: 10, elapsed: 1, width: 20), " 50% ETA 1s")
        XCTAssertEqual(ProgressBar.render(done: 5, total: 10, elapsed: 1, width: 5), " 50% ")
        XCTAssertEqual(ProgressBar.render(done: 5, total: 10, elapsed: 1, width: 0), " ")
    }

    /// However narrow the terminal, a line never wraps: it fits the width, down to one column.
    func testRenderNeverWraps() {
        for width in 1...120 {
            for (done, total) in [(0, 10), (5, 10), (10, 10), (123_456, 10_000_000), (9_999_999, 10_000_000)] {
                let line = ProgressBar.render(done: done, total: total, elapsed: 3_700, width: width, label: "simulating users")
                XCTAssertLessThanOrEqual(line.count, width, "\(width): \(line)")
                XCTAssertFalse(line.isEmpty)
            }
        }
    }

    func testRenderColorsOnlyTheFilledPart() {
        XCTAssertEqual(ProgressBar.render(done: 5, total: 10, elapsed: 1, width: 40, color: true),
                       "[\u{1B}[32m#######\u{1B}[0m........]  50% 5/10 5.0/s ETA 1s")
        XCTAssertFalse(ProgressBar.render(done: 0, total: 10, elapsed: 1, width: 40, color: true).contains("\u{1B}"))
    }

    func testRedrawsAreRateLimited() {
        let clock = ManualClock()
        let output = MemoryWriter()
        let bar = ProgressBar(total: 100, output: output, enabled: true, width: 50, clock: { clock.now })
        bar.advance(by: 10)
        clock.now = 50_000_000
        bar.advance(by: 10)
        clock.now = 99_000_000
        bar.advance(by: 10)
        XCTAssertEqual(output.text.filter { $0 == "\r" }.count, 1)
        clock.now = 100_000_000
        bar.advance(by: 10)
        XCTAssertEqual(output.text.filter { $0 == "\r" }.count, 2)
        XCTAssertTrue(output.text.hasSuffix(" 40% 40/100 400/s ETA 0s\u{1B}[K"), output.text)
        XCTAssertFalse(output.text.contains("\n"))
    }

    func testFinishDrawsTheFinalLineOnce() {
        let clock = ManualClock()
        let output = MemoryWriter()
        let bar = ProgressBar(total: 4, label: "x", output: output, enabled: true, width: 40, clock: { clock.now })
        bar.advance(by: 4)
        clock.now = 2_000_000_000
        bar.finish()
        bar.finish()
        bar.advance(by: 1)
        XCTAssertEqual(output.text.components(separatedBy: "\r").last, "x [###############] 100% 4/4 2.0/s in 2s\u{1B}[K\n")
        XCTAssertEqual(output.text.filter { $0 == "\n" }.count, 1)
        XCTAssertEqual(bar.completed, 5)
    }

    /// `TERM=dumb` knows no escape sequences: the bar redraws with `\r` alone and blanks a longer
    /// previous line with spaces.
    func testADumbTerminalGetsNoEscapes() {
        XCTAssertFalse(ConsoleIO.standard(environment: ["TERM": "dumb"]).stderrUnderstandsEscapes)
        XCTAssertTrue(ConsoleIO.standard(environment: ["TERM": "xterm"]).stderrUnderstandsEscapes)
        let clock = ManualClock()
        let output = MemoryWriter()
        let bar = ProgressBar(total: 1_000, label: "x", output: output, enabled: true, color: true, escapes: false,
                              width: 30, clock: { clock.now })
        clock.now = 1_000_000_000
        bar.advance(by: 1)
        clock.now = 90_000_000_000
        bar.advance(by: 999)
        bar.finish()
        XCTAssertFalse(output.text.contains("\u{1B}"), output.text)
        let lines = output.text.dropLast().components(separatedBy: "\r").dropFirst()
        XCTAssertEqual(lines.count, 3)
        for (previous, next) in zip(lines, lines.dropFirst()) {
            XCTAssertGreaterThanOrEqual(next.count, previous.trimmingCharacters(in: .whitespaces).count, output.text)
        }
        XCTAssertTrue(output.text.hasSuffix("\n"))
    }

    func testDisabledBarIsSilentButCounts() {
        let output = MemoryWriter()
        let bar = ProgressBar(total: 10, output: output, enabled: false)
        bar.advance(by: 3)
        bar.finish()
        XCTAssertEqual(output.text, "")
        XCTAssertEqual(bar.completed, 3)
    }

    func testConsoleWithoutTerminalGivesSilentBar() {
        let err = MemoryWriter()
        let bar = ProgressBar(total: 10, io: ConsoleIO(stdout: MemoryWriter(), stderr: err))
        bar.advance(by: 10)
        bar.finish()
        XCTAssertEqual(err.text, "")
    }

    func testConcurrentAdvancesAreAllCounted() {
        let output = MemoryWriter()
        let bar = ProgressBar(total: 7_000, output: output, enabled: true)
        DispatchQueue.concurrentPerform(iterations: 1_000) { _ in bar.advance(by: 7) }
        bar.finish()
        XCTAssertEqual(bar.completed, 7_000)
        XCTAssertTrue(output.text.contains("100% 7000/7000"))
    }
}
