/// Which points of a set no other point beats on both counts, found in one sort and one sweep
/// (n log n, where comparing every pair would take n², too slow for a tune's thousands).
public enum ParetoFront {
    /// For each point (a, b), higher better on both: whether no other point has a and b at least
    /// as high with one of them higher. A point with a NaN neither beats nor is beaten; infinities
    /// compare as numbers.
    public static func nonDominated(_ points: [(a: Double, b: Double)]) -> [Bool] {
        var front = Array(repeating: true, count: points.count)
        // Highest a first; within the same a, highest b first.
        let order = points.indices.filter { !points[$0].a.isNaN && !points[$0].b.isNaN }.sorted {
            let (p, q) = (points[$0], points[$1])
            return p.a != q.a ? p.a > q.a : p.b > q.b
        }
        // The highest b among the points of strictly higher a, and of the same a.
        var bestAbove = -Double.infinity, anyAbove = false
        var k = 0
        while k < order.count {
            let a = points[order[k]].a
            var end = k
            while end < order.count && points[order[end]].a == a { end += 1 }
            let bestHere = points[order[k]].b
            for j in k..<end {
                let b = points[order[j]].b
                // Beaten by a point of higher a and b at least as high, or of the same a and higher b.
                if (anyAbove && bestAbove >= b) || bestHere > b { front[order[j]] = false }
            }
            if !anyAbove || bestHere > bestAbove { bestAbove = bestHere }
            anyAbove = true
            k = end
        }
        return front
    }
}
