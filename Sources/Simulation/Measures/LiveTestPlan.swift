import Foundation
import Randomness

/// One measure's per-user mean and variance in one configuration, from the run's sums over users:
/// what a live test's arm, with users of its own, would see.
public struct ArmMoments: Equatable, Sendable {
    public let users: Int64
    /// Σx, whole: per-user values are counts.
    public let sum: Int64
    public let mean: Double
    /// The sample variance of the per-user values, Σ(x − x̄)² / (n − 1).
    public let variance: Double

    /// From n, Σx and Σx²; nil for fewer than two users.
    public init?(users: Int64, sum: Int64, squares: Int64) {
        guard users > 1 else { return nil }
        let n = Double(users), s = Double(sum)
        (self.users, self.sum) = (users, sum)
        mean = s / n
        variance = max(0, (Double(squares) - s * s / n) / (n - 1))
    }

    /// `a`'s mean minus `b`'s: over the same number of users, the difference of the whole sums divided
    /// once, so that it is the very number the run's paired measure gives (0.20798, not 0.20798000000000272).
    public static func difference(_ a: ArmMoments, _ b: ArmMoments) -> Double {
        difference(sums: (a.sum, b.sum), users: (a.users, b.users), means: (a.mean, b.mean))
    }

    /// The same from two arms' whole sums, users and means.
    static func difference(sums: (Int64, Int64), users: (Int64, Int64), means: (Double, Double)) -> Double {
        users.0 == users.1 ? Double(sums.0 &- sums.1) / Double(users.0) : means.0 - means.1
    }
}

/// One arm of the live test.
public struct LiveTestArm: Sendable {
    /// Its configuration's index in the run (0: the holdout).
    public let configuration: Int
    public let label: String
    /// What it is in the test: "recommendation", "baseline" or "holdout" ("baseline, holdout" when one arm is both).
    public let role: String
    public let share: Double
    /// Users the arm needs; nil when the plan has no size.
    public let users: Int64?
}

/// A constraint's measure watched as a guardrail: its difference between the recommendation and
/// the baseline and the power of the planned test to detect it.
public struct GuardrailPower: Sendable {
    public let measure: DecisionMeasure
    /// Recommendation − baseline, per user (a fraction for a rate).
    public let difference: Double?
    /// The chance that the planned test finds the difference at α two-sided; nil without the per-user variances.
    public let power: Double?
}

/// The live test of the recommendation against the baseline, sized from the simulated per-user
/// means and variances of each arm as independent samples: a live test puts different users in each
/// arm, so the correlation that makes the run's paired comparisons sharp does not help it.
///
/// With shares s_r, s_b of N users and per-user variances σ_r², σ_b², a difference d shows at α
/// two-sided with power 1 − β when N = (z₁₋α/₂ + z₁₋β)² (σ_r²/s_r + σ_b²/s_b) / d².
public struct LiveTestPlan: Sendable {
    public static let alpha = 0.05
    public static let power = 0.80
    /// z₁₋α/₂ + z₁₋β for the stated α and power.
    public static let zSum = z95 + PairwiseComparison.z80

    public let arms: [LiveTestArm]
    public let holdoutShare: Double
    /// The metric: the decision's objective as a per-user measure, over `days`.
    public let metric: PairMeasure
    public let days: Int
    /// The days the run simulated, over which `difference` and the variances were measured: `days` unless
    /// the test's length (`liveTest.days`) differs from the run's.
    public let simulatedDays: Int
    /// Recommendation − baseline on the metric, per user; nil without a plan.
    public let difference: Double?
    /// Every arm's users added up; nil without a size.
    public let totalUsers: Int64?
    /// The users the team has (`liveTest.users`, `--live-users`) and the smallest difference in the
    /// metric the test detects with them at α and power.
    public let liveUsers: Int64?

    /// The fewest users an arm may get for a detectable difference to be worked out at `liveUsers`:
    /// an arm of one user has no spread to measure.
    public static let minimumArmUsers = 2.0

