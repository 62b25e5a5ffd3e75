/// One point of a `ScatterChart`, with optional intervals both ways.
public struct ScatterPoint: Sendable {
    public var label: String
    public var x: Double
    public var y: Double
    public var xInterval: (low: Double, high: Double)?
    public var yInterval: (low: Double, high: Double)?
    /// Drawn larger and named in bold: the recommendation.
    public var highlighted: Bool
    /// The number the chart writes beside the point and in the legend, such as its rank in a table
    /// beside the chart; nil: its place among the points, from 1.
    public var number: Int?

    public init(label: String, x: Double, y: Double, xInterval: (low: Double, high: Double)? = nil,
                yInterval: (low: Double, high: Double)? = nil, highlighted: Bool = false) {
        self.label = label
        self.x = x
        self.y = y
        self.xInterval = xInterval
        self.yInterval = yInterval
        self.highlighted = highlighted
    }
}

/// A limit drawn across the plot: vertical at an x value or horizontal at a y value.
public struct LimitLine: Sendable {
    public enum Axis: Sendable { case x, y }
    public var label: String
    public var axis: Axis
    public var value: Double

    public init(label: String, axis: Axis, value: Double) {
        self.label = label
        self.axis = axis
        self.value = value
    }
}

/// Many unnamed points drawn small and faint behind a chart's named points, under one legend entry,
/// with those on a front drawn darker and joined in order of x: a whole search space and its best
/// trade-offs. The points' intervals are not drawn; each front point is named by a tooltip.
public struct PointCloud: Sendable {
    public var label: String
    public var points: [ScatterPoint]
    /// Indices of `points` on the front.
    public var front: [Int]
    public var frontLabel: String

    public init(label: String, points: [ScatterPoint], front: [Int] = [], frontLabel: String = "Pareto front") {
        (self.label, self.points, self.front, self.frontLabel) = (label, points, front, frontLabel)
    }
}

/// Points with interval whiskers both ways, a front joining the best trade-offs, and limit lines:
/// a trade-off between a gain (y) and a cost (x). Points are numbered; the legend names every one.
/// A point cloud may stand behind them.
public struct ScatterChart: Sendable {
    public var title: String
    public var xAxisTitle: String
    public var yAxisTitle: String
    public var xFormat: ValueFormat
    public var yFormat: ValueFormat
    public var points: [ScatterPoint]
    /// Indices of `points` on the front, joined in order of x.
    public var front: [Int]
    public var frontLabel: String
    public var limits: [LimitLine]
    public var cloud: PointCloud?
    /// Whether the x axis reaches 0 even when no value is near it.
    public var xIncludesZero: Bool
    public var width: Double
    public var height: Double

    public init(title: String, xAxisTitle: String, yAxisTitle: String, xFormat: ValueFormat = .number,
                yFormat: ValueFormat = .number, points: [ScatterPoint], front: [Int] = [], frontLabel: String = "Pareto front",
                limits: [LimitLine] = [], cloud: PointCloud? = nil, xIncludesZero: Bool = true, width: Double = 760,
                height: Double = 460) {
        self.title = title
        self.xAxisTitle = xAxisTitle
        self.yAxisTitle = yAxisTitle
        self.xFormat = xFormat
        self.yFormat = yFormat
        self.points = points
        self.front = front
        self.frontLabel = frontLabel
        self.limits = limits
        self.cloud = cloud
        self.xIncludesZero = xIncludesZero
        self.width = width
        self.height = height
    }

    static let frontColor = "#555555"
    static let limitColor = "#D55E00"
    static let cloudColor = "#BDBDBD"
    static let cloudFrontColor = "#222222"

    /// Where values fall on the canvas.
    private struct Frame {
        let plot: PlotRect
        let xScale: TickScale
        let yScale: TickScale
        func px(_ v: Double) -> Double { xScale.position(v, from: plot.left, to: plot.right) }
        func py(_ v: Double) -> Double { yScale.position(v, from: plot.bottom, to: plot.top) }
    }

