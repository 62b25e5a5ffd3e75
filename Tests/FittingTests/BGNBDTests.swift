import Fitting
import Foundation
import Randomness
import RecordedData
import XCTest

/// FHL 2005's CDNOW estimates (weeks), used as the first set of true parameters in simulations.
private let cdnow = (r: 0.243, alpha: 4.414, a: 0.793, b: 2.426)

final class BGNBDTests: XCTestCase {
    private func model(_ p: (r: Double, alpha: Double, a: Double, b: Double)) throws -> BGNBDModel {
        try BGNBDModel(r: p.r, alpha: p.alpha, a: p.a, b: p.b)
    }

    // MARK: Likelihood against the model's definition

    /// L(x, t_x, T) = ∫∫ P(x, t_x, T | λ, p) g(λ; r, α) h(p; a, b) dλ dp with FHL eq. 3 as the integrand,
    /// on a tensor grid of exp-sinh (λ) and tanh-sinh (p) nodes, which absorb the λ^(r−1) and
    /// p^(a−1) endpoint singularities.
    private func quadratureLikelihood(
        _ m: BGNBDModel, x: Int, tx: Double, T: Double, step: Double
    ) -> Double {
        let xd = Double(x)
        let gammaNorm = m.r * log(m.alpha) - logGamma(m.r)
        let betaNorm = logGamma(m.a + m.b) - logGamma(m.a) - logGamma(m.b)
        let pNodes = DoubleExponential.unitInterval(step: step)
        var total = 0.0
        for (logLambda, lambdaWeight) in DoubleExponential.halfLine(step: step) {
            let lambda = exp(logLambda)
            let gammaDensity = gammaNorm + (m.r - 1) * logLambda - m.alpha * lambda
            if gammaDensity + lambdaWeight < -800 { continue }
            for (logP, logQ, pWeight) in pNodes {
                let betaDensity = betaNorm + (m.a - 1) * logP + (m.b - 1) * logQ
                let alive = xd * logQ + xd * logLambda - lambda * T
                var logModel = alive
                if x > 0 {
                    let died = logP + (xd - 1) * logQ + xd * logLambda - lambda * tx
                    let top = max(alive, died)
                    logModel = top + log(exp(alive - top) + exp(died - top))
                }
                total += exp(lambdaWeight + pWeight + gammaDensity + betaDensity + logModel)
            }
        }
        return total
    }

    func testLikelihoodMatchesDirectIntegration() throws {
        // The double-exponential rule converges like exp(−c/h); halving h roughly squares the error,
        // so |Q(h) − Q(h/2)| bounds the error of Q(h/2) by a wide margin. It comes out below 1e−12
        // relative here, so a 1e−9 relative tolerance leaves room only for rounding in the sums.
        let sets = [try model(cdnow), try BGNBDModel(r: 1.7, alpha: 2.0, a: 1.8, b: 0.6)]
        let customers = [
            CustomerSummary(frequency: 0, recency: 0, age: 38),
            CustomerSummary(frequency: 1, recency: 5.3, age: 30),
            CustomerSummary(frequency: 4, recency: 20.1, age: 35.5),
            CustomerSummary(frequency: 9, recency: 33, age: 39),
        ]
        for m in sets {
            for c in customers {
                let coarse = quadratureLikelihood(m, x: c.frequency, tx: c.recency, T: c.age, step: 1.0 / 16)
                let fine = quadratureLikelihood(m, x: c.frequency, tx: c.recency, T: c.age, step: 1.0 / 32)
                let closed = exp(m.logLikelihood(c))
                let quadratureError = abs(coarse - fine) / fine
                XCTAssertLessThan(quadratureError, 1e-11, "\(c)")
                XCTAssertEqual(closed, fine, accuracy: 1e-9 * fine, "\(m) \(c)")
                print(String(format: "L(x=%d, t_x=%.1f, T=%.1f) closed %.12e quadrature %.12e (rel. diff %.1e, quadrature error est. %.1e)",
                             c.frequency, c.recency, c.age, closed, fine, abs(closed - fine) / fine, quadratureError))
            }
        }
    }

