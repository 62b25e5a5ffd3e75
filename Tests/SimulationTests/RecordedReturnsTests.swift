import Foundation
import ReminderEngine
import ScenarioData
import Simulation
import ReminderSimTestSupport
import XCTest

/// Returns taken from recorded logs: replayed timelines and resampled gaps.
final class RecordedReturnsTests: FolderTestCase {
    override var folderPrefix: String { "recorded" }

    /// A log of `users` users, user u visiting on days 0, u+1, 2(u+1), … from 2024-01-01 until the end.
    func writeLog(users: Int, days: Int) throws -> (name: String, visitDays: [[Int]]) {
        var lines = ["user,time"]
        var all: [[Int]] = []
        for u in 0..<users {
            let visits = Array(stride(from: 0, to: days, by: u + 1))
            all.append(visits)
            for d in visits.reversed() {  // deliberately not in time order
                lines.append("u\(u),\(CalendarDate(daysSinceEpoch: 19_723 + d).description)T12:00:00Z")
            }
        }
        try lines.joined(separator: "\n").write(to: folder.appendingPathComponent("log.csv"), atomically: true, encoding: .utf8)
        return ("log.csv", all)
    }

    func scenario(_ returns: ReturnProcess, users: Int = 400, days: Int = 60) -> Scenario {
        var population = Fixtures.population(returns, spread: 0)
        population.segments[0].coldLaunchAfterMinutes = 30
        return Fixtures.scenario(users: users, days: days, population: population,
                                 configurations: [Fixtures.reminder([3])])
    }

    /// The model of `s`, with the recorded logs it names read from the test's folder.
    func model(_ s: Scenario) throws -> CompiledModel {
        try CompiledModel(s, recorded: RecordedLogs.read(for: s, folder: folder.path))
    }

    static let format = RecordedFormat.delimited(DelimitedFormat(user: .name("user"), time: .name("time")))

    /// Replayed users keep their place in the recording when the holdout takes over from a
    /// configuration's run of them.
    func testTheHoldoutOfReplayedUsersIsTheHoldoutSimulated() throws {
        let (name, _) = try writeLog(users: 9, days: 200)
        var s = scenario(.replay(RecordedSource(path: name, format: Self.format, observationEnd: "2024-07-18")),
                         users: 600, days: 60)
        s.response.baseResponse = 0.2
        assertHoldoutAsSimulated(try model(s))
    }

    func testReplayedUsersVisitExactlyWhenTheirRecordingSays() throws {
        let (name, visitDays) = try writeLog(users: 5, days: 200)
        let source = RecordedSource(path: name, format: Self.format, observationEnd: "2024-07-18")
        let s = scenario(.replay(source))
        let model = try model(s)
        let t = model.run().tallies[0]
        // Every virtual user follows one recorded user; the holdout sees exactly their visits that fall
        // inside the 60 days.
        var expected: Int64 = 0
        for user in 0..<s.users {
            let trace = model.trace(user: user, configuration: 0)
            let opens = trace.events.compactMap { e -> Double? in
                if case let .open(at, _, _) = e { return at } else { return nil }
            }
            let gaps = zip(opens, opens.dropFirst()).map { ($1 - $0) / 86_400 }
            let recorded = visitDays.first { days in
                let inside = days.filter { Double($0) * 86_400 < Double(s.horizonDays) * 86_400 }
                return inside.count == opens.count
                    && zip(inside, inside.dropFirst()).map { Double($1 - $0) } == gaps
            }
            XCTAssertNotNil(recorded, "user \(user) does not follow any recorded timeline: \(gaps)")
            expected += Int64(opens.count)
        }
        XCTAssertEqual(t[.opens], expected)
        XCTAssertEqual(t[.organicOpens], expected)
    }

    func testANotificationResponseAddsAVisitToAReplayedTimeline() throws {
        let (name, _) = try writeLog(users: 5, days: 200)
        var s = scenario(.replay(RecordedSource(path: name, format: Self.format, observationEnd: "2024-07-18")))
        s.response = ResponseModel(baseResponse: 1, fatigue: 1, quietHours: nil, optOutPerDelivery: 0)
        let t = try model(s).run().tallies
        XCTAssertGreaterThan(t[1][.responded], 0)
        XCTAssertEqual(t[1][.organicOpens], t[0][.organicOpens], "recorded visits are kept, not replaced")
        XCTAssertEqual(t[1][.opens], t[0][.opens] + t[1][.responded])
    }

