#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// One horizontal layer of a ziggurat (see ``Ziggurat``).
@usableFromInline
struct ZigguratLayer: Sendable {
    /// A 53-bit draw `j` below this lands inside the curve for sure: `j · width < x[i+1]`.
    @usableFromInline let threshold: UInt64
    /// The layer's width `x[i]` divided by 2^53, so `x = j · width` for a 53-bit integer `j`.
    @usableFromInline let width: Double
    /// The density (unnormalised) at the layer's outer edge, f(x[i]): the bottom of the layer.
    @usableFromInline let bottom: Double
    /// The density at the inner edge, f(x[i+1]): the top of the layer.
    @usableFromInline let top: Double
}

/// The ziggurat method of Marsaglia & Tsang ("The ziggurat method for generating random
/// variables", Journal of Statistical Software 5(8), 2000) for a decreasing density f on [0, ∞),
/// with the layer index and the abscissa taken from disjoint bits of one 64-bit output, as
/// Doornik recommends ("An improved ziggurat method to generate normal random samples", 2005).
///
/// The area under f is cut into 256 layers of equal area v: layer 0 is the rectangle
/// [0, r] × [0, f(r)] together with the tail beyond r; layer i ≥ 1 is the rectangle
/// [0, x[i]] × [f(x[i]), f(x[i+1])], with x[1] = r, x[i+1] = f⁻¹(f(x[i]) + v / x[i]) and
/// x[256] = 0. r is the root that makes the layers close exactly at the mode, found by bisection
/// when the table is built (3.6541528853610… for the normal, 7.6971174701310… for the
/// exponential, as published).
///
/// A draw picks a layer uniformly (8 bits) and a point `x` uniformly across its width (53 other
/// bits). Inside the part of the layer that lies under the curve for every height (`x < x[i+1]`),
/// `x` is returned at once — about 99% of draws for the normal, 98.9% for the exponential. In
/// layer 0 a point beyond r means a draw from the tail; elsewhere a uniform height in the layer
/// decides whether (x, height) is under the curve ("wedge"), and a point above it starts again.
/// Every accepted point is uniform under the curve, so `x` has density ∝ f exactly.
///
/// A `Ziggurat` value is a pointer to a table built once and kept for the life of the process, so
/// copying it costs nothing: the samplers that draw through it (`ExponentialDistribution`,
/// `LogNormalDistribution`, …) keep a copy, and a loop that reads them needs no lookup per draw.
public struct Ziggurat: @unchecked Sendable, Equatable {
    static let layerCount = 256

    /// `layerCount` layers, never freed nor written after the table is built.
    @usableFromInline let layers: UnsafePointer<ZigguratLayer>
    /// Where the tail starts.
    @usableFromInline let r: Double

    /// Builds the table of density `f` with inverse `inverse` and tail area `tail(r) = ∫_r^∞ f`.
    init(density f: (Double) -> Double, inverse: (Double) -> Double, tail: (Double) -> Double,
         bracket: ClosedRange<Double>) {
        // The edges x[1...255] for a candidate r, or nil when the layers reach the mode too early
        // (r too small); `overshoot` is how far the last layer's top lies above f(0) = 1.
        func edges(_ r: Double) -> (x: [Double], v: Double, overshoot: Double)? {
            let v = r * f(r) + tail(r)
            var x = [v / f(r), r]
            for _ in 2..<Ziggurat.layerCount {
                let next = f(x[x.count - 1]) + v / x[x.count - 1]
                if next >= 1 { return nil }
                x.append(inverse(next))
            }
            return (x, v, f(x[x.count - 1]) + v / x[x.count - 1] - 1)
        }
        var low = bracket.lowerBound, high = bracket.upperBound
        for _ in 0..<200 {
            let middle = 0.5 * (low + high)
            if middle == low || middle == high { break }
            if let e = edges(middle), e.overshoot <= 0 { high = middle } else { low = middle }
        }
        guard let (x, _, _) = edges(high) else { preconditionFailure("Ziggurat: no root in the bracket") }
        let edge = x + [0]
        var layers: [ZigguratLayer] = []
        for i in 0..<Ziggurat.layerCount {
            layers.append(ZigguratLayer(
                threshold: UInt64((edge[i + 1] / edge[i] * 0x1.0p53).rounded(.down)),
                width: edge[i] * 0x1.0p-53,
                bottom: i == 0 ? 0 : f(edge[i]),
                top: f(edge[i + 1])))
        }
        let storage = UnsafeMutablePointer<ZigguratLayer>.allocate(capacity: Ziggurat.layerCount)
        storage.initialize(from: layers, count: Ziggurat.layerCount)
        self.layers = UnsafePointer(storage)
        r = high
    }

    /// The standard normal's table: f(x) = exp(−x²/2), tail √(π/2) · erfc(r/√2).
    public static let normal = Ziggurat(
        density: { exp(-0.5 * $0 * $0) }, inverse: { (-2 * log($0)).squareRoot() },
        tail: { (Double.pi / 2).squareRoot() * erfc($0 / 2.0.squareRoot()) }, bracket: 2...6)

