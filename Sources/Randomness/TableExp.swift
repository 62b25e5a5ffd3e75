#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// e^x by Tang's table method ("Table-driven implementation of the exponential function in IEEE
/// floating-point arithmetic", ACM TOMS 15(2), 1989), inlined into the samplers' hot paths where
/// a call into the C library's `exp` costs more than the rest of a draw.
///
/// `x = (k / 128) ln 2 + r` with k the nearest integer to `128 x / ln 2`, so `|r| ≤ ln 2 / 256`;
/// then `e^x = 2^⌊k/128⌋ · 2^((k mod 128)/128) · e^r`, the middle factor from a table of 128
/// powers of 2 and `e^r − 1` from its Taylor polynomial of degree 5 (truncation below 6·10⁻¹⁹
/// relative). `ln 2 / 128` is split in a 33-bit head, exact when multiplied by k, and a tail, so r
/// is exact to rounding. The result is within about one unit in the last place of e^x; outside
/// |x| < 700 (overflow, underflow, NaN) the C library's `exp` answers.
///
/// The value is a pointer to a table built once for the life of the process, so copies are free.
public struct TableExp: @unchecked Sendable, Equatable {
    /// 2^(j/128), j = 0..<128; never freed nor written after it is built.
    @usableFromInline let powers: UnsafePointer<Double>

    /// The one table.
    public static let shared = TableExp()

    private init() {
        let table = UnsafeMutablePointer<Double>.allocate(capacity: 128)
        for j in 0..<128 { (table + j).initialize(to: exp2(Double(j) / 128)) }
        powers = UnsafePointer(table)
    }

    /// e^x.
    @inlinable @inline(__always)
    public func exp(_ x: Double) -> Double {
        guard abs(x) < 700 else {
            #if canImport(Glibc)
            return Glibc.exp(x)
            #else
            return Foundation.exp(x)
            #endif
        }
        // Adding and removing 1.5 · 2^52 rounds to the nearest integer without a call; in between,
        // the low 32 bits of the sum are that integer (|k| < 2^31 here), read without a checked
        // conversion.
        let shifted = x * 0x1.71547652b82fep+7 + 0x1.8p52
        let kd = shifted - 0x1.8p52
        let k = Int(Int32(truncatingIfNeeded: shifted.bitPattern))
        let r = (x - kd * 0x1.62e42fee00000p-8) - kd * 0x1.a39ef35793c76p-40
        // r + r²/2 + r³/6 + r⁴/24 + r⁵/120 in Estrin's order: a shorter chain of dependent steps
        // than Horner's, which matters because a draw's result is usually needed at once.
        let r2 = r * r
        let p = r + r2 * (1.0 / 2 + r * (1.0 / 6)) + (r2 * r2) * (1.0 / 24 + r * (1.0 / 120))
        let t = powers[k & 127]
        let scale = Double(bitPattern: UInt64(truncatingIfNeeded: (k >> 7) + 1023) << 52)
        return (t + t * p) * scale
    }
}
