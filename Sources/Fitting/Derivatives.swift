/// Central-difference gradients and Hessians with steps scaled to the parameters.
public enum NumericalDerivatives {
    /// ε^(1/3): balances truncation error O(h²) against rounding error O(ε/h) for a gradient.
    public static let gradientStepFactor = 6.055_454_452_393_343e-6
    /// ε^(1/4): the same balance for second differences, whose rounding error is O(ε/h²).
    public static let hessianStepFactor = 1.220_703_125e-4

    /// Default steps: the factor times max(|xᵢ|, 1), so large parameters get proportionally large steps.
    public static func defaultSteps(for x: [Double], factor: Double) -> [Double] {
        x.map { factor * max(abs($0), 1) }
    }

    /// ∂f/∂xᵢ by (f(x + hᵢeᵢ) − f(x − hᵢeᵢ)) / 2hᵢ.
    public static func gradient(of f: ([Double]) -> Double, at x: [Double], steps: [Double]? = nil) -> [Double] {
        let h = steps ?? defaultSteps(for: x, factor: gradientStepFactor)
        var g = [Double](repeating: 0, count: x.count)
        var probe = x
        for i in x.indices {
            let (up, down) = (x[i] + h[i], x[i] - h[i])
            probe[i] = up
            let fUp = f(probe)
            probe[i] = down
            let fDown = f(probe)
            probe[i] = x[i]
            // The actually representable step, not the requested one, is what the difference spans.
            g[i] = (fUp - fDown) / (up - down)
        }
        return g
    }

    /// ∂²f/∂xᵢ∂xⱼ: the three-point rule on the diagonal and the four-point cross rule off it.
    public static func hessian(of f: ([Double]) -> Double, at x: [Double], steps: [Double]? = nil) -> [[Double]] {
        let n = x.count
        let requested = steps ?? defaultSteps(for: x, factor: hessianStepFactor)
        let h = x.indices.map { (x[$0] + requested[$0]) - x[$0] }
        let f0 = f(x)
        var result = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        var probe = x
        for i in 0..<n {
            probe[i] = x[i] + h[i]
            let fUp = f(probe)
            probe[i] = x[i] - h[i]
            let fDown = f(probe)
            probe[i] = x[i]
            result[i][i] = (fUp - 2 * f0 + fDown) / (h[i] * h[i])
            for j in 0..<i {
                func shifted(_ si: Double, _ sj: Double) -> Double {
                    probe[i] = x[i] + si * h[i]
                    probe[j] = x[j] + sj * h[j]
                    defer { probe[i] = x[i]; probe[j] = x[j] }
                    return f(probe)
                }
                let value = (shifted(1, 1) - shifted(1, -1) - shifted(-1, 1) + shifted(-1, -1)) / (4 * h[i] * h[j])
                result[i][j] = value
                result[j][i] = value
            }
        }
        return result
    }
}

/// Lower-triangular L with A = LLᵀ, or nil when A is not (numerically) positive definite.
func choleskyFactor(_ a: [[Double]]) -> [[Double]]? {
    let n = a.count
    var l = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
    for i in 0..<n {
        for j in 0...i {
            var s = a[i][j]
            for k in 0..<j { s -= l[i][k] * l[j][k] }
            if i == j {
                guard s > 0, s.isFinite else { return nil }
                l[i][i] = s.squareRoot()
            } else {
                l[i][j] = s / l[j][j]
            }
        }
    }
    return l
}

/// Solves A y = v given the Cholesky factor of A.
func choleskySolve(_ l: [[Double]], _ v: [Double]) -> [Double] {
    let n = l.count
    var y = v
    for i in 0..<n {
        for k in 0..<i { y[i] -= l[i][k] * y[k] }
        y[i] /= l[i][i]
    }
    for i in stride(from: n - 1, through: 0, by: -1) {
        for k in (i + 1)..<n { y[i] -= l[k][i] * y[k] }
        y[i] /= l[i][i]
    }
    return y
}

/// A⁻¹ for a symmetric positive definite A, or nil when A is not positive definite.
func choleskyInverse(_ a: [[Double]]) -> [[Double]]? {
    guard let l = choleskyFactor(a) else { return nil }
    let n = a.count
    var inverse = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
    for j in 0..<n {
        var unit = [Double](repeating: 0, count: n)
        unit[j] = 1
        let column = choleskySolve(l, unit)
        for i in 0..<n { inverse[i][j] = column[i] }
    }
    return inverse
}
