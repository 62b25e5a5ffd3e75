import Fitting
import Foundation
import Randomness
import RecordedData
import XCTest

/// Fader, Hardie & Lee (2005)'s Pareto/NBD estimates on the 2,357-customer CDNOW sample (weeks).
private let published = (r: 0.55, alpha: 10.58, s: 0.61, beta: 11.67, logLikelihood: -9595.0)

/// One simulated Pareto/NBD customer: the calibration summary and what happened in the following `horizon`.
private struct ParetoCustomer {
    let summary: CustomerSummary
    let futureTransactions: Int
    let aliveAtT: Bool
}

/// Customers generated as the model says: λ ~ Gamma(r, rate α), μ ~ Gamma(s, rate β), a lifetime
/// τ ~ Exp(μ) from the first purchase, and purchases as a Poisson process of rate λ while alive.
private func simulatePareto(
    _ m: ParetoNBDModel, customers: Int, age: ClosedRange<Double>, horizon: Double, generator: inout Xoshiro256
) -> [ParetoCustomer] {
    let rates = GammaDistribution(shape: m.r, rate: m.alpha)
    let dropouts = GammaDistribution(shape: m.s, rate: m.beta)
    return (0..<customers).map { _ in
        let lambda = rates.sample(&generator)
        let lifetime = -log(generator.nextOpenUnit()) / dropouts.sample(&generator)
        let T = age.lowerBound + (age.upperBound - age.lowerBound) * generator.nextUnit()
        var time = 0.0, x = 0, tx = 0.0, future = 0
        while lambda > 0 {
            time += -log(generator.nextOpenUnit()) / lambda
            if time > min(lifetime, T + horizon) { break }
            if time <= T { (x, tx) = (x + 1, time) } else { future += 1 }
        }
        return ParetoCustomer(summary: CustomerSummary(frequency: x, recency: tx, age: T),
                              futureTransactions: future, aliveAtT: lifetime > T)
    }
}

/// The rows of a CSV file in Tests/LifetimesReference, written by scripts/lifetimes-reference.py, header left out.
private func lifetimesReference(_ name: String) throws -> [[Substring]] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LifetimesReference").appendingPathComponent(name)
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
}

/// lifetimes' ParetoNBDFitter on `data` ("master" or "sample"): (r, α, s, β) and the summed log-likelihood.
private func lifetimesFit(_ data: String) throws -> (parameters: [Double], logLikelihood: Double) {
    let row = try XCTUnwrap(try lifetimesReference("pareto-fits.csv").first { $0.first == Substring(data) })
    let numbers = try row.dropFirst().map { try XCTUnwrap(Double($0)) }
    return (Array(numbers.prefix(4)), numbers[4])
}

final class ParetoNBDTests: XCTestCase {
    private let models = [
        try! ParetoNBDModel(r: 0.55, alpha: 10.58, s: 0.61, beta: 11.67), // α < β
        try! ParetoNBDModel(r: 1.3, alpha: 8, s: 0.4, beta: 2.5), // α > β
        try! ParetoNBDModel(r: 0.8, alpha: 5, s: 1, beta: 5), // α = β, s = 1
    ]

    // MARK: Likelihood against the model's definition

    /// L(x, t_x, T) = ∫∫ [λˣ e^(−(λ+μ)T) + λˣ μ/(λ+μ) (e^(−(λ+μ)t_x) − e^(−(λ+μ)T))] g(λ; r, α) g(μ; s, β) dλ dμ,
    /// on a tensor grid of exp-sinh nodes in λ and μ, which absorb the λ^(r−1) and μ^(s−1) singularities.
    private func quadratureLikelihood(_ m: ParetoNBDModel, x: Int, tx: Double, T: Double, step: Double) -> Double {
        let xd = Double(x)
        let lambdaNorm = m.r * log(m.alpha) - logGamma(m.r)
        let muNorm = m.s * log(m.beta) - logGamma(m.s)
        let nodes = DoubleExponential.halfLine(step: step)
        var total = 0.0
        for (logLambda, lambdaWeight) in nodes {
            let lambda = exp(logLambda)
            let lambdaDensity = lambdaNorm + (m.r - 1) * logLambda - m.alpha * lambda + lambdaWeight
            if lambdaDensity < -800 { continue }
            for (logMu, muWeight) in nodes {
                let mu = exp(logMu)
                let muDensity = muNorm + (m.s - 1) * logMu - m.beta * mu + muWeight
                let k = lambda + mu
                let alive = exp(xd * logLambda - k * T)
                // e^(−k t_x) − e^(−k T) = e^(−k t_x) · (1 − e^(−k (T − t_x))), without cancellation.
                let died = exp(xd * logLambda + logMu - log(k) - k * tx) * -expm1(-k * (T - tx))
                total += exp(lambdaDensity + muDensity) * (alive + died)
            }
        }
        return total
    }

