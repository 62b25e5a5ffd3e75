import Foundation
import ReminderEngine
import Simulation
import XCTest

/// The 95% intervals of ratios over notifications, tested by their coverage over many seeded runs.
///
/// 400 small runs of one scenario: each run's interval either holds the pooled value of all 400
/// runs (the ratio of expectations, known 20 times better than any one run) or not. If the interval
/// is right, the count covering is Binomial(400, 0.95): standard deviation √(400·0.95·0.05) = 4.36,
/// so a 99% acceptance band is 380 ± 2.576·4.36, i.e. 369...391 runs, 92.2%...97.8%.
final class IntervalCoverageTests: XCTestCase {
    static let runs = 400
    static let band: ClosedRange<Int> = {
        let n = Double(runs), sd = (n * 0.95 * 0.05).squareRoot()
        return Int((n * 0.95 - 2.576 * sd).rounded(.up))...Int((n * 0.95 + 2.576 * sd).rounded(.down))
    }()

    /// Users who differ a lot in how often they come back, so that one user's notifications are alike.
    func scenario(seed: UInt64) -> Scenario {
        Scenario(
            name: "coverage", seed: seed, users: 120, horizonDays: 28, startDate: "2026-01-05",
            population: Population(installSpreadDays: 7, segments: [
                Segment(name: "frequent", weight: 1, returns: .exponential(mean: 1, unit: .days), dropoutPerSession: 0.05),
                Segment(name: "rare", weight: 1, returns: .lognormal(mu: log(6), sigma: 1.2, unit: .days), dropoutPerSession: 0.1),
            ]),
            response: ResponseModel(baseResponse: 0.2, fatigue: 0.8, quietHours: nil, optOutPerDelivery: 0.02),
            configurations: [
                ConfigurationSpec(label: "2/4d", reminders: [ReminderSpec(messages: ["A", "B"], timePeriods: [2, 4])]),
            ])
    }

    func testClusteredIntervalsCoverAtTheirNominalRate() throws {
        var results: [RunResults] = []
        for seed in 1...UInt64(Self.runs) {
            let s = scenario(seed: seed)
            results.append(RunResults(scenario: s, tallies: try CompiledModel(s).run(options: RunOptions(threads: 2))))
        }
        // Each measure: the proportion it reads in a run.
        let measures: [(name: String, read: (RunResults) -> Proportion)] = [
            ("trigger rate", { $0.configurations[0].metrics.triggerRate }),
            ("response rate", { $0.configurations[0].metrics.responseRate }),
            ("trigger rate of the first message", { $0.configurations[0].messages[0].triggerRate }),
            ("trigger rate of the first period", { $0.configurations[0].periods[0].triggerRate }),
            ("opt-outs per delivery", { $0.configurations[0].metrics.optOutsPerDelivered }),
            ("trigger rate among rare users", { $0.segments.first { $0.configuration == 1 && $0.segment == 1 }!.triggerRate }),
        ]
        var wilsonCoverage: [String: Int] = [:], coverage: [String: Int] = [:]
        for (name, read) in measures {
            let all = results.map(read)
            let pooled = Double(all.reduce(0) { $0 + $1.count }) / Double(all.reduce(0) { $0 + $1.total })
            var covered = 0, wilson = 0
            for p in all {
                let ci = try XCTUnwrap(p.interval, name)
                XCTAssertNotNil(p.clustered, "\(name) is a ratio over notifications: its interval must be clustered")
                if ci.low <= pooled && pooled <= ci.high { covered += 1 }
                if let w = p.wilson(), w.low <= pooled && pooled <= w.high { wilson += 1 }
            }
            wilsonCoverage[name] = wilson
            coverage[name] = covered
            XCTAssertTrue(Self.band.contains(covered),
                          "\(name): \(covered) of \(Self.runs) clustered intervals hold the pooled value \(pooled); expected \(Self.band)")
        }
        // Opt-outs among users are one trial per user: Wilson's interval stays, and covers too.
        let optOut = results.map { $0.configurations[0].metrics.optOutRate }
        let pooledOptOut = Double(optOut.reduce(0) { $0 + $1.count }) / Double(optOut.reduce(0) { $0 + $1.total })
        let optOutCovered = optOut.filter { p in
            XCTAssertNil(p.clustered)
            return p.interval.map { $0.low <= pooledOptOut && pooledOptOut <= $0.high } ?? false
        }.count
        XCTAssertTrue(Self.band.contains(optOutCovered), "opt-out rate: \(optOutCovered) of \(Self.runs) Wilson intervals cover")
        print("coverage of \(Self.runs) runs, band \(Self.band): clustered \(coverage), Wilson \(wilsonCoverage), opt-out \(optOutCovered)")
        // The test can tell a wrong interval: treating notifications as independent covers too rarely here.
        XCTAssertLessThan(wilsonCoverage["trigger rate of the first message"]!, Self.band.lowerBound,
                          "Wilson intervals should under-cover clustered notifications: \(wilsonCoverage)")
    }
}
