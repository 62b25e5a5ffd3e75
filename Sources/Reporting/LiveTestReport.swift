import Foundation
import Rendering
import Simulation

/// The live-test plan of a run's recommendation: in the report (Markdown, and so HTML), in one
/// line for the terminal, and in `--json`.
public enum LiveTestReport {
    /// A per-user difference or effect in the metric's unit: percentage points for a rate.
    static func amount(_ m: PairMeasure, _ v: Double) -> String {
        m.isFraction ? String(format: "%+.2f pp", v * 100) : String(format: "%+.4f", v)
    }

    static func share(_ s: Double) -> String { String(format: "%g%%", (s * 1000).rounded() / 10) }

    /// The plan in one sentence.
    /// The most users a live test is taken to reach: a plan needing more says so.
    static let reachableUsers: Int64 = 100_000_000

    /// What a plan of `total` users adds when no live test could reach them; empty otherwise.
    static func beyondReach(_ total: Int64) -> String {
        total > reachableUsers ? " — more users than a live test can reach: the arms are too alike for a test to tell apart" : ""
    }

    public static func sentence(_ plan: LiveTestPlan) -> String {
        let allocation = plan.arms.map { "\($0.label) \(share($0.share))" }.joined(separator: ", ")
        guard let total = plan.totalUsers, let perArm = plan.usersPerArm, let d = plan.difference else {
            return "Live test: no size, \(plan.unavailable ?? "no plan")."
        }
        var text = "Live test (\(allocation); α \(LiveTestPlan.alpha) two-sided, power \(LiveTestPlan.power)): "
            + "\(Text.group(total)) users in total (\(perArm.map(Text.group).joined(separator: " / "))) to show the simulated "
            + "\(amount(plan.metric, d)) in \(plan.metric.title) over \(TextLimit.days(plan.simulatedDays))"
        // The run's length, not the test's: said, where the sentence is read alone (the terminal).
        if plan.simulatedDays != plan.days {
            text += " (the run's; the test's \(TextLimit.days(plan.days)) would differ: run with --days \(plan.days) for them)"
        }
        text += beyondReach(total)
        if let n = plan.liveUsers {
            if let mde = plan.minimumDetectableEffect {
                text += "; with \(Text.group(n)) users it detects \(amount(plan.metric, mde).replacingOccurrences(of: "+", with: "±"))"
            } else {
                text += "; \(Text.group(n)) user\(n == 1 ? " leaves" : "s leave") an arm fewer than two users: too few for any test"
            }
        }
        return text + ". " + cupedSentence(plan)
    }

    /// The users the plan with CUPED needs, per arm and without CUPED, and whether a test can reach them.
    static func cupedTotals(_ c: CupedPlan) -> String {
        "\(Text.group(c.totalUsers)) users in total (\(c.usersPerArm.map(Text.group).joined(separator: " / ")); "
            + "\(Text.group(c.totalUsersWithout)) for them without CUPED)" + beyondReach(c.totalUsers)
    }

    /// The plan with CUPED in one sentence, or why there is none.
    /// The change CUPED makes to the variance: "−25%" when it shrinks it; "+9%, so CUPED does not help" when the
    /// pooled adjustment, fitted to both arms at once, leaves it larger (the arms' correlations differ).
    static func varianceChange(_ reduction: Double) -> String {
        let percent = Int((abs(reduction) * 100).rounded())
        if percent == 0 { return "±0%" }
        return reduction > 0 ? "−\(percent)%" : "+\(percent)%, so CUPED does not help here"
    }

    public static func cupedSentence(_ plan: LiveTestPlan) -> String {
        guard plan.preDays > 0 else { return "CUPED: off (liveTest.preDays is 0)." }
        guard let c = plan.cuped else {
            return "With CUPED on the opens of the \(TextLimit.days(plan.preDays)) before: no plan, \(plan.cupedUnavailable ?? "no size")."
        }
        var text = "With CUPED on the opens of the \(TextLimit.days(plan.preDays)) before, for users who already have the app (their "
            + "simulated difference \(amount(plan.metric, c.difference)); ρ "
            + "\(c.correlations.map { String(format: "%.2f", $0) }.joined(separator: " / ")), variance "
            + Self.varianceChange(c.varianceReduction) + "): " + cupedTotals(c)
        if let n = plan.liveUsers {
            if let mde = c.minimumDetectableEffect {
                text += "; with \(Text.group(n)) users it detects \(amount(plan.metric, mde).replacingOccurrences(of: "+", with: "±"))"
            } else {
                text += "; \(Text.group(n)) user\(n == 1 ? " leaves" : "s leave") an arm fewer than two users: too few for any test"
            }
        }
        return text + "."
    }

    /// The report's "Live test" subsection, with CUPED from the second look's simulation.
    static func section(_ results: RunResults, _ look: DecisionSecondLook?) -> String {
        section(results.liveTestPlan(prePeriod: look?.prePeriod))
    }