    func testLikelihoodMatchesDirectIntegration() throws {
        // Halving the step roughly squares the double-exponential rule's error, so |Q(h) − Q(h/2)|
        // bounds the error of Q(h/2); it is below 1e−10 relative here.
        let customers = [
            CustomerSummary(frequency: 0, recency: 0, age: 38),
            CustomerSummary(frequency: 1, recency: 5.3, age: 30),
            CustomerSummary(frequency: 4, recency: 20.1, age: 35.5),
            CustomerSummary(frequency: 9, recency: 33, age: 39),
            CustomerSummary(frequency: 3, recency: 39, age: 39),
        ]
        for (m, c) in models.flatMap({ m in customers.map { (m, $0) } }) {
            let rules = [1.0 / 16, 1.0 / 32].map { quadratureLikelihood(m, x: c.frequency, tx: c.recency, T: c.age, step: $0) }
            let (coarse, fine) = (rules[0], rules[1])
            XCTAssertLessThan(abs(coarse - fine) / fine, 1e-10, "\(c)")
            XCTAssertEqual(exp(try m.logLikelihood(c)), fine, accuracy: 1e-9 * fine, "\(m) \(c)")
        }
    }

    func testManyVisitsStayFiniteAndMatchTheSeriesFreeCase() throws {
        // With α = β the series is the single term 1, so the likelihood is closed: a check of the
        // general path at x in the thousands, where (α+τ)^−(r+x) underflows unless kept in logs.
        for (x, tx) in [(2000, 30.0), (5000, 38.9)] {
            let c = CustomerSummary(frequency: x, recency: tx, age: 39)
            let equal = try ParetoNBDModel(r: 0.8, alpha: 5, s: 0.7, beta: 5)
            let a = 0.8 + 0.7 + Double(x)
            let alive = -(0.8 + Double(x)) * log(5 + 39) - 0.7 * log(5 + 39)
            let died = log(0.7 / a) - a * log(5 + tx) + log(-expm1(-a * log((5 + 39) / (5 + tx))))
            let closed = logGamma(0.8 + Double(x)) - logGamma(0.8) + 0.8 * log(5) + 0.7 * log(5.0) + logAddExp(alive, died)
            XCTAssertEqual(try equal.logLikelihood(c), closed, accuracy: 1e-9 * abs(closed))
            // Nearly equal α and β must give nearly the same value from either side.
            for (alpha, beta) in [(5 * (1 + 1e-9), 5.0), (5.0, 5 * (1 + 1e-9))] {
                let near = try ParetoNBDModel(r: 0.8, alpha: alpha, s: 0.7, beta: beta)
                XCTAssertEqual(try near.logLikelihood(c), closed, accuracy: 1e-6 * abs(closed), "α \(alpha), β \(beta)")
                let p = try near.probabilityAlive(x: x, tx: tx, T: 39)
                XCTAssertTrue(p.isFinite && p >= 0 && p <= 1)
            }
        }
    }

    func testCustomersNeverSeenBackKeepTheLikelihoodAProbability() throws {
        // Customers without a repeat visit pull the optimiser towards s → ∞ (everyone leaves at once),
        // where βˢ and (β+T)^−s are each e^(±10¹³): summed apart over the customers, their logarithms
        // cancelled to a positive log-likelihood. P(X(T) = 0) is at most 1 for every parameter.
        let customers = (0..<300).map { CustomerSummary(frequency: 0, recency: 0, age: 0.2 + 1.3 * Double($0) / 300) }
        let fit = try ParetoNBD.fit(customers)
        XCTAssertLessThanOrEqual(fit.logLikelihood, 1e-9, "\(fit)")
        XCTAssertEqual(fit.logLikelihood, try fit.model.logLikelihood(customers), accuracy: 1e-9)
    }

    private func logAddExp(_ u: Double, _ v: Double) -> Double {
        let m = max(u, v)
        return m + log1p(exp(-abs(u - v)))
    }

    // MARK: Predictions

