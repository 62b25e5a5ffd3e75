import CronEngine
import RecordedData

/// The operating systems whose notification rules a run can follow.
public enum PlatformKind: String, CaseIterable, Codable, Sendable {
    case ios, android
}

/// A share of the users on one platform, with the rules its notifications live by (docs/scenario.md,
/// "Platforms"). A population without platforms is one platform with no rules: every user may receive
/// notifications from the install on, at the times the app scheduled, with no limit on how many are pending.
public struct PlatformSpec: Encodable, Equatable, Sendable {
    public var platform: PlatformKind
    /// The platform's name in reports; defaults to the platform (`ios`, `android`).
    public var name: String
    public var weight: Double
    /// Whether and when the user allows notifications; nil: allowed from the install.
    public var permission: PermissionSpec?
    /// The segments' shares among this platform's users, by segment name; nil: the population's weights.
    public var segmentWeights: [String: Double]?
    /// iOS: the most notifications an app may have pending; the soonest-firing are kept.
    public var pendingLimit: Int?
    /// Android: how the system fires the app's alarms.
    public var alarms: AlarmSpec?

    /// Apple's documented limit of pending local notifications per app.
    public static let iosPendingLimit = 64

    public init(platform: PlatformKind, name: String? = nil, weight: Double = 1, permission: PermissionSpec? = nil,
                segmentWeights: [String: Double]? = nil, pendingLimit: Int? = nil, alarms: AlarmSpec? = nil) {
        self.platform = platform
        self.name = name ?? platform.rawValue
        self.weight = weight
        self.permission = permission
        self.segmentWeights = segmentWeights
        self.pendingLimit = pendingLimit ?? (platform == .ios ? Self.iosPendingLimit : nil)
        self.alarms = alarms ?? (platform == .android ? AlarmSpec() : nil)
    }
}

/// Notification permission: the share of users who allow notifications when asked, and when the app asks.
public struct PermissionSpec: Encodable, Equatable, Sendable {
    public var granted: Double
    public var ask: PermissionAsk
    /// iOS provisional authorisation: until the user allows notifications (or for good, if never
    /// asked or refused), notifications are delivered quietly, answered with the response chance
    /// times this factor; nil: not delivered at all.
    public var provisional: Double?

    public init(granted: Double, ask: PermissionAsk = .install, provisional: Double? = nil) {
        (self.granted, self.ask, self.provisional) = (granted, ask, provisional)
    }
}

/// When the app shows the permission prompt.
public enum PermissionAsk: Equatable, Sendable, Encodable {
    /// At the first launch, before any notification is scheduled.
    case install
    /// At the first cold launch whose launch counters match this Crontab-IOS rule.
    case rule(String)

    public var text: String {
        switch self {
        case .install: "install"
        case let .rule(r): r
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }
}

/// Android alarms: inexact ones fire within a window after their time, and while the device is
/// idle (Doze) they wait for its next maintenance window; exact ones fire on time.
public struct AlarmSpec: Encodable, Equatable, Sendable {
    /// Whether the app holds the exact-alarm permission and schedules exact alarms.
    public var exact: Bool
    /// An inexact alarm fires uniformly within this many minutes after its time.
    public var windowMinutes: Double
    /// The chance that the device is idle when an inexact alarm is due.
    public var idleShare: Double
    /// Minutes between an idle device's maintenance windows.
    public var maintenanceMinutes: Double

    public static let defaultWindowMinutes = 10.0
    public static let defaultMaintenanceMinutes = 60.0

    public init(exact: Bool = false, windowMinutes: Double = AlarmSpec.defaultWindowMinutes, idleShare: Double = 0,
                maintenanceMinutes: Double = AlarmSpec.defaultMaintenanceMinutes) {
        (self.exact, self.windowMinutes, self.idleShare, self.maintenanceMinutes) = (exact, windowMinutes, idleShare, maintenanceMinutes)
    }
}

extension JSONFieldReader {
    mutating func platforms(_ json: JSON, at path: String) -> [PlatformSpec]? {
        list(json, at: path, nonEmpty: true) { r, j, p in r.platform(j, at: p) }
    }

    mutating func platform(_ json: JSON, at path: String) -> PlatformSpec? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let kind = field(o, "platform") { r, j, p in r.enumeration(j, at: p, as: PlatformKind.self) }
        let name = optionalField(o, "name", Self.name)
        let weight = field(o, "weight", default: 1, Self.number(.within(0...1e6)))
        let permission = optionalField(o, "permission") { r, j, p in r.permission(j, at: p, platform: kind) }
        let segmentWeights = optionalField(o, "segmentWeights") { r, j, p in
            r.dictionary(j, at: p, mapping: "segment name to weight") { r, k, v in
                r.number(v, at: "\(p)[\(JSONFieldReader.quote(k))]", .within(0...1e6)).map { (k, $0) }
            }
        }
        let pendingLimit = optionalField(o, "pendingLimit", Self.integer(.within(1...1_000)))
        let alarms = optionalField(o, "alarms") { r, j, p in r.alarms(j, at: p) }
        if kind == .android, case .some(.some) = pendingLimit {
            fail(o.path("pendingLimit"), "Android sets no documented limit on pending notifications; pendingLimit is for \"ios\"")
        }
        if kind == .ios, case .some(.some) = alarms {
            fail(o.path("alarms"), "alarms describe Android's alarm delivery; iOS fires local notifications on time")
        }
        guard let kind, let name, let weight, let permission, let segmentWeights, let pendingLimit, let alarms else { return nil }
        return PlatformSpec(platform: kind, name: name, weight: weight, permission: permission, segmentWeights: segmentWeights,
                            pendingLimit: pendingLimit, alarms: alarms)
    }

