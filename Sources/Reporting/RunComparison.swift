import Foundation
import Rendering
import Simulation
import Storage

/// Two stored runs' configurations matched by label, with B − A differences and their intervals.
///
/// When both runs simulated the same users (same seed, user count and population, and an identical
/// holdout), the runs share every user's organic behaviour, so their estimates are correlated and
/// the difference is *paired*; the runs keep no per-user data, so its standard error is bounded by
/// Cauchy–Schwarz, se(B − A) ≤ se(A) + se(B), an interval that holds whatever the correlation.
/// Otherwise the runs are independent samples and se(B − A) = √(se(A)² + se(B)²).
public struct RunComparison: Sendable {
    /// `bounded`: the runs simulated the same users, and a difference's spread is bounded without their
    /// covariance (wider than independent runs'); `independent`: they did not.
    public enum Method: String, Sendable { case bounded, independent }

    public struct Row: Sendable {
        public let label: String
        public let measure: DecisionMeasure
        public let a: Estimate?
        public let b: Estimate?
        public let difference: Estimate?
        /// The difference is exactly what it is: the same users give both runs the same figures here.
        public var exact = false
    }

    public let runA: Int64
    public let runB: Int64
    public let method: Method
    public let sameScenario: Bool
    /// What differs between two runs of one scenario run at another user count or seed, in words
    /// ("at 1,200 and 800 users", "at seeds 1 and 2"); nil when the scenarios differ in more, or not at all.
    public let sameScenarioBut: String?
    public let rows: [Row]
    /// Users both runs simulated when they are not the same users (a shard and the whole run, runs of
    /// one seed at other user counts): the same seed and population make user u the same user; 0 otherwise.
    public let sharedUsers: Int

    public static let measures: [DecisionMeasure] = [
        .opensLiftPerUser, .triggerRate, .responseRate, .retentionD7, .liftD7, .retentionD30, .liftD30, .optOutRate,
        .deliveredPerUser,
    ]

    public init(_ a: StoredRun, _ b: StoredRun) {
        runA = a.id
        runB = b.id
        let sa = a.record.scenario, sb = b.record.scenario
        sameScenario = (try? sa.canonicalJSON()) == (try? sb.canonicalJSON())
        // What simulates a configuration's users besides its own spec: two scenarios alike in this
        // (they may list other configurations, or decide otherwise) give a configuration they both
        // list unchanged the same figures over the same users.
        func simulated(_ s: Scenario) -> Scenario {
            var s = s
            (s.name, s.description, s.configurations, s.grid) = ("", nil, [], nil)
            (s.baseline, s.decision, s.tune, s.liveTest) = (nil, nil, nil, nil)
            return s
        }
        let sameSimulation = sameScenario || (try? simulated(sa).canonicalJSON()) == (try? simulated(sb).canonicalJSON())
        var moved = sa
        (moved.users, moved.seed) = (sb.users, sb.seed)
        if !sameScenario && (try? moved.canonicalJSON()) == (try? sb.canonicalJSON()) {
            var parts: [String] = []
            if sa.seed != sb.seed { parts.append("seeds \(sa.seed) and \(sb.seed)") }
            if sa.users != sb.users { parts.append("\(Text.group(Int64(sa.users))) and \(Text.group(Int64(sb.users))) users") }
            sameScenarioBut = "at " + parts.joined(separator: ", ")
        } else {
            sameScenarioBut = nil
        }
        method = a.results.sharesUsers(with: b.results) ? .bounded : .independent
        let (ua, ub) = (a.results.users, b.results.users)
        sharedUsers = method == .independent && sa.seed == sb.seed && sa.population == sb.population && ua.overlaps(ub)
            ? ua.clamped(to: ub).count : 0
        var labels = a.results.all.map(\.label)
        for c in b.results.all where !labels.contains(c.label) { labels.append(c.label) }
        let byLabelA = Dictionary(a.results.all.map { ($0.label, $0) }, uniquingKeysWith: { x, _ in x })
        let byLabelB = Dictionary(b.results.all.map { ($0.label, $0) }, uniquingKeysWith: { x, _ in x })
        var rows: [Row] = []
        for label in labels {
            for m in Self.measures {
                let x = byLabelA[label].flatMap { $0.isHoldout && Self.isLift(m) ? nil : $0.estimate(m) }
                let y = byLabelB[label].flatMap { $0.isHoldout && Self.isLift(m) ? nil : $0.estimate(m) }
                // A measure neither run has for this label (the holdout's trigger rate) is no row.
                guard x != nil || y != nil else { continue }
                // Over the same users, the holdout is the same user by user (its tallies are equal), and so is
                // every configuration of two runs of one scenario, or one both scenarios list unchanged when
                // they simulate alike: their difference is exactly what it is. (Equal tallies too: runs of one
                // scenario by releases that simulate it differently are not.)
                let unchanged = sameScenario || sameSimulation
                    && byLabelA[label].map { a in byLabelB[label].map { $0.spec == a.spec } ?? false } ?? false
                let exact = method == .bounded && (byLabelA[label]?.isHoldout == true || unchanged)
                    && byLabelA[label].map { a in byLabelB[label].map { $0.tally == a.tally } ?? false } ?? false
                let difference = exact ? x.flatMap { x in y.map { y in y.value - x.value } }.map { Estimate(value: $0, low: $0, high: $0) }
                    : Self.difference(x, y, method: method).map { Self.bounded($0, m) }
                rows.append(Row(label: label, measure: m, a: x, b: y, difference: difference, exact: exact && difference != nil))
            }
        }
        self.rows = rows
    }

