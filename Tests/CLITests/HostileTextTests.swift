import Foundation
import Rendering
import Storage
import ReminderSimTestSupport
import XCTest

/// User text that tries to break SQL, CSV, Markdown, spreadsheets and paths goes through untouched
/// where it is data and harmless where it is shown.
final class HostileTextTests: ReminderSimTestCase {
    /// `count` characters of quotes, pipes, commas, semicolons and line breaks.
    static func hostile(_ count: Int) -> String {
        let piece = "LONG 'q' \"dq\"; a,b | c\n"
        return String(String(repeating: piece, count: count / piece.count + 1).prefix(count))
    }

    /// The longest message and the longest label or rule a scenario may have.
    static let longMessage = hostile(2_000)
    static let longName = hostile(200)

    static let injection = "'); DROP TABLE runs; --"
    static let hyperlink = #"=HYPERLINK("http://x","y")"#

    static let messages = [
        injection,
        #"single ' and double " quotes; semicolons; commas, too"#,
        "two\nlines\r\nand a CRLF",
        #"a | pipe || and \| an escaped one"#,
        hyperlink,
        "+1",
        "@SUM(A1)",
        "-2+3",
        "emoji 🎉 👩‍👩‍👧 e\u{301} combining, \u{202E}reversed",
        "<script>alert('x')</script>",
        longMessage,
    ]

    static let labels = [
        injection,
        hyperlink,
        "+1 @SUM(A1) | \"q\" 'q'; 🎉\nsecond line",
        longName,
        "-minus <script>alert(1)</script>",
    ]

    /// For configuration 1, in original mode, which reads any rule text (it just never matches what it cannot read).
    static let rules = [injection, "=1+1", "a|b", "1 1\n2", "\"q\" 'q'; 🎉", "@SUM(A1)", "+1", "1 1", longName]

    static let name = #"=HYPERLINK("http://x","y") '); DROP TABLE runs; -- "q" 'q';"# + "\nline two | pipe 🎉 ../../x <script>alert(1)</script>"

    func hostileScenario() throws -> Any {
        var scenario: Any = try defaultScenario()
        scenario = try JSONEdit.setting(Self.name, at: "name", in: scenario)
        scenario = try JSONEdit.setting("desc\n# not a heading\n| a | b |\n<script>alert(1)</script>", at: "description", in: scenario)
        scenario = try JSONEdit.setting(5, at: "population.installSpreadDays", in: scenario)
        scenario = try JSONEdit.setting("seg | " + Self.injection + "\n<script>", at: "population.segments[0].name", in: scenario)
        scenario = try JSONEdit.setting([Self.injection: 2, Self.hyperlink: 0.5], at: "response.messageWeights", in: scenario)
        let count = try XCTUnwrap(JSONEdit.value(at: "configurations", in: scenario) as? [Any]).count
        XCTAssertEqual(count, Self.labels.count, "the default scenario should have five configurations")
        for i in 0..<count {
            scenario = try JSONEdit.setting(Self.labels[i], at: "configurations[\(i)].label", in: scenario)
            scenario = try JSONEdit.setting(Self.messages, at: "configurations[\(i)].reminders[0].messages", in: scenario)
        }
        XCTAssertEqual(try JSONEdit.value(at: "configurations[1].mode", in: scenario) as? String, "original")
        scenario = try JSONEdit.setting(Self.rules, at: "configurations[1].cronRules", in: scenario)
        return scenario
    }

