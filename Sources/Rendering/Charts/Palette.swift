/// The Okabe–Ito colours in a fixed order, distinguishable under the common colour-vision deficiencies.
public enum ChartPalette {
    /// Yellow comes late because it is faint on white.
    public static let colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"]
    /// Holdout or reference series: grey and dashed, so they read as a baseline rather than a contender.
    public static let reference = "#7F7F7F"
    static let referenceDash = "6 4"
    static let referenceFill = "#D0D0D0"

    public static func color(_ index: Int) -> String {
        colors[((index % colors.count) + colors.count) % colors.count]
    }

    /// Dash patterns for successive cycles of the colours: solid first.
    static let dashes: [String?] = [nil, "2 3", "8 3", "8 3 2 3", "1 4", "12 4", "4 2 1 2 1 2"]

    /// Past one cycle of colours, a dash pattern keeps repeated colours apart: series i gets colour
    /// i mod 8 and the dash of cycle i div 8, so no two of the first 56 series look alike, and
    /// later ones vary the dash's rhythm so the pair stays unique.
    static func dash(forSeries index: Int) -> String? {
        let cycle = max(0, index) / colors.count
        if cycle < dashes.count { return dashes[cycle] }
        return "\(cycle) 2"
    }
}
