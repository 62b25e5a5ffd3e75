/// One bar of an `IntervalBarChart`: a value with an optional interval (e.g. 95%) around it.
public struct IntervalBar: Sendable {
    public var label: String
    /// A non-finite value draws no bar; its label still appears.
    public var value: Double
    public var low: Double?
    public var high: Double?

    public init(label: String, value: Double, low: Double? = nil, high: Double? = nil) {
        (self.label, self.value, self.low, self.high) = (label, value, low, high)
    }
}

/// A labelled dashed line across the plot, such as the holdout's value.
public struct ReferenceLine: Sendable {
    public var label: String
    public var value: Double

    public init(label: String, value: Double) {
        (self.label, self.value) = (label, value)
    }
}

/// One bar per category with interval whiskers, e.g. trigger rate or lift per configuration.
public struct IntervalBarChart: Sendable {
    /// Which way the bars grow.
    public enum Orientation: Sendable {
        /// Categories down the left: best for many or long labels.
        case horizontal
        case vertical
    }

    public var title: String
    public var categoryAxisTitle: String
    public var valueAxisTitle: String
    public var valueFormat: ValueFormat
    public var orientation: Orientation
    public var bars: [IntervalBar]
    public var reference: ReferenceLine?
    /// Legend text for the whiskers.
    public var intervalLabel: String
    public var width: Double
    /// A starting height; horizontal charts grow to give each category at least 18 px.
    public var height: Double

    public init(title: String, categoryAxisTitle: String, valueAxisTitle: String, valueFormat: ValueFormat = .percent,
                orientation: Orientation = .horizontal, bars: [IntervalBar], reference: ReferenceLine? = nil,
                intervalLabel: String = "95% interval", width: Double = 760, height: Double = 400) {
        (self.title, self.categoryAxisTitle, self.valueAxisTitle) = (title, categoryAxisTitle, valueAxisTitle)
        (self.valueFormat, self.orientation, self.bars) = (valueFormat, orientation, bars)
        (self.reference, self.intervalLabel, self.width) = (reference, intervalLabel, width)
        self.height = height
    }

    static let barColor = ChartPalette.color(0)

    public func svg() -> String {
        var legend: [LegendEntry] = []
        if bars.contains(where: { $0.low != nil || $0.high != nil }) {
            legend.append(LegendEntry(label: intervalLabel, swatch: .whisker))
        }
        if let reference {
            legend.append(LegendEntry(label: reference.label,
                                      swatch: .line(color: ChartPalette.reference, dash: ChartPalette.referenceDash, marker: false)))
        }
        var canvas = SVGCanvas(width: width, height: height)
        let top = ChartFrame.drawHeader(&canvas, title: title, legend: legend)
        // Bars grow from zero, so zero and every whisker end must be on the axis.
        let values = bars.flatMap { [$0.value, $0.low ?? .nan, $0.high ?? .nan] } + [reference?.value ?? .nan]
        let range = ChartFrame.extent(values, includingZero: true)
        switch orientation {
        case .horizontal: drawHorizontal(&canvas, top: top, range: range)
        case .vertical: drawVertical(&canvas, top: top, range: range)
        }
        return canvas.document(title: title)
    }

    private func drawHorizontal(_ canvas: inout SVGCanvas, top: Double, range: (lower: Double, upper: Double)) {
        let size = ChartFrame.labelSize
        let labels = bars.map { TextMetrics.clip($0.label, maxWidth: 240, size: size) }
        let widest = labels.map { TextMetrics.width($0, size: size) }.max() ?? 0
        let rows = Double(max(1, bars.count))
        var bottom = ChartFrame.plotBottom(&canvas, top: top, gutter: ChartFrame.bottomGutter)
        if bottom - top < rows * 18 {
            bottom = top + rows * 18
            canvas.height = bottom + ChartFrame.bottomGutter
        }
        let titleRoom = categoryAxisTitle.isEmpty ? 0.0 : 20.0
        let plot = PlotRect(left: ChartFrame.margin + titleRoom + widest + 10, top: top,
                            right: width - ChartFrame.rightGutter, bottom: bottom)
        let scale = ChartFrame.horizontalScale(lower: range.lower, upper: range.upper, length: plot.width, format: valueFormat)
        ChartFrame.drawBottomValueAxis(&canvas, plot: plot, scale: scale, format: valueFormat, title: valueAxisTitle)
        ChartFrame.drawRotatedTitle(&canvas, categoryAxisTitle, plot: plot)
        if bars.isEmpty { ChartFrame.drawNoData(&canvas, plot: plot) }

        let row = plot.height / rows
        let thickness = min(26, row * 0.62)
        let x = { scale.position($0, from: plot.left, to: plot.right) }
        for (index, bar) in bars.enumerated() {
            let center = plot.top + row * (Double(index) + 0.5)
            canvas.beginGroup(title: bar.label)
            defer { canvas.endGroup() }
            canvas.text(labels[index], x: plot.left - 10, y: center + 4, size: size, anchor: .end, fill: ChartFrame.mutedText)
            if bar.value.isFinite {
                canvas.rect(x: x(0), y: center - thickness / 2, width: x(bar.value) - x(0), height: thickness, fill: Self.barColor)
            }
            if case let (low, high)? = Self.interval(bar) {
                let cap = min(6, max(2, thickness * 0.35))
                canvas.line(x1: x(low), y1: center, x2: x(high), y2: center, stroke: ChartFrame.whiskerColor, width: 1.5)
                for end in [low, high] {
                    canvas.line(x1: x(end), y1: center - cap, x2: x(end), y2: center + cap, stroke: ChartFrame.whiskerColor, width: 1.5)
                }
            }
        }
        canvas.line(x1: x(0), y1: plot.top, x2: x(0), y2: plot.bottom, stroke: ChartFrame.axisColor)
        if let reference, reference.value.isFinite {
            canvas.line(x1: x(reference.value), y1: plot.top, x2: x(reference.value), y2: plot.bottom,
                        stroke: ChartPalette.reference, width: 2, dash: ChartPalette.referenceDash)
        }
    }