    private var legend: [LegendEntry] {
        var legend = points.enumerated().map { i, p in
            (number: p.number ?? i + 1,
             entry: LegendEntry(label: "\(p.number ?? i + 1): \(p.label)\(p.highlighted ? " (recommended)" : "")",
                                swatch: .line(color: ChartPalette.color(i), dash: ChartPalette.dash(forSeries: i), marker: true)))
        }.sorted { $0.number < $1.number }.map(\.entry)
        if let cloud {
            legend.append(LegendEntry(label: cloud.label, swatch: .dot(color: Self.cloudColor)))
            if !cloud.front.isEmpty {
                legend.append(LegendEntry(label: cloud.frontLabel, swatch: .line(color: Self.cloudFrontColor, dash: nil, marker: true)))
            }
        }
        if front.count > 1 { legend.append(LegendEntry(label: frontLabel, swatch: .line(color: Self.frontColor, dash: "5 3", marker: false))) }
        for l in limits {
            legend.append(LegendEntry(label: l.label, swatch: .line(color: Self.limitColor, dash: "2 2", marker: false)))
        }
        return legend
    }

    public func svg() -> String {
        var canvas = SVGCanvas(width: width, height: height)
        let top = ChartFrame.drawHeader(&canvas, title: title, legend: legend)
        let bottom = ChartFrame.plotBottom(&canvas, top: top, gutter: ChartFrame.bottomGutter)
        let finite = points.filter { $0.x.isFinite && $0.y.isFinite }
        // A cloud's intervals are not drawn, so they do not stretch the axes.
        let cloudPoints = (cloud?.points ?? []).filter { $0.x.isFinite && $0.y.isFinite }
        var xs = finite.flatMap { [$0.x, $0.xInterval?.low ?? $0.x, $0.xInterval?.high ?? $0.x] } + cloudPoints.map(\.x)
        var ys = finite.flatMap { [$0.y, $0.yInterval?.low ?? $0.y, $0.yInterval?.high ?? $0.y] } + cloudPoints.map(\.y)
        for l in limits { if l.axis == .x { xs.append(l.value) } else { ys.append(l.value) } }
        let yRange = ChartFrame.extent(ys, includingZero: true)
        let yScale = TickScale.nice(lower: yRange.lower, upper: yRange.upper, maxIntervals: ChartFrame.intervals(forLength: bottom - top))
        let left = ChartFrame.leftEdge(tickLabels: yScale.labels(format: yFormat))
        let plot = PlotRect(left: left, top: top, right: width - ChartFrame.rightGutter, bottom: bottom)
        let xRange = ChartFrame.extent(xs, includingZero: xIncludesZero)
        let xScale = ChartFrame.horizontalScale(lower: xRange.lower, upper: xRange.upper, length: plot.width, format: xFormat)
        ChartFrame.drawLeftValueAxis(&canvas, plot: plot, scale: yScale, format: yFormat, title: yAxisTitle)
        ChartFrame.drawBottomValueAxis(&canvas, plot: plot, scale: xScale, format: xFormat, title: xAxisTitle)
        canvas.line(x1: plot.left, y1: plot.bottom, x2: plot.right, y2: plot.bottom, stroke: ChartFrame.axisColor)
        canvas.line(x1: plot.left, y1: plot.top, x2: plot.left, y2: plot.bottom, stroke: ChartFrame.axisColor)
        if finite.isEmpty && cloudPoints.isEmpty { ChartFrame.drawNoData(&canvas, plot: plot) }
        let frame = Frame(plot: plot, xScale: xScale, yScale: yScale)
        drawLimits(&canvas, frame)
        if let cloud { Self.draw(cloud, &canvas, frame) }
        drawPoints(&canvas, frame)
        return canvas.document(title: title)
    }

    private func drawLimits(_ canvas: inout SVGCanvas, _ f: Frame) {
        for l in limits {
            canvas.beginGroup(title: l.label)
            if l.axis == .x {
                canvas.line(x1: f.px(l.value), y1: f.plot.top, x2: f.px(l.value), y2: f.plot.bottom, stroke: Self.limitColor, width: 1.5, dash: "2 2")
            } else {
                canvas.line(x1: f.plot.left, y1: f.py(l.value), x2: f.plot.right, y2: f.py(l.value), stroke: Self.limitColor, width: 1.5, dash: "2 2")
            }
            canvas.endGroup()
        }
    }

