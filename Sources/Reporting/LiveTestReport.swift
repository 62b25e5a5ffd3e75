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
    public static func sentence(_ plan: LiveTestPlan) -> String {
        let allocation = plan.arms.map { "\($0.label) \(share($0.share))" }.joined(separator: ", ")
        guard let total = plan.totalUsers, let perArm = plan.usersPerArm, let d = plan.difference else {
            return "Live test: no size, \(plan.unavailable ?? "no plan")."
        }
        var text = "Live test (\(allocation); α \(LiveTestPlan.alpha) two-sided, power \(LiveTestPlan.power)): "
            + "\(Text.group(total)) users in total (\(perArm.map(Text.group).joined(separator: " / "))) to show the simulated "
            + "\(amount(plan.metric, d)) in \(plan.metric.title) over \(plan.days) days"
        if let n = plan.liveUsers, let mde = plan.minimumDetectableEffect {
            text += "; with \(Text.group(n)) users it detects \(amount(plan.metric, mde).replacingOccurrences(of: "+", with: "±"))"
        }
        return text + "."
    }

    /// The report's "Live test" subsection.
    static func section(_ results: RunResults) -> String {
        section(results.liveTestPlan)
    }

    /// The "Live test" subsection of a plan, for a run's report or a tune's.
    public static func section(_ plan: LiveTestPlan, heading: String = "###") -> String {
        var out = "\(heading) Live test\n\n"
        out += "The test that would settle the decision: different users in each arm, sized from each arm's simulated per-user "
            + "mean and variance as independent samples (not from the paired differences above, which come from the same "
            + "users under both configurations).\n\n"
        guard !plan.arms.isEmpty else { return out + "No plan: \(plan.unavailable ?? "no recommendation").\n\n" }
        out += "**" + Markdown.escapeCell(sentence(plan)) + "**\n\n"
        let rows = plan.arms.map { a in
            [Markdown.escapeCell(a.label), a.role, share(a.share), a.users.map(Text.group) ?? "n/a"]
        }
        out += Markdown.table(header: ["arm", "role", "share", "users"], alignments: [.left, .left, .right, .right], rows: rows) + "\n"
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
        let arms: [Arm]
        let holdoutShare: Double
        let alpha: Double, power: Double
        let metric: String
        let days: Int
        let difference: Double?
        let usersPerArm: [Int64]?
        let totalUsers: Int64?
        let liveUsers: Int64?
        let minimumDetectableEffect: Double?
        let guardrails: [Guardrail]
        let cuped: Bool
        let unavailable: String?
        let notes: [String]

        public init(_ plan: LiveTestPlan) {
            arms = plan.arms.map { Arm(label: $0.label, role: $0.role, share: $0.share, users: $0.users) }
            holdoutShare = plan.holdoutShare
            (alpha, power) = (LiveTestPlan.alpha, LiveTestPlan.power)
            metric = plan.metric.rawValue
            days = plan.days
            difference = plan.difference
            usersPerArm = plan.usersPerArm
            totalUsers = plan.totalUsers
            liveUsers = plan.liveUsers
            minimumDetectableEffect = plan.minimumDetectableEffect
            guardrails = plan.guardrails.map { Guardrail(measure: $0.measure.rawValue, difference: $0.difference, power: $0.power) }
            cuped = false
            unavailable = plan.unavailable
            notes = plan.notes
        }
    }
}
