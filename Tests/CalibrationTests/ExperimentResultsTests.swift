import Simulation
import XCTest
@testable import Calibration

final class ExperimentResultsTests: XCTestCase {
    private func problem(_ text: String) -> ResultsError? {
        do {
            _ = try ExperimentResults.parse(text, file: "past.csv")
            XCTFail("expected a problem in:\n\(text)")
            return nil
        } catch {
            return error
        }
    }

    func testReadsArmsWithOptionalColumns() throws {
        let r = try ExperimentResults.parse("""
            arm,users,delivered,opens,opt_outs,retained_d7,attributed\r
            holdout,1000,0,8000,0,220,\r
            "2d",1000,3000,8400,60,231,900\r

            """, file: "past.csv")
        XCTAssertEqual(r.arms, [
            ExperimentResults.Arm(label: "holdout", users: 1000, delivered: 0, opens: 8000, optOuts: 0, retainedD7: 220, line: 2),
            ExperimentResults.Arm(label: "2d", users: 1000, delivered: 3000, opens: 8400, optOuts: 60, retainedD7: 231,
                                  attributed: 900, line: 3),
        ])
    }

    /// RFC 4180 quoting: an arm whose label holds a comma or a quote, as the tool's own CSV writes
    /// it, and blanks around a quoted field; a quote left open or text after one is a problem.
    func testQuotedFieldsHoldCommasAndQuotes() throws {
        let text = "arm,users,delivered,opens,opt_outs\n" + "holdout,1000,0,8000,0\n" + #""2,d",1000,3000,8400,60"# + "\n"
            + #" "say ""hi""" , 900,2000,7000,30"# + "\n"
        let r = try ExperimentResults.parse(text, file: "past.csv")
        XCTAssertEqual(r.arms.map(\.label), ["holdout", "2,d", "say \"hi\""])
        XCTAssertEqual(r.arms.map(\.users), [1000, 1000, 900])
        let header = "arm,users,delivered,opens,opt_outs\n"
        XCTAssertEqual(problem(header + "\"2d,1000,3000,8400,60\n")?.description,
                       "past.csv:2: field 1: its quote is not closed before the end of the file")
        // A quoted label may hold a line break, as the tool's own CSV files write one; the rows after it
        // keep their line numbers.
        let multiline = try ExperimentResults.parse(header + "\"two\nlines\",1000,3000,8400,60\r\nholdout,1000,0,8000,0\n",
                                                    file: "past.csv")
        XCTAssertEqual(multiline.arms.map(\.label), ["two\nlines", "holdout"])
        XCTAssertEqual(multiline.arms.map(\.line), [2, 4])
        XCTAssertEqual(problem(header + "\"two\nlines\",1000,3000,8400,60\nholdout,1000,0,8000\n")?.description,
                       "past.csv:4: expected 5 fields as in the header, found 4")
        XCTAssertEqual(problem(header + "\"2\"d,1000,3000,8400,60\n")?.description,
                       "past.csv:2: field 1: text after its closing quote")
        XCTAssertEqual(try ExperimentResults.splitFields(",a, \"\" ,").get(), ["", "a", "", ""])
    }

