import Foundation
import Reporting
import Simulation
import SimulationTestSupport
import Storage
import XCTest

/// What the reports say about a run whose virtual users replay recorded users.
final class ReplayReportTests: XCTestCase {
    func replayRun(keepTotals: Bool = true) throws -> StoredRun {
        let s = ReplayFixture.scenario(users: 2_000, seed: 71)
        let daily = ReplayFixture.draw(recordedUsers: 50, dailyShare: 0.3, seed: 72)
        var t = try CompiledModel(s, recorded: ReplayFixture.logs(daily: daily)).run(options: RunOptions(threads: 2))
        if !keepTotals { t.recordedUserSums = nil }
        return StoredRun(id: 3, record: RunRecord(results: RunResults(scenario: s, tallies: t), toolVersion: "test",
                                                  createdAt: "", wallSeconds: 1, threads: 2))
    }

    func testEveryReportStatesTheIndependentUsersAndTheClustering() throws {
        let stored = try replayRun()
        let summary = try XCTUnwrap(stored.results.replaySummary)
        let effect = try XCTUnwrap(summary.designEffect)
        let effective = Text.group(try XCTUnwrap(summary.effectiveUsers))
        XCTAssertGreaterThan(effect, 2)
        let sentence = try XCTUnwrap(ReplayReport.sentence(stored.results))
        XCTAssertTrue(sentence.contains("replay 50 recorded users"), sentence)
        XCTAssertTrue(sentence.contains("clustered by recorded user"), sentence)
        XCTAssertTrue(sentence.contains(String(format: "%.2f", effect)), sentence)
        XCTAssertTrue(sentence.contains("about \(effective) independent users"), sentence)

        let markdown = MarkdownReport.render(stored)
        XCTAssertTrue(markdown.contains("| Independent users | about \(effective) (design effect"), markdown)
        XCTAssertTrue(markdown.contains("clustered by recorded user"))
        let html = HTMLReport.render(markdown: markdown, charts: [:], title: "t")
        XCTAssertTrue(html.contains("clustered by recorded user"))
        let text = SummaryText.render(stored.results, wallSeconds: 1, threads: 2)
        XCTAssertTrue(text.contains("about \(effective) independent users"), text)

        let json = try JSONSerialization.jsonObject(with: Data(RunJSON.render(stored.results, runID: 3, report: nil).utf8))
        let replay = try XCTUnwrap((json as? [String: Any])?["replay"] as? [String: Any])
        XCTAssertEqual(replay["intervals"] as? String, "clustered by recorded user")
        XCTAssertEqual(replay["recordedUsersReplayed"] as? Int, 50)
        XCTAssertEqual(replay["effectiveUsers"] as? Int, Int(try XCTUnwrap(summary.effectiveUsers)))
        let d = try XCTUnwrap(replay["designEffect"] as? [String: Any])
        XCTAssertEqual(d["measure"] as? String, "opensLiftPerUser")
        XCTAssertEqual(try XCTUnwrap(d["value"] as? Double), effect, accuracy: 1e-12)
    }

    /// A replay run stored before the totals were kept says its intervals are too narrow.
    func testARunWithoutTotalsSaysItsIntervalsAreTooNarrow() throws {
        let stored = try replayRun(keepTotals: false)
        let sentence = try XCTUnwrap(ReplayReport.sentence(stored.results))
        XCTAssertTrue(sentence.contains("too narrow"), sentence)
        let json = try JSONSerialization.jsonObject(with: Data(RunJSON.render(stored.results, runID: 3, report: nil).utf8))
        let replay = try XCTUnwrap((json as? [String: Any])?["replay"] as? [String: Any])
        XCTAssertEqual(replay["intervals"] as? String, "independent virtual users")
    }

    /// A run that replays nobody says nothing about it.
    func testARunWithoutReplaySaysNothing() throws {
        var s = ReplayFixture.scenario(users: 200, seed: 73, extraSegment: 1)
        s.population.segments.removeFirst()
        let results = RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2)))
        XCTAssertNil(ReplayReport.sentence(results))
        let json = try JSONSerialization.jsonObject(with: Data(RunJSON.render(results, runID: nil, report: nil).utf8))
        let document = try XCTUnwrap(json as? [String: Any])
        XCTAssertNotNil(document["versusBaseline"])
        XCTAssertNil(document["replay"])
    }
}
