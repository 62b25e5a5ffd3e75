import Foundation

/// The simulated live test behind the plan with CUPED: the recommendation's and the baseline's arms
/// on users who already have the app, with each user's opens in the `preDays` days before the test
/// and the user's value of the metric during it (`CompiledModel.simulateLiveTest`).
public struct PrePeriodSimulation: Equatable, Sendable {
    public let preDays: Int
    public let testDays: Int
    /// The users simulated (each in both arms) and their seed.
    public let users: Int
    public let seed: UInt64
    /// The recommendation's arm and the baseline's; nil when the simulation could not be made.
    public let sums: (recommended: CovariateSums, baseline: CovariateSums)?
    /// Why there are no sums.
    public let unavailable: String?

    public init(preDays: Int, testDays: Int, users: Int, seed: UInt64,
                sums: (recommended: CovariateSums, baseline: CovariateSums)?, unavailable: String? = nil) {
        (self.preDays, self.testDays, self.users, self.seed) = (preDays, testDays, users, seed)
        (self.sums, self.unavailable) = (sums, unavailable)
    }

    public static func == (a: PrePeriodSimulation, b: PrePeriodSimulation) -> Bool {
        (a.preDays, a.testDays, a.users, a.seed, a.unavailable) == (b.preDays, b.testDays, b.users, b.seed, b.unavailable)
            && a.sums?.recommended == b.sums?.recommended && a.sums?.baseline == b.sums?.baseline
    }

    /// The days before the test unless stated (`liveTest.preDays`).
    public static let defaultPreDays = 14
    /// The most days before the test a scenario may ask for.
    public static let maximumPreDays = 365

    /// The seed of the simulation: the scenario's with bit 53 flipped, so its users are others than
    /// the run's and the re-check's.
    public static func seed(for scenario: Scenario) -> UInt64 { scenario.seed ^ (1 << 53) }

    /// The scenario of the simulated live test of `recommended` against `baseline` (positions in the
    /// run's tables, 0 the holdout): those two only, over `preDays` + the test's days, with installs
    /// spread as the scenario's but over at most the `preDays` before the test, on other users, as
    /// many as the run's up to `DecisionRecheck.maximumUsers`. Returns their positions in it.
    public static func scenario(for scenario: Scenario, recommended: Int, baseline: Int, preDays: Int, testDays: Int)
        -> (scenario: Scenario, recommended: Int, baseline: Int)
    {
        let keep = Array(Set([recommended, baseline].filter { $0 > 0 })).sorted()
        func position(_ p: Int) -> Int { p == 0 ? 0 : (keep.firstIndex(of: p) ?? 0) + 1 }
        var s = scenario.keeping(keep)
        s.seed = seed(for: scenario)
        s.users = min(s.users, DecisionRecheck.maximumUsers)
        s.horizonDays = preDays + testDays
        s.population.installSpreadDays = min(s.population.installSpreadDays, Double(preDays))
        return (s, position(recommended), position(baseline))
    }

    /// The simulated live test of `recommended` against `baseline` for `metric`, with `settings`'
    /// days before the test (nil when they are 0: no CUPED) and the test's days (the run's horizon
    /// unless stated). Failures to build the model are said in `unavailable`, not thrown: the plan
    /// without CUPED stands alone.
    public static func run(_ scenario: Scenario, recommended: Int?, baseline: Int, metric: PairMeasure,
                           settings: LiveTestSettings, recorded: RecordedLogs, threads: Int) -> PrePeriodSimulation? {
        let preDays = settings.preDays ?? defaultPreDays
        let testDays = settings.days ?? scenario.horizonDays
        guard preDays > 0, let recommended, recommended != baseline else { return nil }
        let (s, r, b) = Self.scenario(for: scenario, recommended: recommended, baseline: baseline, preDays: preDays,
                                      testDays: testDays)
        func none(_ reason: String) -> PrePeriodSimulation {
            PrePeriodSimulation(preDays: preDays, testDays: testDays, users: s.users, seed: s.seed, sums: nil, unavailable: reason)
        }
        guard let value = InTestValue(metric) else {
            return none("\(metric.title) counts days after install, which users who installed before the test do not have in it")
        }
        guard s.horizonDays <= Scenario.maximumHorizonDays else {
            return none("the \(preDays) days before the test and its \(testDays) make more than \(Scenario.maximumHorizonDays) days")
        }
        let model: CompiledModel
        do {
            model = try CompiledModel(s, recorded: recorded)
        } catch {
            return none("its simulation cannot be made: \(error)")
        }
        let sums = model.simulateLiveTest(baseline: b, arms: [r, b], testStartDay: preDays, value: value,
                                          users: 0..<s.users, threads: threads)
        if let breach = sums.sessionLimitBreach {
            return none("its simulation stopped: \(model.explain(breach))")
        }
        return PrePeriodSimulation(preDays: preDays, testDays: testDays, users: s.users, seed: s.seed,
                                   sums: (sums.arms[0], sums.arms[1]))
    }
}

