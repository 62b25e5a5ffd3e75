import ReminderEngine

/// The inactivity sequences a tune space holds: every list of `steps` day counts taken from
/// `afterDays`, each later than the one before (a `sequence` configuration's `afterDays`).
public struct TuneSequences: Codable, Equatable, Sendable {
    /// How many steps a sequence has.
    public var steps: TuneRange
    /// The days a step may come after the last session.
    public var afterDays: TuneRange

    public init(steps: TuneRange, afterDays: TuneRange) {
        (self.steps, self.afterDays) = (steps, afterDays)
    }

    /// How many sequences the ranges allow: the sum over step counts s of C(days, s) (saturating).
    public var count: Int {
        let n = afterDays.max - afterDays.min + 1
        guard n > 0, steps.min >= 1, steps.min <= min(steps.max, n) else { return 0 }
        var total = 0
        for s in steps.min...min(steps.max, n) {
            let (t, overflow) = total.addingReportingOverflow(Self.choose(n, s))
            if overflow { return Int.max }
            total = t
        }
        return total
    }

    /// C(n, k), saturating at Int.max.
    static func choose(_ n: Int, _ k: Int) -> Int {
        guard k >= 0, k <= n else { return 0 }
        var c = 1
        for i in 0..<min(k, n - k) {
            // c is C(n, i), and C(n, i) · (n − i) = C(n, i + 1) · (i + 1): the division is exact.
            let (p, overflow) = c.multipliedReportingOverflow(by: n - i)
            if overflow { return Int.max }
            c = p / (i + 1)
        }
        return c
    }

    /// Whether the ranges allow this sequence.
    func holds(_ days: [Int]) -> Bool {
        days.count >= steps.min && days.count <= steps.max && days.allSatisfy { $0 >= afterDays.min && $0 <= afterDays.max }
    }

    /// The sequences, fewer steps first, then by their days.
    public func all() -> [[Int]] {
        guard count > 0, count < Int.max else { return [] }
        var out: [[Int]] = []
        for s in steps.min...min(steps.max, afterDays.max - afterDays.min + 1) {
            var days = Array(afterDays.min..<(afterDays.min + s))
            while true {
                out.append(days)
                // The next combination: the last day that can still move moves on, the later ones follow it.
                var k = s - 1
                while k >= 0 && days[k] == afterDays.max - (s - 1 - k) { k -= 1 }
                if k < 0 { break }
                days[k] += 1
                for j in (k + 1)..<s { days[j] = days[j - 1] + 1 }
            }
        }
        return out
    }
}

/// The mixes a tune space holds: one reminder of a single period from `periods` (in the space's
/// unit) beside each of the space's inactivity sequences.
public struct TuneMix: Codable, Equatable, Sendable {
    public var periods: TuneRange

    public init(periods: TuneRange) { self.periods = periods }
}

/// One part of a tune's candidates and how many it holds.
public struct TunePart: Equatable, Sendable {
    /// `timePeriods`, `sequences`, `mix` or `listed`.
    public let name: String
    public let candidates: Int

    public init(name: String, candidates: Int) { (self.name, self.candidates) = (name, candidates) }
}

extension TuneSpace {
    /// The messages, message orders and delivery policies every candidate takes.
    struct Choices {
        let texts: [String]
        let randoms: [Bool]
        let policies: [DeliveryPolicy]
    }

    func choices(baseline: ConfigurationSpec) -> Choices {
        let first = baseline.reminders.first
        return Choices(texts: messages ?? first?.messages ?? ["Come back"],
                       randoms: randomMessage ?? [first?.randomMessage ?? false],
                       policies: delivery ?? [baseline.delivery])
    }

    /// The inactivity sequence of these days with the space's messages: one for every step, or
    /// one per step in order when there are several.
    static func sequence(_ days: [Int], texts: [String]) -> SequenceSpec {
        SequenceSpec(afterDays: days, messages: texts.count == 1 ? texts : days.indices.map { texts[$0 % texts.count] })
    }