    /// Whether `users` split by `shares` gives every arm at least `minimumArmUsers`.
    public static func armsHoldUsers(_ users: Int, shares: [Double]) -> Bool {
        shares.allSatisfy { Double(users) * $0 >= minimumArmUsers }
    }
    public let minimumDetectableEffect: Double?
    public let guardrails: [GuardrailPower]
    /// Why there is no size, when there is none.
    public let unavailable: String?
    /// Notes the reader needs: a test length other than the run's, what CUPED assumes.
    public let notes: [String]
    /// The days before the test whose opens CUPED uses; 0 when it is off.
    public let preDays: Int
    /// The same test with CUPED on the users' opens before it; nil when off, not simulated or without a size.
    public let cuped: CupedPlan?
    /// Why there is no plan with CUPED, when there is none and it is not off.
    public let cupedUnavailable: String?

    /// Users per arm in the order of `arms`.
    public var usersPerArm: [Int64]? {
        let sizes = arms.compactMap(\.users)
        return sizes.count == arms.count && !sizes.isEmpty ? sizes : nil
    }

    /// What the plan with CUPED assumes, and how it was simulated.
    public static func cupedNote(preDays: Int, testDays: Int) -> String {
        "With CUPED each user's value in the test is analysed as y − θ(x − x̄), x the user's opens in the \(TextLimit.days(preDays)) "
            + "before it, θ = cov(x, y)/var(x) pooled over the two arms; each arm's variance becomes σ²(1 − ρ²). It assumes "
            + "the test's users already have the app and get what ships today (the baseline) before it, so that x cannot "
            + "depend on the arm. That is what was simulated, on other users than the run's: each installs within the \(preDays) "
            + "days before the test (the scenario's install spread, at most that), lives under the baseline until the first open "
            + "in the test, from which the arm's configuration takes over (notifications the baseline scheduled and that have "
            + "not fired are withdrawn), for \(TextLimit.days(testDays)); the sizes with CUPED use these users' difference and variances."
    }
}

extension RunResults {
    /// The per-user moments of a paired measure in configuration `c`; nil when the run does not keep them.
    public func armMoments(_ c: Int, _ m: PairMeasure) -> ArmMoments? {
        guard all.indices.contains(c) else { return nil }
        let x = all[c].metrics
        func binary(_ p: Proportion) -> ArmMoments? { ArmMoments(users: p.total, sum: p.count, squares: p.count) }
        switch m {
        case .opensPerUser:
            guard let squares = tallies.sums?.arm(c, .opensSquares) else { return nil }
            return ArmMoments(users: x.users, sum: x.opens, squares: squares)
        case .deliveredPerUser:
            guard let sums = tallies.sums else { return nil }
            return ArmMoments(users: x.users, sum: x.delivered, squares: sums.ratio(c, .response, users: x.users).yy)
        case .optOutRate: return binary(x.optOutRate)
        case .retentionD7: return binary(x.retentionD7)
        case .retentionD30: return binary(x.retentionD30)
        }
    }

    /// The live-test plan of the run's recommendation, with the scenario's `liveTest` settings, without
    /// the simulation that CUPED needs.
    public var liveTestPlan: LiveTestPlan { liveTestPlan(prePeriod: nil) }

    /// The live-test plan of the run's recommendation with the scenario's `liveTest` settings and, for
    /// CUPED, `prePeriod` (`PrePeriodSimulation.run` for the same two).
    public func liveTestPlan(prePeriod: PrePeriodSimulation?) -> LiveTestPlan {
        liveTestPlan(settings: scenario.liveTest ?? LiveTestSettings(), recommended: decision.recommended,
                     baseline: decision.baseline, prePeriod: prePeriod)
    }

    /// The simulation the plan with CUPED needs for the run's recommendation against its baseline.
    public func prePeriodSimulation(recorded: RecordedLogs, threads: Int) -> PrePeriodSimulation? {
        PrePeriodSimulation.run(scenario, recommended: decision.recommended, baseline: decision.baseline,
                                metric: decision.rule.objective.pairMeasure, settings: scenario.liveTest ?? LiveTestSettings(),
                                recorded: recorded, threads: threads)
    }

