import Foundation
import RecordedData

/// The week and the clock of organic returns: a factor per local weekday and per local hour on
/// the intensity with which users come back on their own (docs/scenario.md, "Return pattern").
/// The factors are relative: the run scales their product so that its mean over a week is 1, and
/// a user's long-run return rate stays the segment's.
public struct ReturnPattern: Encodable, Equatable, Sendable {
    /// Seven factors, Monday first.
    public var weekdays: [Double]
    /// Twenty-four factors, for the local hours 0...23.
    public var hours: [Double]

    public static let dayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    public static let flatWeek = [Double](repeating: 1, count: 7)
    public static let flatDay = [Double](repeating: 1, count: 24)

    public init(weekdays: [Double] = ReturnPattern.flatWeek, hours: [Double] = ReturnPattern.flatDay) {
        (self.weekdays, self.hours) = (weekdays, hours)
    }

    /// Whether every factor is the same, so that returns are what they are without a pattern.
    public var isFlat: Bool {
        weekdays.allSatisfy { $0 == weekdays[0] } && hours.allSatisfy { $0 == hours[0] }
    }

    /// The factor of each hour of the week, Monday 00:00 first, scaled to a mean of 1.
    public var weeklyHourFactors: [Double] {
        var cells: [Double] = []
        cells.reserveCapacity(168)
        for d in weekdays { for h in hours { cells.append(d * h) } }
        let mean = cells.reduce(0, +) / 168
        return cells.map { $0 / mean }
    }

    private enum CodingKeys: String, CodingKey { case weekdays, hours }

    /// Weekdays as an object from day name to factor, as a scenario gives them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Dictionary(uniqueKeysWithValues: zip(Self.dayNames, weekdays)), forKey: .weekdays)
        try c.encode(hours, forKey: .hours)
    }
}

/// The system's time zone database, as the run reads it: identifiers and offsets.
public enum TimeZoneDatabase {
    /// The identifiers a scenario may name (`TimeZone.knownTimeZoneIdentifiers`).
    public static let identifiers: Set<String> = Set(TimeZone.knownTimeZoneIdentifiers)

    /// Why `name` cannot be used as a zone, or nil when it can.
    public static func refusal(_ name: String) -> String? {
        // An Area/Location name the database resolves to itself; abbreviations ("EST") and offsets
        // ("GMT+5") are fixed offsets, better written as hours.
        if name.contains("/"), TimeZone(identifier: name)?.identifier == name { return nil }
        if !name.contains("/"), let zone = TimeZone(identifier: name) {
            let hours = Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: 0))) / 3_600
            return "\(ScenarioIssue.quote(name)) is not an Area/Location zone name; for a fixed offset write "
                + "{\"hours\": \(hours == hours.rounded() ? String(Int(hours)) : String(hours))}, or name a zone such as \"America/New_York\""
        }
        let lower = name.lowercased()
        if let same = identifiers.first(where: { $0.lowercased() == lower }) {
            return "unknown time zone \(ScenarioIssue.quote(name)) (did you mean \"\(same)\"?)"
        }
        let city = lower.split(separator: "/").last.map(String.init) ?? lower
        let near = identifiers.filter { $0.lowercased().hasSuffix("/" + city) }.sorted()
        if let first = near.first {
            return "unknown time zone \(ScenarioIssue.quote(name)) (did you mean \"\(first)\"?)"
        }
        return "unknown time zone \(ScenarioIssue.quote(name)); expected an identifier of the time zone database "
            + "such as \"America/New_York\" or \"Europe/Berlin\", or a fixed offset as \"hours\""
    }

    /// The zone's offset from UTC in seconds at `start` (seconds since 1970), and each change of
    /// it after `start` up to `end`, as (instant, new offset).
    public static func offsets(of name: String, from start: Double, to end: Double) -> (Double, [(Double, Double)]) {
        guard let zone = TimeZone(identifier: name) else { return (0, []) }
        let first = Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: start)))
        var changes: [(Double, Double)] = []
        var after = Date(timeIntervalSince1970: start)
        // A zone changes its offset twice a year at most, bar rare redefinitions: the bound only
        // stops a database that would loop.
        while changes.count < 4 * 3_700, let next = zone.nextDaylightSavingTimeTransition(after: after) {
            let t = next.timeIntervalSince1970
            guard t > after.timeIntervalSince1970, t <= end else { break }
            changes.append((t, Double(zone.secondsFromGMT(for: next))))
            after = next
        }
        return (first, changes)
    }
}