    func testReplayNeedsRecordingsAsLongAsTheRun() throws {
        let (name, _) = try writeLog(users: 3, days: 30)
        let s = scenario(.replay(RecordedSource(path: name, format: Self.format)), days: 60)
        XCTAssertThrowsError(try model(s)) { error in
            let e = error as? RecordedDataError
            XCTAssertEqual(e?.kind, .badData)
            XCTAssertTrue(e?.message.contains("no recorded user was observed for the whole run (60 days)") ?? false, "\(error)")
            XCTAssertEqual(e?.scenarioPath, "population.segments[0].returns.data")
        }
    }

    /// The simulation reads no file: a model compiled without the log its scenario names cannot be built.
    func testALogNotReadIsNamed() throws {
        let s = scenario(.recordedGaps(RecordedSource(path: "log.csv", format: Self.format)))
        XCTAssertThrowsError(try CompiledModel(s)) { error in
            let e = error as? RecordedDataError
            XCTAssertEqual(e?.kind, .missing)
            XCTAssertEqual(e?.scenarioPath, "population.segments[0].returns.data")
            XCTAssertEqual(e?.message, "log.csv: the recorded log was not read")
        }
    }

    func testMissingAndBrokenLogsAreNamed() throws {
        let missing = scenario(.recordedGaps(RecordedSource(path: "nowhere.csv", format: Self.format)))
        XCTAssertThrowsError(try model(missing)) {
            XCTAssertEqual(($0 as? RecordedDataError)?.kind, .missing)
        }
        try "user,time\nu1,2024-01-01T00:00:00Z\nu1,not a time\n".write(
            to: folder.appendingPathComponent("bad.csv"), atomically: true, encoding: .utf8)
        let bad = scenario(.recordedGaps(RecordedSource(path: "bad.csv", format: Self.format)))
        XCTAssertThrowsError(try model(bad)) { error in
            XCTAssertEqual((error as? RecordedDataError)?.kind, .badData)
            XCTAssertTrue("\(error)".contains(":3:"), "names the line: \(error)")
        }
    }

    /// Resampled gaps follow the recorded gap distribution, and a user whose draw lies beyond the
    /// longest recorded return drops out: with every user's last gap censored, the Kaplan–Meier
    /// estimate leaves exactly that share of draws without a return.
    func testResampledGapsFollowTheRecordedDistribution() throws {
        // Two users: one returns every 2 days for 200 days, the other never comes back.
        var lines = ["user,time"]
        for d in stride(from: 0, to: 200, by: 2) { lines.append("a,\(CalendarDate(daysSinceEpoch: 19_723 + d))T08:00:00Z") }
        lines.append("b,2024-01-01T08:00:00Z")
        try lines.joined(separator: "\n").write(to: folder.appendingPathComponent("two.csv"), atomically: true, encoding: .utf8)
        let source = RecordedSource(path: "two.csv", format: Self.format, observationEnd: "2024-07-18")
        let s = scenario(.recordedGaps(source), users: 4_000, days: 30)
        let t = try model(s).run().tallies[0]
        // Gaps: 99 of 2 days (uncensored), a's last (censored) and b's only (censored, 199 days):
        // S(2) = 1 − 99/101, and the curve stays there; so P(no return) = 2/101 per gap.
        let pNever = 2.0 / 101
        // Each user's returns form a geometric count: the expected number of opens per user until the
        // first "never", capped by the horizon of 30 days at one return every 2 days (15 returns).
        var expectedOpens = 0.0, alive = 1.0
        for _ in 0..<15 { alive *= 1 - pNever; expectedOpens += alive }
        let perUser = Double(t[.opens]) / Double(s.users) - 1
        // Opens per user are bounded in [0, 15], so 15/√n bounds 3 standard errors generously.
        XCTAssertEqual(perUser, expectedOpens, accuracy: 3 * 15 / Double(s.users).squareRoot() / 2)
    }
}