    // MARK: Predictions

    /// E[X(t)] = ∫ (1 − (α/(α + pt))^r)/p · Beta(p; a, b) dp, from E[X(t) | λ, p] = (1 − e^(−λpt))/p,
    /// integrated by tanh-sinh; valid for every a > 0, including a = 1.
    private func integratedExpectation(_ m: BGNBDModel, t: Double) -> Double {
        let betaNorm = logGamma(m.a + m.b) - logGamma(m.a) - logGamma(m.b)
        return DoubleExponential.unitInterval(step: 1.0 / 64).reduce(0) { sum, node in
            let p = exp(node.logP)
            let gain = -expm1(-m.r * log1p(p * t / m.alpha))
            return sum + exp(node.logWeight + betaNorm + (m.a - 1) * node.logP + (m.b - 1) * node.logQ - node.logP) * gain
        }
    }

    func testExpectedTransactionsAgainstIntegralAcrossAEqualsOne() throws {
        for b in [0.3, 2.426] {
            for a in [0.4, 0.793, 1 - 1e-9, 1, 1 + 1e-9, 1.3, 4] {
                let m = try BGNBDModel(r: 0.243, alpha: 4.414, a: a, b: b)
                for t in [0.5, 39, 78, 520] {
                    let closed = try m.expectedTransactions(t: t)
                    let integral = integratedExpectation(m, t: t)
                    XCTAssertEqual(closed, integral, accuracy: 1e-10 * integral, "a=\(a) b=\(b) t=\(t)")
                }
            }
        }
        // FHL's own form, for a well away from 1 where it is numerically safe.
        let m = try model(cdnow)
        let t = 52.0
        let z = t / (m.alpha + t)
        let f = try hypergeometric2F1(a: m.r, b: m.b, c: m.a + m.b - 1, z: z)
        let fhl = (m.a + m.b - 1) / (m.a - 1) * (1 - pow(m.alpha / (m.alpha + t), m.r) * f)
        XCTAssertEqual(try m.expectedTransactions(t: t), fhl, accuracy: 1e-12 * fhl)
    }

    func testRepeatCountDistributionSumsToOneAndMatchesMean() throws {
        for m in [try model(cdnow), try BGNBDModel(r: 1.7, alpha: 2.0, a: 1.8, b: 0.6)] {
            for t in [1.0, 39, 78] {
                let probabilities = try m.repeatCountProbabilities(t: t, count: 4000)
                XCTAssertTrue(probabilities.allSatisfy { $0 >= 0 })
                let total = probabilities.reduce(0, +)
                let mean = probabilities.enumerated().reduce(0) { $0 + Double($1.offset) * $1.element }
                let expected = try m.expectedTransactions(t: t)
                XCTAssertEqual(total, 1, accuracy: 1e-12, "t=\(t)")
                XCTAssertEqual(mean, expected, accuracy: 1e-10 * expected, "t=\(t)")
                XCTAssertEqual(try m.probabilityOfRepeatCount(3, t: t), probabilities[3], accuracy: 1e-15)
            }
        }
    }

    func testExpectedTransactionsMatchSimulatedPopulation() throws {
        // 200 000 new customers observed for t = 52 weeks; the mean of X(t) has SE ≈ 0.01.
        let m = try model(cdnow)
        var generator = Xoshiro256(seed: 707)
        let t = 52.0
        let population = simulateBGNBD(
            r: m.r, alpha: m.alpha, a: m.a, b: m.b, customers: 200_000, age: t...t, generator: &generator
        )
        let (mean, se) = meanAndStandardError(population.map { Double($0.summary.frequency) })
        let expected = try m.expectedTransactions(t: t)
        print(String(format: "E[X(52)]: closed form %.5f, simulated %.5f ± %.5f", expected, mean, se))
        XCTAssertEqual(mean, expected, accuracy: 4 * se)

        // The simulated histogram against P(X(t) = x), bucket by bucket, with binomial SEs.
        let probabilities = try m.repeatCountProbabilities(t: t, count: 6)
        for x in 0..<6 {
            let observed = Double(population.filter { $0.summary.frequency == x }.count) / Double(population.count)
            let binomialSE = (probabilities[x] * (1 - probabilities[x]) / Double(population.count)).squareRoot()
            XCTAssertEqual(observed, probabilities[x], accuracy: 4 * binomialSE, "P(X=\(x))")
        }
    }

