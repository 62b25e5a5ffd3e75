@testable import Rendering
import ReminderSimTestSupport
import XCTest

final class ChartTests: XCTestCase {
    private let names = ["Fixed 9:00 daily", "Adaptive timing", "Streak reminder"]

    private func dailyUsers() -> LineChart {
        LineChart(title: "Daily active users by day", xAxisTitle: "Day", yAxisTitle: "Active users",
                  series: names.enumerated().map { index, name in
                      LineSeries(name: name, points: (0..<90).map { (Double($0), 10_000 / Double($0 + index + 1)) })
                  } + [LineSeries(name: "Holdout", points: (0..<90).map { (Double($0), 5_000 / Double($0 + 1)) }, style: .reference)])
    }

    private func triggerRates(_ orientation: IntervalBarChart.Orientation) -> IntervalBarChart {
        IntervalBarChart(title: "Trigger rate per configuration", categoryAxisTitle: "Configuration", valueAxisTitle: "Trigger rate (%)",
                         orientation: orientation,
                         bars: names.enumerated().map { IntervalBar(label: $1, value: 0.2 * Double($0) - 0.1, low: 0.2 * Double($0) - 0.2, high: 0.2 * Double($0)) },
                         reference: ReferenceLine(label: "Holdout: 12%", value: 0.12))
    }

    private func periods() -> GroupedBarChart {
        GroupedBarChart(title: "Trigger rate per period", groupAxisTitle: "Period", valueAxisTitle: "Trigger rate (%)",
                        groups: ["period 1", "period 2", "period 3"],
                        series: names.enumerated().map { index, name in
                            BarSeries(name: name, values: [BarValue(0.3, low: 0.25, high: 0.35), nil, BarValue(0.1 * Double(index))])
                        } + [BarSeries(name: "Holdout", values: [BarValue(0.2), BarValue(0.2)], isReference: true)])
    }

