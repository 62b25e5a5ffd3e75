import Foundation
import Rendering
import Simulation

/// Number formats shared by the report, its charts and the terminal output.
public enum Text {
    /// A whole number with thousands separators: `1,234,567`.
    public static func group(_ n: Int64) -> String { NumberText.grouped(n) }
    /// "1 user", "2,000 users".
    public static func users(_ n: Int64) -> String { "\(group(n)) user\(n == 1 ? "" : "s")" }

    /// A rate in percent, with its Wilson interval unless `withInterval` is false; `n/a` without data.
    public static func percent(_ p: Proportion, withInterval: Bool = true) -> String {
        guard let rate = p.rate, let ci = p.interval else { return "n/a" }
        return withInterval
            ? String(format: "%.1f%% [%.1f, %.1f]", rate * 100, ci.low * 100, ci.high * 100)
            : String(format: "%.1f%%", rate * 100)
    }

    /// A signed estimate with its interval.
    public static func signed(_ e: Estimate?, digits: Int) -> String {
        guard let e else { return "n/a" }
        return String(format: "%+.\(digits)f [%.\(digits)f, %.\(digits)f]", e.value, e.low, e.high)
    }

    /// A decision measure's value in its own unit: percent for fractions, a plain number otherwise.
    public static func measure(_ m: DecisionMeasure, _ v: Double) -> String {
        guard m.isFraction else { return String(format: "%g", v) }
        // One decimal, unless the limit as written needs more (0.0001 is 0.01%, not 0.0%).
        let percent = v * 100
        let one = String(format: "%.1f", percent)
        return (abs((Double(one) ?? percent) - percent) <= 1e-9 * max(1, abs(percent)) ? one : String(format: "%g", percent)) + "%"
    }

    /// A decision measure's estimate with its interval, in its unit (percentage points for lifts).
    public static func measure(_ m: DecisionMeasure, _ e: Estimate?) -> String {
        guard let e else { return "n/a" }
        switch m {
        case .liftD7, .liftD30: return points(e)
        case .opensLiftPerUser: return signed(e, digits: 3)
        case .deliveredPerExtraOpen:
            return e.high.isFinite ? String(format: "%.1f [%.1f, %.1f]", e.value, e.low, e.high)
                : String(format: "%.1f [%.1f, no upper bound]", e.value, e.low)
        case .deliveredPerUser: return String(format: "%.2f [%.2f, %.2f]", e.value, e.low, e.high)
        default: return String(format: "%.2f%% [%.2f, %.2f]", e.value * 100, e.low * 100, e.high * 100)
        }
    }

    /// A paired difference in its unit: percentage points for proportions.
    public static func difference(_ c: PairwiseComparison) -> String {
        guard let e = c.difference else { return "n/a" }
        return c.measure.isFraction ? points(e) : signed(e, digits: 3)
    }

    /// A difference of proportions in percentage points, with its interval.
    public static func points(_ e: Estimate?) -> String {
        guard let e else { return "n/a" }
        return String(format: "%+.2f pp [%.2f, %.2f]", e.value * 100, e.low * 100, e.high * 100)
    }
}