    func testConditionalExpectationAndProbabilityAliveMatchLifetimes() throws {
        // lifetimes evaluates the likelihood's closed form with scipy's hyp2f1 and a signed log-sum-exp,
        // we with a positive series differenced term by term; both are accurate to ~1e−12 relative on
        // these rows (x up to 120, α below, equal to and above β), so 1e−9 leaves room only for rounding.
        let rows = try lifetimesReference("pareto-conditional.csv")
        XCTAssertEqual(rows.count, 240)
        for row in rows {
            let v = try row.map { try XCTUnwrap(Double($0)) }
            let (x, tx, T, t, expected, alive) = (Int(v[4]), v[5], v[6], v[7], v[8], v[9])
            let m = try ParetoNBDModel(r: v[0], alpha: v[1], s: v[2], beta: v[3])
            let context = "x \(x), t_x \(tx), T \(T), t \(t) at \(v[0...3])"
            XCTAssertEqual(try m.probabilityAlive(x: x, tx: tx, T: T), alive, accuracy: 1e-9 * max(alive, 1e-12), context)
            XCTAssertEqual(try m.conditionalExpectedTransactions(t: t, x: x, tx: tx, T: T), expected,
                           accuracy: 1e-9 * max(expected, 1e-12), context)
        }
    }

    func testExpectationsAcrossSEqualsOne() throws {
        // The closed forms divide by s − 1; at s = 1 they are limits, and near it they must be continuous.
        for s in [1 - 1e-9, 1, 1 + 1e-9] {
            let m = try ParetoNBDModel(r: 0.8, alpha: 5, s: s, beta: 4)
            XCTAssertEqual(try m.expectedTransactions(t: 52), 0.8 / 5 * 4 * log1p(52.0 / 4), accuracy: 1e-8)
            let alive = try m.probabilityAlive(x: 3, tx: 20, T: 39)
            XCTAssertEqual(try m.conditionalExpectedTransactions(t: 52, x: 3, tx: 20, T: 39),
                           alive * 3.8 / 44 * 43 * log1p(52.0 / 43), accuracy: 1e-8)
        }
    }

    func testPredictionsMatchSimulatedCustomers() throws {
        // 60 000 customers with T in 26…39 weeks and a 52-week holdout. P(alive) is a probability: its
        // mean over the customers in a band must match the share alive there, within binomial error;
        // E[Y(52) | history] must match the mean holdout count, within its standard error.
        let m = models[0]
        var generator = Xoshiro256(seed: 2828)
        let population = simulatePareto(m, customers: 60_000, age: 26...39, horizon: 52, generator: &generator)
        var bands: [(predicted: Double, alive: Double, n: Double)] = Array(repeating: (0, 0, 0), count: 5)
        var predictedFuture: [Double] = [], observedFuture: [Double] = []
        for c in population {
            let s = c.summary
            let p = try m.probabilityAlive(x: s.frequency, tx: s.recency, T: s.age)
            let band = min(Int(p * 5), 4)
            bands[band].predicted += p
            bands[band].alive += c.aliveAtT ? 1 : 0
            bands[band].n += 1
            predictedFuture.append(try m.conditionalExpectedTransactions(t: 52, x: s.frequency, tx: s.recency, T: s.age))
            observedFuture.append(Double(c.futureTransactions))
        }
        for (i, band) in bands.enumerated() where band.n >= 500 {
            let p = band.predicted / band.n
            let share = band.alive / band.n
            XCTAssertEqual(share, p, accuracy: 4 * (p * (1 - p) / band.n).squareRoot() + 1e-9, "P(alive) band \(i)")
        }
        let differences = zip(observedFuture, predictedFuture).map { $0 - $1 }
        let (meanDifference, se) = meanAndStandardError(differences)
        XCTAssertEqual(meanDifference, 0, accuracy: 4 * se, "holdout visits: observed minus predicted")

        // E[X(t)] of a new customer: the mean count over t weeks of customers observed from their first purchase.
        var fresh = Xoshiro256(seed: 2829)
        let newCustomers = simulatePareto(m, customers: 100_000, age: 52...52, horizon: 0, generator: &fresh)
        let (mean, meanSE) = meanAndStandardError(newCustomers.map { Double($0.summary.frequency) })
        XCTAssertEqual(mean, try m.expectedTransactions(t: 52), accuracy: 4 * meanSE)
    }