    /// The live-test plan of `recommended` against `baseline` (positions in `all`; 0 the holdout),
    /// with these settings: what `tune` plans for its winner, chosen by its race rather than by this
    /// run's decision. `prePeriod` is the simulation of the same two for CUPED, if it was made.
    public func liveTestPlan(settings: LiveTestSettings, recommended: Int?, baseline: Int,
                             prePeriod: PrePeriodSimulation? = nil) -> LiveTestPlan {
        let d = decision
        let holdoutShare = settings.holdoutShare ?? LiveTestSettings.defaultHoldoutShare
        let metric = d.rule.objective.pairMeasure
        var notes: [String] = []
        let days = settings.days ?? scenario.horizonDays
        if days != scenario.horizonDays {
            notes.append("The run simulated \(TextLimit.days(scenario.horizonDays)), not the test's \(days) (liveTest.days): the figures are "
                + "for \(TextLimit.days(scenario.horizonDays)); run with --days \(days) for the test's length.")
        }
        let preDays = settings.preDays ?? PrePeriodSimulation.defaultPreDays
        func plan(_ arms: [LiveTestArm], difference: Double? = nil, total: Int64? = nil, mde: Double? = nil,
                  guardrails: [GuardrailPower] = [], unavailable: String? = nil) -> LiveTestPlan {
            var (cuped, cupedUnavailable): (CupedPlan?, String?) = (nil, nil)
            if preDays > 0 && total != nil {
                (cuped, cupedUnavailable) = Self.cuped(prePeriod, shares: arms.map(\.share), liveUsers: settings.users)
            }
            let cupedNotes = cuped == nil ? [] : [LiveTestPlan.cupedNote(preDays: preDays, testDays: prePeriod?.testDays ?? days)]
            return LiveTestPlan(arms: arms, holdoutShare: holdoutShare, metric: metric, days: days,
                                simulatedDays: scenario.horizonDays, difference: difference,
                                totalUsers: total, liveUsers: settings.users.map(Int64.init), minimumDetectableEffect: mde,
                                guardrails: guardrails, unavailable: unavailable, notes: notes + cupedNotes, preDays: preDays,
                                cuped: cuped, cupedUnavailable: cupedUnavailable)
        }
        guard let best = recommended, all.indices.contains(best), all.indices.contains(baseline) else {
            return plan([], unavailable: "no configuration meets every constraint")
        }
        guard best != baseline else { return plan([], unavailable: "the recommendation is the baseline") }
        // The shares: the holdout's, the baseline's, and what is left for the recommendation.
        let base = baseline
        var arms: [(Int, String, Double)]
        if base == 0 {
            guard holdoutShare > 0 else {
                return plan([], unavailable: "the baseline is the holdout, and liveTest.holdoutShare is 0")
            }
            arms = [(best, "recommendation", 1 - holdoutShare), (0, "baseline, holdout", holdoutShare)]
        } else {
            let baseShare = settings.baselineShare ?? (1 - holdoutShare) / 2
            arms = [(best, "recommendation", 1 - holdoutShare - baseShare), (base, "baseline", baseShare)]
            if holdoutShare > 0 { arms.append((0, "holdout", holdoutShare)) }
        }
        func unsized(_ reason: String) -> LiveTestPlan {
            plan(arms.map { LiveTestArm(configuration: $0.0, label: all[$0.0].label, role: $0.1, share: $0.2, users: nil) },
                 unavailable: reason)
        }
        guard let r = armMoments(best, metric), let b = armMoments(base, metric) else {
            // Moments need two users for a variance; a run of one has none to size from, however often it runs.
            if all[best].metrics.users < 2 {
                return unsized("the run has fewer than two users, so no per-user variance to size a test from; run more users")
            }
            return unsized("this run was stored without the per-user sums of each configuration; run it again for the plan")
        }
        let (sr, sb) = (arms[0].2, arms[1].2)
        let spread = r.variance / sr + b.variance / sb
        let diff = ArmMoments.difference(r, b)
        let total = LiveTestPlan.zSum * LiveTestPlan.zSum * spread / (diff * diff)
        let mde = settings.users.flatMap { n in
            LiveTestPlan.armsHoldUsers(n, shares: arms.map(\.2)) ? LiveTestPlan.zSum * (spread / Double(n)).squareRoot() : nil
        }
        guard diff != 0, total.isFinite, total < 1e15 else {
            return unsized("the simulated difference in \(metric.title) is zero: no test size would show it")
        }
        // Each arm's share of a total, rounded up.
        func perArm(_ total: Double) -> [Int64] { arms.map { Int64((total * $0.2).rounded(.up)) } }
        let sized = zip(arms, perArm(total)).map { arm, users in
            LiveTestArm(configuration: arm.0, label: all[arm.0].label, role: arm.1, share: arm.2, users: users)
        }
        // A simulated gain smaller than the smallest gain worth shipping: the test sized for it would show a gain the
        // team would not ship; said, with the size that shows the smallest gain worth shipping.
        let worth = d.rule.minimumDifference
        if d.rule.objective.hasPairedDifference, worth > 0, abs(diff) < worth {
            let users = perArm(LiveTestPlan.zSum * LiveTestPlan.zSum * spread / (worth * worth)).reduce(0, +)
            func shown(_ v: Double) -> String { metric.isFraction ? String(format: "%.2f pp", v * 100) : String(format: "%.4g", v) }
            notes.append("The simulated difference (\(shown(abs(diff)))) is smaller than the smallest gain worth shipping "
                + "(\(shown(worth)), decision.minimumDifference): the sizes above are for a gain the team would not ship. A test "
                + "sized to show \(shown(worth)) needs \(TextLimit.grouped(Int(users))) users in total, in the same shares.")
        }
        let guardrails = d.rule.orderedConstraints.map { m, _ -> GuardrailPower in
            guard m.hasPairedDifference, let x = armMoments(best, m.pairMeasure), let y = armMoments(base, m.pairMeasure),
                  let nr = sized[0].users, let nb = sized[1].users else {
                return GuardrailPower(measure: m, difference: nil, power: nil)
            }
            let d = ArmMoments.difference(x, y)
            return GuardrailPower(measure: m, difference: d, power: LiveTestPlan.power(difference: d, x, nr, y, nb))
        }
        return plan(sized, difference: diff, total: sized.reduce(0) { $0 + ($1.users ?? 0) }, mde: mde, guardrails: guardrails)
    }
}

