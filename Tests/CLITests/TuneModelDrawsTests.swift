import Foundation
import ReminderSimTestSupport
import XCTest

/// `tune` under an uncertain response model: its final stage is decided again under the model's draws.
final class TuneModelDrawsTests: ReminderSimTestCase {
    static let datasets = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets")

    /// `Datasets/tune-periods.json` with a small space, a short run and `optOutPerDelivery` given as `optOut`.
    func scenario(optOut: Any) throws -> URL {
        let data = try Data(contentsOf: Self.datasets.appendingPathComponent("tune-periods.json"))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["horizonDays"] = 30
        var population = try XCTUnwrap(json["population"] as? [String: Any])
        population["installSpreadDays"] = 10
        json["population"] = population
        var tune = try XCTUnwrap(json["tune"] as? [String: Any])
        tune["space"] = ["periods": ["min": 1, "max": 6], "sequenceLength": ["min": 1, "max": 1]]
        json["tune"] = tune
        var response = try XCTUnwrap(json["response"] as? [String: Any])
        response["optOutPerDelivery"] = optOut
        json["response"] = response
        return try writeFile("tune.json", JSONSerialization.data(withJSONObject: json))
    }

    func recommendation(_ file: URL, _ extra: String...) throws -> [String: Any] {
        let result = try remindersim(arguments: ["tune", file.path, "--users", "600", "--threads", "2", "--out", "out", "--json"] + extra)
        assertExit(result, 0)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        return try XCTUnwrap(doc["recommendation"] as? [String: Any], result.stdout)
    }

    func testFinalistsAreDecidedUnderTheDrawsAndARangeOfNoWidthKeepsTheWinner() throws {
        let point = try recommendation(try scenario(optOut: 0.004))
        XCTAssertNil(point["modelDraws"])
        let winner = try XCTUnwrap((point["configuration"] as? [String: Any])?["label"] as? String)

        let flat = try recommendation(try scenario(optOut: ["value": 0.004, "low": 0.004, "high": 0.004]), "--model-draws", "3")
        let draws = try XCTUnwrap(flat["modelDraws"] as? [String: Any], "\(flat)")
        XCTAssertEqual(draws["draws"] as? Int, 3)
        XCTAssertEqual(draws["recommended"] as? String, winner)
        XCTAssertEqual((flat["sensitivity"] as? [Any])?.count, 0, "the draws take the sensitivity runs' place")

        let wide = try recommendation(try scenario(optOut: ["value": 0.004, "low": 0.001, "high": 0.03]), "--model-draws", "6")
        let standings = try XCTUnwrap((wide["modelDraws"] as? [String: Any])?["configurations"] as? [[String: Any]])
        let total = standings.reduce(0.0) { $0 + ($1["probabilityBest"] as? Double ?? 0) }
        let none = try XCTUnwrap((wide["modelDraws"] as? [String: Any])?["noneFeasible"] as? Double)
        XCTAssertEqual(total + none, 1, accuracy: 1e-12)
    }
}
