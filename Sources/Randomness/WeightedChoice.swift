/// Picks an index with probability proportional to its weight, from a precomputed cumulative table
/// (one uniform per draw, binary search, no allocation).
///
/// Index `i` is returned when `c[i−1] ≤ U·W < c[i]`, where `c` holds the running sums of the weights,
/// `W` their total and U ∈ [0, 1) a 53-bit uniform. An entry with zero weight has `c[i] = c[i−1]`, so
/// its interval is empty and it is never chosen.
public struct WeightedChoice: Sendable, Equatable {
    @usableFromInline internal let cumulative: [Double]
    /// The sum of all weights.
    public let totalWeight: Double

    /// - Precondition: `weights` is non-empty; every weight is finite and ≥ 0; the sum is finite and > 0.
    public init(weights: [Double]) {
        precondition(!weights.isEmpty, "WeightedChoice: needs at least one weight")
        var running = 0.0
        var table: [Double] = []
        table.reserveCapacity(weights.count)
        for w in weights {
            precondition(w >= 0 && w.isFinite, "WeightedChoice: weights must be finite and >= 0")
            running += w
            table.append(running)
        }
        precondition(running > 0 && running.isFinite, "WeightedChoice: weights must have a finite positive sum")
        cumulative = table
        totalWeight = running
    }

    /// The number of indices (including zero-weight ones).
    public var count: Int { cumulative.count }

    /// The exact probability of drawing `index`, as implied by the cumulative table.
    public func probability(of index: Int) -> Double {
        let upper = cumulative[index]
        let lower = index == 0 ? 0 : cumulative[index - 1]
        return (upper - lower) / totalWeight
    }

    @inlinable
    public func sample<G: RandomNumberGenerator>(_ generator: inout G) -> Int {
        // u·W < W for every 53-bit u < 1 (the product rounds down or to an exact value), so the last
        // cumulative entry always exceeds the target and the search stays in range.
        let target = generator.nextUnit() * totalWeight
        return cumulative.withUnsafeBufferPointer { table in
            var low = 0
            var high = table.count - 1
            while low < high {
                let middle = (low &+ high) &>> 1
                if table[middle] > target {
                    high = middle
                } else {
                    low = middle &+ 1
                }
            }
            return low
        }
    }
}