    func testHostileTextSurvivesStorageCSVAndMarkdown() throws {
        try writeFile("hostile.json", try JSONEdit.text(try hostileScenario()))
        let run = try remindersim("run", "hostile.json", "--users", "1000", "--days", "20", "--threads", "2")
        assertExit(run, 0)

        // The database holds every text exactly, and its tables are all still there.
        let store = try RunStore(path: workPath("Reports/remindersim.sqlite"), create: false)
        let db = store.database
        let tables = Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.text(0) })
        XCTAssertTrue(tables.isSuperset(of: ["runs", "configurations", "message_stats", "cron_rule_stats"]), "\(tables)")
        XCTAssertEqual(try db.rows("SELECT count(*) FROM runs").first?.integer(0), 1)
        XCTAssertEqual(try db.rows("SELECT scenario_name FROM runs WHERE run_id = 1").first?.text(0), Self.name)
        XCTAssertEqual(try db.rows("SELECT label FROM configurations WHERE run_id = 1 ORDER BY config_index").map { $0.text(0) },
                       ["holdout"] + Self.labels)
        let stored = try db.rows(
            "SELECT config_index, message FROM message_stats WHERE run_id = 1 ORDER BY config_index, reminder_index, message_index")
        XCTAssertEqual(stored.map { $0.text(1) ?? "<not text>" },
                       Array(Array(repeating: Self.messages, count: Self.labels.count).joined()))
        XCTAssertEqual(try db.rows("SELECT rule FROM cron_rule_stats WHERE run_id = 1 AND config_index = 2 ORDER BY rule_index")
            .map { $0.text(0) ?? "<not text>" }, Self.rules)

        // One report folder, directly under Reports, with a name that is one safe path component.
        let reports = try FileManager.default.contentsOfDirectory(atPath: workPath("Reports"))
        let folders = reports.filter { $0.hasSuffix("-1") }
        XCTAssertEqual(folders.count, 1, "expected one report folder in Reports: \(reports)")
        let folderName = try XCTUnwrap(folders.first)
        XCTAssertFalse(folderName.contains("/") || folderName.contains("\n") || folderName.contains("\r"), folderName)
        XCTAssertFalse(folderName.hasPrefix("."), "hidden or parent folder: \(folderName)")
        XCTAssertNil(folderName.rangeOfCharacter(from: CharacterSet(charactersIn: "\"'<>|;\\*?:")), folderName)
        XCTAssertEqual(Set(workTree().filter { !$0.contains("/") }), ["Reports", "hostile.json"],
                       "the run wrote outside Reports")
        assertContains(run.stdout, "report: Reports/\(folderName)/report.md")
        let folder = workDirectory.appendingPathComponent("Reports").appendingPathComponent(folderName)

        // Every CSV equals the database, texts included, exactly by default and with formula leaders
        // quoted with --csv-safe; message_stats checked by hand too.
        for table in StoreCommandTests.tables {
            let csv = try String(contentsOf: folder.appendingPathComponent("\(table).csv"), encoding: .utf8)
            StoreCSV.assertMatches(csv, try store.export(table: table, run: 1), name: "\(table).csv")
        }
        assertExit(try remindersim("report", "1", "--out", "safe", "--csv-safe"), 0)
        let safe = workDirectory.appendingPathComponent("safe").appendingPathComponent(folderName)
        for table in StoreCommandTests.tables {
            let csv = try String(contentsOf: safe.appendingPathComponent("\(table).csv"), encoding: .utf8)
            StoreCSV.assertMatches(csv, try store.export(table: table, run: 1), name: "safe \(table).csv", safe: true)
        }
        let messageCSV = try CSVTable.parse(String(contentsOf: safe.appendingPathComponent("message_stats.csv"), encoding: .utf8))
        let column = try XCTUnwrap(messageCSV.first?.firstIndex(of: "message"), "message_stats.csv has no message column")
        let fields = messageCSV.dropFirst().map { $0.count > column ? $0[column] : "<missing>" }
        XCTAssertEqual(fields.count, Self.messages.count * Self.labels.count)
        for (i, field) in fields.enumerated() {
            let message = Self.messages[i % Self.messages.count]
            XCTAssertEqual(field, StoreCSV.expectedText(message, safe: true), "a formula gets exactly one leading quote, nothing else does")
        }
        // A signed number is no formula: it keeps its text, so it joins with the database.
        XCTAssertTrue(fields.contains("'" + Self.hyperlink) && fields.contains("+1") && fields.contains("'@SUM(A1)")
                      && fields.contains("'-2+3") && fields.contains(Self.injection) && fields.contains(Self.longMessage))

        // report.md: no broken table, no live HTML, every text shown on its line.
        let report = try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8)
        MarkdownCheck.assertTablesIntact(report)
        XCTAssertNil(report.range(of: "<script", options: .caseInsensitive), "raw <script in report.md")
        let lines = report.components(separatedBy: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("# ReminderSim report: ") ?? false, lines.first ?? "")
        XCTAssertEqual(lines.count > 1 ? lines[1] : nil, "", "the title must be one line")
        for message in Self.messages {
            assertContains(report, "| \(Markdown.escapeCell(message)) |", "report.md (message \(message.prefix(30).debugDescription))")
        }
        for label in Self.labels {
            assertContains(report, "| \(Markdown.escapeCell(label)) |", "report.md (label \(label.prefix(30).debugDescription))")
        }
        for rule in Self.rules {
            assertContains(report, "| \(Markdown.escapeCell(rule)) |", "report.md (rule \(rule.prefix(30).debugDescription))")
        }
        for text in ["line two", "second line", "# not a heading", "LONG"] {
            XCTAssertFalse(lines.contains { $0.hasPrefix(text) }, "a line break in user text started a line with \(text)")
        }

        // report.html: well-formed, its only script the page's own, every label shown as text.
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        let page = SVGInspection(html)
        XCTAssertNil(page.error, "report.html is not well-formed with hostile text: \(String(describing: page.error))")
        XCTAssertEqual(html.components(separatedBy: "<script").count - 1, 1, "report.html runs only its own script")
        for label in [Self.injection, Self.hyperlink, "-minus <script>alert(1)</script>"] {
            let escaped = label.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            XCTAssertTrue(html.contains(escaped), "report.html does not show label \(label.debugDescription) as text")
        }

        // The charts show the labels too: still well-formed SVG, with no live markup from the labels.
        let svgs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".svg") }
        for name in svgs {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            if let problem = SVGInspection.svgProblem(data) { XCTFail("\(name): \(problem)") }
            XCTAssertNil(String(decoding: data, as: UTF8.self).range(of: "<script", options: .caseInsensitive),
                         "\(name) holds a raw <script")
        }

        // The terminal commands keep one line per run and per configuration.
        let list = try remindersim("list")
        assertExit(list, 0)
        XCTAssertEqual(list.stdoutLines.count, 2, "list should be a header and one row:\n\(list.stdout)")
        // The same run again, on one thread: its same users, compared.
        assertExit(try remindersim("run", "hostile.json", "--users", "1000", "--days", "20", "--threads", "1"), 0)
        let compare = try remindersim("compare", "1", "latest")
        assertExit(compare, 0)
        let compareCSV = try remindersim("compare", "1", "latest", "--format", "csv")
        let rows = try CSVTable.parse(compareCSV.stdout).count - 1
        // As stored by default, so that it joins with the database; with a ' before a formula for a spreadsheet.
        let safeCSV = try remindersim("compare", "1", "latest", "--format", "csv", "--csv-safe")
        assertExit(safeCSV, 0)
        let rawLabels = Set(try CSVTable.parse(compareCSV.stdout).dropFirst().map { $0[2] })
        let safeLabels = Set(try CSVTable.parse(safeCSV.stdout).dropFirst().map { $0[2] })
        XCTAssertTrue(rawLabels.contains(Self.hyperlink), "\(rawLabels)")
        XCTAssertTrue(safeLabels.contains("'" + Self.hyperlink) && !safeLabels.contains(Self.hyperlink), "\(safeLabels)")
        assertExit(try remindersim("compare", "1", "latest", "--csv-safe"), 64)
        XCTAssertGreaterThanOrEqual(rows, Self.labels.count)
        XCTAssertEqual(compare.stdoutLines.count, 3 + 1 + 1 + rows,
                       "compare should be two run lines, a note, a blank, a header and one line per row:\n\(compare.stdout)")
        let export = try remindersim("export", "1", "--csv", "out")
        assertExit(export, 0)
        for table in StoreCommandTests.tables {
            XCTAssertEqual(try Data(contentsOf: workDirectory.appendingPathComponent("out/\(table).csv")),
                           try Data(contentsOf: folder.appendingPathComponent("\(table).csv")), "\(table).csv")
        }
    }

    /// The terminal summary of `run` shows user text on one line, as `list` and `compare` do: a line
    /// break in the scenario name or a label must not start a new line of output.
    func testRunSummaryKeepsUserTextOnOneLine() throws {
        try writeFile("hostile.json", try JSONEdit.text(try hostileScenario()))
        let run = try remindersim("run", "hostile.json", "--users", "300", "--days", "20", "--threads", "1")
        assertExit(run, 0)
        let first = run.stdoutLines.first ?? ""
        XCTAssertTrue(first.hasPrefix("Scenario \"") && first.contains("300 users, 20 days from"),
                      "the first line should name the scenario and its size: \(first.prefix(300))")
        for fragment in ["line two", "second line", "LONG"] {
            let broken = run.stdoutLines.filter { $0.hasPrefix(fragment) }
            XCTAssertTrue(broken.isEmpty, "\(broken.count) lines of run's output start with \"\(fragment)\", "
                          + "text that follows a line break inside the scenario's name or a label")
        }
    }

    /// A tune's summary (terminal and report) and its report's tables show hostile labels as run's do:
    /// on one line, hidden and control characters by their codes, no fence closed, no table broken,
    /// no live HTML; the configuration to paste reads back as the same label.
    func testTuneReportShowsHostileLabelsHarmlessly() throws {
        let labels = ["bidi\u{202E}evil", "```\n# injected heading", "back\\|slash", "ctl\u{7}bell\u{7F}", "<b>x</b>"]
        var scenario: Any = try defaultScenario()
        scenario = try JSONEdit.setting(labels.enumerated().map { i, label in
            ["label": label, "reminders": [["messages": ["hi"], "timePeriods": [i + 1]]]] as [String: Any]
        }, at: "configurations", in: scenario)
        scenario = try JSONEdit.setting([String: Double](), at: "response.messageWeights", in: scenario)
        scenario = try JSONEdit.setting(["baseline": labels[0], "space": ["periods": ["min": 5, "max": 6]]] as [String: Any],
                                        at: "tune", in: scenario)
        try writeFile("tune.json", try JSONEdit.text(scenario))
        let tune = try remindersim("tune", "tune.json", "--users", "300", "--days", "20", "--install-spread", "7", "--threads", "2", "--out", "out")
        assertExit(tune, 0)
        let folder = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: workPath("out")).first)
        let report = try String(contentsOfFile: workPath("out/\(folder)/report.md"), encoding: .utf8)
        let html = try String(contentsOfFile: workPath("out/\(folder)/report.html"), encoding: .utf8)
        for (name, text) in [("stdout", tune.stdout), ("report.md", report), ("report.html", html)] {
            let raw = text.unicodeScalars.filter {
                $0 != "\n" && ($0.properties.generalCategory == .control || $0.properties.generalCategory == .format)
            }
            XCTAssertTrue(raw.isEmpty, "\(name) holds raw control or format characters: \(raw.map { String($0.value, radix: 16) })")
        }
        XCTAssertNil(html.range(of: "<b>x"), "report.html holds the label's HTML raw")
        XCTAssertFalse(tune.stdoutLines.contains { $0.hasPrefix("# injected") }, "a label's line break reached the terminal")
        MarkdownCheck.assertTablesIntact(report)
        XCTAssertFalse(report.components(separatedBy: "\n").contains { $0.hasPrefix("# injected") }, "a label closed the fence")
        XCTAssertEqual(html.components(separatedBy: "<h1").count, 2, "one heading of the first level, the title")
        for label in labels.dropFirst() { assertContains(report, "| \(Markdown.escapeCell(label)) |", "report.md") }
        // The configuration to paste is JSON whose escapes read back as the label itself.
        let after = try XCTUnwrap(tune.stdout.components(separatedBy: "Configuration to paste into the scenario's \"configurations\":\n").last)
        let paste = try XCTUnwrap(after.components(separatedBy: "\n}\n").first) + "\n}"
        let configuration = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(paste.utf8)) as? [String: Any])
        XCTAssertEqual(configuration["label"] as? String, labels[0])
    }

    /// The longest scenario name, 200 characters of 4 bytes each, cannot be a folder name as it is
    /// (255 bytes at most on common file systems): the report folder must still be made, under a
    /// shortened name.
    func testLongScenarioNameStillGetsAReportFolder() throws {
        var scenario: Any = try defaultScenario()
        scenario = try JSONEdit.setting(String(repeating: "🎉", count: 200), at: "name", in: scenario)
        try writeFile("long.json", try JSONEdit.text(scenario))
        let run = try remindersim("run", "long.json", "--users", "300", "--days", "35", "--threads", "1")
        assertExit(run, 0)
        let folders = try FileManager.default.contentsOfDirectory(atPath: workPath("Reports")).filter { $0.hasSuffix("-1") }
        XCTAssertEqual(folders.count, 1)
        if let folder = folders.first {
            XCTAssertLessThanOrEqual(folder.utf8.count, 255)
            XCTAssertTrue(FileManager.default.fileExists(atPath: workPath("Reports/\(folder)/report.md")))
        }
        XCTAssertLessThan(run.stderr.utf8.count, 2_000, "an error should not repeat the whole name")
    }

    /// A NUL character is valid JSON ("\u0000") and a valid Swift string; it must not cut the text short.
    func testNULCharacterIsKeptInTheDatabase() throws {
        var scenario: Any = try defaultScenario()
        scenario = try JSONEdit.setting("before\u{0}after", at: "name", in: scenario)
        scenario = try JSONEdit.setting(["a\u{0}b", "plain"], at: "configurations[0].reminders[0].messages", in: scenario)
        scenario = try JSONEdit.setting([String: Any](), at: "response.messageWeights", in: scenario)
        try writeFile("nul.json", try JSONEdit.text(scenario))
        let run = try remindersim("run", "nul.json", "--users", "300", "--days", "35", "--threads", "1")
        assertExit(run, 0)
        // Read back as hex: reading text through a C string would itself stop at the NUL.
        let db = try openDatabase("Reports/remindersim.sqlite")
        func hex(_ text: String) -> String { text.utf8.map { String(format: "%02X", $0) }.joined() }
        XCTAssertEqual(try db.rows("SELECT hex(scenario_name) FROM runs").first?.text(0), hex("before\u{0}after"))
        XCTAssertEqual(try db.rows("SELECT hex(message) FROM message_stats WHERE config_index = 1 ORDER BY message_index")
            .map { $0.text(0) }, [hex("a\u{0}b"), hex("plain")])
    }
}
