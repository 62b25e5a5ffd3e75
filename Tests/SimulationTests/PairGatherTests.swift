import Randomness
@testable import Simulation
import XCTest

/// Gathering the pairs' terms over users (`PairGather`) gives the counters adding them pair by pair
/// gives, to the integer.
final class PairGatherTests: XCTestCase {
    /// Random users' inputs under four configurations: every counter of every pair, gathered and
    /// added in one go or in several, equals the sum of the users' terms added one by one.
    func testGatheredPairsEqualPairsAddedOneByOne() {
        let k = 4
        let layout = UserSumsLayout(segments: 1, messageSlots: Array(repeating: 0, count: k),
                                    periodSlots: Array(repeating: 0, count: k), days: 10, pairs: .against([0, 2]))
        var gathered = [Int64](repeating: 0, count: layout.count), direct = gathered
        var gather = PairGather(configurations: k, pairs: layout.pairList.count)
        defer { gather.deallocate() }
        let inputs = UnsafeMutablePointer<PairTermInputs>.allocate(capacity: k)
        defer { inputs.deallocate() }
        var rng = Xoshiro256(seed: 7)
        for user in 0..<5_000 {
            // Eligibility is the user's; retention only on eligible days.
            let eligible = UInt8(truncatingIfNeeded: rng.next() % 4) & (rng.next() % 2 == 0 ? 3 : 1)
            for i in 0..<k {
                let retained = UInt8(truncatingIfNeeded: rng.next() % 4) & eligible
                inputs[i] = PairTermInputs(opens: Int64(rng.next() % 40), delivered: Int64(rng.next() % 9),
                                           optedOut: rng.next() % 5 == 0, days: eligible | retained << 2)
            }
            gathered.withUnsafeMutableBufferPointer { gather.add(inputs, pairs: layout.pairList, into: $0.baseAddress! + layout.pair(at: 0)) }
            direct.withUnsafeMutableBufferPointer { d in
                for (p, pair) in layout.pairList.enumerated() {
                    PairTermInputs.add(inputs[pair.a], inputs[pair.b], into: d.baseAddress! + layout.pair(at: p))
                }
            }
            // Turned into pairs now and then, as a full gather is.
            if user % 1_237 == 0 {
                gathered.withUnsafeMutableBufferPointer { gather.addPairs(into: $0.baseAddress! + layout.pair(at: 0), pairs: layout.pairList) }
            }
        }
        gathered.withUnsafeMutableBufferPointer { gather.addPairs(into: $0.baseAddress! + layout.pair(at: 0), pairs: layout.pairList) }
        XCTAssertEqual(gathered, direct)
        XCTAssertEqual(direct[layout.pair(at: 0) + PairCounter.users.rawValue], 5_000)
        for counter in PairCounter.allCases where counter != .users {
            XCTAssertNotEqual(direct[layout.pair(at: 1) + counter.rawValue], 0, "\(counter) is exercised")
        }
    }

    /// More users than a gather's fields hold between two additions: the recorder adds its pairs
    /// when the gather is full, so no count wraps into the next field.
    func testAFullGatherIsAddedBeforeItsFieldsOverflow() {
        let layouts = [TallyLayout(messageSlots: 0, periodSlots: 0, cronRules: 0, days: 10),
                       TallyLayout(messageSlots: 1, periodSlots: 1, cronRules: 0, days: 10)]
        let sumsLayout = UserSumsLayout(segments: 1, messageSlots: [0, 1], periodSlots: [0, 1], days: 10, pairs: .all,
                                        keepsDetail: false)
        func sums(gathering: Bool) -> [Int64] {
            let recorder = UserSumsRecorder(layouts: layouts, detail: false, segments: false,
                                            gatheredPairs: gathering ? sumsLayout.pairList.count : nil)
            defer { recorder.deallocate() }
            var counts = [Int64](repeating: 0, count: sumsLayout.count)
            // Every user retained on days 7 and 30 under both: each of those fields counts every user.
            var o = UserOutcome()
            o.eligibleThrough = 30
            o.retainedDays = 1 << 6 | 1 << 29
            o.opens = 3
            let outcomes = [o, o]
            counts.withUnsafeMutableBufferPointer { c in
                outcomes.withUnsafeBufferPointer { out in
                    for _ in 0..<(PairGather.maximumUsers + 3) {
                        recorder.finish(segment: 0, outcomes: out, into: c.baseAddress!, sumsLayout)
                    }
                }
                recorder.addGatheredPairs(into: c.baseAddress!, sumsLayout)
            }
            return counts
        }
        let direct = sums(gathering: false), gathered = sums(gathering: true)
        XCTAssertEqual(gathered, direct)
        let pair = sumsLayout.pair(at: 0)
        XCTAssertEqual(direct[pair + PairCounter.users.rawValue], Int64(PairGather.maximumUsers + 3))
        XCTAssertEqual(direct[pair + PairCounter.eligibleD30.rawValue], Int64(PairGather.maximumUsers + 3))
        XCTAssertEqual(gathered[pair + PairCounter.retainedD30OnlyA.rawValue], 0)
    }

    /// Whole runs: the default scenario with more configurations and a strong response (opt-outs,
    /// retention gained and lost), every pair and pairs against references, across threads and chunks.
    func testRunsGatheringPairsEqualRunsAddingThem() throws {
        var s = Scenario.builtInDefault
        s.users = 3_000
        s.response.baseResponse = 0.4
        s.response.optOutPerDelivery = 0.05
        s.configurations += [Fixtures.reminder([2, 5], label: "2/5d"), Fixtures.reminder([4], label: "4d", mode: .original100, wiring: .early)]
        let model = try CompiledModel(s)
        for (pairs, detail) in [(PairChoice.all, true), (.decision, false)] {
            let (gathered, direct) = Fixtures.runBothWays(model, pairs: pairs, detail: detail) { CompiledModel.gathersPairs = $0 }
            XCTAssertEqual(gathered.sums, direct.sums)
            XCTAssertEqual(gathered, direct)
            let sums = try XCTUnwrap(direct.sums)
            XCTAssertGreaterThan(sums.counts[sums.layout.pair(at: 0) + PairCounter.optOutOnlyB.rawValue], 0)
        }
    }
}