    /// A difference cut to what it can be: of two shares, within ±1 (a lift, itself a difference of
    /// shares, within ±2); the normal interval of a small run can reach past it.
    static func bounded(_ e: Estimate, _ m: DecisionMeasure) -> Estimate {
        guard m.isFraction else { return e }
        let limit = isLift(m) ? 2.0 : 1.0
        func cut(_ x: Double) -> Double { min(max(x, -limit), limit) }
        return Estimate(value: cut(e.value), low: cut(e.low), high: cut(e.high))
    }

    static func isLift(_ m: DecisionMeasure) -> Bool { m == .opensLiftPerUser || m == .liftD7 || m == .liftD30 }

    static func difference(_ a: Estimate?, _ b: Estimate?, method: Method) -> Estimate? {
        guard let a, let b else { return nil }
        return Estimate.difference(a, b, paired: method == .bounded)
    }

    /// The formats; csv and json name each measure as the run's tables do (`opens_lift_per_user`,
    /// `retention_d7`), so a row joins with `config_metrics`.
    public enum Format: String, CaseIterable, Sendable { case text, csv, json, markdown }

    static func number(_ m: DecisionMeasure, _ e: Estimate?) -> String { Text.measure(m, e) }

    static func differenceText(_ m: DecisionMeasure, _ e: Estimate?, exact: Bool) -> String {
        guard let e else { return "n/a" }
        // An exact difference (the same users giving the same figures) has no interval to show.
        if exact {
            return (m.isFraction ? String(format: "%+.2f pp", e.value * 100) : String(format: "%+.3f", e.value)) + " exactly"
        }
        if m.isFraction { return Text.points(e) }
        return Text.signed(e, digits: 3)
    }

    /// Which differences the same users make exact, in words.
    var exactNote: String {
        let exact = rows.filter(\.exact)
        guard !exact.isEmpty else { return "" }
        if rows.allSatisfy({ $0.exact || $0.difference == nil }) {
            // Rows without a difference (a configuration in one run only) do not make the runs alike.
            return rows.allSatisfy(\.exact) ? "These two runs are alike, so every difference is exact: the same users give the same figures."
                : "Every difference shown is exact: the same users give the same figures."
        }
        if exact.allSatisfy({ $0.label == "holdout" }) {
            return "The holdout's differences are exact: the same users give the same figures."
        }
        return "The differences shown as exact are: the same users give the same figures there."
    }

