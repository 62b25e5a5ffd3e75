import Console
import FilePaths
import Fitting
import Foundation
import RecordedData
import Reporting
import Simulation

/// `remindersim fit`: return models fitted to a recorded log, ready to paste into a scenario.
struct FitCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        name: "fit",
        abstract: "Fit return models to a recorded visit log and write scenario segments from them.",
        discussion: """
            Reads a log of user visits (CSV, TSV or whitespace-separated, or the CDNOW format), fits \
            gap models by family (\(GapModel.allCases.map(\.name).joined(separator: ", "))) \
            by maximum likelihood with right-censoring, and \
            BG/NBD and Pareto/NBD on each user's frequency, recency and age in a calibration window, and checks \
            them on the visits after it. Writes segments.json (one recommended segment for a scenario's \
            population: the customer-base model with the lower AIC, or else the gap model with the lowest, \
            with the dropout the censored gaps show; the other models under "alternatives"), and, when BG/NBD fits, customers.csv \
            (each customer's frequency, recency, age, probability of being alive and expected repeat visits \
            over --predict by BG/NBD and by Pareto/NBD, with the recorded count where the log covers it) and repeat-visits.svg (observed and predicted \
            repeat visits), with survival.svg, into --out. A log with one visit per calendar day (--by-day, CDNOW) is \
            summarised in whole days, as Fader & Hardie's tables and lifetimes do; other logs in continuous \
            time.
            """ + " " + LogOptions.limits
            + " Example: remindersim fit Datasets/cdnow/CDNOW_master.txt --format cdnow --calibration-end 1997-09-30",
        arguments: [LogOptions.data] + LogOptions.specs + [calibrationEndOption, gapUnitOption, bgnbdUnitOption, predictOption, output])

    static let calibrationEndOption = ArgumentSpec.option(
        "--calibration-end", valueName: "date",
        help: "Last day of the BG/NBD calibration window (default: half way through the observation).")
    static let gapUnitOption = ArgumentSpec.option(
        "--gap-unit", valueName: "unit", help: "Unit of the gap models: minutes, hours, days, weeks.", default: "days")
    static let bgnbdUnitOption = ArgumentSpec.option(
        "--bgnbd-unit", valueName: "unit", help: "Unit of BG/NBD's and Pareto/NBD's alpha and beta and of their times.", default: "weeks")
    static let predictOption = ArgumentSpec.option(
        "--predict", valueName: "length",
        help: "Horizon of the per-customer predictions, in the BG/NBD unit (default: the holdout's length).")
    /// The shared `--out`, here the fit's own folder rather than a folder of reports.
    static let output = ReportFolderOption.spec.described("Where the segments and charts go (default: Reports/fit-<name>).")

    let data: String
    /// The log's path: for `-`, the file standard input was redirected from (see `redirectedFile`),
    /// or /dev/stdin, which a scenario cannot read again.
    let source: String
    let logOptions: LogOptions
    let calibrationEnd: String?
    let gapUnit: GapUnit
    let bgnbdUnit: GapUnit
    let predict: Double?
    let output: String

    init(arguments: ParsedArguments) throws {
        data = try arguments.value(LogOptions.data)
        source = data == "-" ? Self.redirectedFile() ?? "/dev/stdin" : data
        logOptions = try LogOptions(arguments)
        calibrationEnd = try LogOptions.date(Self.calibrationEndOption, arguments)
        gapUnit = try arguments.value(Self.gapUnitOption, as: GapUnit.self)
        bgnbdUnit = try arguments.value(Self.bgnbdUnitOption, as: GapUnit.self)
        predict = try arguments.valueIfPresent(Self.predictOption, as: Double.self, expected: "a length > 0 and at most 100000",
                                               where: { $0 > 0 && $0 <= 1e5 })
        output = try arguments.optionalValue(Self.output) ?? "Reports/fit-\(data == "-" ? "stdin" : Path.stem(data))"
    }

    /// The files a fit writes; a folder holding only these is an earlier fit's, and is replaced whole.
    static let files = ["segments.json", "survival.svg", "customers.csv", "repeat-visits.svg"]

    func run(context: CommandContext) throws {
        try OutputPaths.checkFolder(output, option: Self.output.name)
        if OutputPaths.entry(at: output) == .folder {
            if FolderPublishing.input(in: output, of: [source]) != nil { throw holdsTheLog() }
            if let foreign = Self.foreignEntry(in: output) { throw Self.foreignFolder(foreign) }
        }
        let log = try logOptions.read(data, diagnostics: context.stderr.writeLine)
        var options = FitAnalysis.Options()
        options.gapUnit = gapUnit
        options.bgnbdUnit = bgnbdUnit
        options.predictionHorizon = predict
        // The last second of the day: visits dated at the start of the next day are outside the window.
        options.calibrationEnd = calibrationEnd.flatMap(CalendarDate.init(iso:)).map { Double($0.daysSinceEpoch + 1) * 86_400 - 1 }
        if let end = options.calibrationEnd, end <= log.firstVisit || end >= log.observationEnd {
            throw UsageError("\(Self.calibrationEndOption.name): must fall inside the observation, "
                + "\(LogOptions.day(log.firstVisit)) to \(LogOptions.day(log.observationEnd)), and end before it does: "
                + "a day from \(LogOptions.day(log.firstVisit)) up to, not including, \(LogOptions.day(log.observationEnd))")
        }
        let analysis = FitAnalysis(log: log, options: options)
        context.stdout.write(FitText.render(analysis, data: data == "-" ? data : OutputPaths.listed(data)))
        // A replayed user must have been observed for the scenario's whole horizon, of whole days.
        let replayDays = Self.replayDays(log)
        let replays = analysis.recommendation().model == .replayed
        if replays && replayDays < 1 {
            throw CommandError.dataError("\(InputFile.displayName(data)): no model can be fitted to the log, and its users cannot "
                + "be replayed: a scenario replays only users observed for its whole horizon, a day or more, and the longest "
                + "observation here is \(Self.duration(Self.longestObservation(log))); no segment is written")
        }

        // An absolute path: a scenario reads `data` relative to its own folder, wherever it is saved.
        let absolute = URL(fileURLWithPath: source).standardizedFileURL.path
        var segments = analysis.segmentsDocument(dataPath: absolute, format: logOptions.format, observationEnd: logOptions.observationEnd)
        if !log.utcOffsets.isEmpty { segments["utcOffsets"] = UTCOffsetText.scenarioShares(log.utcOffsets) }
        // Every fitted value written is a finite number; one that is not would make the file unreadable.
        if let path = Self.nonFinite(segments) {
            throw CommandError.dataError("\(InputFile.displayName(data)): the fitted segment's \(path) is not a finite number; the log gives "
                + "the models no hold (see the table above)")
        }
        let json = try JSONSerialization.data(
            withJSONObject: segments, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        let repeatChart = analysis.repeatChart()
        let written = try FolderPublishing.publish(output, what: "the fit's files", render: { folder in
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
                try Self.write(String(decoding: json, as: UTF8.self) + "\n", to: folder, "segments.json")
                try Self.write(analysis.survivalChart(), to: folder, "survival.svg")
                if let customers = analysis.customerTable() { try Self.write(customers.encoded(), to: folder, "customers.csv") }
                if let chart = repeatChart { try Self.write(chart, to: folder, "repeat-visits.svg") }
            } catch {
                throw CommandError.ioError("\(OutputPaths.shown(output)): cannot write the fit's files: \(CommandRunner.systemReason(error))")
            }
        }, existing: { existing, _ in
            // An earlier fit's folder is replaced whole, so no file of another log's fit stays behind.
            if FolderPublishing.input(in: existing, of: [source]) != nil { return .refuse(holdsTheLog()) }
            if let foreign = Self.foreignEntry(in: existing) { return .refuse(Self.foreignFolder(foreign)) }
            return .replace
        })
        context.stdout.writeLine("\nRecommended segment: \(analysis.recommendation().reason).")
        if replays {
            context.stdout.writeLine("A scenario replays only users observed for its whole horizon: scenarios of at most "
                + "\(replayDays) day\(replayDays == 1 ? "" : "s") can replay this log's users.")
        }
        context.stdout.writeLine("Segments for a scenario: \(OutputPaths.listed(Path.join(written, "segments.json"))) "
            + "(paste its \"segment\" into population.segments; \"alternatives\" holds the other models, one at a time)")
        if analysis.customerPredictions() != nil {
            context.stdout.writeLine("Per-customer predictions over \(String(format: "%g", analysis.predictionHorizon)) "
                + "\(bgnbdUnit.rawValue): \(OutputPaths.listed(Path.join(written, "customers.csv")))")
        }
        // The repeat-visits chart only when it was drawn (a log without repeat visits has none).
        let charts = ["survival.svg"] + (repeatChart == nil ? [] : ["repeat-visits.svg"])
        context.stdout.writeLine((charts.count == 1 ? "Chart: " : "Charts: ")
            + charts.map { OutputPaths.listed(Path.join(written, $0)) }.joined(separator: ", "))
        // A scenario reads its log as it is, again: from a file, without skipping bad rows, and
        // leaving outliers out.
        var why: [String] = []
        if OutputPaths.entry(at: source) != .regularFile && OutputPaths.entry(at: source) != .link(to: .regularFile) {
            why.append("it came through a pipe or standard input, which cannot be read again")
        }
        if log.skipped > 0 { why.append("a scenario cannot skip its \(log.skipped) bad row\(log.skipped == 1 ? "" : "s")") }
        if let o = log.outliers, !o.excluded, o.visits > 0 {
            why.append("a scenario leaves out the \(o.visits) outlying visit\(o.visits == 1 ? "" : "s") this fit kept")
        }
        if !why.isEmpty {
            context.stderr.writeLine("\(context.commandPath.split(separator: " ").first ?? "remindersim"): warning: "
                + "the resampled and replayed segments read \(OutputPaths.shown(source)) again, as a scenario does: "
                + why.joined(separator: "; ") + "; save the log as a file a scenario can read as it is")
        }
        try StoreAccess.finishOutput(context, saved: "the fit's files are written to \(written)", storedOnce: false)
    }

    /// The longest any user of `log` was observed, from the first visit to the end of observation, in seconds.
    static func longestObservation(_ log: RecordedLog) -> Double {
        log.users.reduce(0) { longest, user in max(longest, user.visits.first.map { log.observationEnd - $0 } ?? 0) }
    }

    /// The longest horizon, in whole days, of a scenario that can replay `log`'s users.
    static func replayDays(_ log: RecordedLog) -> Int {
        let days = (longestObservation(log) / 86_400).rounded(.down)
        return days.isFinite ? Int(min(max(days, 0), 1e9)) : 0
    }

    /// `seconds` as a person reads a duration under a day: seconds, minutes or hours.
    static func duration(_ seconds: Double) -> String {
        seconds < 120 ? String(format: "%.0f s", seconds) : seconds < 7_200 ? String(format: "%.0f min", seconds / 60)
            : String(format: "%.1f h", seconds / 3_600)
    }

    /// The path (`segment.returns.sigma`) of the first number in `value` that is not finite, if any.
    static func nonFinite(_ value: Any, at path: String = "") -> String? {
        switch value {
        case let number as Double: return number.isFinite ? nil : path
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                if let found = nonFinite(object[key]!, at: path.isEmpty ? key : "\(path).\(key)") { return found }
            }
        case let array as [Any]:
            for (i, element) in array.enumerated() { if let found = nonFinite(element, at: "\(path)[\(i)]") { return found } }
        default: break
        }
        return nil
    }

    private static func write(_ text: String, to folder: String, _ name: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: Path.join(folder, name)))
    }

    /// The first entry of `folder` that a fit does not write, if any: such a folder is not replaced.
    /// An entry bearing a fit file's name is a fit's only when it is a regular file that begins as a
    /// fit's file of that name does (`beginsAsWritten`): a file of the user's own that happens to
    /// bear the name is not written over.
    static func foreignEntry(in folder: String) -> String? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.sorted().first { entry in
            guard ReportFiles.workingProcess(entry) == nil else { return false }
            guard files.contains(entry), OutputPaths.entry(at: Path.join(folder, entry)) == .regularFile,
                  let start = OutputPaths.leadingText(of: Path.join(folder, entry)) else { return true }
            return !beginsAsWritten(entry, start)
        }
    }

    /// Whether `start`, the beginning of a file named `name`, is how a fit writes that file.
    static func beginsAsWritten(_ name: String, _ start: String) -> Bool {
        switch name {
        case "segments.json": return start.hasPrefix("{\n  \"alternatives\" : [")
        case "customers.csv": return start.hasPrefix("user,frequency,recency_")
        case "survival.svg":
            return start.hasPrefix("<svg ") && start.contains("<title>Time to the next visit: recorded vs fitted</title>")
        case "repeat-visits.svg":
            return start.hasPrefix("<svg ") && start.contains("<title>Repeat visits in the calibration window</title>")
        default: return false
        }
    }

    /// The file standard input is redirected from, when it is a regular file and the system names it
    /// (Linux's /proc/self/fd/0): the segments then name that file, which a scenario can read again.
    static func redirectedFile() -> String? {
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
              let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/0"),
              target.hasPrefix("/"), OutputPaths.entry(at: target) == .regularFile,
              let file = OutputPaths.identity(of: target), let input = OutputPaths.identity(of: "/dev/stdin"),
              file == input else { return nil }
        return target
    }

    func holdsTheLog() -> CommandError {
        CommandError(.usage, "\(Self.output.name): the folder holds the log \(OutputPaths.shown(data)) itself; "
            + "a fit replaces its folder whole, so name another folder")
    }

    static func foreignFolder(_ entry: String) -> CommandError {
        let what = files.contains(entry) ? "which is not a file an earlier fit wrote" : "which a fit does not write"
        return CommandError(.usage, "\(Self.output.name): the folder holds \(OutputPaths.shown(entry)), \(what); "
            + "a fit replaces its folder whole, so name a new folder or one an earlier fit wrote")
    }
}

extension GapUnit: ArgumentValue {}
