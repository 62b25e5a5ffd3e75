import XCTest
@testable import RecordedData

final class UserTableTests: XCTestCase {
    func testIndicesMatchADictionaryThroughGrowth() {
        var table = UserTable()
        var reference: [String: Int] = [:]
        // Short ids are packed into the slot key, long ones hashed: cover both, plus near-collisions.
        let ids = (0..<30_000).map { k in
            switch k % 4 {
            case 0: return "u\(k % 9_000)"
            case 1: return "customer-\(k % 7_000)-of-a-rather-long-name"
            case 2: return String(repeating: "x", count: 1 + k % 12)
            default: return "\u{00E9}\(k % 500)"
            }
        }
        for id in ids {
            var bytes = Array(id.utf8)
            let (index, isNew) = bytes.withUnsafeMutableBufferPointer { table.index(of: UnsafeBufferPointer($0)) }
            if let known = reference[id] {
                XCTAssertEqual(index, known, id)
                XCTAssertFalse(isNew, id)
            } else {
                XCTAssertEqual(index, reference.count, id)
                XCTAssertTrue(isNew, id)
                reference[id] = index
            }
            XCTAssertTrue(bytes.withUnsafeMutableBufferPointer { table.matches(index, UnsafeBufferPointer($0)) })
        }
        XCTAssertEqual(table.count, reference.count)
        for (id, index) in reference { XCTAssertEqual(table.id(index), id) }
    }
}