    func testEveryProblemNamesLineColumnAndReason() {
        let header = "arm,users,delivered,opens,opt_outs\n"
        XCTAssertEqual(problem("")?.description, "past.csv:1: the file is empty: expected a header and one row per arm")
        XCTAssertEqual(problem(header)?.description, "past.csv:2: no arms: expected one row per arm after the header")
        XCTAssertEqual(problem("arm,users,delivered,opens\n")?.description,
                       "past.csv:1: the header lacks the column opt_outs (required: arm, users, delivered, opens, opt_outs)")
        XCTAssertEqual(problem("arm,users,delivered,opens,opt_outs,clicks\n")?.description,
                       "past.csv:1: column 6: unknown column 'clicks'; expected arm, users, delivered, opens, opt_outs, "
                       + "retained_d7, retained_d30, attributed, planned_share")
        XCTAssertEqual(problem(header + "2d,1000,3000,8400\n")?.description,
                       "past.csv:2: expected 5 fields as in the header, found 4")
        XCTAssertEqual(problem(header + "2d,1000,-3,8400,1\n")?.description,
                       "past.csv:2: column 3 (delivered): expected a whole number from 0 to 9007199254740991, got '-3'")
        XCTAssertEqual(problem(header + "2d,0,3,8400,1\n")?.description, "past.csv:2: column 2 (users): must be > 0")
        XCTAssertEqual(problem(header + "2d,10,3,84,11\n")?.description,
                       "past.csv:2: column 5 (opt_outs): 11 is more than the arm's 10 users")
        XCTAssertEqual(problem("arm,users,delivered,opens,opt_outs,attributed\n2d,10,3,84,1,85\n")?.description,
                       "past.csv:2: column 6 (attributed): 85 is more than the arm's 84 opens")
        XCTAssertNoThrow(try ExperimentResults.parse("arm,users,delivered,opens,opt_outs,attributed\n2d,10,3,84,1,84\n", file: "past.csv"))
        XCTAssertEqual(problem(header + "2d,10,3,84,1\n\n2d,10,3,84,1\n")?.description,
                       "past.csv:4: column 1 (arm): arm '2d' is already on line 2")
        XCTAssertEqual(problem(header + ",10,3,84,1\n")?.description, "past.csv:2: column 1 (arm): is empty")
        XCTAssertEqual(problem("arm,users,delivered,opens,opt_outs,planned_share\n2d,10,3,84,1,0x10\n")?.description,
                       "past.csv:2: column 6 (planned_share): expected a number > 0, got '0x10'")
        XCTAssertEqual(problem(header + "2d,10,\u{1B}[2J,84,1\n")?.description,
                       "past.csv:2: column 3 (delivered): expected a whole number from 0 to 9007199254740991, got '\\x1B[2J'")
        // Counts a readout keeps exactly: each at most 2^53 − 1, and so the arms' users together.
        XCTAssertEqual(problem(header + "2d,9007199254740992,3,84,1\n")?.description,
                       "past.csv:2: column 2 (users): expected a whole number from 0 to 9007199254740991, got '9007199254740992'")
        XCTAssertEqual(problem(header + "holdout,9007199254740991,0,84,0\n2d,1,0,84,0\n")?.description,
                       "past.csv:3: column 2 (users): the arms' users add up to more than 9007199254740991")
    }

    /// A quote left open near the top of a large file is found in one pass over its lines: each
    /// line's quotes are counted once, not the whole record's again at every line.
    func testAQuoteLeftOpenInALargeFileIsFoundAtOnce() {
        let text = "arm,users,delivered,opens,opt_outs\n\"holdout" + String(repeating: "\nx", count: 200_000) + "\n"
        let started = Date()
        XCTAssertEqual(problem(text)?.description, "past.csv:2: field 1: its quote is not closed before the end of the file")
        // Counted again at every line, the quotes took minutes here.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testResultsThatDoNotFitTheScenarioAreRefused() throws {
        let scenario = smallScenario()
        func refusal(_ arms: [ExperimentResults.Arm], _ parameters: [ResponseParameter] = [.baseResponse]) -> CalibrationError? {
            var o = Calibration.Options()
            o.users = 200
            do {
                _ = try Calibration.fit(scenario: scenario, results: ExperimentResults(arms: arms), parameters: parameters, options: o)
                XCTFail("expected a refusal")
                return nil
            } catch let error as CalibrationError {
                return error
            } catch {
                XCTFail("unexpected \(error)")
                return nil
            }
        }
        let holdout = ExperimentResults.Arm(label: "holdout", users: 100, delivered: 0, opens: 800, optOuts: 0, line: 2)
        let twoDays = ExperimentResults.Arm(label: "2d", users: 100, delivered: 300, opens: 840, optOuts: 6, line: 3)
        let unknown = ExperimentResults.Arm(label: "weekly", users: 100, delivered: 300, opens: 840, optOuts: 6, line: 4)
        XCTAssertEqual(refusal([holdout, unknown])?.description,
                       "arm \"weekly\" is not a configuration of the scenario (its arms: \"holdout\", \"1/2/4d circular\", \"2d\")")
        XCTAssertEqual(refusal([holdout, unknown])?.line, 4)
        var noisy = holdout
        noisy.delivered = 5
        XCTAssertEqual(refusal([noisy, twoDays])?.kind, .mismatch)
        XCTAssertEqual(refusal([holdout])?.kind, .notIdentified, "no reminder arm")
        let fatigue = refusal([holdout, twoDays], [.baseResponse, .fatigue])
        XCTAssertEqual(fatigue?.kind, .notIdentified)
        XCTAssertTrue(fatigue?.description.hasPrefix("fatigue cannot be identified from a single arm with one period") ?? false,
                      fatigue?.description ?? "")
    }
}
