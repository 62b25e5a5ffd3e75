import Foundation
import ReminderSimZlib

/// Compressed files built in memory for tests: gzip members and ZIP archives, as analytics exports
/// ship them.
enum ExportFixtures {
    /// `data` deflated: raw (window bits −15) or as one gzip member (window bits 31).
    static func deflate(_ data: [UInt8], gzip: Bool) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, 6, Z_DEFLATED, gzip ? 31 : -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var input = data
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        let written = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer -> Int in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                _ = ReminderSimZlib.deflate(&stream, Z_FINISH)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output[..<written])
    }

    static func gzip(_ text: String) -> [UInt8] { deflate(Array(text.utf8), gzip: true) }

    /// A ZIP archive of deflated entries, in order, with its central directory.
    static func zip(_ entries: [(name: String, content: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        func le16(_ v: Int, _ into: inout [UInt8]) { into += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int, _ into: inout [UInt8]) { le16(v & 0xFFFF, &into); le16(v >> 16 & 0xFFFF, &into) }
        for entry in entries {
            let name = Array(entry.name.utf8)
            let packed = deflate(entry.content, gzip: false)
            let crc = Int(entry.content.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
            let offset = out.count
            le32(0x0403_4B50, &out); le16(20, &out); le16(0, &out); le16(8, &out); le32(0, &out)
            le32(crc, &out); le32(packed.count, &out); le32(entry.content.count, &out)
            le16(name.count, &out); le16(0, &out)
            out += name + packed
            le32(0x0201_4B50, &directory); le16(20, &directory); le16(20, &directory); le16(0, &directory)
            le16(8, &directory); le32(0, &directory); le32(crc, &directory); le32(packed.count, &directory)
            le32(entry.content.count, &directory); le16(name.count, &directory)
            for _ in 0..<4 { le16(0, &directory) }
            le32(0, &directory); le32(offset, &directory)
            directory += name
        }
        let directoryOffset = out.count
        out += directory
        le32(0x0605_4B50, &out); le16(0, &out); le16(0, &out); le16(entries.count, &out); le16(entries.count, &out)
        le32(directory.count, &out); le32(directoryOffset, &out); le16(0, &out)
        return out
    }
}
