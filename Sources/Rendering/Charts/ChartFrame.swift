/// An axis-aligned rectangle in SVG user units.
struct PlotRect {
    var left: Double
    var top: Double
    var right: Double
    var bottom: Double
    var width: Double { right - left }
    var height: Double { bottom - top }
    var midX: Double { (left + right) / 2 }
    var midY: Double { (top + bottom) / 2 }
}

/// One legend item: a small picture of how the series is drawn, and its name.
struct LegendEntry {
    enum Swatch {
        case line(color: String, dash: String?, marker: Bool)
        /// A line over a shaded interval band.
        case band(color: String, dash: String?)
        case box(fill: String, stroke: String?, dash: String?)
        case whisker
        /// A lone marker, for points drawn without a line.
        case dot(color: String)
    }

    let label: String
    let swatch: Swatch
}

/// Layout and drawing shared by all charts, so they look alike and keep text out of the data.
enum ChartFrame {
    static let margin = 16.0
    static let labelSize = 12.0
    static let axisTitleSize = 13.0
    static let titleSize = 16.0
    static let textColor = "#222222"
    static let mutedText = "#444444"
    static let gridColor = "#E3E3E3"
    static let axisColor = "#555555"
    static let whiskerColor = "#222222"
    /// Room under the plot for one row of tick labels and the axis title.
    static let bottomGutter = 52.0
    static let rightGutter = 28.0
    static let minimumPlotHeight = 160.0

    /// Draws the title and, above the plot where it can never cover data, the legend; returns where the plot may start.
    static func drawHeader(_ canvas: inout SVGCanvas, title: String, legend: [LegendEntry]) -> Double {
        canvas.text(TextMetrics.clip(title, maxWidth: canvas.width - 2 * margin, size: titleSize),
                    x: canvas.width / 2, y: 28, size: titleSize, anchor: .middle, bold: true, fill: textColor)
        guard !legend.isEmpty else { return 48 }
        let rowHeight = 20.0
        var x = margin
        var y = 52.0
        for entry in legend {
            // Full labels: a legend is where a reader learns which line is which.
            let label = TextMetrics.clip(entry.label, maxWidth: canvas.width - 2 * margin - 28, size: labelSize)
            let itemWidth = 28 + TextMetrics.width(label, size: labelSize)
            if x > margin, x + itemWidth > canvas.width - margin {
                x = margin
                y += rowHeight
            }
            drawSwatch(&canvas, entry.swatch, x: x, y: y)
            canvas.text(label, x: x + 28, y: y + 4, size: labelSize, fill: textColor)
            x += itemWidth + 18
        }
        return y + 26
    }

    private static func drawSwatch(_ canvas: inout SVGCanvas, _ swatch: LegendEntry.Swatch, x: Double, y: Double) {
        switch swatch {
        case let .line(color, dash, marker):
            canvas.line(x1: x, y1: y, x2: x + 22, y2: y, stroke: color, width: 2.5, dash: dash)
            if marker { canvas.circle(cx: x + 11, cy: y, r: 3, fill: color) }
        case let .band(color, dash):
            canvas.rect(x: x, y: y - 6, width: 22, height: 12, fill: color, opacity: 0.18)
            canvas.line(x1: x, y1: y, x2: x + 22, y2: y, stroke: color, width: 2.5, dash: dash)
        case let .box(fill, stroke, dash):
            canvas.rect(x: x + 4, y: y - 6, width: 14, height: 12, fill: fill, stroke: stroke, dash: dash)
        case .whisker:
            canvas.line(x1: x + 2, y1: y, x2: x + 20, y2: y, stroke: whiskerColor, width: 1.5)
            canvas.line(x1: x + 2, y1: y - 5, x2: x + 2, y2: y + 5, stroke: whiskerColor, width: 1.5)
            canvas.line(x1: x + 20, y1: y - 5, x2: x + 20, y2: y + 5, stroke: whiskerColor, width: 1.5)
        case let .dot(color):
            canvas.circle(cx: x + 11, cy: y, r: 3, fill: color, stroke: nil)
        }
    }

    /// Grows the canvas if needed so the plot between `top` and the bottom gutter is never squashed.
    static func plotBottom(_ canvas: inout SVGCanvas, top: Double, gutter: Double) -> Double {
        let bottom = canvas.height - gutter
        if bottom - top < minimumPlotHeight {
            canvas.height = top + minimumPlotHeight + gutter
            return top + minimumPlotHeight
        }
        return bottom
    }

    /// About one tick per 48 px keeps labels apart without leaving the axis bare.
    static func intervals(forLength length: Double) -> Int {
        max(2, min(8, Int(length / 48)))
    }

    /// Left edge of the plot for a vertical value axis: rotated title, then tick labels.
    static func leftEdge(tickLabels: [String]) -> Double {
        let widest = tickLabels.map { TextMetrics.width($0, size: labelSize) }.max() ?? 0
        return margin + 20 + min(widest, 160) + 8
    }

    /// Horizontal grid lines with value labels on the left and the rotated axis title.
    static func drawLeftValueAxis(_ canvas: inout SVGCanvas, plot: PlotRect, scale: TickScale,
                                  format: ValueFormat, title: String) {
        for value in scale.values {
            let y = scale.position(value, from: plot.bottom, to: plot.top)
            canvas.line(x1: plot.left, y1: y, x2: plot.right, y2: y, stroke: gridColor)
            canvas.text(TextMetrics.clip(scale.label(value, format: format), maxWidth: 160, size: labelSize),
                        x: plot.left - 8, y: y + 4, size: labelSize, anchor: .end, fill: mutedText)
        }
        drawRotatedTitle(&canvas, title, plot: plot)
    }