extension JSONFieldReader {
    /// A `population.utcOffsets` entry: `{"hours": -5}` or `{"zone": "America/New_York"}`, with a weight.
    mutating func offsetShare(_ json: JSON, at path: String) -> UTCOffsetShare? {
        guard let e = object(json, at: path) else { return nil }
        defer { finish(e) }
        let hours = optionalField(e, "hours", Self.number(.within(-12...14)))
        let zone = optionalField(e, "zone") { r, j, p -> String? in
            guard let name = r.string(j, at: p) else { return nil }
            // A run read back from its database keeps the zone it ran with, whatever this machine's database knows.
            if !r.relaxed, let reason = TimeZoneDatabase.refusal(name) {
                r.fail(p, reason)
                return nil
            }
            return name
        }
        let weight = field(e, "weight", default: 1, Self.number(.within(0...1e6)))
        guard let hours, let zone, let weight else { return nil }
        switch (hours, zone) {
        case let (h?, nil): return UTCOffsetShare(hours: h, weight: weight)
        case let (nil, z?): return UTCOffsetShare(zone: z, weight: weight)
        case (nil, nil):
            fail(path, "expected \"hours\" (a fixed UTC offset) or \"zone\" (a time zone such as \"America/New_York\")")
        case (_?, _?):
            fail(path, "give \"hours\" or \"zone\", not both: a named zone has its own offsets")
        }
        return nil
    }

    /// `population.returnPattern`: `{"weekdays": {"saturday": 2, …}, "hours": [24 factors]}`.
    mutating func returnPattern(_ json: JSON, at path: String) -> ReturnPattern? {
        guard let o = object(json, at: path) else { return nil }
        defer { finish(o) }
        let weekdays = optionalField(o, "weekdays") { r, j, p -> [Double]? in
            guard let days = r.object(j, at: p) else { return nil }
            var factors = ReturnPattern.flatWeek
            var valid = true
            for (key, value) in days.members {
                let at = "\(p).\(Excerpt.shortened(key))"
                guard let d = ReturnPattern.dayNames.firstIndex(of: key.lowercased()) else {
                    let hint = ReturnPattern.dayNames.first { $0.hasPrefix(String(key.lowercased().prefix(3))) && key.count >= 2 }
                    r.fail(at, "unknown weekday" + (hint.map { " (did you mean \"\($0)\"?)" } ?? "; expected one of \(ReturnPattern.dayNames.joined(separator: ", "))"))
                    valid = false
                    continue
                }
                guard key == ReturnPattern.dayNames[d] else {
                    r.fail(at, "weekdays are written in lower case (did you mean \"\(ReturnPattern.dayNames[d])\"?)")
                    valid = false
                    continue
                }
                guard let x = r.number(value, at: at, .within(0...1e6)) else { valid = false; continue }
                factors[d] = x
            }
            guard valid else { return nil }
            if !factors.contains(where: { $0 > 0 }) {
                r.fail(p, "at least one weekday must have a positive factor: users would never come back on their own")
                return nil
            }
            return factors
        }
        let hours = optionalField(o, "hours") { r, j, p -> [Double]? in
            guard let values = r.array(j, at: p) else { return nil }
            guard values.count == 24 else {
                r.fail(p, "expected 24 factors, one per local hour 0...23, got \(values.count)")
                return nil
            }
            var factors: [Double] = []
            for (h, v) in values.enumerated() {
                guard let x = r.number(v, at: "\(p)[\(h)]", .within(0...1e6)) else { continue }
                factors.append(x)
            }
            guard factors.count == 24 else { return nil }
            if !factors.contains(where: { $0 > 0 }) {
                r.fail(p, "at least one hour must have a positive factor: users would never come back on their own")
                return nil
            }
            return factors
        }
        guard let weekdays, let hours else { return nil }
        return ReturnPattern(weekdays: weekdays ?? ReturnPattern.flatWeek, hours: hours ?? ReturnPattern.flatDay)
    }
}
