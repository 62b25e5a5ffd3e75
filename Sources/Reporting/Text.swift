import Foundation
import Rendering
import Simulation

/// Number formats shared by the report, its charts and the terminal output.
public enum Text {
    /// A whole number with thousands separators: `1,234,567`.
    public static func group(_ n: Int64) -> String { NumberText.grouped(n) }

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

    /// A difference of proportions in percentage points, with its interval.
    public static func points(_ e: Estimate?) -> String {
        guard let e else { return "n/a" }
        return String(format: "%+.2f pp [%.2f, %.2f]", e.value * 100, e.low * 100, e.high * 100)
    }
}
