import Foundation
@testable import Simulation
import XCTest

/// `Tuner`: the race finds what a brute-force run of every candidate finds, whatever the threads,
/// and the tune block is read and refused as documented.
final class TuneTests: XCTestCase {
    /// `Datasets/which-period.json` shortened (45 days, installs over 15) with a tune block.
    static func scenario(users: Int, space: String, constraints: String = #"{"optOutRate": {"max": 0.03}}"#) throws -> Scenario {
        let url = DatasetScenarioTests.datasets.appendingPathComponent("which-period.json")
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        json["users"] = users
        json["horizonDays"] = 45
        var population = try XCTUnwrap(json["population"] as? [String: Any])
        population["installSpreadDays"] = 15
        json["population"] = population
        json["tune"] = try JSONSerialization.jsonObject(with: Data("""
            {"baseline": "3 days", "objective": "opensLiftPerUser", "constraints": \(constraints), "space": \(space)}
            """.utf8))
        let text = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
        return try Scenario.decode(text)
    }

    func testSingleSpaceCandidatesAreTheFourteenPeriods() throws {
        let s = try Self.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 14}, "circular": [false, true]}"#)
        let tuner = try Tuner(scenario: s, threads: 1)
        // One period behaves the same wrapping or not: each value is one candidate (the listed
        // configurations the space does not hold follow).
        let space = tuner.candidates.prefix(14)
        XCTAssertEqual(tuner.parts.first, TunePart(name: "timePeriods", candidates: 14))
        XCTAssertEqual(space.map { $0.reminders[0].timePeriods }, (1...14).map { [$0] })
        XCTAssertEqual(space.map(\.label), (1...14).map { "\($0)d" })
        XCTAssertEqual(tuner.candidates[0].reminders[0].messages, ["Your daily lesson is ready"])
    }

    func testSequencesThatBehaveAlikeAreOneCandidate() throws {
        let s = try Self.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 3}, "sequenceLength": {"min": 1, "max": 2}, "circular": [false, true]}"#)
        let tuner = try Tuner(scenario: s, threads: 1)
        let labels = tuner.candidates.prefix(tuner.parts[0].candidates).map(\.label)
        // 3 single periods; of the 9 pairs, the 3 constant ones are single periods and, not wrapping,
        // a pair ending on a repeat (none but the constant ones here) would be too: 6 pairs × 2.
        XCTAssertEqual(labels.count, 3 + 6 * 2, "\(labels)")
        XCTAssertEqual(Set(labels).count, labels.count, "labels repeat: \(labels)")
        XCTAssertTrue(labels.contains("1/2d circular") && labels.contains("1/2d stay"), "\(labels)")
        XCTAssertFalse(labels.contains("2/2d stay"), "\(labels)")
    }

    /// A stored run keeps its scenario as canonical JSON: the tune block must read back the same.
    func testTuneBlockReadsBackFromCanonicalJSON() throws {
        let s = try Self.scenario(users: 100, space: #"{"periods": {"min": 2, "max": 9}, "unit": "hours", "sequenceLength": {"min": 1, "max": 2}, "circular": [true], "randomMessage": [false, true], "messages": ["Your daily lesson is ready"], "delivery": [{}, {"frequencyCap": {"max": 2, "perDays": 7}}]}"#)
        XCTAssertEqual(try Scenario.decode(try s.canonicalJSON()), s)
    }

    func testDeliveryPoliciesMultiplyTheCandidates() throws {
        let s = try Self.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 2}, "delivery": [{}, {"frequencyCap": {"max": 2, "perDays": 7}}]}"#)
        let candidates = try Tuner(scenario: s, threads: 1).candidates
        XCTAssertEqual(candidates.prefix(4).map(\.label), ["1d delivery 1", "1d delivery 2", "2d delivery 1", "2d delivery 2"])
        XCTAssertEqual(candidates[1].delivery.frequencyCap, DeliveryPolicy.FrequencyCap(max: 2, perDays: 7))
        XCTAssertTrue(candidates[0].delivery.isEmpty)
    }

    /// The race against brute force: every single period 1–14 days run at the full user count in one
    /// run (a grid), ranked by the decision rule; the tune's recommendation is that configuration, or
    /// one the same run cannot tell apart from it (the paired 95% interval of the difference in opens
    /// per user holds zero). Finalists are cut to three so that the race really drops candidates.
    func testRecommendationMatchesTheBruteForceBest() throws {
        let users = 2_000
        var s = try Self.scenario(users: users, space: #"{"periods": {"min": 1, "max": 14}}"#)
        // Only the baseline is listed, and the space holds it: the race is the space's alone.
        s.configurations = s.configurations.filter { $0.label == "3 days" }
        let tuner = try Tuner(scenario: s, threads: 2, finalists: 3)
        XCTAssertEqual(tuner.plan.stageUsers, [500, 2_000])
        let tuned = try tuner.run()
        let winner = try XCTUnwrap(tuned.winner, "the tune recommends nothing:\n"
            + tuned.candidates.map { "\($0.spec.label) \($0.stage) \($0.dropped ?? "-") \(String(describing: $0.figures?.measures[.optOutRate]))" }
                .joined(separator: "\n"))
        let tunedPeriod = tuned.candidates[winner].spec.reminders[0].timePeriods
        XCTAssertEqual(tuned.stages[0].evaluated, 14)

        var brute = s
        brute.tune = nil
        brute.baseline = nil
        brute.configurations = []
        brute.decision = s.tune!.rule
        brute.grid = GridSpec(messages: ["Your daily lesson is ready"], timePeriods: (1...14).map { [$0] })
        let results = RunResults(scenario: brute, tallies: try CompiledModel(brute).run(options: RunOptions(threads: 2)))
        let best = try XCTUnwrap(results.decision.recommended, "brute force recommends nothing")
        let tunedIndex = try XCTUnwrap(results.configurations.first { $0.spec.reminders[0].timePeriods == tunedPeriod }?.index)
        if tunedIndex != best {
            let d = try XCTUnwrap(results.comparison(tunedIndex, against: best, .opensPerUser))
            XCTAssertTrue(d.includesZero, "tune chose \(tunedPeriod), brute force \(results.all[best].label); difference \(String(describing: d.difference))")
            XCTAssertTrue(results.decision.admissible.contains(tunedIndex), "the tune's choice breaks a constraint at full count")
        }
        // The tune's figures for its winner at the full count are the brute force's for the same configuration.
        let f = try XCTUnwrap(tuned.final.ranking.first { $0.candidate == winner }?.figures)
        XCTAssertEqual(f.measures[.opensLiftPerUser], results.all[tunedIndex].estimate(.opensLiftPerUser))
        XCTAssertEqual(f.measures[.optOutRate], results.all[tunedIndex].estimate(.optOutRate))
        // The re-check simulated other users.
        let recheck = try XCTUnwrap(tuned.recheck)
        XCTAssertNotEqual(recheck.seed, s.seed)
        XCTAssertNotEqual(recheck.ranking.first?.figures.measures[.opensLiftPerUser], f.measures[.opensLiftPerUser])
        XCTAssertEqual(tuned.sensitivity.map(\.name), ["base response halved", "base response doubled", "opt-outs doubled"])
    }

    func testSameResultWhateverTheThreads() throws {
        let s = try Self.scenario(users: 800, space: #"{"periods": {"min": 1, "max": 6}, "sequenceLength": {"min": 1, "max": 2}, "circular": [false, true]}"#)
        func summary(_ threads: Int) throws -> [String] {
            let r = try Tuner(scenario: s, threads: threads, finalists: 4).run()
            let outcomes = r.candidates.map { c in
                "\(c.spec.label) \(c.stage) \(c.dropped ?? "-") \(String(describing: c.figures?.measures[.opensLiftPerUser]))"
            }
            let stages = r.stages.map { "\($0.evaluated) \($0.infeasible) \($0.worse) \($0.overCapacity)" }
            return outcomes + stages + [String(describing: r.winner), String(describing: r.recheck?.ranking.first?.figures.measures[.opensLiftPerUser])]
        }
        let one = try summary(1)
        XCTAssertEqual(one, try summary(3))
        XCTAssertTrue(one.contains { $0.contains("clearly") }, "nothing was dropped, so the race was not exercised:\n\(one.joined(separator: "\n"))")
    }

    /// A racing batch that finds a new leader pairs the others with it from its users' kept pair
    /// inputs; running the users again instead gives the same race, drop for drop.
    func testPairingANewLeaderFromKeptInputsRacesTheSame() throws {
        let s = try Self.scenario(users: 3_200, space: #"{"periods": {"min": 1, "max": 9}, "sequenceLength": {"min": 1, "max": 2}, "circular": [false, true]}"#)
        func summary(keeping: Bool) throws -> [String] {
            var tuner = try Tuner(scenario: s, threads: 2, finalists: 4)
            tuner.keepsPairInputs = keeping
            let r = try tuner.run()
            let outcomes = r.candidates.map { c in
                "\(c.spec.label) \(c.stage) \(c.dropped ?? "-") \(String(describing: c.figures?.measures[.opensLiftPerUser]))"
            }
            return outcomes + r.stages.map { "\($0.evaluated) \($0.infeasible) \($0.worse) \($0.overCapacity)" } + [String(describing: r.winner)]
        }
        PairInputStore.termsPerThread = 1
        defer { PairInputStore.termsPerThread = 100_000 }
        let kept = try summary(keeping: true)
        XCTAssertEqual(kept, try summary(keeping: false))
        XCTAssertTrue(kept.contains { $0.contains("clearly worse") }, "no candidate was compared with a leader:\n\(kept.joined(separator: "\n"))")
    }

    /// Every figure of a tune, in one order (a dictionary's own order differs from one instance to
    /// another): each candidate's outcome and figures, each check's ranking, the stages, the winner.
    static func lines(of r: TuneResult) -> [String] {
        func show(_ f: CandidateFigures?) -> String {
            guard let f else { return "-" }
            return f.measures.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
                + " vs baseline \(String(describing: f.versusBaseline))"
        }
        let outcomes = r.candidates.map { "\($0.spec.label) \($0.stage) \($0.dropped ?? "-") \(show($0.figures)) \(show($0.firstStage))" }
        let checks = ([r.final] + [r.recheck].compactMap { $0 } + r.sensitivity).map { check in
            check.ranking.map { "\($0.candidate) \(show($0.figures)) \($0.admissible)" }.joined(separator: "; ")
                + " \(String(describing: check.versusRunnerUp?.difference))"
        }
        return outcomes + checks + r.stages.map { "\($0.users) \($0.evaluated) \($0.infeasible) \($0.worse) \($0.overCapacity)" }
            + [String(describing: r.winner)]
    }

    /// Keeping the users' holdout runs from batch to batch and stage to stage changes nothing in the
    /// race, the final stage or the checks, figure for figure.
    func testKeepingTheHoldoutRunsRacesTheSame() throws {
        let s = try Self.scenario(users: 3_200, space: #"{"periods": {"min": 1, "max": 9}, "sequenceLength": {"min": 1, "max": 2}, "circular": [false, true]}"#)
        func summary(keeping: Bool) throws -> [String] {
            var tuner = try Tuner(scenario: s, threads: 3, finalists: 4)
            tuner.keepsHoldouts = keeping
            let r = try tuner.run()
            return Self.lines(of: r) + ["\(r.simulated)"]
        }
        let kept = try summary(keeping: true)
        let again = try summary(keeping: false)
        XCTAssertEqual(kept.count, again.count)
        for (a, b) in zip(kept, again) { XCTAssertEqual(a, b) }
        XCTAssertTrue(kept.contains { $0.contains("clearly worse") }, "no candidate was compared with a leader")
        XCTAssertGreaterThan(kept.filter { $0.contains("vs baseline") }.count, kept.count * 9 / 10, "the lines hold figures")
    }

    /// A stage that takes the users of the stage before from what that stage counted (`StageShares`)
    /// races as one that simulates them again: every figure, drop, leader and finalist the same.
    func testTakingTheStageBeforesUsersRacesTheSame() throws {
        // Enough candidates for two racing stages, and leaders that change within them.
        let s = try Self.scenario(users: 6_400, space: #"{"periods": {"min": 1, "max": 12}, "sequenceLength": {"min": 1, "max": 3}, "circular": [false, true]}"#)
        var stages: [StageSummary] = []
        func race(keeping: Bool) throws -> (lines: [String], simulated: Double, reused: Double) {
            var tuner = try Tuner(scenario: s, threads: 3, finalists: 4)
            tuner.keepsStageShares = keeping
            let r = try tuner.run()
            if keeping { stages = r.stages }
            return (Self.lines(of: r), r.simulated, r.reused)
        }
        // With room for only some of them, the best are kept and the runs that find all theirs take them.
        let room = StageShares.maximumBytes
        StageShares.maximumBytes = 40 * 400 * 8
        // Pairs summed over the users split among the threads however few the users.
        PairInputStore.termsPerThread = 1
        defer { PairInputStore.termsPerThread = 100_000 }
        defer { StageShares.maximumBytes = room }
        let some = try race(keeping: true)
        StageShares.maximumBytes = room
        let kept = try race(keeping: true)
        let again = try race(keeping: false)
        XCTAssertEqual(some.lines, again.lines)
        XCTAssertGreaterThan(some.reused, 0)
        XCTAssertLessThan(some.reused, kept.reused)
        XCTAssertEqual(kept.lines.count, again.lines.count)
        for (a, b) in zip(kept.lines, again.lines) { XCTAssertEqual(a, b) }
        XCTAssertTrue(kept.lines.contains { $0.contains("clearly worse") }, "no candidate was compared with a leader")
        // A racing stage took the users of the one before, simulated once instead of twice.
        XCTAssertEqual(again.reused, 0)
        // Every run of every stage after the first (the final one too) took all the users of the
        // stage before: its configurations × those users, against its configurations × the others.
        XCTAssertGreaterThanOrEqual(stages.count, 3)
        XCTAssertEqual(stages[0].reused, 0)
        for (stage, before) in zip(stages.dropFirst(), stages) {
            XCTAssertGreaterThan(stage.reused, 0)
            XCTAssertEqual(stage.reused * (stage.users - before.users), stage.simulated * before.users,
                           "a batch of the stage at \(stage.users) users ran users the stage before had counted")
        }
        XCTAssertEqual(kept.simulated + kept.reused, again.simulated)
    }

    /// What the plan counts before the race (for the time it is estimated to take) bounds what the
    /// race does: its configurations × users, simulated or taken from the stage before, and its runs.
    /// The costs the estimate multiplies them by are read off a batch that took long enough to be
    /// read, or that ran the first stage's users.
    func testThePlanBoundsTheRaceAndItsCostIsTimedOnARacingBatch() throws {
        let s = try Self.scenario(users: 3_200, space: #"{"periods": {"min": 1, "max": 10}, "sequenceLength": {"min": 1, "max": 2}}"#)
        let tuner = try Tuner(scenario: s, threads: 2, finalists: 4)
        let plan = tuner.plan
        XCTAssertGreaterThanOrEqual(plan.stageUsers.count, 3)
        let r = try tuner.run()
        XCTAssertLessThanOrEqual(r.simulated + r.reused, plan.simulations())
        XCTAssertEqual(r.stages.count, plan.stageUsers.count)
        let batches = r.stages.dropLast().reduce(0) { $0 + ($1.entered + plan.batchSize - 1) / plan.batchSize }
        // The racing stages' batches, the final run, the re-check and three sensitivity runs.
        XCTAssertEqual(r.sensitivity.count, 3)
        XCTAssertNotNil(r.recheck)
        XCTAssertLessThanOrEqual(batches + 1 + 1 + 3, plan.runs())
        // The listed configurations and the leader are taken beyond a stage's capacity.
        XCTAssertEqual(plan.alwaysTaken, r.listed.count + 1)
        XCTAssertGreaterThan(r.stages.last!.entered, plan.capacity.last!)
        for (k, stage) in r.stages.enumerated() { XCTAssertLessThanOrEqual(stage.entered, plan.capacity[k] + plan.alwaysTaken) }

        let cost = try tuner.cost()
        XCTAssertTrue(cost.perSimulation > 0 && cost.perSimulation.isFinite)
        XCTAssertTrue(cost.perRun >= 0 && cost.perRun.isFinite)
        XCTAssertLessThanOrEqual(cost.users, plan.stageUsers[0])
        if cost.users < plan.stageUsers[0] {
            let width = Double(min(plan.batchSize, plan.candidates) + 2)
            XCTAssertGreaterThanOrEqual(cost.perSimulation * Double(cost.users) * width, Tuner.calibrationSeconds * 0.999)
        }
        // Only one batch timed: its setting up is in the cost per configuration-user, not charged again per run.
        if cost.users == min(16, plan.stageUsers[0]) { XCTAssertEqual(cost.perRun, 0) }

        // With draws of the response model in place of the sensitivity runs, each draw runs the finalists again.
        var drawing = tuner
        drawing.modelDraws = 3
        let drawn = try drawing.run()
        XCTAssertNotNil(drawn.modelDraws)
        XCTAssertTrue(drawn.sensitivity.isEmpty)
        XCTAssertLessThanOrEqual(drawn.simulated + drawn.reused, plan.simulations(modelDraws: 3))
        // Counted as simulated: the same race, then three runs of every finalist in place of three of the top five.
        let n = Double(s.users), finalists = Double(r.final.ranking.count)
        XCTAssertEqual(drawn.simulated - 3 * n * (finalists + 2),
                       r.simulated - 3 * n * (Double(min(TunePlan.sensitivityTop, r.final.ranking.count)) + 2))
        XCTAssertEqual(plan.runs(modelDraws: 5), plan.runs() + 2, "a run per draw in place of the three sensitivity runs")
    }

    /// However few the users, more candidates than finalists are raced first: the final run holds
    /// only the finalists.
    func testFewUsersStillRace() throws {
        XCTAssertEqual(TunePlan(candidates: 5_656, finalUsers: 100).stageUsers, [100, 100])
        XCTAssertEqual(TunePlan(candidates: 5_656, finalUsers: 300).stageUsers, [200, 300])
        XCTAssertEqual(TunePlan(candidates: 5_656, finalUsers: 100_000).stageUsers, [1_562, 6_250, 25_000, 100_000])
        XCTAssertEqual(TunePlan(candidates: 20, finalUsers: 100_000).stageUsers, [100_000])
        let s = try Self.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 6}, "sequenceLength": {"min": 1, "max": 2}}"#)
        let r = try Tuner(scenario: s, threads: 2, finalists: 4).run()
        // The listed configurations are taken beyond the finalists.
        XCTAssertLessThanOrEqual(r.final.ranking.count, 4 + r.listed.count)
    }

    func testEmptyAndAbsurdSpacesAreRefusedWithTheReason() throws {
        XCTAssertThrowsError(try Self.scenario(users: 100, space: #"{"periods": {"min": 5, "max": 2}}"#)) { error in
            XCTAssertTrue("\(error)".contains("tune.space.periods: min 5 is above max 2"), "\(error)")
        }
        XCTAssertThrowsError(try Self.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 3}, "circular": []}"#)) { error in
            XCTAssertTrue("\(error)".contains("tune.space.circular: must not be empty"), "\(error)")
        }
        XCTAssertThrowsError(try Self.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 3}, "delivery": [{}, {"sendWindow": {"start": "09:00", "end": "21:00"}}, {}]}"#)) { error in
            XCTAssertTrue("\(error)".contains("tune.space.delivery[2]: the same policy as tune.space.delivery[0]; list each choice once"),
                          "\(error)")
        }
        let huge = try Self.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 1000}, "sequenceLength": {"min": 1, "max": 3}}"#)
        XCTAssertThrowsError(try Tuner(scenario: huge, threads: 1)) { error in
            let e = error as? TuneError
            XCTAssertEqual(e?.path, "tune.space")
            XCTAssertTrue(e?.reason.contains("at most 50,000 can be raced: narrow space.periods or space.sequenceLength") ?? false, "\(error)")
        }
        var noTune = huge
        noTune.tune = nil
        XCTAssertThrowsError(try Tuner(scenario: noTune, threads: 1)) { error in
            XCTAssertEqual((error as? TuneError)?.path, "tune")
        }
    }

    func testUnknownBaselineAndMeasureAreNamed() throws {
        XCTAssertThrowsError(try Self.scenario(users: 100, space: #"{"periods": {"min": 1, "max": 3}}"#,
                                               constraints: #"{"optOutRatio": {"max": 0.03}}"#)) { error in
            XCTAssertTrue("\(error)".contains("tune.constraints.optOutRatio: unknown measure"), "\(error)")
        }
    }
}

