import Console
import Foundation
@testable import ReminderSimCLI
@testable import Simulation
import XCTest

/// The ETA of tune's progress lines: the estimate made before the search (less the time since) until
/// a twentieth of the planned work is done, the work done after.
final class TuneProgressTests: XCTestCase {
    func progress(phase: String, simulated: Double, planned: Double) -> TuneProgress {
        TuneProgress(stage: 1, stages: 4, users: 1_562, evaluated: 0, entered: 5_657, left: 5_657,
                     simulated: simulated, planned: planned, phase: phase)
    }

    func testTheEtaStartsFromTheEstimateThenFollowsTheWorkDone() throws {
        let err = MemoryWriter()
        let printer = ProgressPrinter(io: ConsoleIO(stdout: MemoryWriter(), stderr: err), estimate: 3_600)
        // The first batch has done a thousandth of the work: extrapolated, its time would give hours
        // or nothing, whatever the estimate; the estimate stands (an hour, less the moments since).
        printer.show(progress(phase: "race", simulated: 1_000, planned: 1_000_000))
        // A new phase writes a line at once; past a twentieth of the work, the ETA is read off the
        // work done: this test has taken far less than a second, so nearly nothing is left.
        printer.show(progress(phase: "final", simulated: 600_000, planned: 1_000_000))
        let lines = err.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, err.text)
        XCTAssertTrue(lines[0].hasPrefix("tune: stage 1/4 at 1,562 users: 0 of 5,657 evaluated, 5,657 left, ETA "), lines[0])
        let first = try XCTUnwrap(lines[0].components(separatedBy: "ETA ").last)
        XCTAssertTrue(["1h00m", "59m59s", "59m58s"].contains(first), first)
        XCTAssertTrue(lines[1].hasSuffix("final at 1,562 users, 5,657 candidates, ETA 0s"), lines[1])
    }
}
