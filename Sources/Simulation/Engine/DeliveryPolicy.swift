/// A span of local clock time `[start, end)` in minutes after midnight, wrapping past midnight when
/// `end < start` (22:00–07:00 is the night).
public struct LocalTimeSpan: Encodable, Equatable, Sendable, CustomStringConvertible {
    public var startMinute: Int
    public var endMinute: Int

    /// - Precondition: both in `0..<1440` and different.
    public init(startMinute: Int, endMinute: Int) {
        precondition((0..<1_440).contains(startMinute) && (0..<1_440).contains(endMinute) && startMinute != endMinute,
                     "LocalTimeSpan: minutes of the day, start and end different")
        (self.startMinute, self.endMinute) = (startMinute, endMinute)
    }

    /// Reads `HH:MM`, 00:00 to 23:59.
    public static func minute(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60
        else { return nil }
        return h * 60 + m
    }

    static func text(_ minute: Int) -> String {
        let h = minute / 60, m = minute % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    public var description: String { "\(Self.text(startMinute))–\(Self.text(endMinute))" }

    /// As written in a scenario: `{"start": "HH:MM", "end": "HH:MM"}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: SpanKeys.self)
        try c.encode(Self.text(startMinute), forKey: .start)
        try c.encode(Self.text(endMinute), forKey: .end)
    }

    enum SpanKeys: String, CodingKey { case start, end }

    /// Whether local time `t` (seconds, any origin at a local midnight) lies in the span.
    public func contains(localSeconds t: Double) -> Bool {
        let minute = Self.minuteOfDay(t)
        return startMinute < endMinute
            ? minute >= Double(startMinute) && minute < Double(endMinute)
            : minute >= Double(startMinute) || minute < Double(endMinute)
    }

    /// The first local instant at or after `t` that lies in the span.
    public func firstInstant(atOrAfterLocal t: Double) -> Double {
        if contains(localSeconds: t) { return t }
        let dayStart = (t / 86_400).rounded(.down) * 86_400
        let start = dayStart + Double(startMinute) * 60
        return start > t ? start : start + 86_400
    }

    /// The first local instant at or after `t` outside the span (its end, when `t` is inside).
    public func firstInstant(outsideAtOrAfterLocal t: Double) -> Double {
        guard contains(localSeconds: t) else { return t }
        let dayStart = (t / 86_400).rounded(.down) * 86_400
        let end = dayStart + Double(endMinute) * 60
        return end > t ? end : end + 86_400
    }

    /// Whether every minute of `other` lies in this span.
    public func covers(_ other: LocalTimeSpan) -> Bool {
        var minute = other.startMinute
        while minute != other.endMinute {
            guard contains(localSeconds: Double(minute) * 60) else { return false }
            minute = (minute + 1) % 1_440
        }
        return true
    }

    static func minuteOfDay(_ t: Double) -> Double {
        let r = t.truncatingRemainder(dividingBy: 86_400)
        return (r < 0 ? r + 86_400 : r) / 60
    }
}

/// When a notification may be shown, layered around the engines (which do not change): an app that
/// moves the engine's fire time into a send window or out of quiet hours, or drops notifications past
/// a frequency cap. None of this exists in the original libraries; reports label it as an extension.
public struct DeliveryPolicy: Encodable, Equatable, Sendable {
    /// Where a notification may fire, in the user's local time.
    public enum SendWindow: Encodable, Equatable, Sendable {
        /// A fixed local span, such as 18:00–21:00.
        case span(LocalTimeSpan)
        /// The local clock hour of the user's most recent organic open.
        case usualHour

        /// As written in a scenario: a span object, or the string `"usualHour"`.
        public func encode(to encoder: any Encoder) throws {
            switch self {
            case let .span(span): try span.encode(to: encoder)
            case .usualHour:
                var c = encoder.singleValueContainer()
                try c.encode("usualHour")
            }
        }
    }

