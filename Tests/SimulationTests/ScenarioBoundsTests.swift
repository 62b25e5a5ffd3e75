import Foundation
import GapFamilies
import ReminderEngine
import Simulation
import XCTest

/// Gaps, sessions and delays shorter than a person can manage are refused, and a run stops any user
/// who reaches the session limit, so every scenario that validates runs in time proportional to
/// users × days.
final class ScenarioBoundsTests: XCTestCase {
    func paths(_ scenario: Scenario) -> [String] { scenario.semanticIssues().map(\.path) }

    func scenario(_ returns: ReturnProcess, sessionMinutes: Double = 1.0 / 60, delayMinutes: Double = 30,
                  days: Int = 30, users: Int = 1) -> Scenario {
        var population = Fixtures.population(returns, spread: 0)
        population.segments[0].sessionLength = SessionLength(medianMinutes: sessionMinutes, sigma: 0.01)
        var response = Fixtures.inert
        response.responseDelayMinutes = delayMinutes
        return Fixtures.scenario(users: users, days: days, population: population, response: response,
                                 configurations: [Fixtures.reminder([1])])
    }

    func testGapsSessionsAndDelaysShorterThanASecondAreRefusedNamingTheField() {
        let segment = "population.segments[0]"
        // The report's example: both far below a second, in minutes.
        XCTAssertEqual(paths(scenario(.exponential(mean: 1e-300, unit: .minutes), sessionMinutes: 1e-300)),
                       ["\(segment).sessionLength.medianMinutes", "\(segment).returns.mean"])
        XCTAssertEqual(paths(scenario(.exponential(mean: 1e-6, unit: .minutes))), ["\(segment).returns.mean"])
        XCTAssertEqual(paths(scenario(.weibull(shape: 0.9, scale: 1e-8, unit: .days))), ["\(segment).returns.scale"])
        XCTAssertEqual(paths(scenario(.lognormal(mu: -50, sigma: 3, unit: .hours))), ["\(segment).returns"])
        let gamma = scenario(.parametric(.gamma, values: [0.05, 1e-300], unit: .minutes))
        XCTAssertEqual(paths(gamma), ["\(segment).returns.mean"])
        XCTAssertThrowsError(try CompiledModel(gamma), "refused, not compiled into a sampler that cannot be built")
        XCTAssertEqual(paths(scenario(.bgnbd(r: 2, alpha: 1e-7, a: 1, b: 3, unit: .days))), ["\(segment).returns.alpha"])
        XCTAssertEqual(paths(scenario(.empirical(values: [1e-9, 2e-9], weights: nil, unit: .minutes))),
                       ["\(segment).returns.values"])
        XCTAssertEqual(paths(scenario(.exponential(mean: 1, unit: .days), delayMinutes: 1e-5)),
                       ["response.responseDelayMinutes"])
        let reason = scenario(.exponential(mean: 1e-6, unit: .minutes)).semanticIssues().first?.reason ?? ""
        XCTAssertTrue(reason.contains("at least 1 second"), reason)
    }

    func testOneSecondIsAccepted() {
        XCTAssertEqual(paths(scenario(.exponential(mean: 1, unit: .minutes))), [])
        XCTAssertEqual(paths(scenario(.exponential(mean: 1.0 / 60, unit: .minutes), delayMinutes: 1.0 / 60)), [])
        XCTAssertEqual(paths(scenario(.lognormal(mu: log(1.0 / 60), sigma: 0.1, unit: .minutes))), [])
        XCTAssertEqual(paths(scenario(.parametric(.gamma, values: [50, 1.0 / 60], unit: .minutes))), [])
        XCTAssertEqual(paths(scenario(.bgnbd(r: 1, alpha: 1.0 / 86_400, a: 1, b: 3, unit: .days))), [])
    }

    /// Gaps and sessions of one second validate, but give some 43,000 sessions a day: the run stops the
    /// user at the limit instead of simulating for as long as that takes.
    func testAUserIsStoppedAtTheSessionLimit() throws {
        let model = try CompiledModel(scenario(.exponential(mean: 1.0 / 60, unit: .minutes), days: 2))
        XCTAssertEqual(model.sessionLimit, 2 * Scenario.maximumSessionsPerDay)
        let started = Date()
        let result = model.run(options: RunOptions(threads: 1))
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
        XCTAssertEqual(result.sessionLimitBreach, SessionLimitBreach(user: 0, configuration: 0))
        let trace = model.trace(user: 0, configuration: 1)
        XCTAssertTrue(trace.exceededSessionLimit)
        XCTAssertEqual(trace.tally[.opens], Int64(model.sessionLimit))
        let message = model.explain(try XCTUnwrap(result.sessionLimitBreach))
        XCTAssertTrue(message.contains("user 0 (segment \"only\", holdout) reached 2,000 sessions"), message)
        XCTAssertTrue(message.contains("population.segments[0]"), message)
    }

    /// Only some users are hyperactive: the breach reported is the lowest such user's, for any thread
    /// count and chunk size, and an ordinary run reports none.
    func testTheBreachReportedIsTheSameForAnyThreadsAndChunks() throws {
        var s = scenario(.exponential(mean: 2, unit: .days), days: 3, users: 400)
        var busy = s.population.segments[0]
        busy.name = "busy"
        busy.weight = 0.02
        busy.returns = ReturnProcess.exponential(mean: 1, unit: .minutes)
        s.population.segments.append(busy)
        let model = try CompiledModel(s)
        let first = try XCTUnwrap((0..<400).first { model.trace(user: $0, configuration: 0).exceededSessionLimit },
                                  "no user of the busy segment")
        XCTAssertGreaterThan(first, 0, "the test needs a breach after the first user")
        for threads in [1, 2, 3] {
            for chunk in [1, 7, 64, 4_096] {
                let result = model.run(options: RunOptions(threads: threads, chunkSize: chunk))
                XCTAssertEqual(result.sessionLimitBreach, SessionLimitBreach(user: first, configuration: 0),
                               "threads \(threads), chunk \(chunk)")
            }
        }
        s.population.segments.removeLast()
        XCTAssertNil(try CompiledModel(s).run(options: RunOptions(threads: 2)).sessionLimitBreach)
    }

    /// A trace keeps a bounded number of events, however long the timeline.
    func testATraceKeepsABoundedNumberOfEvents() throws {
        let model = try CompiledModel(scenario(.exponential(mean: 1, unit: .minutes), days: 400))
        let trace = model.trace(user: 0, configuration: 1)
        XCTAssertEqual(trace.events.count, TimelineRecorder.maximumEvents)
        XCTAssertGreaterThan(trace.omittedEvents, 0)
    }
}

/// A value quoted in a problem cannot break its line or reach the terminal as control characters.
final class ScenarioIssueTextTests: XCTestCase {
    func testControlCharactersInQuotedValuesAreEscaped() {
        let issue = ScenarioIssue(path: "population.segments[0].returns.distribution",
                                  reason: "unknown distribution \"line\nbreak\r\u{1B}[31m\u{202E}x\t\"")
        XCTAssertEqual(issue.description,
                       #"population.segments[0].returns.distribution: unknown distribution "line\nbreak\r\u{1B}[31m\u{202E}x\t""#)
        XCTAssertEqual(ScenarioIssue(path: "name", reason: "plain é 🚀").description, "name: plain é 🚀")
    }
}