/// The level a race's drop states for its widened intervals.
final class TuneDropLevelTests: XCTestCase {
    /// A stage's differences from its leader clear the stage's share of 5% split again over the other
    /// candidates it compared (the leader is picked from them): Φ⁻¹(1 − 0.05/3/99) = 3.585293 for 100
    /// candidates and three racing stages (SciPy's norm.isf), the stage's z with one other.
    func testClearlyWorseDropsClearTheStagesSplitQuantile() throws {
        let plan = TunePlan(candidates: 100, finalUsers: 100_000)
        XCTAssertEqual(plan.stageUsers.count, 4)
        XCTAssertEqual(plan.worseZ(entered: 100), 3.585292720877353, accuracy: 1e-6)
        XCTAssertEqual(plan.worseZ(entered: 2), plan.dropZ, accuracy: 1e-12)
        XCTAssertEqual(plan.worseZ(entered: 1), plan.dropZ, accuracy: 1e-12)

        let s = try TuneTests.scenario(users: 3_200, space: #"{"periods": {"min": 1, "max": 9}, "sequenceLength": {"min": 1, "max": 2}, "circular": [false, true]}"#)
        let r = try Tuner(scenario: s, threads: 2, finalists: 4).run()
        for stage in r.stages.dropLast() { XCTAssertEqual(stage.worseZ, r.plan.worseZ(entered: stage.entered)) }
        let worse = r.candidates.compactMap { $0.drop }.filter { $0.kind == CandidateDrop.Kind.clearlyWorse }
        XCTAssertFalse(worse.isEmpty, "no candidate was dropped as clearly worse")
        for drop in worse {
            let level = Tuner.level(r.stages[drop.stage].worseZ)
            XCTAssertTrue(drop.reason.contains("(\(level) interval"), drop.reason)
            XCTAssertLessThan(try XCTUnwrap(drop.interval).high, 0, drop.reason)
        }
    }

    func testTheLevelIsTheTwoSidedCoverageOfZ() {
        // Φ(1.959964) = 0.975, Φ(2.128045) = 0.98333, Φ(3.290527) = 0.9995, Φ(4.417173) = 0.999995.
        XCTAssertEqual(Tuner.level(1.959964), "95.0%")
        XCTAssertEqual(Tuner.level(2.128045), "96.7%")
        XCTAssertEqual(Tuner.level(3.290527), "99.9%")
        XCTAssertEqual(Tuner.level(4.417173), "99.999%")
        XCTAssertEqual(Tuner.level(40), "99.999%", "never shown as 100%")
    }
}