extension RunResults {
    /// The plan with CUPED from `prePeriod` and the test's shares (the compared arms' first), or why there is none.
    static func cuped(_ prePeriod: PrePeriodSimulation?, shares: [Double], liveUsers: Int?) -> (CupedPlan?, String?) {
        guard let prePeriod else { return (nil, "its simulation of the days before the test was not run for this report") }
        guard let sums = prePeriod.sums else { return (nil, prePeriod.unavailable ?? "its simulation has no users") }
        guard let r = CovariateMoments(sums.recommended), let b = CovariateMoments(sums.baseline) else {
            return (nil, "its simulation has fewer than two users")
        }
        guard let plan = CupedPlan(preDays: prePeriod.preDays, simulatedUsers: prePeriod.users, seed: prePeriod.seed,
                                   recommended: r, baseline: b, shares: shares, liveUsers: liveUsers.map(Int64.init))
        else { return (nil, "the simulated users who already have the app show no difference in the metric") }
        return (plan, nil)
    }
}

extension LiveTestPlan {
    /// The power of a two-sided z-test at α to find `difference` between arms of nx and ny users with
    /// the moments' variances: Φ(|d|/se − z) + Φ(−|d|/se − z).
    public static func power(difference: Double, _ x: ArmMoments, _ nx: Int64, _ y: ArmMoments, _ ny: Int64) -> Double? {
        guard nx > 0, ny > 0 else { return nil }
        let se = (x.variance / Double(nx) + y.variance / Double(ny)).squareRoot()
        guard se > 0 else { return difference == 0 ? alpha : 1 }
        let t = abs(difference) / se
        return normalCDF(t - z95) + normalCDF(-t - z95)
    }
}
