import Foundation
import ReminderSimTestSupport
import Rendering
import Simulation
import XCTest

/// `readout` and `calibrate --hold-out` from a user's point of view: a finished test's results in, the
/// split, the arms against the simulation and the call out.
final class ReadoutCommandTests: ReminderSimTestCase {
    private let header = "arm,users,delivered,opens,opt_outs,retained_d7,planned_share\n"

    private func json(_ result: CommandResult) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    func testAMismatchedSplitIsFlaggedAndASoundOnePasses() throws {
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.12).canonicalJSON())
        try writeFile("skewed.csv", header + "2d,20000,52000,160000,300,9000,50\n1/2/4d circular,21000,60000,170000,330,9500,50\n")
        try writeFile("sound.csv", header + "2d,20400,52000,160000,300,9000,50\n1/2/4d circular,20600,60000,170000,330,9500,50\n")

        let skewed = try remindersim("readout", "app.json", "skewed.csv", "--users", "300", "--threads", "2", "--json")
        assertExit(skewed, 0)
        let ratio = try XCTUnwrap(try json(skewed)["sampleRatio"] as? [String: Any])
        XCTAssertEqual(ratio["mismatch"] as? Bool, true)
        let p = try XCTUnwrap(ratio["pValue"] as? Double)
        // χ² = 2 × 500² / 20,500 on one degree of freedom: p = erfc(√(χ²/2)).
        XCTAssertEqual(p, erfc((500.0 * 500 / 20_500).squareRoot()), accuracy: 1e-3 * p)

        let sound = try remindersim("readout", "app.json", "sound.csv", "--users", "300", "--threads", "2", "--json")
        assertExit(sound, 0)
        let soundRatio = try XCTUnwrap(try json(sound)["sampleRatio"] as? [String: Any])
        XCTAssertEqual(soundRatio["mismatch"] as? Bool, false)

        // Shares as large as a number can be are the same plan: the mismatch is still found.
        try writeFile("huge.csv", header + "2d,20000,52000,160000,300,9000,1e308\n1/2/4d circular,21000,60000,170000,330,9500,1e308\n")
        let huge = try remindersim("readout", "app.json", "huge.csv", "--users", "300", "--threads", "2", "--json")
        assertExit(huge, 0)
        let hugeRatio = try XCTUnwrap(try json(huge)["sampleRatio"] as? [String: Any])
        XCTAssertEqual(hugeRatio["mismatch"] as? Bool, true)
        XCTAssertEqual(try XCTUnwrap(hugeRatio["pValue"] as? Double), p, accuracy: 1e-12)

        // A share that vanishes beside the other (1e-320 against 1e308) expects nobody in its arm: the
        // 20,000 users there are an infinite mismatch, not a split "as planned".
        try writeFile("vanishing.csv", header + "2d,20000,52000,160000,300,9000,1e-320\n1/2/4d circular,21000,60000,170000,330,9500,1e308\n")
        let vanishing = try remindersim("readout", "app.json", "vanishing.csv", "--users", "300", "--threads", "2", "--json")
        assertExit(vanishing, 0)
        let vanishingRatio = try XCTUnwrap(try json(vanishing)["sampleRatio"] as? [String: Any])
        XCTAssertEqual(vanishingRatio["mismatch"] as? Bool, true, vanishing.stdout)
        XCTAssertEqual(vanishingRatio["pValue"] as? Double, 0)
        let vanishingText = try remindersim("readout", "app.json", "vanishing.csv", "--users", "300", "--threads", "2")
        assertContains(vanishingText.stdout, "Sample ratio: χ² = ∞ on 1 degree of freedom")
        XCTAssertFalse(vanishingText.stdout.contains("inf"), vanishingText.stdout)
        // A share tiny but not vanishing: a huge statistic in powers of ten, not 300 digits.
        try writeFile("tiny.csv", header + "2d,20000,52000,160000,300,9000,1e-300\n1/2/4d circular,21000,60000,170000,330,9500,1\n")
        let tiny = try remindersim("readout", "app.json", "tiny.csv", "--users", "300", "--threads", "2")
        assertExit(tiny, 0)
        let line = try XCTUnwrap(tiny.stdoutLines.first { $0.hasPrefix("Sample ratio") })
        // 20,000²/(41,000 · 10⁻³⁰⁰) + 20,000²/41,000 = 9.756 · 10³⁰³.
        XCTAssertTrue(line.hasPrefix("Sample ratio: χ² = 9.76e303 on 1 degree of freedom"), line)
        XCTAssertLessThan(line.count, 260, line)

        let text = try remindersim("readout", "app.json", "skewed.csv", "--users", "300", "--threads", "2")
        assertExit(text, 0)
        assertContains(text.stdout, "SAMPLE RATIO MISMATCH")
        assertContains(text.stdout, "95% prediction interval")
        assertContains(text.stdout, "No call: no arm to compare with: the results have neither the baseline nor a holdout")
    }

    func testTheCallMatchesAZTestByHandAndTheReportIsWritten() throws {
        // Opens per user of each arm against the holdout, with the per-user variances the readout used.
        var truth = CalibrationFixture.experiment(baseResponse: 0.12)
        truth.users = 2_000
        truth.seed = 91
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.12).canonicalJSON())
        try writeFile("test.csv", try CalibrationFixture.results(of: truth))
        let result = try remindersim("readout", "app.json", "test.csv", "--users", "1000", "--threads", "2", "--json",
                                     "--out", "readout")
        assertExit(result, 0)
        let document = try json(result)
        let comparisons = try XCTUnwrap(document["comparisons"] as? [[String: Any]])
        XCTAssertEqual(comparisons.count, 2)
        let rows = try CalibrationFixture.results(of: truth).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        func opens(_ label: String) throws -> (Double, Double) {
            let row = try XCTUnwrap(rows.first { $0[0] == label })
            return (try XCTUnwrap(Double(row[3])) / (try XCTUnwrap(Double(row[1]))), try XCTUnwrap(Double(row[1])))
        }
        let holdout = try opens("holdout")
        for c in comparisons {
            let label = try XCTUnwrap(c["arm"] as? String)
            let arm = try opens(label)
            let va = try XCTUnwrap(c["armVariance"] as? Double), vb = try XCTUnwrap(c["againstVariance"] as? Double)
            let d = arm.0 - holdout.0
            let se = (va / arm.1 + vb / holdout.1).squareRoot()
            XCTAssertEqual(try XCTUnwrap(c["difference"] as? Double), d, accuracy: 1e-12)
            XCTAssertEqual(try XCTUnwrap(c["z"] as? Double), d / se, accuracy: 1e-9)
            // The default rule: opens lift, at most 5% opting out, no minimum difference.
            let optOuts = try XCTUnwrap(Double(try XCTUnwrap(rows.first { $0[0] == label })[4])) / arm.1
            let call = optOuts > 0.05 ? "don't ship" : d - 1.959_964 * se > 0 ? "ship"
                : d + 1.959_964 * se < 0 ? "don't ship" : "inconclusive at this size"
            XCTAssertEqual(c["call"] as? String, call, "\(c)")
        }
        XCTAssertNotNil(document["needsRecalibrating"] as? Bool)
        let report = try String(contentsOf: workDirectory.appendingPathComponent("readout/readout.md"), encoding: .utf8)
        assertContains(report, "## Sample ratio")
        assertContains(report, "## The call")
        MarkdownCheck.assertTablesIntact(report)
        XCTAssertTrue(FileManager.default.fileExists(atPath: workDirectory.appendingPathComponent("readout/readout.html").path))
        // The tables as CSV, row for row the JSON's numbers.
        func table(_ name: String) throws -> (header: [String], rows: [[String: String]]) {
            let records = try CSVTable.parse(String(contentsOf: workDirectory.appendingPathComponent("readout/\(name)"), encoding: .utf8))
            let header = try XCTUnwrap(records.first)
            return (header, records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) })
        }
        // Each CSV row against its JSON object: texts equal, numbers (CSV column, JSON key) equal but for the last
        // digit, which Foundation's JSON reader rounds.
        func assertSame(_ rows: [[String: String]], _ objects: [[String: Any]], texts: [String], numbers: [(String, String)]) throws {
            XCTAssertEqual(rows.count, objects.count)
            for (row, object) in zip(rows, objects) {
                for name in texts { XCTAssertEqual(row[name], object[name] as? String, name) }
                for (column, key) in numbers {
                    let expected = try XCTUnwrap(object[key] as? Double, key)
                    XCTAssertEqual(try XCTUnwrap(Double(try XCTUnwrap(row[column]))), expected, accuracy: 1e-13 * max(1, abs(expected)), column)
                }
            }
        }
        let compared = try table("readout_comparisons.csv")
        XCTAssertEqual(compared.header, ["arm", "against", "measure", "arm_users", "against_users", "difference", "difference_low",
                                         "difference_high", "standard_error", "z", "p_value", "call"])
        XCTAssertEqual(compared.rows.map { $0["measure"] }, comparisons.map { _ in "opens_lift_per_user" })
        try assertSame(compared.rows, comparisons, texts: ["arm", "call"],
                       numbers: [("difference", "difference"), ("difference_low", "lower"), ("difference_high", "upper"), ("z", "z")])
        let moments = try XCTUnwrap((document["predictions"] as? [String: Any])?["moments"] as? [[String: Any]])
        try assertSame(try table("readout_predictions.csv").rows, moments, texts: ["arm", "rate"],
                       numbers: [("observed", "observed"), ("predicted", "predicted"), ("predicted_low", "lower"), ("predicted_high", "upper")])
        let split = try table("readout_split.csv")
        let arms = try XCTUnwrap((document["sampleRatio"] as? [String: Any])?["arms"] as? [[String: Any]])
        XCTAssertEqual(split.rows.map { $0["arm"] }, arms.map { $0["arm"] as? String })
        XCTAssertEqual(split.rows.map { $0["users"].flatMap { Int($0) } }, arms.map { $0["users"] as? Int })

        // A readout again replaces its own files; a file of the user's by their names is left alone, and refused.
        let again = try remindersim("readout", "app.json", "test.csv", "--users", "300", "--out", "readout")
        assertExit(again, 0)
        try FileManager.default.createDirectory(atPath: workPath("mine"), withIntermediateDirectories: true)
        for name in ["readout.md", "readout.html", "readout_split.csv", "readout_predictions.csv", "readout_comparisons.csv"] {
            try writeFile("mine/\(name)", "notes of mine\n")
            let refused = try remindersim("readout", "app.json", "test.csv", "--users", "300", "--out", "mine")
            assertExit(refused, 64)
            assertContains(refused.stderr, "mine/\(name): already exists and is not a readout")
            XCTAssertEqual(try String(contentsOfFile: workPath("mine/\(name)"), encoding: .utf8), "notes of mine\n")
            try FileManager.default.removeItem(atPath: workPath("mine/\(name)"))
        }
    }

    /// Draws asked of a response model without uncertainty: nothing to draw, and a warning says so.
    func testModelDrawsOfAPointModelAreIgnoredWithAWarning() throws {
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.12).canonicalJSON())
        try writeFile("sound.csv", header + "2d,20400,52000,160000,300,9000,50\n1/2/4d circular,20600,60000,170000,330,9500,50\n")
        let result = try remindersim("readout", "app.json", "sound.csv", "--users", "300", "--model-draws", "5")
        assertExit(result, 0)
        assertContains(result.stderr, "--model-draws: the scenario gives its response without uncertainty")
        assertContains(result.stderr, "the arms are predicted under the model as given")
        assertContains(result.stdout, "the response model as given")
    }

    func testHoldOutPredictsTheArmLeftOut() throws {
        var truth = CalibrationFixture.experiment(baseResponse: 0.15)
        truth.users = 20_000
        truth.seed = 78
        try writeFile("past-test.csv", try CalibrationFixture.results(of: truth))
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.1).canonicalJSON())
        let result = try remindersim("calibrate", "app.json", "past-test.csv", "--fit", "baseResponse", "--hold-out",
                                     "1/2/4d circular", "--users", "2000", "--threads", "2")
        assertExit(result, 0)
        assertContains(result.stdout, "on 2 arms of past-test.csv")
        assertContains(result.stdout, "The held-out arm 1/2/4d circular, predicted by the model fitted without it")
        XCTAssertTrue(result.stdoutLines.contains { $0.hasPrefix("1/2/4d circular") && $0.contains("opens") }, result.stdout)

        let unknown = try remindersim("calibrate", "app.json", "past-test.csv", "--hold-out", "weekly")
        assertExit(unknown, 64)
        assertContains(unknown.stderr, "--hold-out: the results have no arm \"weekly\"")
    }

    /// The scenario names a baseline the results have no arm for: the arms are compared with the
    /// holdout, as when the scenario names none, for `readout` and for `calibrate`.
    func testResultsWithoutTheBaselinesArmAreComparedWithTheHoldout() throws {
        var app = CalibrationFixture.experiment(baseResponse: 0.12)
        app.baseline = "1/2/4d circular"
        try writeFile("app.json", try app.canonicalJSON())
        var truth = CalibrationFixture.experiment(baseResponse: 0.15)
        truth.users = 20_000
        let rows = try CalibrationFixture.results(of: truth).split(separator: "\n").filter { !$0.hasPrefix("1/2/4d circular,") }
        try writeFile("no-baseline.csv", rows.joined(separator: "\n") + "\n")
        let result = try remindersim("readout", "app.json", "no-baseline.csv", "--users", "300", "--threads", "2", "--json")
        assertExit(result, 0)
        let comparisons = try XCTUnwrap(try json(result)["comparisons"] as? [[String: Any]], result.stdout)
        XCTAssertEqual(comparisons.count, 1, result.stdout)
        XCTAssertEqual(comparisons.first?["arm"] as? String, "2d")
        XCTAssertEqual(comparisons.first?["against"] as? String, "holdout")
        let calibrated = try remindersim("calibrate", "app.json", "no-baseline.csv", "--fit", "baseResponse", "--users", "2000",
                                         "--threads", "2", "--out", "fitted.json")
        assertExit(calibrated, 0)
    }

    func testRefusalsAndHelp() throws {
        try writeFile("app.json", try CalibrationFixture.experiment(baseResponse: 0.12).canonicalJSON())
        // Each refused results file, with its exit status and the words of its error.
        let refused: [(file: String, text: String, status: Int32, message: String)] = [
            ("bad.csv", header + "2d,100,30,80,1,40,\n", 65, "bad.csv:2: column 7 (planned_share): is empty"),
            ("holdout.csv", "arm,users,delivered,opens,opt_outs\nholdout,1000,0,5000,0\n", 65,
             "holdout.csv: the results have no arm but the holdout"),
        ]
        for r in refused {
            try writeFile(r.file, r.text)
            let result = try remindersim("readout", "app.json", r.file, "--users", "200")
            assertExit(result, r.status)
            assertContains(result.stderr, r.message)
        }
        assertExit(try remindersim("readout", "app.json", "missing.csv"), 66)
        // --csv-safe concerns the CSV files, which only --out writes.
        let safe = try remindersim("readout", "app.json", "holdout.csv", "--csv-safe")
        assertExit(safe, 64)
        assertContains(safe.stderr, "--csv-safe: only with --out, which writes the CSV files")
        let help = try remindersim("readout", "--help")
        assertExit(help, 0)
        assertContains(help.stdout, "planned_share")
        assertContains(help.stdout, "readout_comparisons.csv")
    }
}
