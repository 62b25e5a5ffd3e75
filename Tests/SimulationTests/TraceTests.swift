import ReminderEngine
import Simulation
import XCTest

final class TraceTests: XCTestCase {
    /// A trace is the batch run's own code path: its events add up to that user's counts in a
    /// run of just that user.
    func testTraceCountsAreTheUsersContributionToARun() throws {
        var s = Scenario.builtInDefault
        s.users = 200
        let model = try CompiledModel(s)
        for user in [0, 7, 123, 199] {
            let run = model.run(options: RunOptions(threads: 1, users: user..<(user + 1)))
            for index in model.configurations.indices {
                let trace = model.trace(user: user, configuration: index)
                let tally = run.tallies[index]
                var opens: Int64 = 0, fromNotifications: Int64 = 0, launches: Int64 = 0, scheduled: Int64 = 0
                var ends: [NotificationOutcome: Int64] = [:]
                for event in trace.events {
                    switch event {
                    case let .open(_, cause, cold):
                        opens += 1
                        if cause == .notification { fromNotifications += 1 }
                        if cold { launches += 1 }
                    case .scheduled: scheduled += 1
                    case let .ended(_, _, outcome): ends[outcome, default: 0] += 1
                    default: break
                    }
                }
                let what = "user \(user), configuration \(index)"
                XCTAssertEqual(opens, tally[.opens], what)
                XCTAssertEqual(fromNotifications, tally[.responded], what)
                XCTAssertEqual(launches, tally[.launches], what)
                XCTAssertEqual(scheduled, tally[.scheduled], what)
                XCTAssertEqual(ends[.cancelled, default: 0], tally[.cancelled], what)
                XCTAssertEqual(ends[.delivered, default: 0], tally[.delivered], what)
                XCTAssertEqual(ends[.foreground, default: 0], tally[.foreground], what)
                XCTAssertEqual(ends[.suppressed, default: 0], tally[.suppressed], what)
                XCTAssertEqual(ends[.censored, default: 0], tally[.censored], what)
                // Everything the timeline itself counts is identical, layout slot by slot.
                let paired: Set<Int> = Set([Counter.opensLiftSum, .opensLiftSquares, .gainedD1, .lostD1, .gainedD7,
                                            .lostD7, .gainedD30, .lostD30, .retainedD1, .eligibleD1, .retainedD7,
                                            .eligibleD7, .retainedD30, .eligibleD30].map(\.rawValue))
                let curve = tally.layout.curveRetainedOffset..<tally.layout.count
                for i in tally.counts.indices where !paired.contains(i) && !curve.contains(i) {
                    XCTAssertEqual(trace.tally.counts[i], tally.counts[i], "\(what), slot \(i)")
                }
            }
        }
    }

    func testShardsCoverEveryUserOnce() {
        for users in [0, 1, 7, 100, 1_000_003] {
            for count in [1, 3, 7] {
                let ranges = (1...count).map { Shard(index: $0, count: count)!.users(of: users) }
                XCTAssertEqual(ranges.first?.lowerBound, 0)
                XCTAssertEqual(ranges.last?.upperBound, users)
                for (a, b) in zip(ranges, ranges.dropFirst()) { XCTAssertEqual(a.upperBound, b.lowerBound) }
            }
        }
        XCTAssertEqual(Shard("2/3"), Shard(index: 2, count: 3))
        for bad in ["0/0", "4/3", "-1/2", "a/b", "1/", "/2", "1/2/3", "0/3", " 1/3"] {
            XCTAssertNil(Shard(bad), bad)
        }
    }
}
