import Rendering
import Simulation
import Storage

/// The report's charts as SVG text, by kind.
enum ReportCharts {
    static func render(_ results: RunResults) -> [(ChartKind, String)] {
        var charts = tradeOffCharts(results)
        charts.append((.triggerRate, triggerRateChart(results)))
        charts.append((.opensLift, opensLiftChart(results)))
        charts.append((.dailyActiveUsers, dailyActiveUsersChart(results)))
        charts.append((.retention, retentionChart(results)))
        if let chart = periodChart(results) { charts.append((.byPeriod, chart)) }
        charts.append((.triggerByPeriod, triggerByPeriodChart(results)))
        if results.shown.contains(where: { $0.metrics.delivered > 0 }) {
            charts.append((.deliveriesByHour, DeliveryReport.chart(results)))
        }
        return charts
    }

    static func triggerRateChart(_ results: RunResults) -> String {
        IntervalBarChart(
            title: ChartKind.triggerRate.title, categoryAxisTitle: "Configuration",
            valueAxisTitle: "Trigger rate (% of notifications not censored; 95% interval clustered by user)",
            valueFormat: .percent,
            bars: results.shown.map { c in
                let p = c.metrics.triggerRate
                let ci = p.interval
                return IntervalBar(label: c.label, value: p.rate ?? 0, low: ci?.low, high: ci?.high)
            }).svg()
    }

    static func opensLiftChart(_ results: RunResults) -> String {
        IntervalBarChart(
            title: ChartKind.opensLift.title, categoryAxisTitle: "Configuration",
            valueAxisTitle: "Extra opens per user over the run (95% interval)", valueFormat: .number,
            bars: results.shown.map { c in
                let e = c.metrics.opensLiftPerUser
                return IntervalBar(label: c.label, value: e?.value ?? 0, low: e?.low, high: e?.high)
            }, reference: ReferenceLine(label: "Holdout", value: 0)).svg()
    }

    /// Daily active users above the holdout's: paired intervals as bands when the run kept sums over
    /// users, the plain difference otherwise.
    static func dailyActiveUsersChart(_ results: RunResults) -> String {
        let tallies = results.all.map(\.tally)
        let days = tallies[0].layout.days
        let paired = results.tallies.sums != nil
        func series(_ i: Int) -> LineSeries {
            let label = results.all[i].label
            guard paired else {
                return LineSeries(name: label, points: (0..<days).map {
                    (x: Double($0), y: Double(tallies[i].daily($0) - tallies[0].daily($0)))
                })
            }
            let estimates = (0..<days).map { results.dailyActiveDifference(i, day: $0) }
            return LineSeries(
                name: label, points: estimates.enumerated().map { (x: Double($0), y: $1?.value ?? .nan) },
                band: estimates.enumerated().compactMap { d, e in e.map { (x: Double(d), low: $0.low, high: $0.high) } })
        }
        return LineChart(
            title: "Daily active users minus the holdout's (bands: 95% paired intervals)",
            xAxisTitle: "Day of the run (days from the start date, UTC)",
            yAxisTitle: "Extra daily active users (users)",
            series: results.shown.map { series($0.index) }, yIncludesZero: true).svg()
    }

    /// Retention above the holdout's by day since install, with paired bands when the run kept sums.
    static func retentionChart(_ results: RunResults) -> String {
        let tallies = results.all.map(\.tally)
        let paired = results.tallies.sums != nil
        func series(_ i: Int) -> LineSeries {
            let estimates: [(Int, Estimate)] = (1...retentionCurveDays).compactMap { k in
                if paired { return results.retentionDifference(i, day: k).map { (k, $0) } }
                let r = tallies[i].retention(day: k), h = tallies[0].retention(day: k)
                guard r.eligible > 0 else { return nil }
                let v = Double(r.retained - h.retained) / Double(r.eligible)
                return (k, Estimate(value: v, low: v, high: v))
            }
            return LineSeries(name: results.all[i].label, points: estimates.map { (x: Double($0.0), y: $0.1.value) }, marker: true,
                              band: paired ? estimates.map { (x: Double($0.0), low: $0.1.low, high: $0.1.high) } : [])
        }
        return LineChart(
            title: "Retention minus the holdout's, by day since install (bands: 95% paired intervals)",
            xAxisTitle: "Days since install (the user's local days)",
            yAxisTitle: "Retention difference (percentage points)", yFormat: .percentagePoints,
            series: results.shown.map { series($0.index) }).svg()
    }

