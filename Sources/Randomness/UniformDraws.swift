#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

// These conversions are defined here rather than taken from the standard library because
// `Double.random(in:using:)` and `Int.random(in:using:)` do not promise a fixed algorithm, and the
// simulator needs identical draws for a seed across toolchains.
extension RandomNumberGenerator {
    /// A uniform double in [0, 1): the top 53 bits of one `next()` scaled by 2^−53, so every
    /// multiple of 2^−53 in [0, 1) is equally likely.
    @inlinable @inline(__always)
    public mutating func nextUnit() -> Double {
        // Signed conversion because the value fits in 53 bits and cvtsi2sd is cheaper than the
        // unsigned conversion sequence.
        Double(Int64(truncatingIfNeeded: next() &>> 11)) * 0x1.0p-53
    }

    /// A uniform double in the open interval (0, 1), safe to pass to `log`.
    ///
    /// Returns `(k + 0.5) · 2^−52` for the top 52 bits `k` of one `next()`: the midpoints of a 2^−52
    /// grid. The midpoints are exactly representable, the smallest is 2^−53 and the largest
    /// 1 − 2^−53, and the set is symmetric about 1/2, so `1 − u` has the same distribution as `u`.
    /// (Adding 0.5 to a 53-bit value would round the largest one up to exactly 1.)
    @inlinable
    public mutating func nextOpenUnit() -> Double {
        (Double(Int64(truncatingIfNeeded: next() &>> 12)) + 0.5) * 0x1.0p-52
    }

    /// An unbiased uniform integer in `0..<n`, by Lemire's multiply-and-reject method
    /// ("Fast random integer generation in an interval", ACM TOMS 2019).
    ///
    /// The high word of `next() · n` is the candidate; it is rejected (and redrawn) only when the low
    /// word falls below `2^64 mod n`, which removes the bias exactly. The division computing
    /// `2^64 mod n` runs only on the rare path where the low word is already below `n`.
    ///
    /// - Precondition: `n > 0`.
    @inlinable
    public mutating func nextIndex(below n: Int) -> Int {
        precondition(n > 0, "nextIndex(below:) needs a positive bound")
        let bound = UInt64(truncatingIfNeeded: n)
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return Int(truncatingIfNeeded: product.high)
    }
}