    var note: String {
        (method == .bounded
            ? "Differences are B − A over the same users (same seed, user count, population and holdout): the runs keep no "
                + "per-user data, so each interval is bounded to hold whatever the runs' correlation, se(B − A) ≤ se(A) + se(B), "
                + "and is wider than independent runs' would be. "
                + exactNote
            : sharedUsers > 0
                ? "Differences are B − A, treated as independent: the runs share \(Text.group(Int64(sharedUsers))) of their users "
                    + "(the same seed and population) but not all, so without per-user data they cannot be paired; a user "
                    + "answering alike in both, the shared users make these intervals wider than they need be, not narrower."
                : "Differences are B − A, independent: the runs did not simulate the same users.")
            + (sameScenario ? "" : sameScenarioBut.map { " Both runs are of one scenario, \($0)." }
                ?? " The runs come from different scenarios; rows are matched by label only.")
    }

    /// The comparison in one of the formats; `csvSafe` puts a `'` before CSV text a spreadsheet would
    /// run as a formula.
    public func render(_ format: Format, describeA: String, describeB: String, csvSafe: Bool = false) -> String {
        switch format {
        case .text:
            var table = [["configuration", "measure", "A", "B", "B − A"]]
            for r in rows {
                table.append([TerminalText.printable(r.label), r.measure.title, Self.number(r.measure, r.a), Self.number(r.measure, r.b),
                              Self.differenceText(r.measure, r.difference, exact: r.exact)])
            }
            return "A = \(describeA)\nB = \(describeB)\n\(note)\n\n" + TerminalText.table(table, rightAligned: [2, 3, 4])
        case .markdown:
            return "A = \(Markdown.escapeInline(describeA))\n\nB = \(Markdown.escapeInline(describeB))\n\n\(note)\n\n"
                + Markdown.table(
                    header: ["configuration", "measure", "A", "B", "B − A"], alignments: [.left, .left, .right, .right, .right],
                    rows: rows.map { r in
                        [r.label, r.measure.title, Self.number(r.measure, r.a), Self.number(r.measure, r.b),
                         Self.differenceText(r.measure, r.difference, exact: r.exact)]
                    })
        case .csv:
            func values(_ e: Estimate?) -> [CSVField] {
                guard let e else { return [.null, .null, .null] }
                return [.decimal(e.value), e.low.isFinite ? .decimal(e.low) : .null, e.high.isFinite ? .decimal(e.high) : .null]
            }
            return CSVTable(
                header: ["run_a", "run_b", "label", "measure", "a", "a_low", "a_high", "b", "b_low", "b_high",
                         "difference", "difference_low", "difference_high", "method"],
                rows: rows.map { r in
                    [.integer(runA), .integer(runB), .text(r.label), .text(r.measure.measure.name)] + values(r.a) + values(r.b)
                        + values(r.difference) + [.text(r.exact ? "exact" : method.rawValue)]
                }).encoded(neutralizeFormulas: csvSafe)
        case .json:
            let doc = ComparisonJSON(
                runA: runA, runB: runB, method: method.rawValue, sameScenario: sameScenario,
                rows: rows.map { r in
                    ComparisonJSON.Row(label: r.label, measure: r.measure.measure.name, a: IntervalJSON(r.a), b: IntervalJSON(r.b),
                                       difference: IntervalJSON(r.difference), exact: r.exact)
                })
            return JSONOutput.encode(doc)
        }
    }
}

struct ComparisonJSON: Encodable {
    struct Row: Encodable {
        let label: String
        let measure: String
        let a: IntervalJSON?
        let b: IntervalJSON?
        let difference: IntervalJSON?
        /// The difference is exact (the same users give both runs the same figures): no interval.
        let exact: Bool
    }
    let runA: Int64
    let runB: Int64
    let method: String
    let sameScenario: Bool
    let rows: [Row]
}

/// An estimate in JSON: a bound that is not finite is left out.
struct IntervalJSON: Encodable {
    let value: Double
    let low: Double?
    let high: Double?

    init?(_ e: Estimate?) {
        guard let e, e.value.isFinite else { return nil }
        value = e.value
        low = e.low.isFinite ? e.low : nil
        high = e.high.isFinite ? e.high : nil
    }
}

enum JSONOutput {
    static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n"
    }
}
