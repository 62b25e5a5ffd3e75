import Rendering
import ReminderSimTestSupport
import XCTest

/// A trade-off chart with a point cloud behind its named points: one legend entry for the cloud,
/// its front joined and each front point named, points sharing a pixel drawn once.
final class PointCloudChartTests: XCTestCase {
    func cloudChart() -> (ScatterChart, front: [Int]) {
        // A grid of 400 candidates plus two at the very same spot; the front is the top of each column.
        var points: [ScatterPoint] = []
        for i in 0..<20 {
            for j in 0..<20 {
                points.append(ScatterPoint(label: "c\(i)-\(j)", x: 0.01 + 0.002 * Double(i), y: 0.1 + 0.01 * Double(j) + 0.05 * Double(i).squareRoot()))
            }
        }
        points.append(ScatterPoint(label: "twin a", x: 0.03, y: 0.05))
        points.append(ScatterPoint(label: "twin b", x: 0.03, y: 0.05))
        let front = ScatterChart.paretoFront(points.map { (x: $0.x, y: $0.y) })
        let chart = ScatterChart(
            title: "Pareto front", xAxisTitle: "Opt-out rate", yAxisTitle: "Extra opens per user", xFormat: .percent,
            points: [ScatterPoint(label: "winner", x: 0.02, y: 0.2, xInterval: (0.018, 0.022), yInterval: (0.18, 0.22), highlighted: true),
                     ScatterPoint(label: "baseline", x: 0.04, y: 0.25)],
            limits: [LimitLine(label: "limit: optOutRate ≤ 3.00%", axis: .x, value: 0.03)],
            cloud: PointCloud(label: "every candidate (402)", points: points, front: front, frontLabel: "Pareto front of the candidates"),
            xIncludesZero: false)
        return (chart, front)
    }

    func testTheFrontIsJoinedAndEachOfItsPointsNamed() throws {
        let (chart, front) = cloudChart()
        XCTAssertEqual(front.count, 20)
        let svg = chart.svg()
        let page = SVGInspection(svg)
        XCTAssertNil(page.error)
        XCTAssertEqual(page.badNumbers, [])
        let names = chart.cloud!.points.map(\.label)
        for i in front { XCTAssertTrue(page.titles.contains(names[i]), "front point \(names[i]) has no tooltip") }
        let named = Set(names).intersection(page.titles)
        XCTAssertEqual(named, Set(front.map { names[$0] }), "only front points are named")
        // One polyline, through the front's points in order of x.
        let lines = page.attributes.filter { $0.element == "polyline" && $0.name == "points" }.map(\.value)
        XCTAssertEqual(lines.count, 1)
        let xs = try XCTUnwrap(lines.first).split(separator: " ").map { Double($0.split(separator: ",")[0])! }
        XCTAssertEqual(xs.count, front.count)
        XCTAssertEqual(xs, xs.sorted())
        // The legend: both named points, the cloud, its front and the limit, each once.
        for text in ["1: winner (recommended)", "2: baseline", "every candidate (402)", "Pareto front of the candidates",
                     "limit: optOutRate ≤ 3.00%"] {
            XCTAssertEqual(page.texts.filter { $0 == text }.count, 1, text)
        }
    }

    func testPointsSharingAPixelAreDrawnOnce() {
        let (chart, _) = cloudChart()
        let cloudGroup = chart.svg().components(separatedBy: "<title>every candidate (402)</title>")[1]
            .components(separatedBy: "</g>")[0]
        // 400 grid points a few pixels apart, and the twins at one spot.
        XCTAssertEqual(cloudGroup.components(separatedBy: "<circle").count - 1, 401)
    }

    /// The axis starts near the data when asked, and at zero otherwise.
    func testTheXAxisNeedNotReachZero() {
        var (chart, _) = cloudChart()
        XCTAssertFalse(SVGInspection(chart.svg()).texts.contains("0%"))
        chart.xIncludesZero = true
        XCTAssertTrue(SVGInspection(chart.svg()).texts.contains("0%"))
    }
}