    /// The cloud's points, one marker per pixel (thousands of candidates often share a spot),
    /// then its front, joined and marked, each point named.
    private static func draw(_ cloud: PointCloud, _ canvas: inout SVGCanvas, _ f: Frame) {
        canvas.beginGroup(title: cloud.label)
        var drawn = Set<[Int]>()
        for p in cloud.points where p.x.isFinite && p.y.isFinite {
            let (x, y) = (f.px(p.x), f.py(p.y))
            guard drawn.insert([Int(x.rounded()), Int(y.rounded())]).inserted else { continue }
            canvas.circle(cx: x, cy: y, r: 2.5, fill: cloudColor, stroke: nil)
        }
        canvas.endGroup()
        let front = cloud.front.filter { cloud.points.indices.contains($0) && cloud.points[$0].x.isFinite && cloud.points[$0].y.isFinite }
            .sorted { (cloud.points[$0].x, $0) < (cloud.points[$1].x, $1) }
        guard !front.isEmpty else { return }
        canvas.beginGroup(title: cloud.frontLabel)
        canvas.polyline(front.map { (x: f.px(cloud.points[$0].x), y: f.py(cloud.points[$0].y)) }, stroke: cloudFrontColor, width: 2, dash: nil)
        for i in front {
            canvas.beginGroup(title: cloud.points[i].label)
            canvas.circle(cx: f.px(cloud.points[i].x), cy: f.py(cloud.points[i].y), r: 3.5, fill: cloudFrontColor)
            canvas.endGroup()
        }
        canvas.endGroup()
    }

    private func drawPoints(_ canvas: inout SVGCanvas, _ f: Frame) {
        let frontPoints = front.filter { points.indices.contains($0) && points[$0].x.isFinite && points[$0].y.isFinite }
            .sorted { points[$0].x < points[$1].x }
        if frontPoints.count > 1 {
            canvas.beginGroup(title: frontLabel)
            canvas.polyline(frontPoints.map { (x: f.px(points[$0].x), y: f.py(points[$0].y)) }, stroke: Self.frontColor, width: 1.5, dash: "5 3")
            canvas.endGroup()
        }
        for (i, p) in points.enumerated() where p.x.isFinite && p.y.isFinite {
            let color = ChartPalette.color(i)
            canvas.beginGroup(title: p.label)
            if let xi = p.xInterval, xi.low.isFinite, xi.high.isFinite {
                canvas.line(x1: f.px(xi.low), y1: f.py(p.y), x2: f.px(xi.high), y2: f.py(p.y), stroke: color, width: 1.5,
                            dash: ChartPalette.dash(forSeries: i))
            }
            if let yi = p.yInterval, yi.low.isFinite, yi.high.isFinite {
                canvas.line(x1: f.px(p.x), y1: f.py(yi.low), x2: f.px(p.x), y2: f.py(yi.high), stroke: color, width: 1.5,
                            dash: ChartPalette.dash(forSeries: i))
            }
            canvas.circle(cx: f.px(p.x), cy: f.py(p.y), r: p.highlighted ? 6 : 4, fill: color)
            canvas.text(String(p.number ?? i + 1), x: f.px(p.x) + 7, y: f.py(p.y) - 6, size: ChartFrame.labelSize, bold: p.highlighted,
                        fill: ChartFrame.textColor)
            canvas.endGroup()
        }
    }

    /// The points no other point beats on both counts (lower x and higher y), in order of x.
    public static func paretoFront(_ points: [(x: Double, y: Double)]) -> [Int] {
        let finite = points.indices.filter { points[$0].x.isFinite && points[$0].y.isFinite }
        let front = ParetoFront.nonDominated(finite.map { (a: -points[$0].x, b: points[$0].y) })
        return finite.indices.filter { front[$0] }.map { finite[$0] }.sorted { points[$0].x < points[$1].x }
    }
}
