import Foundation
import Rendering
import Simulation

/// The tune's Pareto charts: for each constrained measure, the objective against it for every
/// candidate at its last stage, the front joined, the limits, the baseline and the recommendation.
extension TuneReport {
    /// The measures the Pareto front is drawn against: the constrained ones other than the objective,
    /// or the opt-out rate when there are none.
    var frontMeasures: [DecisionMeasure] {
        let against = rule.orderedConstraints.map(\.measure).filter { $0 != rule.objective }
        return against.isEmpty ? [.optOutRate] : against
    }

    /// The chart's file name in the report folder, such as `pareto-opt-out-rate.svg`.
    static func chartFile(_ m: DecisionMeasure) -> String {
        let words = m.rawValue.reduce(into: "") { text, c in text += c.isUppercase ? "-" + c.lowercased() : String(c) }
        return "pareto-\(words).svg"
    }

    /// Every Pareto chart with its file name, in the order of `frontMeasures`.
    func charts() -> [(file: String, svg: String)] {
        frontMeasures.map { (Self.chartFile($0), paretoChart($0).svg()) }
    }

    func paretoChart(_ m: DecisionMeasure) -> ScatterChart {
        let o = rule.objective
        let r = result
        func point(_ label: String, _ f: CandidateFigures, highlighted: Bool = false) -> ScatterPoint {
            let x = f.measures[m], y = f.measures[o]
            return ScatterPoint(label: label, x: x?.value ?? .nan, y: y?.value ?? .nan, xInterval: x.map { ($0.low, $0.high) },
                                yInterval: y.map { ($0.low, $0.high) }, highlighted: highlighted)
        }
        var named: [ScatterPoint] = []
        if let w = r.winner, let f = r.final.ranking.first(where: { $0.candidate == w })?.figures {
            named.append(point("\"\(label(w))\"", f, highlighted: true))
        }
        named.append(point("baseline \"\(r.baseline.label)\"", r.final.baseline))
        let evaluated = r.candidates.indices.filter { r.candidates[$0].figures != nil }
        let position = Dictionary(uniqueKeysWithValues: evaluated.enumerated().map { ($1, $0) })
        let cloud = PointCloud(
            label: "every candidate at its last stage (\(TuneCommand.count(evaluated.count)))",
            points: evaluated.map { point(label($0), r.candidates[$0].figures!) },
            front: paretoFront(m).compactMap { position[$0.0] },
            frontLabel: "Pareto front (no candidate is better on both)")
        var limits: [LimitLine] = []
        for (measure, b) in rule.orderedConstraints where measure == m || measure == o {
            let axis: LimitLine.Axis = measure == m ? .x : .y
            if let v = b.max { limits.append(LimitLine(label: "limit: \(measure.title) ≤ \(show(v, measure))", axis: axis, value: v)) }
            if let v = b.min { limits.append(LimitLine(label: "limit: \(measure.title) ≥ \(show(v, measure))", axis: axis, value: v)) }
        }
        return ScatterChart(
            title: "Pareto front: \(o.title) against \(m.title)",
            xAxisTitle: "\(m.title) (95% intervals for the named points)",
            yAxisTitle: o.title,
            xFormat: m.isFraction ? .percent : .number, yFormat: o.isFraction ? .percent : .number,
            points: named, limits: limits, cloud: cloud, xIncludesZero: false)
    }
}
