import Rendering
import ReminderSimTestSupport
import XCTest

/// The trade-off chart, interval bands and the palette's series styles.
final class DecisionChartTests: XCTestCase {
    /// Points (cost, gain): a point is on the front when no other has lower-or-equal cost and
    /// higher-or-equal gain with one of them strict.
    func testParetoFrontOfAKnownSet() {
        let points: [(x: Double, y: Double)] = [(1, 1), (2, 3), (2, 2), (3, 3), (4, 5), (5, 4), (.nan, 9), (0.5, 0.5)]
        XCTAssertEqual(ScatterChart.paretoFront(points), [7, 0, 1, 4])
        XCTAssertEqual(ScatterChart.paretoFront([]), [])
        XCTAssertEqual(ScatterChart.paretoFront([(1, 1), (1, 1)]), [0, 1], "ties do not dominate each other")
    }

    /// The sweep against the definition, pair by pair, on sets with many ties, infinities and NaNs.
    func testParetoSweepMatchesEveryPairCompared() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % n
        }
        let specials: [Double] = [.nan, .infinity, -.infinity, 0, -0.0]
        for _ in 0..<300 {
            let n = Int(next(40))
            let points: [(a: Double, b: Double)] = (0..<n).map { _ in
                func value() -> Double { next(10) == 0 ? specials[Int(next(5))] : Double(next(6)) }
                return (a: value(), b: value())
            }
            let expected = points.indices.map { i in
                !points.indices.contains { j in
                    let (p, q) = (points[i], points[j])
                    return j != i && q.a >= p.a && q.b >= p.b && (q.a > p.a || q.b > p.b)
                }
            }
            XCTAssertEqual(ParetoFront.nonDominated(points), expected, "\(points)")
        }
    }

    func testTradeOffChartShowsEveryPointLimitAndFullLabels() {
        let long = "A configuration label that is far longer than any legend used to allow, kept in full"
        let chart = ScatterChart(
            title: "Trade-off", xAxisTitle: "Opt-out rate (% of users)", yAxisTitle: "Extra opens per user",
            xFormat: .percent,
            points: [ScatterPoint(label: long, x: 0.02, y: 0.3, xInterval: (0.01, 0.03), yInterval: (0.2, 0.4), highlighted: true),
                     ScatterPoint(label: "b", x: 0.05, y: 0.5, xInterval: (0.04, 0.06), yInterval: (0.4, 0.6))],
            front: [0, 1], limits: [LimitLine(label: "limit: opt-out rate ≤ 3%", axis: .x, value: 0.03)])
        let svg = chart.svg()
        let page = SVGInspection(svg)
        XCTAssertNil(page.error)
        XCTAssertEqual(page.badNumbers, [])
        XCTAssertTrue(page.texts.contains("1: \(long) (recommended)"), "the legend keeps the whole label: \(page.texts)")
        XCTAssertTrue(page.texts.contains("limit: opt-out rate ≤ 3%"))
        XCTAssertTrue(page.titles.contains(long) && page.titles.contains("Pareto front"))
        XCTAssertTrue(page.texts.contains("Opt-out rate (% of users)") && page.texts.contains("Extra opens per user"))
        XCTAssertFalse(page.texts.contains { $0.hasSuffix("…") })
    }

    /// Points given numbers (their rank in a table beside the chart) carry them beside the point and in
    /// the legend, which lists them in that order.
    func testPointsCarryTheNumbersTheyAreGiven() {
        var first = ScatterPoint(label: "slow", x: 0.01, y: 0.1), second = ScatterPoint(label: "fast", x: 0.05, y: 0.4)
        (first.number, second.number) = (2, 1)
        let svg = ScatterChart(title: "t", xAxisTitle: "x", yAxisTitle: "y", points: [first, second]).svg()
        let page = SVGInspection(svg)
        XCTAssertNil(page.error)
        let legend = page.texts.filter { $0.hasPrefix("1: ") || $0.hasPrefix("2: ") }
        XCTAssertEqual(legend, ["1: fast", "2: slow"])
        XCTAssertTrue(page.texts.contains("1") && page.texts.contains("2"))
    }

    func testBandsAreDrawnUnderTheirLine() {
        let chart = LineChart(title: "Retention minus the holdout's", xAxisTitle: "Days since install",
                              yAxisTitle: "Difference (percentage points)", yFormat: .percent,
                              series: [LineSeries(name: "a", points: [(1, 0.01), (2, -0.01)], band: [(1, 0, 0.02), (2, -0.02, 0.005)]),
                                       LineSeries(name: "b", points: [(1, 0.02), (2, 0.03)])])
        let svg = chart.svg()
        XCTAssertNil(SVGInspection(svg).error)
        let polygon = try? XCTUnwrap(svg.range(of: "<polygon"))
        let line = try? XCTUnwrap(svg.range(of: "<polyline"))
        XCTAssertNotNil(polygon)
        XCTAssertLessThan(polygon!.lowerBound, line!.lowerBound, "the band goes under the lines")
        XCTAssertEqual(svg.components(separatedBy: "<polygon").count - 1, 1, "one band, for the series that has one")
    }

    /// With more series than colours, no two series share both colour and dash.
    func testSeriesNeverRepeatAColourAndDash() {
        let series = (0..<60).map { i in LineSeries(name: "series \(i)", points: [(0, Double(i)), (1, Double(i))]) }
        let svg = LineChart(title: "Sixty", xAxisTitle: "x", yAxisTitle: "y", series: series).svg()
        let page = SVGInspection(svg)
        var looks: [String] = []
        for (element, name, value) in page.attributes where element == "polyline" && name == "stroke" { looks.append(value) }
        var dashes: [String] = []
        // Each polyline's dash pattern, or none.
        for part in svg.components(separatedBy: "<polyline").dropFirst() {
            let tag = part.prefix { $0 != ">" }
            dashes.append(tag.range(of: "stroke-dasharray=\"").map { String(tag[$0.upperBound...].prefix { $0 != "\"" }) } ?? "solid")
        }
        XCTAssertEqual(looks.count, 60)
        let pairs = zip(looks, dashes).map { "\($0) \($1)" }
        XCTAssertEqual(Set(pairs).count, 60, "colour and dash repeat: \(pairs)")
    }
}
