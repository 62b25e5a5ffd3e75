import Foundation
@testable import Simulation
import XCTest

/// The tune space's parts: inactivity sequences, mixes of a reminder and a sequence, their counts,
/// and how the block is read and refused.
final class TuneSpaceTests: XCTestCase {
    func space(_ text: String) throws -> Tuner {
        try Tuner(scenario: TuneTests.scenario(users: 100, space: text), threads: 1)
    }

    /// Every growing choice of 1 to 3 days out of 1 to 6: C(6,1) + C(6,2) + C(6,3) = 6 + 15 + 20.
    func testSequencesAreEveryGrowingChoiceOfDays() throws {
        let sequences = TuneSequences(steps: TuneRange(min: 1, max: 3), afterDays: TuneRange(min: 1, max: 6))
        XCTAssertEqual(sequences.count, 41)
        let all = sequences.all()
        XCTAssertEqual(all.count, 41)
        XCTAssertEqual(Set(all.map { $0.map(String.init).joined(separator: "/") }).count, 41)
        XCTAssertTrue(all.allSatisfy { zip($0, $0.dropFirst()).allSatisfy { $0 < $1 } })
        XCTAssertEqual(all.first, [1])
        XCTAssertEqual(all.last, [4, 5, 6])
        // Saturates instead of overflowing: C(10⁹, 16) is far beyond Int.
        XCTAssertEqual(TuneSequences(steps: TuneRange(min: 16, max: 16), afterDays: TuneRange(min: 1, max: 1_000_000_000)).count, Int.max)
        XCTAssertEqual(TuneSequences(steps: TuneRange(min: 4, max: 5), afterDays: TuneRange(min: 1, max: 3)).count, 0)
    }

    func testTheSpaceStatesItsSizePerPart() throws {
        let tuner = try space(#"{"periods": {"min": 1, "max": 3}, "sequences": {"steps": {"min": 1, "max": 2}, "afterDays": {"min": 1, "max": 4}}, "mix": {"periods": {"min": 2, "max": 3}}, "delivery": [{}, {"frequencyCap": {"max": 2, "perDays": 7}}]}"#)
        // 3 periods and 10 sequences, each with 2 policies. Mixes: a reminder of 2 or 3 days beside a
        // sequence without that day whose union is not itself a sequence of ≤ 2 steps, so only the
        // two-step ones: 3 lack day 2, 3 lack day 3; with one message they are the three-step unions,
        // 1/2/3, 1/2/4, 2/3/4 and 1/3/4, each once.
        XCTAssertEqual(tuner.parts, [TunePart(name: "timePeriods", candidates: 6), TunePart(name: "sequences", candidates: 20),
                                     TunePart(name: "mix", candidates: 8), TunePart(name: "listed", candidates: 6)])
        let sequence = try XCTUnwrap(tuner.candidates.first { $0.label == "seq 1/4d delivery 2" })
        XCTAssertEqual(sequence.reminders.map(\.timePeriods), [[1], [4]])
        XCTAssertEqual(sequence.delivery.frequencyCap, DeliveryPolicy.FrequencyCap(max: 2, perDays: 7))
        let mix = try XCTUnwrap(tuner.candidates.first { $0.label == "2d + seq 1/3d delivery 1" })
        XCTAssertEqual(mix.reminders.map(\.timePeriods), [[2], [1], [3]])
        XCTAssertEqual(Set(mix.reminders.map(\.appDomain)).count, 3, "each reminder keeps its own state")
        XCTAssertFalse(tuner.candidates.contains { $0.label.hasPrefix("2d + seq 2/") }, "a reminder firing with a step")
        XCTAssertFalse(tuner.candidates.contains { $0.label.hasPrefix("3d + seq 1/2d") }, "the same as 2d + seq 1/3d")
        // The listed 1/3/7-day sequence is outside afterDays 1–4: it is added.
        XCTAssertTrue(tuner.candidates.contains { $0.label == "1/3/7d sequence" })
        // A mix reads back as a configuration of reminders.
        var s = tuner.scenario
        s.tune = nil
        s.configurations = [mix]
        s.baseline = nil
        XCTAssertEqual(try Scenario.decode(try s.canonicalJSON()).configurations, [mix])
    }

    func testAListedSequenceTheSpaceHoldsIsThatCandidate() throws {
        let tuner = try space(#"{"sequences": {"steps": {"min": 3, "max": 3}, "afterDays": {"min": 1, "max": 7}}}"#)
        XCTAssertEqual(tuner.parts, [TunePart(name: "sequences", candidates: 35), TunePart(name: "listed", candidates: 6)])
        let listed = try XCTUnwrap(tuner.listed.first { $0.label == "1/3/7d sequence" })
        XCTAssertEqual(tuner.candidates[listed.candidate].label, "seq 1/3/7d")
        XCTAssertEqual(tuner.candidates.count, 35 + 5, "the five single periods are added, the sequence is not")
    }

    func testTheSpaceBlockReadsBackFromCanonicalJSON() throws {
        let s = try TuneTests.scenario(users: 100, space: #"{"sequences": {"steps": {"min": 1, "max": 2}, "afterDays": {"min": 2, "max": 9}}, "mix": {"periods": {"min": 1, "max": 2}}}"#)
        XCTAssertEqual(try Scenario.decode(try s.canonicalJSON()), s)
    }

    func testBadSpacesAreRefusedWithTheReason() {
        let cases = [
            (#"{"unit": "days"}"#, #"tune.space: needs "periods", "sequences" or both"#),
            (#"{"periods": {"min": 1, "max": 2}, "mix": {"periods": {"min": 1, "max": 2}}}"#, #"tune.space.mix: mixes a reminder with each sequence: give "sequences" too"#),
            (#"{"unit": "hours", "sequences": {"steps": {"min": 1, "max": 2}, "afterDays": {"min": 1, "max": 2}}}"#, #"tune.space.sequences: inactivity sequences count days"#),
            (#"{"sequences": {"steps": {"min": 1, "max": 17}, "afterDays": {"min": 1, "max": 2}}}"#, "tune.space.sequences.steps.max"),
            (#"{"sequences": {"steps": {"min": 1, "max": 2}, "afterDays": {"min": 0, "max": 2}}}"#, "tune.space.sequences.afterDays.min"),
            (#"{"sequences": {"steps": {"min": 1, "max": 2}}}"#, "tune.space.sequences.afterDays: required field is missing"),
        ]
        for (space, expected) in cases {
            XCTAssertThrowsError(try TuneTests.scenario(users: 100, space: space), space) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(space): \(error)")
            }
        }
    }

    /// A space too large to enumerate is refused from its count, before any sequence is made.
    func testAHugeSequenceSpaceIsRefusedBeforeItIsMade() throws {
        let s = try TuneTests.scenario(users: 100, space: #"{"sequences": {"steps": {"min": 1, "max": 16}, "afterDays": {"min": 1, "max": 1000000}}}"#)
        XCTAssertThrowsError(try Tuner(scenario: s, threads: 1)) { error in
            XCTAssertTrue("\(error)".contains("too many"), "\(error)")
        }
    }
}

/// The reasons a tune gives count users as the reports do.
final class TuneReasonTextTests: XCTestCase {
    func testCountsAreGroupedByThousands() {
        XCTAssertEqual([0, 7, 999, 1_000, 1_250, 20_000, 1_234_567, -4_500].map(Tuner.grouped),
                       ["0", "7", "999", "1,000", "1,250", "20,000", "1,234,567", "-4,500"])
    }
}
