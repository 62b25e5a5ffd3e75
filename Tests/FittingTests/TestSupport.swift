import Fitting
import Foundation
import Randomness
import RecordedData
import XCTest

/// Renewal gaps observed from an event at time 0 until `window` closes: every full gap is an event and
/// the gap still running at the window end is censored. This is exactly the setting whose likelihood
/// is Σ ln f(events) + Σ ln S(censored). With a `dropout`, each gap never ends with that chance (a
/// draw made only then, so the gaps without dropout are drawn as they always were).
func simulateGaps<D: ContinuousDistribution>(
    _ distribution: D, subjects: Int, window: Double, dropout: Double = 0, generator: inout Xoshiro256
) -> [CensoredGap] {
    var observations: [CensoredGap] = []
    for _ in 0..<subjects {
        var elapsed = 0.0
        while true {
            let gap = dropout > 0 && generator.nextUnit() < dropout ? Double.infinity : distribution.sample(&generator)
            if elapsed + gap > window {
                observations.append(CensoredGap(duration: window - elapsed, censored: true))
                break
            }
            observations.append(CensoredGap(duration: gap, censored: false))
            elapsed += gap
        }
    }
    return observations
}

/// One simulated BG/NBD customer: the calibration summary and what happened in the following `horizon`.
struct SimulatedCustomer {
    let summary: CustomerSummary
    let futureTransactions: Int
    let aliveAtT: Bool
}

/// Customers generated exactly as the BG/NBD story says: λ ~ Gamma(r, rate α), p ~ Beta(a, b),
/// exponential inter-purchase times, and after each repeat purchase a coin with probability p
/// decides whether the customer drops out for good.
func simulateBGNBD(
    r: Double, alpha: Double, a: Double, b: Double, customers: Int,
    age: ClosedRange<Double>, horizon: Double = 0, generator: inout Xoshiro256
) -> [SimulatedCustomer] {
    let rates = GammaDistribution(shape: r, rate: alpha)
    let dropout = BetaDistribution(a: a, b: b)
    var result: [SimulatedCustomer] = []
    result.reserveCapacity(customers)
    for _ in 0..<customers {
        let lambda = rates.sample(&generator)
        let p = dropout.sample(&generator)
        let T = age.lowerBound + (age.upperBound - age.lowerBound) * generator.nextUnit()
        var time = 0.0
        var x = 0
        var tx = 0.0
        var future = 0
        var aliveAtT = true
        while lambda > 0 {
            time += -log(generator.nextOpenUnit()) / lambda
            if time > T + horizon { break }
            if time <= T {
                x += 1
                tx = time
            } else {
                future += 1
            }
            if generator.nextUnit() < p {
                if time <= T { aliveAtT = false }
                break
            }
        }
        result.append(SimulatedCustomer(
            summary: CustomerSummary(frequency: x, recency: tx, age: T),
            futureTransactions: future, aliveAtT: aliveAtT
        ))
    }
    return result
}

/// Double-exponential quadrature nodes (Takahasi & Mori 1974) as (log of the mapped point, log of
/// 1 − point or nil, log weight), summed over a uniform grid with step h in the transformed variable.
enum DoubleExponential {
    /// tanh-sinh on (0, 1): p = 1/(1 + e^(−2s)), s = (π/2) sinh v. Returns (ln p, ln(1−p), ln weight).
    static func unitInterval(step h: Double, limit: Double = 4) -> [(logP: Double, logQ: Double, logWeight: Double)] {
        stride(from: -limit, through: limit, by: h).map { v in
            let s = Double.pi / 2 * sinh(v)
            let logP = -softplus(-2 * s)
            let logQ = -softplus(2 * s)
            return (logP, logQ, log(h) + log(2) + logP + logQ + log(Double.pi / 2 * cosh(v)))
        }
    }

    /// exp-sinh on (0, ∞): λ = exp((π/2) sinh u). Returns (ln λ, ln weight).
    static func halfLine(step h: Double, limit: Double = 6.5) -> [(logX: Double, logWeight: Double)] {
        stride(from: -limit, through: limit, by: h).map { u in
            let logX = Double.pi / 2 * sinh(u)
            return (logX, log(h) + logX + log(Double.pi / 2 * cosh(u)))
        }
    }

    /// ln(1 + eˣ) without overflow.
    static func softplus(_ x: Double) -> Double {
        x > 0 ? x + log1p(exp(-x)) : log1p(exp(x))
    }
}

/// Mean and standard error of the mean.
func meanAndStandardError(_ values: [Double]) -> (mean: Double, standardError: Double) {
    let n = Double(values.count)
    let mean = values.reduce(0, +) / n
    let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
    return (mean, (variance / n).squareRoot())
}

/// Asserts that the truth lies within `k` standard errors of the estimate.
func assertWithinStandardErrors(
    _ estimate: ParameterEstimate?, truth: Double, k: Double = 4,
    file: StaticString = #filePath, line: UInt = #line
) {
    guard let estimate, let se = estimate.standardError else {
        XCTFail("missing estimate or standard error", file: file, line: line)
        return
    }
    XCTAssertLessThanOrEqual(
        abs(estimate.value - truth), k * se,
        "\(estimate.name): estimate \(estimate.value) ± \(se), truth \(truth), z = \((estimate.value - truth) / se)",
        file: file, line: line
    )
}

/// Reads CDNOW_master.txt and builds FHL's calibration summaries: the cohort's first purchases are in
/// 1997 Q1, the calibration period is 1997-01-01 … 1997-09-30 (273 days = 39 weeks), several rows of
/// one customer on one day are one purchase, and times are in weeks.
func loadCDNOWCalibration(path: String, ageEndDay: Int = 273) throws -> [CustomerSummary] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let calibrationEnd = 273 // day index of 1997-10-01, relative to 1997-01-01
    var days: [Int: Set<Int>] = [:]
    var firstDay: [Int: Int] = [:]
    let bytes = [UInt8](data)
    var lineStart = 0
    var isHeader = true
    for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: "\n") {
        defer { lineStart = i + 1 }
        if isHeader { isHeader = false; continue }
        let fields = bytes[lineStart..<i].split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 })
        guard fields.count >= 2 else { continue }
        func number(_ field: ArraySlice<UInt8>) -> Int { field.reduce(0) { $0 * 10 + Int($1 - 48) } }
        let id = number(fields[0])
        let date = number(fields[1])
        let day = dayIndex(year: date / 10000, month: date / 100 % 100, day: date % 100)
        firstDay[id] = min(firstDay[id] ?? .max, day)
        if day < calibrationEnd { days[id, default: []].insert(day) }
    }
    return firstDay.keys.sorted().map { id in
        let first = firstDay[id]!
        let repeats = (days[id] ?? []).filter { $0 > first }
        let last = repeats.max() ?? first
        return CustomerSummary(
            frequency: repeats.count, recency: Double(last - first) / 7, age: Double(ageEndDay - first) / 7
        )
    }
}

/// Days since 1997-01-01 for a date in 1997 or 1998 (neither is a leap year).
func dayIndex(year: Int, month: Int, day: Int) -> Int {
    let cumulative = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
    return (year - 1997) * 365 + cumulative[month - 1] + day - 1
}