    /// The standard exponential's table: f(x) = exp(−x), tail exp(−r).
    public static let exponential = Ziggurat(
        density: { exp(-$0) }, inverse: { -log($0) }, tail: { exp(-$0) }, bracket: 4...12)
}

extension RandomNumberGenerator {
    /// A standard normal draw by the ziggurat (see `Ziggurat`): one generator output and no
    /// transcendental function about 99% of the time.
    ///
    /// Bits 0–7 of the output pick the layer, bit 8 the sign, bits 11–63 the abscissa. The wedge
    /// test draws one more output for the height; the tail beyond r = 3.654 uses Marsaglia's
    /// method (1964): `a = −ln(U₁)/r`, `b = −ln(U₂)` until `2b > a²`, giving `r + a`.
    @inlinable
    public mutating func nextStandardNormal() -> Double {
        nextStandardNormal(using: .normal)
    }

    /// `nextStandardNormal()` through a table the caller keeps: `table` must be `Ziggurat.normal`.
    @inlinable @inline(__always)
    public mutating func nextStandardNormal(using table: Ziggurat) -> Double {
        while true {
            let bits = next()
            let layer = table.layers[Int(truncatingIfNeeded: bits & 0xFF)]
            let j = bits &>> 11
            // The sign is bit 8 of the output, moved to bit 63: a branch on a coin flip would be
            // mispredicted half the time.
            let sign = (bits & 0x100) &<< 55
            if j < layer.threshold {
                let x = Double(Int64(truncatingIfNeeded: j)) * layer.width
                return Double(bitPattern: x.bitPattern ^ sign)
            }
            let (x, after) = Self.normalSlowPath(bits: bits, table: table, generator: self)
            self = after
            if let x { return Double(bitPattern: x.bitPattern ^ sign) }
        }
    }

    /// The rare part of a normal draw: the tail (layer 0) or the wedge test; nil to start again.
    /// Inlinable so that it is specialised for the caller's generator, but never inlined, so that
    /// the fast path stays small. It takes the generator by value and returns it: were it passed
    /// `inout`, its address would escape into the call and the caller would keep the generator's
    /// state in memory on the fast path too, instead of in registers.
    @inlinable @inline(never)
    internal static func normalSlowPath(bits: UInt64, table: Ziggurat, generator: Self) -> (Double?, Self) {
        var g = generator
        let index = Int(truncatingIfNeeded: bits & 0xFF)
        if index == 0 {
            while true {
                let a = -log(g.nextOpenUnit()) / table.r
                let b = -log(g.nextOpenUnit())
                if 2 * b > a * a { return (table.r + a, g) }
            }
        }
        let layer = table.layers[index]
        let x = Double(Int64(truncatingIfNeeded: bits &>> 11)) * layer.width
        let height = layer.bottom + g.nextUnit() * (layer.top - layer.bottom)
        return (height < exp(-0.5 * x * x) ? x : nil, g)
    }

    /// A standard exponential draw (mean 1) by the ziggurat (see `Ziggurat`): one generator output
    /// and no transcendental function about 99% of the time.
    ///
    /// Bits 0–7 of the output pick the layer, bits 11–63 the abscissa; the wedge test draws one
    /// more output for the height. Beyond r = 7.697 the exponential is memoryless, so a draw from
    /// the tail is r plus a fresh draw.
    @inlinable
    public mutating func nextStandardExponential() -> Double {
        nextStandardExponential(using: .exponential)
    }

    /// `nextStandardExponential()` through a table the caller keeps: `table` must be
    /// `Ziggurat.exponential`.
    @inlinable @inline(__always)
    public mutating func nextStandardExponential(using table: Ziggurat) -> Double {
        var shift = 0.0
        while true {
            let bits = next()
            let layer = table.layers[Int(truncatingIfNeeded: bits & 0xFF)]
            let j = bits &>> 11
            if j < layer.threshold {
                return shift + Double(Int64(truncatingIfNeeded: j)) * layer.width
            }
            if bits & 0xFF == 0 {
                shift += table.r
            } else {
                let (x, after) = Self.exponentialWedge(bits: bits, table: table, generator: self)
                self = after
                if let x { return shift + x }
            }
        }
    }

    /// The wedge test of an exponential draw outside layer 0; nil to start again (specialised for
    /// the caller's generator, never inlined, the generator passed by value as in `normalSlowPath`).
    @inlinable @inline(never)
    internal static func exponentialWedge(bits: UInt64, table: Ziggurat, generator: Self) -> (Double?, Self) {
        var g = generator
        let layer = table.layers[Int(truncatingIfNeeded: bits & 0xFF)]
        let x = Double(Int64(truncatingIfNeeded: bits &>> 11)) * layer.width
        let height = layer.bottom + g.nextUnit() * (layer.top - layer.bottom)
        return (height < exp(-x) ? x : nil, g)
    }
}
