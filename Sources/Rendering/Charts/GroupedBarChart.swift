/// One bar of a `GroupedBarChart`, with an optional interval around it.
public struct BarValue: Sendable {
    public var value: Double
    public var low: Double?
    public var high: Double?

    public init(_ value: Double, low: Double? = nil, high: Double? = nil) {
        (self.value, self.low, self.high) = (value, low, high)
    }
}

/// One series of a `GroupedBarChart`: a value per group, nil where it has none.
public struct BarSeries: Sendable {
    public var name: String
    public var values: [BarValue?]
    /// Drawn grey with a dashed outline, for a holdout or other baseline; it takes no palette colour.
    public var isReference: Bool

    public init(name: String, values: [BarValue?], isReference: Bool = false) {
        (self.name, self.values, self.isReference) = (name, values, isReference)
    }
}

/// Groups along the x axis with one bar per series in each, e.g. trigger rate per period and configuration.
public struct GroupedBarChart: Sendable {
    public var title: String
    public var groupAxisTitle: String
    public var valueAxisTitle: String
    public var valueFormat: ValueFormat
    public var groups: [String]
    public var series: [BarSeries]
    /// Legend text for the whiskers.
    public var intervalLabel: String
    public var width: Double
    public var height: Double

    public init(title: String, groupAxisTitle: String, valueAxisTitle: String, valueFormat: ValueFormat = .percent,
                groups: [String], series: [BarSeries], intervalLabel: String = "95% interval",
                width: Double = 760, height: Double = 400) {
        (self.title, self.groupAxisTitle, self.valueAxisTitle) = (title, groupAxisTitle, valueAxisTitle)
        (self.valueFormat, self.groups, self.series) = (valueFormat, groups, series)
        (self.intervalLabel, self.width, self.height) = (intervalLabel, width, height)
    }

    public func svg() -> String {
        var colourIndex = 0
        let looks = series.map { series -> (fill: String, stroke: String?, dash: String?) in
            if series.isReference { return (ChartPalette.referenceFill, ChartPalette.reference, "3 2") }
            defer { colourIndex += 1 }
            return (ChartPalette.color(colourIndex), nil, nil)
        }
        let values = series.map { series in groups.indices.map { $0 < series.values.count ? series.values[$0] : nil } }
        let hasWhiskers = values.joined().contains { $0?.low != nil || $0?.high != nil }
        var legend = zip(series, looks).map { LegendEntry(label: $0.name, swatch: .box(fill: $1.fill, stroke: $1.stroke, dash: $1.dash)) }
        if hasWhiskers { legend.append(LegendEntry(label: intervalLabel, swatch: .whisker)) }
        if legend.count < 2 { legend = [] }

        var canvas = SVGCanvas(width: width, height: height)
        let top = ChartFrame.drawHeader(&canvas, title: title, legend: legend)
        let numbers = values.joined().compactMap { $0 }.flatMap { [$0.value, $0.low ?? .nan, $0.high ?? .nan] }
        let frame = VerticalBarFrame(&canvas, top: top, categories: groups, range: ChartFrame.extent(numbers, includingZero: true),
                                     format: valueFormat, valueTitle: valueAxisTitle, categoryTitle: groupAxisTitle)
        let plot = frame.plot
        if numbers.allSatisfy({ !$0.isFinite }) { ChartFrame.drawNoData(&canvas, plot: plot) }

        let barWidth = frame.slot * 0.8 / Double(max(1, series.count))
        // A hairline gap separates neighbours only where bars are wide enough to spare it.
        let gap = barWidth > 6 ? 1.0 : 0
        let y = { frame.scale.position($0, from: plot.bottom, to: plot.top) }
        for (seriesIndex, row) in values.enumerated() {
            canvas.beginGroup(title: series[seriesIndex].name)
            defer { canvas.endGroup() }
            for (group, bar) in row.enumerated() {
                guard let bar, bar.value.isFinite else { continue }
                let x = plot.left + frame.slot * (Double(group) + 0.1) + barWidth * Double(seriesIndex)
                let look = looks[seriesIndex]
                canvas.rect(x: x + gap / 2, y: y(0), width: max(0.5, barWidth - gap), height: y(bar.value) - y(0),
                            fill: look.fill, stroke: look.stroke, dash: look.dash)
            }
        }
        // Whiskers go on top of every bar so a neighbour cannot hide them.
        for (seriesIndex, row) in values.enumerated() {
            for (group, bar) in row.enumerated() {
                guard let bar, bar.value.isFinite,
                      case let (low, high)? = IntervalBarChart.interval(value: bar.value, low: bar.low, high: bar.high) else { continue }
                let center = plot.left + frame.slot * (Double(group) + 0.1) + barWidth * (Double(seriesIndex) + 0.5)
                VerticalBarFrame.drawWhisker(&canvas, x: center, low: y(low), high: y(high), cap: min(5, max(1.5, barWidth * 0.3)))
            }
        }
        frame.drawZeroLine(&canvas)
        return canvas.document(title: title)
    }
}
