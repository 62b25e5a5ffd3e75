import Foundation

/// How a value axis labels its ticks.
public enum ValueFormat: Sendable {
    /// Plain numbers with thousands separators; large ranges switch to M, B or T.
    case number
    /// Values are fractions: 0.25 is shown as `25%`.
    case percent
    /// Values are differences of fractions: 0.02 is shown as `2 pp` (percentage points).
    case percentagePoints
}

/// Axis ticks on a 1-2-5 step that cover a range with at most a given number of intervals.
public struct TickScale: Sendable, Equatable {
    public let lower: Double
    public let upper: Double
    public let step: Double
    public let values: [Double]
    /// step = mantissa × 10^exponent; labels need exactly -exponent decimals.
    let exponent: Int

    /// Magnitudes beyond 1e200 or below 1e-200 would overflow or underflow the step arithmetic; no chart data comes near them.
    private static func clamped(_ value: Double) -> Double {
        guard value.isFinite, value.magnitude >= 1e-200 else { return 0 }
        return max(-1e200, min(1e200, value))
    }

    /// The finest 1-2-5 step giving at most `maxIntervals` intervals (at least two when the range crosses zero).
    public static func nice(lower: Double, upper: Double, maxIntervals: Int = 6) -> TickScale {
        var lo = clamped(lower)
        var hi = clamped(upper)
        if lo > hi { swap(&lo, &hi) }
        let magnitude = max(abs(lo), abs(hi))
        // A range this narrow has no readable ticks, so treat it as a single value and widen it.
        if hi - lo <= magnitude * 1e-9 {
            if magnitude == 0 {
                lo = 0
                hi = 1
            } else {
                lo -= magnitude * 0.1
                hi += magnitude * 0.1
            }
        }
        // A range across zero has zero as an inner tick, so it needs at least two intervals.
        let intervals = Double(max(lo < 0 && hi > 0 ? 2 : 1, maxIntervals))
        let mantissas = [1.0, 2.0, 5.0]
        // Starting below the answer and walking up makes the result independent of log10's last-bit rounding.
        var exponent = Int(log10((hi - lo) / intervals).rounded(.down)) - 1
        var index = 0
        while true {
            let step = scaled(mantissas[index], exponent)
            let first = (lo / step + 1e-9).rounded(.down)
            let last = (hi / step - 1e-9).rounded(.up)
            if last - first <= intervals {
                let values = stride(from: first, through: last, by: 1).map { k -> Double in
                    let value = scaled(k * mantissas[index], exponent)
                    return value == 0 ? 0 : value
                }
                return TickScale(lower: values[0], upper: values[values.count - 1], step: step,
                                 values: values, exponent: exponent)
            }
            index += 1
            if index == mantissas.count {
                index = 0
                exponent += 1
            }
        }
    }

    /// Ticks at the multiples of a whole `step` (6 for hours of the day) from the last at or below
    /// `lower` to the first at or above `upper`: for axes whose natural unit is not 1-2-5.
    public static func multiples(of step: Int, lower: Double, upper: Double) -> TickScale {
        let step = max(1, step)
        let lo = clamped(min(lower, upper)), hi = clamped(max(lower, upper))
        let first = Int((lo / Double(step)).rounded(.down))
        var last = Int((hi / Double(step)).rounded(.up))
        if last == first { last += 1 }
        let values = (first...last).map { Double($0 * step) }
        return TickScale(lower: values[0], upper: values[values.count - 1], step: Double(step), values: values, exponent: 0)
    }

    /// m × 10^e by exact IEEE steps, avoiding pow() whose rounding differs between C libraries.
    private static func scaled(_ m: Double, _ e: Int) -> Double {
        var power = 1.0
        for _ in 0..<abs(e) { power *= 10 }
        return e >= 0 ? m * power : m / power
    }

    /// The label of one tick value; every tick of a scale gets the same number of decimals.
    public func label(_ value: Double, format: ValueFormat) -> String {
        // Zero reads best bare, whatever precision or suffix its neighbours need.
        if value == 0 { return format == .percent ? "0%" : "0" }
        switch format {
        case .percent:
            return NumberText.fixed(value * 100, decimals: max(0, -exponent - 2), grouping: true) + "%"
        case .percentagePoints:
            return NumberText.fixed(value * 100, decimals: max(0, -exponent - 2), grouping: true) + " pp"
        case .number:
            let largest = max(abs(lower), abs(upper))
            let (shift, suffix) = largest >= 1e12 ? (12, "T") : largest >= 1e9 ? (9, "B") : largest >= 1e6 ? (6, "M") : (0, "")
            let divisor = Self.scaled(1, shift)
            return NumberText.fixed(value / divisor, decimals: max(0, shift - exponent), grouping: true) + suffix
        }
    }

    public func labels(format: ValueFormat) -> [String] {
        values.map { label($0, format: format) }
    }

    /// Maps `value` into `start...end`, clamped so a stray value cannot leave the plot.
    func position(_ value: Double, from start: Double, to end: Double) -> Double {
        guard value.isFinite, upper > lower else { return start }
        let t = (min(max(value, lower), upper) - lower) / (upper - lower)
        return start + t * (end - start)
    }
}