    func testConditionalExpectationAndProbabilityAliveBySimulation() throws {
        // For any set A of calibration histories, E[(Y − E[Y | history]) · 1_A] = 0 and likewise for
        // 1_alive − P(alive | history). So within each frequency bucket the mean residual must be
        // zero up to its standard error, which tests eq. 10 and eq. 11 history by history.
        let m = try model(cdnow)
        var generator = Xoshiro256(seed: 808)
        let horizon = 39.0
        let population = simulateBGNBD(
            r: m.r, alpha: m.alpha, a: m.a, b: m.b, customers: 60_000, age: 26...39,
            horizon: horizon, generator: &generator
        )
        var residuals: [String: (future: [Double], alive: [Double])] = [:]
        for c in population {
            let s = c.summary
            let bucket = s.frequency == 0 ? "x = 0" : s.frequency <= 2 ? "x = 1–2" : "x ≥ 3"
            let expected = try m.conditionalExpectedTransactions(t: horizon, customer: s)
            let alive = try m.probabilityAlive(customer: s)
            residuals[bucket, default: ([], [])].future.append(Double(c.futureTransactions) - expected)
            residuals[bucket, default: ([], [])].alive.append((c.aliveAtT ? 1 : 0) - alive)
        }
        for (bucket, r) in residuals.sorted(by: { $0.key < $1.key }) {
            let future = meanAndStandardError(r.future)
            let alive = meanAndStandardError(r.alive)
            print(String(format: "%@ (n = %d): mean(Y − E[Y|x,t_x,T]) = %+.4f ± %.4f, mean(alive − P(alive)) = %+.4f ± %.4f",
                         bucket, r.future.count, future.mean, future.standardError, alive.mean, alive.standardError))
            XCTAssertEqual(future.mean, 0, accuracy: 4 * future.standardError, bucket)
            if alive.standardError > 0 {
                XCTAssertEqual(alive.mean, 0, accuracy: 4 * alive.standardError, bucket)
            } else {
                XCTAssertEqual(alive.mean, 0, accuracy: 1e-12, bucket)
            }
        }
    }

    func testPredictionEdgeCasesAndErrors() throws {
        let m = try model(cdnow)
        XCTAssertEqual(try m.expectedTransactions(t: 0), 0)
        XCTAssertEqual(try m.conditionalExpectedTransactions(t: 0, x: 3, tx: 10, T: 20), 0)
        XCTAssertEqual(try m.probabilityAlive(x: 0, tx: 0, T: 30), 1)
        XCTAssertEqual(try m.repeatCountProbabilities(t: 0, count: 3), [1, 0, 0])
        // A long silence after frequent buying makes survival unlikely; buying right up to T does not.
        XCTAssertLessThan(try m.probabilityAlive(x: 10, tx: 5, T: 39), 0.01)
        XCTAssertGreaterThan(try m.probabilityAlive(x: 10, tx: 39, T: 39), 0.7)
        XCTAssertThrowsError(try BGNBDModel(r: 0, alpha: 1, a: 1, b: 1))
        XCTAssertThrowsError(try m.probabilityAlive(x: 2, tx: 40, T: 39))
        XCTAssertThrowsError(try m.expectedTransactions(t: -1))
        XCTAssertThrowsError(try BGNBD.fit([])) { XCTAssertEqual($0 as? FittingError, .emptyData) }
        XCTAssertThrowsError(try BGNBD.fit([CustomerSummary(frequency: 1, recency: 5, age: 4)])) {
            XCTAssertEqual($0 as? FittingError, .invalidObservation(index: 0))
        }
    }

    // MARK: Parameter recovery