    private func drawVertical(_ canvas: inout SVGCanvas, top: Double, range: (lower: Double, upper: Double)) {
        let frame = VerticalBarFrame(&canvas, top: top, categories: bars.map(\.label), range: range,
                                     format: valueFormat, valueTitle: valueAxisTitle, categoryTitle: categoryAxisTitle)
        let plot = frame.plot
        if bars.isEmpty { ChartFrame.drawNoData(&canvas, plot: plot) }
        let thickness = min(48, frame.slot * 0.62)
        let y = { frame.scale.position($0, from: plot.bottom, to: plot.top) }
        for (index, bar) in bars.enumerated() {
            let center = plot.left + frame.slot * (Double(index) + 0.5)
            canvas.beginGroup(title: bar.label)
            defer { canvas.endGroup() }
            if bar.value.isFinite {
                canvas.rect(x: center - thickness / 2, y: y(0), width: thickness, height: y(bar.value) - y(0), fill: Self.barColor)
            }
            if case let (low, high)? = Self.interval(bar) {
                VerticalBarFrame.drawWhisker(&canvas, x: center, low: y(low), high: y(high), cap: min(6, max(2, thickness * 0.35)))
            }
        }
        frame.drawZeroLine(&canvas)
        if let reference, reference.value.isFinite {
            canvas.line(x1: plot.left, y1: y(reference.value), x2: plot.right, y2: y(reference.value),
                        stroke: ChartPalette.reference, width: 2, dash: ChartPalette.referenceDash)
        }
    }

    /// The finite interval ends; a one-sided interval reaches to the value.
    static func interval(_ bar: IntervalBar) -> (Double, Double)? {
        interval(value: bar.value, low: bar.low, high: bar.high)
    }

    static func interval(value: Double, low: Double?, high: Double?) -> (Double, Double)? {
        guard low != nil || high != nil else { return nil }
        let lo = low ?? value
        let hi = high ?? value
        guard lo.isFinite, hi.isFinite else { return nil }
        return (min(lo, hi), max(lo, hi))
    }
}

/// The value axis, category labels and titles shared by the vertical bar charts.
struct VerticalBarFrame {
    let plot: PlotRect
    let scale: TickScale
    let slot: Double

    init(_ canvas: inout SVGCanvas, top: Double, categories: [String], range: (lower: Double, upper: Double),
         format: ValueFormat, valueTitle: String, categoryTitle: String) {
        let bottom = ChartFrame.plotBottom(&canvas, top: top, gutter: ChartFrame.bottomGutter)
        scale = TickScale.nice(lower: range.lower, upper: range.upper,
                               maxIntervals: ChartFrame.intervals(forLength: bottom - top))
        let left = ChartFrame.leftEdge(tickLabels: scale.labels(format: format))
        let right = canvas.width - ChartFrame.rightGutter
        slot = (right - left) / Double(max(1, categories.count))
        let axis = CategoryAxis(labels: categories, left: left, slot: slot)
        // Slanted labels make the chart taller rather than the plot shorter.
        canvas.height += axis.height - 18
        plot = PlotRect(left: left, top: top, right: right, bottom: bottom)
        ChartFrame.drawLeftValueAxis(&canvas, plot: plot, scale: scale, format: format, title: valueTitle)
        axis.draw(&canvas, plot: plot, slot: slot)
        ChartFrame.drawBottomTitle(&canvas, categoryTitle, plot: plot, y: bottom + axis.height + 22)
    }

    func drawZeroLine(_ canvas: inout SVGCanvas) {
        let y = scale.position(0, from: plot.bottom, to: plot.top)
        canvas.line(x1: plot.left, y1: y, x2: plot.right, y2: y, stroke: ChartFrame.axisColor)
    }

    static func drawWhisker(_ canvas: inout SVGCanvas, x: Double, low: Double, high: Double, cap: Double) {
        canvas.line(x1: x, y1: low, x2: x, y2: high, stroke: ChartFrame.whiskerColor, width: 1.5)
        for end in [low, high] {
            canvas.line(x1: x - cap, y1: end, x2: x + cap, y2: end, stroke: ChartFrame.whiskerColor, width: 1.5)
        }
    }
}