    /// The `sequences` part's candidates: each sequence for each delivery policy.
    public func sequenceCandidates(baseline: ConfigurationSpec) -> [ConfigurationSpec] {
        guard let sequences else { return [] }
        let c = choices(baseline: baseline)
        var out: [ConfigurationSpec] = []
        for days in sequences.all() {
            for (p, policy) in c.policies.enumerated() {
                var label = "seq " + days.map(String.init).joined(separator: "/") + "d"
                if c.policies.count > 1 { label += " delivery \(p + 1)" }
                var spec = ConfigurationSpec(label: label, sequence: Self.sequence(days, texts: c.texts),
                                             cronRules: baseline.cronRules)
                spec.delivery = policy
                out.append(spec)
            }
        }
        return out
    }

    /// The `mix` part's candidates: one reminder of each period beside each sequence, for each
    /// message order and delivery policy. The reminder keeps the default app domain; the steps keep
    /// a sequence's, so each keeps its own state. A mix whose reminder fires with a step (its period,
    /// in days, is a step's) is left out, and so is one that behaves as a sequence of the space or as
    /// an earlier mix: with one message, a reminder of p days beside a sequence is the sequence with
    /// a step at p.
    public func mixCandidates(baseline: ConfigurationSpec) -> [ConfigurationSpec] {
        guard let mix, let sequences, mix.periods.min <= mix.periods.max else { return [] }
        let c = choices(baseline: baseline)
        let all = sequences.all()
        var out: [ConfigurationSpec] = []
        var seen = Set<String>()
        for period in mix.periods.min...mix.periods.max {
            for days in all where !days.contains(period) {
                let union = (days + [period]).sorted()
                if c.texts.count == 1 && sequences.holds(union) { continue }
                for random in c.randoms {
                    for (p, policy) in c.policies.enumerated() {
                        if c.texts.count == 1 {
                            let key = union.map(String.init).joined(separator: "/") + (random ? "r" : "") + " \(p)"
                            guard seen.insert(key).inserted else { continue }
                        }
                        var parts = ["\(period)\(unit.labelSuffix) + seq " + days.map(String.init).joined(separator: "/") + "d"]
                        if c.randoms.count > 1 && c.texts.count > 1 { parts.append(random ? "random" : "in order") }
                        if c.policies.count > 1 { parts.append("delivery \(p + 1)") }
                        let reminder = ReminderSpec(messages: c.texts, timePeriods: [period], unit: unit, randomMessage: random)
                        var spec = ConfigurationSpec(label: parts.joined(separator: " "), mode: .documented,
                                                     reminders: [reminder] + Self.sequence(days, texts: c.texts).reminders,
                                                     cronRules: baseline.cronRules)
                        spec.delivery = policy
                        out.append(spec)
                    }
                }
            }
        }
        return out
    }

    /// How many candidates the sequences and the mixes allow, before any is made (saturating).
    var sequenceAndMixCount: Int {
        guard let sequences else { return 0 }
        let policies = max(1, delivery?.count ?? 1)
        let (seq, o1) = sequences.count.multipliedReportingOverflow(by: policies)
        guard let mix else { return o1 ? Int.max : seq }
        let periods = max(0, mix.periods.max - mix.periods.min + 1)
        let (m1, o2) = seq.multipliedReportingOverflow(by: periods)
        let (m2, o3) = m1.multipliedReportingOverflow(by: max(1, randomMessage?.count ?? 1))
        let (total, o4) = seq.addingReportingOverflow(m2)
        return o1 || o2 || o3 || o4 ? Int.max : total
    }
}

extension JSONFieldReader {
    mutating func tuneSequences(_ json: JSON, at path: String) -> TuneSequences? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        let steps = field(o, "steps") { r, j, p in r.tuneRange(j, at: p, .positiveUpTo(Double(ConfigurationSpec.maximumPeriods))) }
        let days = field(o, "afterDays") { r, j, p in r.tuneRange(j, at: p, .positive) }
        guard let steps, let days else { return nil }
        return TuneSequences(steps: steps, afterDays: days)
    }

    mutating func tuneMix(_ json: JSON, at path: String) -> TuneMix? {
        guard let o = object(json, at: path) else { return nil }
        defer { self.finish(o) }
        guard let periods = field(o, "periods", { r, j, p in r.tuneRange(j, at: p, .positive) }) else { return nil }
        return TuneMix(periods: periods)
    }
}
