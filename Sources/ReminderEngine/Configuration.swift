/// Which behaviour the engines reproduce: the one the READMEs promise, or a released version's.
public enum EngineMode: String, Codable, Sendable, CaseIterable {
    /// What the README promises, with its gaps filled the way the original code fills them.
    case documented
    /// Bug for bug the released code CocoaPods installs: ACPReminder 1.0.2, the Crontab-IOS 1.0 pod.
    case original
    /// ACPReminder 1.0.0, which still uses 1 unit at period index 0; the cron engine is the 1.0 pod.
    case original100 = "original-1.0.0"

    /// Whether this mode reproduces released code rather than the README.
    @inlinable
    public var isOriginal: Bool { self != .documented }

    /// The released versions a mode reproduces, for reports.
    public var releasedVersions: String {
        switch self {
        case .documented: return "as the READMEs document"
        case .original: return "ACPReminder 1.0.2, Crontab-IOS 1.0 pod"
        case .original100: return "ACPReminder 1.0.0, Crontab-IOS 1.0 pod"
        }
    }
}

/// Where the app sets the reminder's configuration, which decides what the check at a cold launch sees.
public enum ReminderWiring: String, Codable, Sendable, CaseIterable {
    /// Before the first `becameActive` of every process, as an app should.
    case early
    /// Only in `applicationDidEnterBackground`, right before scheduling, as the ACPReminder README and
    /// its sample app do: a cold launch's check runs on an unconfigured singleton.
    case readme

    /// The wiring a configuration gets when it names none: what the README does, in the original modes.
    public static func `default`(for mode: EngineMode) -> ReminderWiring { mode.isOriginal ? .readme : .early }
}

/// The unit in which `timePeriods` are counted.
public enum PeriodUnit: String, Codable, Sendable, CaseIterable {
    case days, hours, minutes, seconds

    /// Length of one unit in seconds. A day is a fixed 86,400 s: the original adds seconds, not
    /// calendar days, so a fire time does not move with daylight saving.
    @inlinable
    public var seconds: Double {
        switch self {
        case .days: return 86_400
        case .hours: return 3_600
        case .minutes: return 60
        case .seconds: return 1
        }
    }
}

/// Why a reminder configuration was refused.
public enum ReminderConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case noMessages
    case noTimePeriods
    case nonPositiveTimePeriod(index: Int, value: Int)
    case emptyAppDomain
    case readmeWiringNeedsOriginalMode

    public var description: String {
        switch self {
        case .noMessages: return "messages: at least one message is required"
        case .noTimePeriods: return "timePeriods: at least one period is required"
        case let .nonPositiveTimePeriod(index, value):
            return "timePeriods[\(index)]: must be > 0, got \(value)"
        case .emptyAppDomain: return "appDomain: must not be empty"
        case .readmeWiringNeedsOriginalMode:
            return "wiring: \"readme\" reproduces released code and needs an original mode; documented mode is always \"early\""
        }
    }
}

/// The settings of one ACPReminder instance: what it says, and after how long.
///
/// A value of this type is always valid: the initialiser checks every rule and throws otherwise.
public struct ReminderConfiguration: Codable, Equatable, Sendable {
    /// The notification texts.
    public let messages: [String]
    /// Delays between leaving the app and the notification, in `unit`s; each > 0.
    public let timePeriods: [Int]
    public let unit: PeriodUnit
    /// Random rather than sequential message choice.
    public let randomMessage: Bool
    /// Wrap to the first period after the last, rather than staying on the last.
    public let circularTimePeriod: Bool
    /// Namespace of this reminder's state, so two reminders of one app keep separate state.
    public let appDomain: String
    public let mode: EngineMode
    /// Where the app sets this configuration; `readme` only in the original modes.
    public let wiring: ReminderWiring

    public static let defaultAppDomain = "com.company.ACPReminder"

    public init(
        messages: [String],
        timePeriods: [Int],
        unit: PeriodUnit = .days,
        randomMessage: Bool = false,
        circularTimePeriod: Bool = false,
        appDomain: String = ReminderConfiguration.defaultAppDomain,
        mode: EngineMode = .documented,
        wiring: ReminderWiring? = nil
    ) throws(ReminderConfigurationError) {
        guard !messages.isEmpty else { throw .noMessages }
        guard !timePeriods.isEmpty else { throw .noTimePeriods }
        if let bad = timePeriods.firstIndex(where: { $0 <= 0 }) {
            throw .nonPositiveTimePeriod(index: bad, value: timePeriods[bad])
        }
        guard !appDomain.isEmpty else { throw .emptyAppDomain }
        let wiring = wiring ?? .default(for: mode)
        if wiring == .readme && !mode.isOriginal { throw .readmeWiringNeedsOriginalMode }
        self.messages = messages
        self.timePeriods = timePeriods
        self.unit = unit
        self.randomMessage = randomMessage
        self.circularTimePeriod = circularTimePeriod
        self.appDomain = appDomain
        self.mode = mode
        self.wiring = wiring
    }

    private enum CodingKeys: String, CodingKey {
        case messages, timePeriods, unit, randomMessage, circularTimePeriod, appDomain, mode, wiring
    }

    /// Decodes with the same defaults and checks as the initialiser.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                messages: c.decode([String].self, forKey: .messages),
                timePeriods: c.decode([Int].self, forKey: .timePeriods),
                unit: c.decodeIfPresent(PeriodUnit.self, forKey: .unit) ?? .days,
                randomMessage: c.decodeIfPresent(Bool.self, forKey: .randomMessage) ?? false,
                circularTimePeriod: c.decodeIfPresent(Bool.self, forKey: .circularTimePeriod) ?? false,
                appDomain: c.decodeIfPresent(String.self, forKey: .appDomain) ?? Self.defaultAppDomain,
                mode: c.decodeIfPresent(EngineMode.self, forKey: .mode) ?? .documented,
                wiring: c.decodeIfPresent(ReminderWiring.self, forKey: .wiring)
            )
        } catch let error as ReminderConfigurationError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }
}