    /// The "Live test" subsection of a plan, for a run's report or a tune's.
    public static func section(_ plan: LiveTestPlan, heading: String = "###") -> String {
        var out = "\(heading) Live test\n\n"
        out += "The test that would settle the decision: different users in each arm, sized from each arm's simulated per-user "
            + "mean and variance as independent samples (not from the paired differences above, which come from the same "
            + "users under both configurations).\n\n"
        guard !plan.arms.isEmpty else { return out + "No plan: \(plan.unavailable ?? "no recommendation").\n\n" }
        out += "**" + Markdown.escapeCell(sentence(plan)) + "**\n\n"
        let cuped = plan.cuped
        let rows = plan.arms.enumerated().map { k, a in
            [a.label, a.role, share(a.share), a.users.map(Text.group) ?? "n/a"]
                + (cuped.map { c in [c.usersPerArm.indices.contains(k) ? Text.group(c.usersPerArm[k]) : "n/a",
                                     c.usersPerArmWithout.indices.contains(k) ? Text.group(c.usersPerArmWithout[k]) : "n/a",
                                     c.correlations.indices.contains(k) ? String(format: "%.2f", c.correlations[k]) : ""] } ?? [])
        }
        // The CUPED columns size another test (users who already have the app, their own difference): side by
        // side with and without CUPED, so that neither is read against the users column.
        let header = ["arm", "role", "share", "users"]
            + (cuped == nil ? [] : ["users who have the app, with CUPED", "the same without CUPED", "ρ"])
        let alignments = [Markdown.Alignment.left, .left] + Array(repeating: Markdown.Alignment.right, count: header.count - 2)
        out += Markdown.table(header: header, alignments: alignments, rows: rows) + "\n"
        if let c = cuped {
            out += "The users column sizes the test for the simulated difference of "
                + "\(plan.difference.map { amount(plan.metric, $0) } ?? "n/a"); the CUPED columns size it for users who already have "
                + "the app, whose simulated difference is \(amount(plan.metric, c.difference)), with and without CUPED: compare "
                + "those two with each other, not with the users column.\n\n"
        }
        if let reason = plan.unavailable, plan.totalUsers == nil { out += "No size: \(reason).\n\n" }
        for g in plan.guardrails {
            let diff = g.difference.map { amount(g.measure.pairMeasure, $0) } ?? "n/a"
            let power = g.power.map { String(format: "%.0f%%", $0 * 100) } ?? "n/a (no per-user variance for this measure)"
            out += "- Guardrail \(g.measure.title): recommendation − baseline \(diff); power of the planned test to detect it \(power).\n"
        }
        if !plan.guardrails.isEmpty { out += "\n" }
        out += plan.notes.map { "- " + $0 + "\n" }.joined() + "\n"
        return out
    }

    /// The plan in `--json`.
    public struct JSONValue: Encodable {
        struct Arm: Encodable {
            let label: String, role: String, share: Double, users: Int64?
        }
        struct Guardrail: Encodable {
            let measure: String, difference: Double?, power: Double?
        }
        /// The plan with CUPED: off (`preDays` 0), unavailable (`unavailable` says why) or sized.
        struct Cuped: Encodable {
            let preDays: Int
            let simulatedUsers: Int?, seed: UInt64?
            /// ρ of the recommendation's arm and the baseline's.
            let correlation: [Double]?
            let theta: Double?, varianceReduction: Double?, difference: Double?
            let usersPerArm: [Int64]?, totalUsers: Int64?, usersPerArmWithout: [Int64]?, totalUsersWithout: Int64?
            let minimumDetectableEffect: Double?
            let unavailable: String?

            init?(_ plan: LiveTestPlan) {
                guard plan.totalUsers != nil || plan.preDays == 0 else { return nil }
                let c = plan.cuped
                preDays = plan.preDays
                (simulatedUsers, seed) = (c?.simulatedUsers, c?.seed)
                (correlation, theta, varianceReduction, difference) = (c?.correlations, c?.theta, c?.varianceReduction, c?.difference)
                (usersPerArm, totalUsers) = (c?.usersPerArm, c?.totalUsers)
                (usersPerArmWithout, totalUsersWithout) = (c?.usersPerArmWithout, c?.totalUsersWithout)
                minimumDetectableEffect = c?.minimumDetectableEffect
                unavailable = plan.preDays == 0 ? nil : plan.cupedUnavailable
            }
        }
        let arms: [Arm]
        let holdoutShare: Double
        let alpha: Double, power: Double
        let metric: String
        let days: Int
        /// The days the run simulated, over which `difference` was measured.
        let simulatedDays: Int
        let difference: Double?
        let usersPerArm: [Int64]?
        let totalUsers: Int64?
        let liveUsers: Int64?
        let minimumDetectableEffect: Double?
        let guardrails: [Guardrail]
        let cuped: Cuped?
        let unavailable: String?
        let notes: [String]

        public init(_ plan: LiveTestPlan) {
            arms = plan.arms.map { Arm(label: $0.label, role: $0.role, share: $0.share, users: $0.users) }
            holdoutShare = plan.holdoutShare
            (alpha, power) = (LiveTestPlan.alpha, LiveTestPlan.power)
            metric = plan.metric.rawValue
            days = plan.days
            simulatedDays = plan.simulatedDays
            difference = plan.difference
            usersPerArm = plan.usersPerArm
            totalUsers = plan.totalUsers
            liveUsers = plan.liveUsers
            minimumDetectableEffect = plan.minimumDetectableEffect
            guardrails = plan.guardrails.map { Guardrail(measure: $0.measure.rawValue, difference: $0.difference, power: $0.power) }
            cuped = Cuped(plan)
            unavailable = plan.unavailable
            notes = plan.notes
        }
    }
}