    /// One group per (reminder, period position, delay really used), for the periods that were used;
    /// reminders are named only when some configuration has several.
    static func triggerByPeriodChart(_ results: RunResults) -> String {
        let configs = results.shown
        let severalReminders = configs.contains { $0.spec.reminders.count > 1 }
        func key(_ row: SlotMetrics) -> String {
            (severalReminders ? "reminder \(row.reminder + 1), " : "") + "period \(row.index + 1): \(row.name)"
        }
        var keys: [String] = []
        for c in configs {
            for row in c.periods where row.triggerRate.rate != nil && !keys.contains(key(row)) { keys.append(key(row)) }
        }
        return GroupedBarChart(
            title: ChartKind.triggerByPeriod.title, groupAxisTitle: "Period (in the order the reminder uses them)",
            valueAxisTitle: "Trigger rate, % of notifications not censored (clustered 95% interval)",
            groups: keys,
            series: configs.map { c in
                BarSeries(name: c.label, values: keys.map { k in
                    guard let row = c.periods.first(where: { key($0) == k }), let rate = row.triggerRate.rate else { return nil }
                    let ci = row.triggerRate.interval
                    return BarValue(rate, low: ci?.low, high: ci?.high)
                })
            }).svg()
    }

    /// Opens lift against opt-out rate and against notifications delivered per user, with the
    /// Pareto front and the decision rule's limits.
    static func tradeOffCharts(_ results: RunResults) -> [(ChartKind, String)] {
        let configs = results.shown
        let rule = results.decision.rule
        let recommended = results.decision.recommended
        var out: [(ChartKind, String)] = []
        // Points are numbered as the report's ranking table numbers its rows; colours keep the scenario's order.
        var rank: [Int: Int] = [:]
        for (i, c) in results.rankedByOpensLift.enumerated() { rank[c.index] = i + 1 }
        for (kind, cost) in [(ChartKind.tradeOffOptOut, DecisionMeasure.optOutRate), (.tradeOffDelivered, .deliveredPerUser)] {
            let points = configs.map { c -> ScatterPoint in
                let y = c.estimate(.opensLiftPerUser), x = c.estimate(cost)
                var point = ScatterPoint(label: c.label, x: x?.value ?? .nan, y: y?.value ?? .nan,
                                         xInterval: x.map { ($0.low, $0.high) }, yInterval: y.map { ($0.low, $0.high) },
                                         highlighted: c.index == recommended)
                point.number = rank[c.index]
                return point
            }
            var limits: [LimitLine] = []
            for (m, b) in rule.orderedConstraints {
                let axis: LimitLine.Axis? = m == cost ? .x : m == .opensLiftPerUser ? .y : nil
                guard let axis else { continue }
                if let v = b.max { limits.append(LimitLine(label: "limit: \(m.title) ≤ \(Text.measure(m, v))", axis: axis, value: v)) }
                if let v = b.min { limits.append(LimitLine(label: "limit: \(m.title) ≥ \(Text.measure(m, v))", axis: axis, value: v)) }
            }
            let front = ScatterChart.paretoFront(points.map { (x: $0.x, y: $0.y) })
            out.append((kind, ScatterChart(
                title: kind.title,
                xAxisTitle: cost == .optOutRate ? "Users who turned notifications off (% of users; 95% Wilson interval)"
                    : "Notifications delivered per user over the run (95% interval)",
                yAxisTitle: "Extra opens per user (95% interval)",
                xFormat: cost == .optOutRate ? .percent : .number, points: points, front: front,
                frontLabel: "Pareto front (no configuration has more opens at a lower cost)", limits: limits).svg()))
        }
        return out
    }

    /// Opens lift and opt-out rate over the period, for configurations with one reminder and one period.
    static func periodChart(_ results: RunResults) -> String? {
        var groups: [String: [(days: Double, c: ConfigurationResult)]] = [:]
        var order: [String] = []
        for c in results.shown where c.spec.reminders.count == 1 && c.spec.reminders[0].timePeriods.count == 1 {
            let key = c.spec.mode.rawValue
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append((c.spec.delaysUsedSeconds[0] / 86_400, c))
        }
        let usable = order.filter { Set(groups[$0]!.map(\.days)).count >= 2 }
        guard !usable.isEmpty else { return nil }
        let several = usable.count > 1
        let series = usable.map { key -> LineSeries in
            let rows = groups[key]!.sorted { $0.days < $1.days }
            let estimates = rows.map { ($0.days, $0.c.metrics.opensLiftPerUser) }
            return LineSeries(
                name: "opens per user vs holdout" + (several ? " (\(key) mode)" : ""),
                points: estimates.map { (x: $0.0, y: $0.1?.value ?? .nan) }, marker: true,
                band: estimates.compactMap { d, e in e.map { (x: d, low: $0.low, high: $0.high) } })
        }
        return LineChart(
            title: "Extra opens by reminder period (one-period configurations)",
            xAxisTitle: "Reminder period (days)", yAxisTitle: "Extra opens per user (band: 95% interval)",
            series: series).svg()
    }
}
