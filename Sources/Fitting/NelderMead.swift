/// Derivative-free minimiser (Nelder & Mead 1965, in the ordering and tie rules of Lagarias et al. 1998) with restarts.
public struct NelderMead: Sendable {
    /// A run stops when the simplex values spread by less than this, relative to max(1, |f_best|).
    public var functionTolerance: Double
    /// …and every vertex is within this of the best one, relative to max(1, |x_best|).
    public var parameterTolerance: Double
    /// Iteration budget for each run.
    public var maxIterations: Int
    /// How many times a converged run may be restarted from its best point.
    public var maxRestarts: Int
    /// Edge length of a fresh simplex along each axis, scaled by max(1, |xᵢ|).
    public var initialStep: Double

    public init(
        functionTolerance: Double = 1e-12,
        parameterTolerance: Double = 1e-9,
        maxIterations: Int = 5_000,
        maxRestarts: Int = 8,
        initialStep: Double = 0.5
    ) {
        (self.functionTolerance, self.parameterTolerance) = (functionTolerance, parameterTolerance)
        (self.maxIterations, self.maxRestarts, self.initialStep) = (maxIterations, maxRestarts, initialStep)
    }

    /// The outcome of a minimisation.
    public struct Result: Sendable, Equatable {
        public let point: [Double]
        public let value: Double
        /// Simplex iterations summed over all runs.
        public let iterations: Int
        public let evaluations: Int
        public let restarts: Int
        /// A run met both tolerances and a fresh simplex around its best point found nothing better.
        public let converged: Bool
    }

    /// Minimises f from `start`; NaN values are treated as +∞ so that f may reject infeasible points that way.
    public func minimize(_ f: ([Double]) -> Double, from start: [Double]) -> Result {
        precondition(!start.isEmpty, "NelderMead needs at least one parameter")
        var evaluations = 0
        func objective(_ x: [Double]) -> Double {
            evaluations += 1
            let v = f(x)
            return v.isNaN ? .infinity : v
        }
        var best = start
        var bestValue = objective(start)
        var iterations = 0
        var restarts = 0
        var converged = false
        while true {
            let run = singleRun(objective, from: best)
            iterations += run.iterations
            let improvement = bestValue - run.value
            let improved = run.value < bestValue
            if improved {
                best = run.point
                bestValue = run.value
            }
            // Nelder–Mead can stall on a degenerate simplex; only a fresh simplex that cannot improve
            // the point is taken as evidence of a true minimum.
            let negligible = !improved || improvement <= functionTolerance * max(1, abs(bestValue))
            if run.converged && negligible && restarts > 0 {
                converged = bestValue.isFinite
                break
            }
            if restarts == maxRestarts { break }
            restarts += 1
        }
        return Result(
            point: best, value: bestValue, iterations: iterations,
            evaluations: evaluations, restarts: restarts, converged: converged
        )
    }

    private func singleRun(
        _ f: ([Double]) -> Double, from start: [Double]
    ) -> (point: [Double], value: Double, iterations: Int, converged: Bool) {
        let n = start.count
        var vertices = [start]
        for i in 0..<n {
            var v = start
            v[i] += initialStep * max(1, abs(start[i]))
            vertices.append(v)
        }
        var values = vertices.map(f)
        func point(_ centroid: [Double], _ worst: [Double], _ coefficient: Double) -> [Double] {
            (0..<n).map { centroid[$0] + coefficient * (centroid[$0] - worst[$0]) }
        }
        var iteration = 0
        while iteration < maxIterations {
            // Stable ordering keeps the older vertex first on ties, as Lagarias et al. prescribe.
            let order = values.indices.sorted { values[$0] < values[$1] }
            vertices = order.map { vertices[$0] }
            values = order.map { values[$0] }
            let fBest = values[0]
            let fWorst = values[n]
            if fBest.isFinite && fWorst - fBest <= functionTolerance * max(1, abs(fBest)) {
                let scale = max(1, vertices[0].map(abs).max() ?? 0)
                let size = vertices.dropFirst().map { v in zip(v, vertices[0]).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
                if size <= parameterTolerance * scale {
                    return (vertices[0], fBest, iteration, true)
                }
            }
            iteration += 1
            var centroid = [Double](repeating: 0, count: n)
            for v in vertices.prefix(n) {
                for j in 0..<n { centroid[j] += v[j] / Double(n) }
            }
            let worst = vertices[n]
            let reflected = point(centroid, worst, 1)
            let fReflected = f(reflected)
            if fReflected < fBest {
                let expanded = point(centroid, worst, 2)
                let fExpanded = f(expanded)
                if fExpanded < fReflected {
                    (vertices[n], values[n]) = (expanded, fExpanded)
                } else {
                    (vertices[n], values[n]) = (reflected, fReflected)
                }
                continue
            }
            if fReflected < values[n - 1] {
                (vertices[n], values[n]) = (reflected, fReflected)
                continue
            }
            if fReflected < fWorst {
                let outside = point(centroid, worst, 0.5)
                let fOutside = f(outside)
                if fOutside <= fReflected {
                    (vertices[n], values[n]) = (outside, fOutside)
                    continue
                }
            } else {
                let inside = point(centroid, worst, -0.5)
                let fInside = f(inside)
                if fInside < fWorst {
                    (vertices[n], values[n]) = (inside, fInside)
                    continue
                }
            }
            for i in 1...n {
                vertices[i] = (0..<n).map { vertices[0][$0] + 0.5 * (vertices[i][$0] - vertices[0][$0]) }
                values[i] = f(vertices[i])
            }
        }
        let bestIndex = values.indices.min { values[$0] < values[$1] } ?? 0
        return (vertices[bestIndex], values[bestIndex], iteration, false)
    }
}

/// Damped Newton steps with numerical derivatives, used to sharpen a Nelder–Mead optimum.
///
/// Each step solves H d = −g by Cholesky and halves d until f decreases; the loop stops when the
/// Newton decrement gᵀH⁻¹g/2 (the predicted gain) falls below `tolerance`, when H is not positive
/// definite, or when no halving helps, in every case keeping the best point seen.
func newtonPolish(
    _ f: ([Double]) -> Double, from start: [Double], startValue: Double,
    maxIterations: Int = 20, tolerance: Double = 1e-9
) -> (point: [Double], value: Double, iterations: Int, stationary: Bool) {
    var x = start
    var fx = startValue
    for iteration in 0..<maxIterations {
        let g = NumericalDerivatives.gradient(of: f, at: x)
        let h = NumericalDerivatives.hessian(of: f, at: x)
        guard let l = choleskyFactor(h) else { return (x, fx, iteration, false) }
        let step = choleskySolve(l, g.map { -$0 })
        let decrement = -zip(g, step).reduce(0) { $0 + $1.0 * $1.1 } / 2
        if decrement <= tolerance { return (x, fx, iteration, true) }
        var scale = 1.0
        var moved = false
        for _ in 0..<30 {
            let trial = zip(x, step).map { $0 + scale * $1 }
            let value = f(trial)
            if value < fx {
                (x, fx, moved) = (trial, value, true)
                break
            }
            scale /= 2
        }
        if !moved { return (x, fx, iteration + 1, decrement <= 1e3 * tolerance) }
    }
    return (x, fx, maxIterations, false)
}
