/// One line of a `LineChart`.
public struct LineSeries: Sendable {
    /// How the line is stroked.
    public enum Style: Sendable {
        case solid
        case dashed
        /// Grey and dashed, for a holdout or other baseline; it takes no palette colour.
        case reference
    }

    public var name: String
    public var points: [ChartPoint]
    public var style: Style
    public var marker: Bool
    /// An interval around the line at each x (shaded); empty for none.
    public var band: [(x: Double, low: Double, high: Double)]

    public init(name: String, points: [(x: Double, y: Double)], style: Style = .solid, marker: Bool = false,
                band: [(x: Double, low: Double, high: Double)] = []) {
        self.name = name
        self.points = points.map { ChartPoint(x: $0.x, y: $0.y) }
        (self.style, self.marker) = (style, marker)
        self.band = band.filter { $0.x.isFinite && $0.low.isFinite && $0.high.isFinite }
    }
}

/// A data point; points with a non-finite coordinate are skipped and break the line.
public struct ChartPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        (self.x, self.y) = (x, y)
    }
}

/// Lines over a numeric x axis, e.g. daily active users per day or a retention curve.
public struct LineChart: Sendable {
    public var title: String
    public var xAxisTitle: String
    public var yAxisTitle: String
    public var xFormat: ValueFormat
    public var yFormat: ValueFormat
    public var series: [LineSeries]
    /// Counts and rates read wrongly when the axis starts above zero.
    public var yIncludesZero: Bool
    public var width: Double
    public var height: Double
    /// Ticks on the x axis at multiples of this whole number (6 for the hours of a day) instead of 1-2-5 steps.
    public var xTickMultiple: Int?

    public init(title: String, xAxisTitle: String, yAxisTitle: String, xFormat: ValueFormat = .number,
                yFormat: ValueFormat = .number, series: [LineSeries], yIncludesZero: Bool = true,
                width: Double = 760, height: Double = 400) {
        (self.title, self.xAxisTitle, self.yAxisTitle, self.xFormat) = (title, xAxisTitle, yAxisTitle, xFormat)
        (self.yFormat, self.series, self.yIncludesZero, self.width) = (yFormat, series, yIncludesZero, width)
        self.height = height
    }

    public func svg() -> String {
        var colourIndex = 0
        let looks = series.map { series -> (color: String, dash: String?) in
            if series.style == .reference { return (ChartPalette.reference, ChartPalette.referenceDash) }
            defer { colourIndex += 1 }
            let dash = series.style == .dashed ? "7 4" : ChartPalette.dash(forSeries: colourIndex)
            return (ChartPalette.color(colourIndex), dash)
        }
        let legend = series.count > 1
            ? zip(series, looks).map {
                LegendEntry(label: $0.name, swatch: $0.band.isEmpty ? .line(color: $1.color, dash: $1.dash, marker: $0.marker)
                                                                    : .band(color: $1.color, dash: $1.dash))
            }
            : []

        var canvas = SVGCanvas(width: width, height: height)
        let top = ChartFrame.drawHeader(&canvas, title: title, legend: legend)
        let bottom = ChartFrame.plotBottom(&canvas, top: top, gutter: ChartFrame.bottomGutter)

        let points = series.map { $0.points.filter { $0.x.isFinite && $0.y.isFinite } }
        let bands = series.flatMap { $0.band.flatMap { [ChartPoint(x: $0.x, y: $0.low), ChartPoint(x: $0.x, y: $0.high)] } }
        let all = Array(points.joined()) + bands
        let yRange = ChartFrame.extent(all.map(\.y), includingZero: yIncludesZero)
        let yScale = TickScale.nice(lower: yRange.lower, upper: yRange.upper,
                                    maxIntervals: ChartFrame.intervals(forLength: bottom - top))
        let left = ChartFrame.leftEdge(tickLabels: yScale.labels(format: yFormat))
        let plot = PlotRect(left: left, top: top, right: width - ChartFrame.rightGutter, bottom: bottom)
        let xRange = ChartFrame.extent(all.map(\.x), includingZero: false)
        let xScale = xTickMultiple.map { TickScale.multiples(of: $0, lower: xRange.lower, upper: xRange.upper) }
            ?? ChartFrame.horizontalScale(lower: xRange.lower, upper: xRange.upper, length: plot.width, format: xFormat)

        ChartFrame.drawLeftValueAxis(&canvas, plot: plot, scale: yScale, format: yFormat, title: yAxisTitle)
        ChartFrame.drawBottomValueAxis(&canvas, plot: plot, scale: xScale, format: xFormat, title: xAxisTitle)
        canvas.line(x1: plot.left, y1: plot.bottom, x2: plot.right, y2: plot.bottom, stroke: ChartFrame.axisColor)
        canvas.line(x1: plot.left, y1: plot.top, x2: plot.left, y2: plot.bottom, stroke: ChartFrame.axisColor)
        if all.isEmpty { ChartFrame.drawNoData(&canvas, plot: plot) }

        // Bands first, under every line.
        for index in series.indices where !series[index].band.isEmpty {
            let band = series[index].band
            let upper = band.map { (xScale.position($0.x, from: plot.left, to: plot.right), yScale.position($0.high, from: plot.bottom, to: plot.top)) }
            let lower = band.reversed().map { (xScale.position($0.x, from: plot.left, to: plot.right), yScale.position($0.low, from: plot.bottom, to: plot.top)) }
            canvas.polygon((upper + lower).map { (x: $0.0, y: $0.1) }, fill: looks[index].color, opacity: 0.1)
        }
        if yScale.lower < 0 && yScale.upper > 0 {
            let y0 = yScale.position(0, from: plot.bottom, to: plot.top)
            canvas.line(x1: plot.left, y1: y0, x2: plot.right, y2: y0, stroke: ChartFrame.axisColor, width: 1)
        }
        // Baselines go underneath so the configurations being compared stay on top.
        let order = series.indices.filter { series[$0].style == .reference } + series.indices.filter { series[$0].style != .reference }
        for index in order {
            let look = looks[index]
            canvas.beginGroup(title: series[index].name)
            defer { canvas.endGroup() }
            var segments: [[(x: Double, y: Double)]] = [[]]
            for point in series[index].points {
                guard point.x.isFinite, point.y.isFinite else {
                    if !(segments.last?.isEmpty ?? true) { segments.append([]) }
                    continue
                }
                segments[segments.count - 1].append((xScale.position(point.x, from: plot.left, to: plot.right),
                                                     yScale.position(point.y, from: plot.bottom, to: plot.top)))
            }
            for segment in segments where !segment.isEmpty {
                if segment.count > 1 {
                    canvas.polyline(segment, stroke: look.color, width: 2, dash: look.dash)
                }
                // A lone point has no line to show it, so it always gets a marker.
                if series[index].marker || segment.count == 1 {
                    for point in segment { canvas.circle(cx: point.x, cy: point.y, r: 3, fill: look.color) }
                }
            }
        }
        return canvas.document(title: title)
    }
}