    mutating func permission(_ json: JSON, at path: String, platform: PlatformKind?) -> PermissionSpec? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let granted = field(o, "granted", Self.number(.probability))
        let ask = field(o, "ask", default: PermissionAsk.install) { r, j, p -> PermissionAsk? in
            // A rule, and so a name's length at most (not in a database read back, as other rules).
            guard let text = r.relaxed ? r.string(j, at: p) : r.string(j, at: p, limit: .name) else { return nil }
            if text == "install" { return .install }
            do throws(CronRuleError) {
                _ = try CronRule(parsing: text, mode: .documented)
                return .rule(text)
            } catch {
                let expected = "expected \"install\" or a Crontab-IOS rule such as \"1 3\" (the first launch of the third active day)"
                r.fail(p, "\(expected); \(error.reason) (rule \(ScenarioIssue.quote(text)))")
                return nil
            }
        }
        let provisional = optionalField(o, "provisional", Self.number(.probability))
        if platform == .android, case .some(.some) = provisional {
            fail(o.path("provisional"), "provisional authorisation is iOS's; Android delivers nothing before the user allows notifications")
        }
        guard let granted, let ask, let provisional else { return nil }
        return PermissionSpec(granted: granted, ask: ask, provisional: provisional)
    }

    mutating func alarms(_ json: JSON, at path: String) -> AlarmSpec? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let exact = field(o, "exact", default: false, Self.bool)
        let window = field(o, "windowMinutes", default: AlarmSpec.defaultWindowMinutes, Self.number(.within(0...1_440)))
        let idle = field(o, "idleShare", default: 0, Self.number(.probability))
        // Android spaces an idle device's maintenance windows by many minutes; under a minute the
        // delays it gives would say nothing, and a spacing near 0 makes them overflow.
        let maintenance = field(o, "maintenanceMinutes", default: AlarmSpec.defaultMaintenanceMinutes,
                                Self.number(.within(1...1_440)))
        if exact == true {
            for key in ["windowMinutes", "idleShare", "maintenanceMinutes"] where o[key] != nil {
                fail(o.path(key), "exact alarms fire on time: \(key) describes inexact ones; remove it or set \"exact\": false")
            }
        }
        guard let exact, let window, let idle, let maintenance else { return nil }
        return AlarmSpec(exact: exact, windowMinutes: window, idleShare: idle, maintenanceMinutes: maintenance)
    }
}

extension ScenarioParts {
    /// The rules over platforms and segments: names unique, weights that add up, segment names that exist.
    static func platformIssues(_ platforms: [PlatformSpec], segments: [Segment?]?, relaxed: Bool) -> [ScenarioIssue] {
        var issues: [ScenarioIssue] = []
        func fail(_ p: String, _ r: String) { issues.append(ScenarioIssue(path: p, reason: r)) }
        if !(platforms.map(\.weight).reduce(0, +) > 0) {
            fail("population.platforms", "weights must add up to a positive number")
        }
        var names: [String: Int] = [:]
        let known = (segments ?? []).compactMap { $0?.name }
        for (i, p) in platforms.enumerated() {
            let at = "population.platforms[\(i)]"
            if Scenario.isBlank(p.name) || p.name.isEmpty {
                fail("\(at).name", p.name.isEmpty ? "must not be empty" : Scenario.blank)
            } else if !relaxed, let reason = TextLimit.name.refusal(p.name) {
                fail("\(at).name", reason)
            } else if let first = names[p.name] {
                fail("\(at).name", "\(ScenarioIssue.quote(p.name)) is already the name of population.platforms[\(first)]; "
                     + "give each platform entry its own name")
            } else {
                names[p.name] = i
            }
            if let a = p.alarms, !(1...1_440).contains(a.maintenanceMinutes) {
                fail("\(at).alarms.maintenanceMinutes", "must be between 1 and 1440, got \(a.maintenanceMinutes)")
            }
            guard let weights = p.segmentWeights, segments.map({ !$0.contains(nil) }) ?? false else { continue }
            for name in weights.keys.sorted() where !known.contains(name) {
                let hint = known.first { $0.lowercased() == name.lowercased() }.map { " (did you mean \(ScenarioIssue.quote($0))?)" }
                    ?? "; the segments are " + known.map(ScenarioIssue.quote).joined(separator: ", ")
                fail("\(at).segmentWeights[\(JSONFieldReader.quote(name))]", "no segment is called \(ScenarioIssue.quote(name))\(hint)")
            }
            if !(known.map { weights[$0] ?? 0 }.reduce(0, +) > 0) {
                fail("\(at).segmentWeights", "must give a positive weight to at least one segment")
            }
        }
        return issues
    }
}
