import CronEngine
import Randomness

/// Streams of the platform rules, apart from the ones a run without platforms uses, so that naming
/// platforms shifts no other draw: the platform and the permission answer, and the delays of
/// Android's alarms.
enum PlatformStream {
    static let traits: UInt64 = 6
    static let alarms: UInt64 = 7
}

/// One platform of the population, ready for simulation (docs/scenario.md, "Platforms").
@usableFromInline
struct CompiledPlatform: Sendable {
    /// Whether users must allow notifications (a permission block was given).
    let asksPermission: Bool
    /// The share of users who allow notifications when asked.
    let granted: Double
    /// The rule whose first match at a cold launch shows the permission prompt; nil: at the install.
    let askRule: CronRule?
    /// iOS provisional authorisation: whether notifications are delivered quietly without permission,
    /// and their response factor then (which may be 0: shown, never answered).
    let provisional: Bool
    let provisionalFactor: Double
    /// The most notifications pending at once (iOS); `Int.max` for no limit.
    let pendingLimit: Int
    /// Android inexact alarms: the window after the alarm's time, the chance the device is idle
    /// and the spacing of its maintenance windows, in seconds; a zero window and idle share for
    /// exact alarms and platforms without the rule.
    let alarmWindowSeconds: Double
    let idleShare: Double
    let maintenanceSeconds: Double
    /// The segments' shares on this platform, when they differ from the population's.
    let segmentChoice: WeightedChoice?

    /// Whether the platform moves any notification's fire time.
    var delaysAlarms: Bool { alarmWindowSeconds > 0 || idleShare > 0 }

    /// Whether any rule of the platform can act: permission, alarm delays, a pending limit a
    /// configuration can reach.
    var hasRules: Bool { asksPermission || delaysAlarms || pendingLimit < ConfigurationSpec.maximumReminders }

    /// The platform of a population without platforms: no rule.
    static let unrestricted = CompiledPlatform(
        asksPermission: false, granted: 1, askRule: nil, provisional: false, provisionalFactor: 0, pendingLimit: .max,
        alarmWindowSeconds: 0, idleShare: 0, maintenanceSeconds: 0, segmentChoice: nil)

    init(asksPermission: Bool, granted: Double, askRule: CronRule?, provisional: Bool, provisionalFactor: Double, pendingLimit: Int,
         alarmWindowSeconds: Double, idleShare: Double, maintenanceSeconds: Double, segmentChoice: WeightedChoice?) {
        (self.asksPermission, self.granted, self.askRule) = (asksPermission, granted, askRule)
        (self.provisional, self.provisionalFactor) = (provisional, provisionalFactor)
        (self.pendingLimit, self.alarmWindowSeconds, self.idleShare) = (pendingLimit, alarmWindowSeconds, idleShare)
        (self.maintenanceSeconds, self.segmentChoice) = (maintenanceSeconds, segmentChoice)
    }

    /// A validated platform of a population with these segments.
    init(_ p: PlatformSpec, segments: [Segment]) {
        asksPermission = p.permission != nil
        granted = p.permission?.granted ?? 1
        if case let .rule(text)? = p.permission?.ask {
            // Validation parsed it already.
            askRule = try? CronRule(parsing: text, mode: .documented)
        } else {
            askRule = nil
        }
        provisional = p.permission?.provisional != nil
        provisionalFactor = p.permission?.provisional ?? 0
        pendingLimit = p.pendingLimit ?? .max
        if let a = p.alarms, !a.exact {
            (alarmWindowSeconds, idleShare, maintenanceSeconds) = (a.windowMinutes * 60, a.idleShare, a.maintenanceMinutes * 60)
        } else {
            (alarmWindowSeconds, idleShare, maintenanceSeconds) = (0, 0, 0)
        }
        segmentChoice = p.segmentWeights.map { w in WeightedChoice(weights: segments.map { w[$0.name] ?? 0 }) }
    }
}

/// What a user's platform holds for them, drawn once and the same under every configuration.
public struct PlatformTraits: Equatable, Sendable {
    /// The user's platform (index into the population's platforms), or 0 without platforms.
    public var platform = 0
    /// Whether the user allows notifications when the app asks.
    public var grants = true
    /// Where an idle device's maintenance windows fall: this many seconds after each multiple of
    /// their spacing.
    public var maintenancePhase = 0.0
}

extension CompiledModel {
    /// The pending limit of the user's platform.
    public func platformPendingLimit(_ traits: UserTraits) -> Int { platforms[traits.platform.platform].pendingLimit }

    /// The user's platform and answers, from the platform stream; nil draws nothing without platforms.
    func platformTraits(user: Int) -> PlatformTraits {
        var g = Xoshiro256(seed: seed, user: UInt64(user), purpose: PlatformStream.traits)
        let p = platformChoice?.sample(&g) ?? 0
        // Drawn whatever the platform's rules, so that changing one rule shifts no other draw: with
        // common random numbers, the users who allow notifications at a share s are among those who
        // do at any larger share.
        let answer = g.nextUnit()
        let phase = g.nextUnit()
        return PlatformTraits(platform: p, grants: answer < platforms[p].granted,
                              maintenancePhase: phase * platforms[p].maintenanceSeconds)
    }
}

/// Android's alarm delays for one user under one configuration: their stream, seeded at the first.
struct AlarmDraws {
    let seed: UInt64
    let user: UInt64
    var stream = Xoshiro256(state: (1, 0, 0, 0))
    var seeded = false

    init(seed: UInt64, user: UInt64) { (self.seed, self.user) = (seed, user) }

    /// When the system fires an alarm set for `t`: within the window after it, and for an idle device
    /// at its next maintenance window after that (`phase` + k · spacing); whether it was idle. Two draws
    /// per alarm whatever they decide, so that one alarm's rule shifts no other's draws.
    mutating func delayed(_ t: Double, _ platform: UnsafePointer<CompiledPlatform>, phase: Double) -> (Double, dozed: Bool) {
        if !seeded {
            stream = Xoshiro256(seed: seed, user: user, purpose: PlatformStream.alarms)
            seeded = true
        }
        let p = platform.pointee
        var fire = t + stream.nextUnit() * p.alarmWindowSeconds
        let idle = stream.nextUnit() < p.idleShare
        if idle {
            fire = max(fire, phase + ((fire - phase) / p.maintenanceSeconds).rounded(.up) * p.maintenanceSeconds)
        }
        return (fire, idle)
    }
}