    func testEdgeCasesAndErrors() throws {
        let m = models[0]
        XCTAssertEqual(try m.expectedTransactions(t: 0), 0)
        XCTAssertEqual(try m.conditionalExpectedTransactions(t: 0, x: 3, tx: 10, T: 20), 0)
        // Buying right up to T leaves only the chance of dying in no time at all.
        XCTAssertEqual(try m.probabilityAlive(x: 4, tx: 39, T: 39), 1)
        XCTAssertLessThan(try m.probabilityAlive(x: 10, tx: 5, T: 39), 0.05)
        XCTAssertThrowsError(try ParetoNBDModel(r: 0, alpha: 1, s: 1, beta: 1))
        XCTAssertThrowsError(try ParetoNBDModel(r: 1, alpha: .infinity, s: 1, beta: 1))
        XCTAssertThrowsError(try m.probabilityAlive(x: 2, tx: 40, T: 39))
        XCTAssertThrowsError(try m.expectedTransactions(t: -1))
        XCTAssertThrowsError(try m.logLikelihood(CustomerSummary(frequency: -1, recency: 0, age: 3)))
        XCTAssertThrowsError(try ParetoNBD.fit([])) { XCTAssertEqual($0 as? FittingError, .emptyData) }
        XCTAssertThrowsError(try ParetoNBD.fit([CustomerSummary(frequency: 1, recency: 5, age: 4)])) {
            XCTAssertEqual($0 as? FittingError, .invalidObservation(index: 0))
        }
    }

    // MARK: Real data

    private static let cdnowFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Datasets/cdnow")

    /// FHL's 2,357-customer sample as published (frequency, recency, T in weeks).
    private func loadSampleSummary() throws -> [CustomerSummary] {
        let text = try String(contentsOf: Self.cdnowFolder.appendingPathComponent("cdnow_customers_summary.csv"), encoding: .utf8)
        return try text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: ",")
            let x = try XCTUnwrap(Int(fields[1])), tx = try XCTUnwrap(Double(fields[2])), T = try XCTUnwrap(Double(fields[3]))
            return CustomerSummary(frequency: x, recency: tx, age: T)
        }
    }

    func testCDNOWSampleFitReproducesPublishedEstimates() throws {
        let customers = try loadSampleSummary()
        XCTAssertEqual(customers.count, 2357)
        let fit = try ParetoNBD.fit(customers)
        print("CDNOW sample of 2,357 customers: \(fit)")
        XCTAssertTrue(fit.converged)
        // FHL print two decimals: the estimates must round to them, and agree with lifetimes to four digits.
        for (estimate, value) in zip(fit.parameters, [published.r, published.alpha, published.s, published.beta]) {
            XCTAssertEqual(estimate.value, value, accuracy: 0.005 + 1e-9, estimate.name)
            XCTAssertNotNil(estimate.standardError, estimate.name)
        }
        XCTAssertEqual(fit.logLikelihood, published.logLikelihood, accuracy: 0.5)
        try assertAgreesWithLifetimes(fit, lifetimesFit("sample"))
    }

    /// lifetimes' `summary_data_from_transaction_data` on the master file (calibration to 1997-09-30,
    /// whole days, divided by 7) and `ParetoNBDFitter` run to convergence (scripts/lifetimes-reference.py).
    func testCDNOWMasterFitMatchesLifetimes() throws {
        let log = try RecordedLog.read(file: Self.cdnowFolder.appendingPathComponent("CDNOW_master.txt").path, format: .cdnow)
        let end = CivilTime.epochSeconds(year: 1997, month: 9, day: 30) + 86_399
        let customers = log.customerSummaries(calibrationEnd: end, unit: .weeks)
        XCTAssertEqual(customers.count, 23_570)
        let fit = try ParetoNBD.fit(customers)
        print("CDNOW master, calibration to 1997-09-30: \(fit)")
        XCTAssertTrue(fit.converged)
        try assertAgreesWithLifetimes(fit, lifetimesFit("master"))
    }

    /// Four significant digits of every estimate, and the log-likelihood to 0.01.
    private func assertAgreesWithLifetimes(
        _ fit: ParetoNBDFit, _ reference: (parameters: [Double], logLikelihood: Double), line: UInt = #line
    ) {
        func significant(_ x: Double) -> String { String(format: "%.4g", x) }
        for (estimate, value) in zip(fit.parameters, reference.parameters) {
            XCTAssertEqual(significant(estimate.value), significant(value), estimate.name, line: line)
        }
        XCTAssertEqual(fit.logLikelihood, reference.logLikelihood, accuracy: 0.01, line: line)
    }
}