/// One arm's moments of x (opens before the test) and y (the metric during it).
public struct CovariateMoments: Equatable, Sendable {
    public let users: Int64
    /// Σy, whole: the metric is a count per user.
    public let sumY: Int64
    public let meanX: Double, meanY: Double
    /// Sample variances and covariance, with n − 1.
    public let varianceX: Double, varianceY: Double, covariance: Double

    /// Nil for fewer than two users.
    public init?(_ s: CovariateSums) {
        guard s.users > 1 else { return nil }
        let n = Double(s.users)
        (users, sumY) = (s.users, s.y)
        meanX = Double(s.x) / n
        meanY = Double(s.y) / n
        varianceX = max(0, (Double(s.xx) - Double(s.x) * meanX) / (n - 1))
        varianceY = max(0, (Double(s.yy) - Double(s.y) * meanY) / (n - 1))
        covariance = (Double(s.xy) - Double(s.x) * meanY) / (n - 1)
    }

    /// The correlation of x and y; 0 when either does not vary.
    public var correlation: Double {
        let v = varianceX * varianceY
        return v > 0 ? covariance / v.squareRoot() : 0
    }

    /// The variance of y − θx: σ_y² − 2θ·cov + θ²σ_x², which is σ_y²(1 − ρ²) + σ_x²(θ − cov/σ_x²)²,
    /// so σ_y²(1 − ρ²) when θ is the arm's own slope.
    public func adjustedVariance(theta: Double) -> Double {
        max(0, varianceY - 2 * theta * covariance + theta * theta * varianceX)
    }
}

/// The plan with CUPED: the same test analysed on y − θ(x − x̄), x a user's opens in the days before
/// the test, with θ = cov(x, y) / var(x) pooled over the two compared arms (their within-arm
/// covariances and variances weighted by their shares). Each arm's variance becomes σ²(1 − ρ²) (with
/// the arms' own slopes; a little more when they differ), and the users needed shrink with it.
public struct CupedPlan: Sendable {
    public let preDays: Int
    /// Users simulated in each arm, and their seed.
    public let simulatedUsers: Int
    public let seed: UInt64
    /// ρ of the recommendation's arm and the baseline's.
    public let correlations: [Double]
    public let theta: Double
    /// The share of σ_r²/s_r + σ_b²/s_b that CUPED removes: the users needed shrink by it.
    public let varianceReduction: Double
    /// Recommendation − baseline among these users during the test.
    public let difference: Double
    /// The same test on the same simulated users without CUPED, in total and per arm.
    public let totalUsersWithout: Int64
    public let usersPerArmWithout: [Int64]
    public let usersPerArm: [Int64]
    public let totalUsers: Int64
    /// At `LiveTestPlan.liveUsers`.
    public let minimumDetectableEffect: Double?

    /// The plan from the two compared arms' moments, with `shares` the share of every arm of the
    /// test (the recommendation's and the baseline's first); nil when the difference is zero.
    public init?(preDays: Int, simulatedUsers: Int, seed: UInt64, recommended r: CovariateMoments,
                 baseline b: CovariateMoments, shares: [Double], liveUsers: Int64?) {
        guard shares.count >= 2 else { return nil }
        let (sr, sb) = (shares[0], shares[1])
        let pooledX = sr * r.varianceX + sb * b.varianceX
        let theta = pooledX > 0 ? (sr * r.covariance + sb * b.covariance) / pooledX : 0
        let spread = r.varianceY / sr + b.varianceY / sb
        let adjusted = r.adjustedVariance(theta: theta) / sr + b.adjustedVariance(theta: theta) / sb
        let d = ArmMoments.difference(sums: (r.sumY, b.sumY), users: (r.users, b.users), means: (r.meanY, b.meanY))
        let z2 = LiveTestPlan.zSum * LiveTestPlan.zSum
        let total = z2 * adjusted / (d * d), without = z2 * spread / (d * d)
        guard d != 0, total.isFinite, without.isFinite, total < 1e15, without < 1e15 else { return nil }
        func arms(_ n: Double) -> [Int64] { shares.map { Int64((n * $0).rounded(.up)) } }
        (self.preDays, self.simulatedUsers, self.seed) = (preDays, simulatedUsers, seed)
        correlations = [r.correlation, b.correlation]
        self.theta = theta
        varianceReduction = spread > 0 ? 1 - adjusted / spread : 0
        difference = d
        usersPerArmWithout = arms(without)
        totalUsersWithout = usersPerArmWithout.reduce(0, +)
        usersPerArm = arms(total)
        totalUsers = usersPerArm.reduce(0, +)
        minimumDetectableEffect = liveUsers.flatMap { n in
            LiveTestPlan.armsHoldUsers(Int(n), shares: shares) ? LiveTestPlan.zSum * (adjusted / Double(n)).squareRoot() : nil
        }
    }
}