    static func drawRotatedTitle(_ canvas: inout SVGCanvas, _ title: String, plot: PlotRect) {
        guard !title.isEmpty else { return }
        canvas.text(TextMetrics.clip(title, maxWidth: plot.height, size: axisTitleSize),
                    x: margin + 6, y: plot.midY, size: axisTitleSize, anchor: .middle, fill: textColor, rotation: -90)
    }

    /// The scale with the most ticks whose labels still fit side by side along `length`.
    static func horizontalScale(lower: Double, upper: Double, length: Double, format: ValueFormat) -> TickScale {
        var intervals = max(1, min(12, Int(length / 56)))
        while true {
            let scale = TickScale.nice(lower: lower, upper: upper, maxIntervals: intervals)
            let widest = scale.labels(format: format).map { TextMetrics.width($0, size: labelSize) }.max() ?? 0
            let spacing = length / Double(max(1, scale.values.count - 1))
            if widest + 12 <= spacing || intervals == 1 { return scale }
            intervals -= 1
        }
    }

    /// Vertical grid lines with value labels below the plot and the axis title under them.
    static func drawBottomValueAxis(_ canvas: inout SVGCanvas, plot: PlotRect, scale: TickScale,
                                    format: ValueFormat, title: String) {
        for value in scale.values {
            let x = scale.position(value, from: plot.left, to: plot.right)
            canvas.line(x1: x, y1: plot.top, x2: x, y2: plot.bottom, stroke: gridColor)
            canvas.line(x1: x, y1: plot.bottom, x2: x, y2: plot.bottom + 4, stroke: axisColor)
            canvas.text(scale.label(value, format: format), x: x, y: plot.bottom + 18,
                        size: labelSize, anchor: .middle, fill: mutedText)
        }
        drawBottomTitle(&canvas, title, plot: plot, y: plot.bottom + 40)
    }

    static func drawBottomTitle(_ canvas: inout SVGCanvas, _ title: String, plot: PlotRect, y: Double) {
        guard !title.isEmpty else { return }
        canvas.text(TextMetrics.clip(title, maxWidth: canvas.width - 2 * margin, size: axisTitleSize),
                    x: plot.midX, y: y, size: axisTitleSize, anchor: .middle, fill: textColor)
    }

    static func drawNoData(_ canvas: inout SVGCanvas, plot: PlotRect) {
        canvas.text("No data", x: plot.midX, y: plot.midY, size: axisTitleSize, anchor: .middle, fill: axisColor)
    }

    /// The smallest and largest finite values, widened to include zero where bars grow from it.
    static func extent(_ values: [Double], includingZero: Bool) -> (lower: Double, upper: Double) {
        let finite = values.filter(\.isFinite)
        guard var lower = finite.min(), var upper = finite.max() else { return (0, 1) }
        if includingZero {
            lower = min(lower, 0)
            upper = max(upper, 0)
        }
        return (lower, upper)
    }
}

/// Category labels under a plot: horizontal when they fit their slot, otherwise slanted, clipped and thinned.
struct CategoryAxis {
    static let slant = -45.0
    static let maxSlantedWidth = 150.0

    let labels: [String]
    let slanted: Bool
    /// Only every `stride`-th label is drawn when even slanted labels would collide.
    let stride: Int
    /// Vertical room the labels need below the plot.
    let height: Double

    init(labels raw: [String], left: Double, slot: Double) {
        let size = ChartFrame.labelSize
        let widest = raw.map { TextMetrics.width($0, size: size) }.max() ?? 0
        if widest <= slot - 6 {
            labels = raw
            slanted = false
            stride = 1
            height = 18
        } else {
            // A slanted label reaches left of its tick, so the first ones get less room before the canvas edge.
            labels = raw.enumerated().map { index, label in
                let room = (left + slot * (Double(index) + 0.5) - 4) / 0.7071
                return TextMetrics.clip(label, maxWidth: min(Self.maxSlantedWidth, room), size: size)
            }
            slanted = true
            // Slanted at 45°, neighbours sit slot·sin45° apart across the text direction.
            stride = max(1, Int((15 / (max(slot, 0.1) * 0.7071)).rounded(.up)))
            let clippedWidest = labels.map { TextMetrics.width($0, size: size) }.max() ?? 0
            height = 14 + (clippedWidest + size) * 0.7071
        }
    }

    func draw(_ canvas: inout SVGCanvas, plot: PlotRect, slot: Double) {
        for (index, label) in labels.enumerated() where index % stride == 0 {
            let x = plot.left + slot * (Double(index) + 0.5)
            canvas.line(x1: x, y1: plot.bottom, x2: x, y2: plot.bottom + 4, stroke: ChartFrame.axisColor)
            if slanted {
                canvas.text(label, x: x + 4, y: plot.bottom + 14, size: ChartFrame.labelSize, anchor: .end,
                            fill: ChartFrame.mutedText, rotation: Self.slant)
            } else {
                canvas.text(label, x: x, y: plot.bottom + 18, size: ChartFrame.labelSize, anchor: .middle,
                            fill: ChartFrame.mutedText)
            }
        }
    }
}