    /// Checks what every chart must satisfy and returns the parse for further checks.
    @discardableResult
    private func assertValid(_ svg: String, title: String, file: StaticString = #filePath, line: UInt = #line) -> SVGInspection {
        let inspection = SVGInspection(svg)
        XCTAssertNil(inspection.error, "not well-formed: \(String(describing: inspection.error))", file: file, line: line)
        XCTAssertEqual(inspection.titles.first, title, file: file, line: line)
        XCTAssertEqual(inspection.badNumbers, [], file: file, line: line)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""), file: file, line: line)
        XCTAssertTrue(svg.contains("viewBox=\"0 0 ") && svg.contains("font-family=\"sans-serif\""), file: file, line: line)
        for (_, name, value) in inspection.attributes {
            let lower = value.lowercased()
            XCTAssertFalse(lower.contains("nan") || lower.contains("inf"), "\(name)=\(value)", file: file, line: line)
        }
        return inspection
    }

    func testChartsAreWellFormedAndNameEverySeriesAndCategory() {
        let line = assertValid(dailyUsers().svg(), title: "Daily active users by day")
        XCTAssertEqual(Array(line.titles.dropFirst()).sorted(), (names + ["Holdout"]).sorted())
        XCTAssertTrue(Set(names + ["Holdout", "Day", "Active users", "Daily active users by day"]).isSubset(of: line.texts))

        for orientation in [IntervalBarChart.Orientation.horizontal, .vertical] {
            let bars = assertValid(triggerRates(orientation).svg(), title: "Trigger rate per configuration")
            XCTAssertEqual(Array(bars.titles.dropFirst()), names)
            XCTAssertTrue(Set(names + ["Holdout: 12%", "95% interval", "Configuration", "Trigger rate (%)"]).isSubset(of: bars.texts))
        }

        let grouped = assertValid(periods().svg(), title: "Trigger rate per period")
        XCTAssertEqual(Array(grouped.titles.dropFirst()), names + ["Holdout"])
        XCTAssertTrue(Set(names + ["Holdout", "period 1", "period 2", "period 3", "95% interval"]).isSubset(of: grouped.texts))
    }

    func testSameInputGivesIdenticalOutput() {
        XCTAssertEqual(dailyUsers().svg(), dailyUsers().svg())
        XCTAssertEqual(triggerRates(.horizontal).svg(), triggerRates(.horizontal).svg())
        XCTAssertEqual(triggerRates(.vertical).svg(), triggerRates(.vertical).svg())
        XCTAssertEqual(periods().svg(), periods().svg())
    }

    func testReferenceSeriesIsGreyAndDashedAndLegendOnlyForSeveralSeries() {
        let svg = dailyUsers().svg()
        XCTAssertTrue(svg.contains("stroke=\"\(ChartPalette.reference)\" stroke-width=\"2\" stroke-dasharray=\"6 4\""))
        XCTAssertTrue(svg.contains("stroke=\"\(ChartPalette.colors[0])\""))

        let single = LineChart(title: "Retention", xAxisTitle: "Day", yAxisTitle: "Retained (%)", yFormat: .percent,
                               series: [LineSeries(name: "Only series", points: [(1, 0.5), (2, 0.4)])])
        let inspection = assertValid(single.svg(), title: "Retention")
        XCTAssertFalse(inspection.texts.contains("Only series"))
        XCTAssertTrue(inspection.titles.contains("Only series"))
        XCTAssertTrue(inspection.texts.contains("50%"))
    }

    func testValueAxisIncludesZeroAndEveryWhisker() {
        let chart = IntervalBarChart(title: "Lift", categoryAxisTitle: "Configuration", valueAxisTitle: "Lift (%)",
                                     bars: [IntervalBar(label: "a", value: 0.1, low: 0.05, high: 0.32),
                                            IntervalBar(label: "b", value: -0.12, low: -0.27, high: 0.01)])
        let texts = assertValid(chart.svg(), title: "Lift").texts
        XCTAssertTrue(texts.contains("0%"))
        XCTAssertTrue(texts.contains { $0.hasPrefix("-3") }, "\(texts)")
        XCTAssertTrue(texts.contains { $0.hasPrefix("4") || $0.hasPrefix("3") }, "\(texts)")
    }

    func testDegenerateInputsRenderWithoutNonFiniteNumbers() {
        let nan = Double.nan
        let lines: [[LineSeries]] = [
            [],
            [LineSeries(name: "empty", points: [])],
            [LineSeries(name: "one", points: [(3, 4)])],
            [LineSeries(name: "flat", points: [(0, 2), (1, 2), (2, 2)]), LineSeries(name: "zeros", points: [(0, 0), (5, 0)])],
            [LineSeries(name: "negative", points: [(-5, -3e9), (5, -1)], marker: true)],
            [LineSeries(name: "huge", points: [(0, 9e15), (1, 1.7e308), (2, -1e300)])],
            [LineSeries(name: "holes", points: [(0, 1), (1, nan), (2, .infinity), (3, 2), (nan, 5)])],
            [LineSeries(name: "same x", points: [(7, 1), (7, 2)])],
        ]
        for series in lines {
            for format in [ValueFormat.number, .percent] {
                assertValid(LineChart(title: "t", xAxisTitle: "x", yAxisTitle: "y", yFormat: format, series: series).svg(), title: "t")
            }
        }
        let barSets: [[IntervalBar]] = [
            [],
            [IntervalBar(label: "zero", value: 0)],
            [IntervalBar(label: "nan", value: nan, low: nan, high: .infinity)],
            [IntervalBar(label: "equal", value: 0.5, low: 0.5, high: 0.5), IntervalBar(label: "one-sided", value: 0.2, high: 0.4)],
            [IntervalBar(label: "huge", value: 4e12, low: -1e13, high: 1e14)],
            (0..<30).map { IntervalBar(label: String(repeating: "W", count: 60) + "\($0)", value: Double($0) - 15, low: Double($0) - 20, high: Double($0)) },
        ]
        for bars in barSets {
            for orientation in [IntervalBarChart.Orientation.horizontal, .vertical] {
                let chart = IntervalBarChart(title: "t", categoryAxisTitle: "c", valueAxisTitle: "v", orientation: orientation,
                                             bars: bars, reference: ReferenceLine(label: "ref", value: nan))
                assertValid(chart.svg(), title: "t")
            }
        }
        let groupings: [([String], [BarSeries])] = [
            ([], []),
            (["g"], []),
            ([], [BarSeries(name: "s", values: [BarValue(1)])]),
            (["a", "b"], [BarSeries(name: "missing", values: [nil, nil])]),
            (["a", "b", "c"], [BarSeries(name: "short", values: [BarValue(-0.3, low: -0.5, high: nan)])]),
            ((1...30).map { "period \($0) " + String(repeating: "x", count: 50) },
             (0..<12).map { s in BarSeries(name: "series \(s)", values: (0..<30).map { BarValue(Double($0 * s) * 1e9) }) }),
        ]
        for (groups, series) in groupings {
            assertValid(GroupedBarChart(title: "t", groupAxisTitle: "g", valueAxisTitle: "v", groups: groups, series: series).svg(), title: "t")
        }
    }

    func testLongLabelsAreClippedWithAnEllipsisButKeptInFull() {
        let labels = (1...30).map { "Configuration \($0) " + String(repeating: "long name ", count: 5) }
        for orientation in [IntervalBarChart.Orientation.horizontal, .vertical] {
            let chart = IntervalBarChart(title: "Thirty", categoryAxisTitle: "c", valueAxisTitle: "v", orientation: orientation,
                                         bars: labels.map { IntervalBar(label: $0, value: 0.5) })
            let inspection = assertValid(chart.svg(), title: "Thirty")
            XCTAssertEqual(Array(inspection.titles.dropFirst()), labels)
            let drawn = inspection.texts.filter { $0.hasPrefix("Configuration") }
            XCTAssertFalse(drawn.isEmpty)
            XCTAssertTrue(drawn.allSatisfy { $0.hasSuffix("…") && $0.count < 50 }, "\(drawn)")
        }
    }

    func testHostileLabelsAreEscaped() {
        let hostile = ["<script>alert(\"x\")</script>", "a & b", "it's \"quoted\"", "]]><!--", "a|b", "emoji 😀👩‍💻"]
        let title = "Title <b>&amp;</b> 'x'"
        let svgs = [
            LineChart(title: title, xAxisTitle: "<x>", yAxisTitle: "&y", series: hostile.map { LineSeries(name: $0, points: [(0, 1), (1, 2)]) }).svg(),
            IntervalBarChart(title: title, categoryAxisTitle: "<c>", valueAxisTitle: "&v", bars: hostile.map { IntervalBar(label: $0, value: 0.1) },
                             reference: ReferenceLine(label: "<ref>", value: 0.05)).svg(),
            GroupedBarChart(title: title, groupAxisTitle: "<g>", valueAxisTitle: "&v", groups: hostile,
                            series: hostile.map { BarSeries(name: $0, values: [BarValue(0.2)]) }).svg(),
        ]
        for svg in svgs {
            let inspection = assertValid(svg, title: title)
            XCTAssertFalse(svg.contains("<script") || svg.contains("<b>") || svg.contains("<!--") || svg.contains("<x>"))
            for label in hostile {
                XCTAssertTrue(inspection.titles.contains(label), label)
            }
        }
    }

    func testControlCharactersAreShownByTheirCodesSoTheDocumentStaysWellFormed() {
        let chart = LineChart(title: "bell\u{7}\u{0} and\nnewline", xAxisTitle: "x\u{1B}", yAxisTitle: "y\u{FFFF}",
                              series: [LineSeries(name: "tab\there", points: [(0, 0)]),
                                       LineSeries(name: "\u{202E}evil", points: [(0, 1)]),
                                       LineSeries(name: "evil", points: [(0, 2)])])
        let svg = chart.svg()
        let inspection = assertValid(svg, title: "bell\\u{7}\\u{0} and newline")
        XCTAssertTrue(inspection.titles.contains("tab here"))
        XCTAssertTrue(inspection.titles.contains("\\u{202E}evil"), "\(inspection.titles)")
        XCTAssertTrue(inspection.titles.contains("evil"))
        XCTAssertTrue(svg.contains("x\\u{1B}") && svg.contains("y\\u{FFFF}"), svg)
        XCTAssertFalse(svg.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{7}" || $0 == "\u{FFFF}" })
    }

    func testAShownCodeCountsInTheLabelsWidth() {
        let plain = TextMetrics.width("ab", size: 10)
        XCTAssertEqual(TextMetrics.width("a\u{202E}b", size: 10), TextMetrics.width("a\\u{202E}b", size: 10))
        XCTAssertGreaterThan(TextMetrics.width("a\u{202E}b", size: 10), plain)
        XCTAssertEqual(TextMetrics.clip("\u{202E}" + String(repeating: "x", count: 80), maxWidth: 150, size: 10).prefix(8), "\\u{202E}")
    }
}

final class TickMultipleTests: XCTestCase {
    func testHoursOfADayTickEverySixHoursUpTo24() {
        let scale = TickScale.multiples(of: 6, lower: 0, upper: 23)
        XCTAssertEqual(scale.values, [0, 6, 12, 18, 24])
        XCTAssertEqual(scale.labels(format: .number), ["0", "6", "12", "18", "24"])
        XCTAssertEqual(TickScale.multiples(of: 6, lower: 7, upper: 7).values, [6, 12])
        XCTAssertEqual(TickScale.multiples(of: 6, lower: -1, upper: 6).values, [-6, 0, 6])
    }

    func testALineChartUsesTheMultiple() {
        var chart = LineChart(title: "t", xAxisTitle: "hour", yAxisTitle: "y",
                              series: [LineSeries(name: "a", points: (0..<24).map { (x: Double($0), y: 1) })])
        XCTAssertTrue(chart.svg().contains(">25<"), "without it: 1-2-5 ticks to 25")
        chart.xTickMultiple = 6
        let svg = chart.svg()
        XCTAssertFalse(svg.contains(">25<"), svg)
        XCTAssertTrue(svg.contains(">18<") && svg.contains(">24<"), svg)
    }
}