    private func checkRecovery(
        truth: (r: Double, alpha: Double, a: Double, b: Double), customers: Int, age: ClosedRange<Double>, seed: UInt64
    ) throws {
        var generator = Xoshiro256(seed: seed)
        let data = simulateBGNBD(
            r: truth.r, alpha: truth.alpha, a: truth.a, b: truth.b, customers: customers, age: age, generator: &generator
        ).map(\.summary)
        let starts = [try BGNBDModel(r: 1, alpha: 1, a: 1, b: 1), try BGNBDModel(r: 10, alpha: 10, a: 10, b: 10)]
        var fits: [BGNBDFit] = []
        for start in starts {
            let clock = ContinuousClock.now
            let fit = try BGNBD.fit(data, start: start)
            let elapsed = ContinuousClock.now - clock
            fits.append(fit)
            print("from \(start.r), \(start.alpha), \(start.a), \(start.b): \(fit) [\(elapsed)]")
            XCTAssertTrue(fit.converged)
        }
        let fit = fits[0]
        let values = [truth.r, truth.alpha, truth.a, truth.b]
        for (estimate, value) in zip(fit.parameters, values) {
            print(String(format: "  %@: %.4f ± %.4f, truth %.4f, z = %+.2f", estimate.name, estimate.value,
                         estimate.standardError ?? .nan, value, (estimate.value - value) / (estimate.standardError ?? .nan)))
            assertWithinStandardErrors(estimate, truth: value)
        }
        // Both poor starts must reach the same optimum: parameters agree to a small fraction of an SE.
        for (p, q) in zip(fits[0].parameters, fits[1].parameters) {
            XCTAssertEqual(p.value, q.value, accuracy: 1e-3 * (p.standardError ?? 0), p.name)
        }
        XCTAssertEqual(fits[0].logLikelihood, fits[1].logLikelihood, accuracy: 1e-6)
        XCTAssertEqual(fit.logLikelihood, fit.model.logLikelihood(data), accuracy: 1e-9 * abs(fit.logLikelihood))
    }

    func testRecoveryNearCDNOWEstimates() throws {
        try checkRecovery(truth: cdnow, customers: 6000, age: 26...39, seed: 909)
    }

    func testRecoveryOfSecondParameterSet() throws {
        try checkRecovery(truth: (r: 1.2, alpha: 6.0, a: 2.5, b: 5.0), customers: 4000, age: 20...52, seed: 910)
    }

    // MARK: Real data

    func testCDNOWCalibrationFitNearPublishedValues() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Datasets/cdnow/CDNOW_master.txt").path
        let customers = try loadCDNOWCalibration(path: path)
        XCTAssertEqual(customers.count, 23_570)
        let fit = try BGNBD.fit(customers)
        print("CDNOW master, 39-week calibration: \(fit)")
        XCTAssertTrue(fit.converged)
        // FHL fitted a 1/10 random sample (2 357 customers) of this cohort. The gap between a
        // sub-sample MLE and the full-cohort MLE has SD ≈ √(SE_sample² − SE_full²) ≈ 3 SE_full
        // (since SE_sample ≈ √10 SE_full), so a correct fit lies within 4 · 3 = 12 full-data SEs
        // of the published values; the day convention for T moves the estimates by far less.
        let published = [cdnow.r, cdnow.alpha, cdnow.a, cdnow.b]
        for (estimate, value) in zip(fit.parameters, published) {
            let se = try XCTUnwrap(estimate.standardError)
            print(String(format: "  %@: %.4f ± %.4f, published %.3f, difference %+.1f %% = %+.1f full-data SE",
                         estimate.name, estimate.value, se, value, 100 * (estimate.value - value) / value, (estimate.value - value) / se))
            XCTAssertEqual(estimate.value, value, accuracy: 12 * se, estimate.name)
        }

        // T to 1997-09-30 instead of 1997-10-01 (the convention of some published summaries): a
        // uniform shift of one day in T should move every estimate by well under one SE.
        let shifted = try BGNBD.fit(loadCDNOWCalibration(path: path, ageEndDay: 272))
        print("  with T measured to 1997-09-30: \(shifted)")
        for (p, q) in zip(fit.parameters, shifted.parameters) {
            XCTAssertEqual(p.value, q.value, accuracy: try XCTUnwrap(p.standardError), p.name)
        }
    }
}