    /// At most `max` notifications delivered per user in any `perDays`-day window, over all the
    /// reminders of a configuration.
    public struct FrequencyCap: Encodable, Equatable, Sendable {
        public var max: Int
        public var perDays: Double

        public init(max: Int, perDays: Double) { (self.max, self.perDays) = (max, perDays) }

        /// The largest `max` accepted: the caps this model is for are a few a week.
        public static let largestMax = 64
    }

    /// Fire times inside these local hours move to their end.
    public var quietHours: LocalTimeSpan?
    public var sendWindow: SendWindow?
    public var frequencyCap: FrequencyCap?

    public init(quietHours: LocalTimeSpan? = nil, sendWindow: SendWindow? = nil, frequencyCap: FrequencyCap? = nil) {
        (self.quietHours, self.sendWindow, self.frequencyCap) = (quietHours, sendWindow, frequencyCap)
    }

    /// True when the policy changes nothing: the engines' own behaviour.
    public var isEmpty: Bool { quietHours == nil && sendWindow == nil && frequencyCap == nil }

    /// Whether the fire time moves with the policy (a window or quiet hours).
    public var movesFireTimes: Bool { quietHours != nil || sendWindow != nil }

    /// How a fire time moved.
    public struct Move: Equatable, Sendable {
        public var time: Double
        /// Moved into the send window.
        public var shifted: Bool
        /// Moved out of quiet hours.
        public var deferred: Bool

        public init(time: Double, shifted: Bool, deferred: Bool) {
            (self.time, self.shifted, self.deferred) = (time, shifted, deferred)
        }
    }

    /// The time the notification really fires for an engine fire time `t` (seconds since the run's
    /// start) of a user `utcOffsetSeconds` east of UTC whose most recent organic open was at local
    /// minute-of-day `usualMinute`: first into the send window, then out of quiet hours.
    public func fireTime(for t: Double, utcOffsetSeconds: Double, usualMinute: Int?) -> Move {
        var local = t + utcOffsetSeconds
        var shifted = false, deferred = false
        switch sendWindow {
        case let .span(span)?:
            let moved = span.firstInstant(atOrAfterLocal: local)
            shifted = moved != local
            local = moved
        case .usualHour?:
            if let usualMinute {
                let hour = usualMinute / 60 * 60
                let moved = LocalTimeSpan(startMinute: hour, endMinute: (hour + 60) % 1_440)
                    .firstInstant(atOrAfterLocal: local)
                shifted = moved != local
                local = moved
            }
        case nil:
            break
        }
        if let quietHours {
            let moved = quietHours.firstInstant(outsideAtOrAfterLocal: local)
            deferred = moved != local
            local = moved
        }
        return Move(time: local - utcOffsetSeconds, shifted: shifted, deferred: deferred)
    }
}

/// The recent deliveries of one user under one configuration, for a frequency cap: a ring of the
/// last `max` delivery times, reused from user to user.
public struct DeliveryLog: Sendable {
    private var times: [Double]
    private var next = 0
    private var count = 0

    public init(capacity: Int) { times = Array(repeating: 0, count: Swift.max(1, capacity)) }

    /// A placeholder that shares one buffer, for timelines without a cap: assigning it allocates nothing.
    static let unused = DeliveryLog(capacity: 1)

    /// Forgets every delivery (a new user).
    public mutating func reset() {
        next = 0
        count = 0
    }

    /// Whether one more delivery at `t` stays within `cap`: fewer than `max` deliveries in (t − window, t].
    public func allows(_ t: Double, cap: DeliveryPolicy.FrequencyCap) -> Bool {
        guard count >= cap.max else { return true }
        // The oldest of the last `max` deliveries must have left the window.
        let oldest = times[(next - cap.max + times.count * 2) % times.count]
        return oldest <= t - cap.perDays * 86_400
    }

    public mutating func record(_ t: Double) {
        times[next] = t
        next = (next + 1) % times.count
        count = Swift.min(count + 1, times.count)
    }
}
