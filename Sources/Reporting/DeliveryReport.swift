import Foundation
import Rendering
import Simulation

/// The report's view of when notifications land, and of the delivery policies some configurations
/// add around the engines (which the original libraries do not have).
enum DeliveryReport {
    /// What a configuration's delivery policy does, in words; nil when it has none.
    static func describe(_ policy: DeliveryPolicy) -> String? {
        guard !policy.isEmpty else { return nil }
        var parts: [String] = []
        switch policy.sendWindow {
        case let .span(span)?: parts.append("fires only in \(span) local time")
        case .usualHour?: parts.append("fires in the local hour of the user's last organic open")
        case nil: break
        }
        if let quiet = policy.quietHours { parts.append("defers fire times in \(quiet) local time to its end") }
        if let cap = policy.frequencyCap {
            parts.append("shows at most \(cap.max) per \(String(format: "%g", cap.perDays)) days (the rest are capped)")
        }
        return parts.joined(separator: "; ")
    }

    /// The section: policies in force, deliveries and responses by local hour, and the chart.
    static func section(_ results: RunResults, chart: String?) -> String {
        let configurations = results.shown.filter { !$0.spec.reminders.isEmpty }
        guard !configurations.isEmpty else { return "" }
        var out = "## When notifications land\n\n"
        let policies = configurations.compactMap { c in describe(c.spec.delivery).map { (c.label, $0) } }
        if !policies.isEmpty {
            out += "Delivery policies are extensions layered around the engines; ACPReminder itself has none. "
                + "Deferred and shifted notifications are counted when they are scheduled, capped ones when they "
                + "would have fired.\n\n"
            out += Markdown.table(
                header: ["configuration", "policy", "deferred", "shifted into the window", "capped"],
                alignments: [.left, .left, .right, .right, .right],
                rows: configurations.filter { !$0.spec.delivery.isEmpty }.map { c in
                    [c.label, describe(c.spec.delivery) ?? "", Text.group(c.metrics.deferred),
                     Text.group(c.metrics.shifted), Text.group(c.metrics.capped)]
                }) + "\n"
        }
        out += "Deliveries by the user's local hour (share of the configuration's deliveries) and the response "
            + "rate of those deliveries; every configuration is in `hourly_stats.csv`.\n\n"
        let shown = Array(configurations.prefix(6))
        let rows: [[String]] = (0..<24).compactMap { hour in
            guard shown.contains(where: { $0.hours[hour].delivered > 0 }) else { return nil }
            return [String(format: "%02d:00", hour)] + shown.map { c in
                let h = c.hours[hour]
                let share = Text.percent(Proportion(h.delivered, of: c.metrics.delivered), withInterval: false)
                return h.delivered == 0 ? "—" : "\(share) · \(Text.percent(h.responseRate, withInterval: false))"
            }
        }
        out += Markdown.table(header: ["local hour"] + shown.map(\.label),
                              alignments: [.right] + shown.map { _ in .right }, rows: rows) + "\n"
        if configurations.count > shown.count {
            out += "The first \(shown.count) of \(configurations.count) configurations are shown.\n\n"
        }
        if let chart { out += "![\(ChartKind.deliveriesByHour.title)](\(chart))\n\n" }
        return out
    }

    /// Deliveries by local hour as lines, one per configuration, as shares of its deliveries.
    static func chart(_ results: RunResults) -> String {
        let series = results.shown.filter { $0.metrics.delivered > 0 }.map { c in
            LineSeries(name: c.label, points: c.hours.map { h in
                (x: Double(h.hour), y: Double(h.delivered) / Double(c.metrics.delivered))
            }, marker: true)
        }
        var chart = LineChart(
            title: ChartKind.deliveriesByHour.title, xAxisTitle: "Local hour of the user (0–23)",
            yAxisTitle: "Share of the configuration's deliveries", yFormat: .percent, series: series)
        chart.xTickMultiple = 6
        return chart.svg()
    }
}
