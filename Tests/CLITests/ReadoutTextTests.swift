@testable import ReminderSimCLI
import XCTest

/// How `readout` writes its statistics: two decimals up to a million, powers of ten past it, so that an
/// absurd arm gives a short figure rather than a line of digits.
final class ReadoutTextTests: XCTestCase {
    func testStatisticsStayShortWhateverTheirSize() {
        XCTAssertEqual(ReadoutCommand.zText(3.812), "+3.81")
        XCTAssertEqual(ReadoutCommand.zText(-24.19), "-24.19")
        XCTAssertEqual(ReadoutCommand.zText(-123_456_789), "-1.23e08")
        XCTAssertEqual(ReadoutCommand.zText(.infinity), "+∞")
        XCTAssertEqual(ReadoutCommand.zText(.nan), "n/a")
        XCTAssertEqual(ReadoutCommand.statisticText(1_357.294), "1357.29")
        XCTAssertEqual(ReadoutCommand.statisticText(4.2e15), "4.2e15")
        XCTAssertEqual(ReadoutCommand.statisticText(.infinity), "∞")
    }
}
