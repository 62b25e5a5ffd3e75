import Foundation
import ReminderSimZlib

/// Reads a gzip file (one or more concatenated members) through the system zlib, chunk by chunk.
struct GzipReader {
    private let path: String
    private var file: gzFile?

    /// Whether the file starts with the gzip magic bytes 1F 8B.
    static func isCompressed(_ path: String) throws(ImportError) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .cannotRead(file: path, reason: FileManager.default.fileExists(atPath: path)
                ? "permission denied" : "no such file")
        }
        defer { try? handle.close() }
        let head: Data?
        do {
            head = try handle.read(upToCount: 2)
        } catch {
            // A directory, or a device that refuses reads: the plain reader reports it in its own words.
            return false
        }
        return head.map { Array($0) == [0x1F, 0x8B] } ?? false
    }

    init(path: String) throws(ImportError) {
        self.path = path
        guard let opened = gzopen(path, "rb") else {
            throw .cannotRead(file: path, reason: "cannot open it for reading")
        }
        file = opened
        gzbuffer(opened, 1 << 17)
    }

    /// Fills `buffer` with decompressed bytes; returns how many, 0 at the end of the data.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ImportError) -> Int {
        guard let file, let base = buffer.baseAddress else { return 0 }
        let count = gzread(file, base, UInt32(min(buffer.count, Int(Int32.max))))
        if count < 0 {
            var code: Int32 = 0
            var message = gzerror(file, &code).map { String(cString: $0) } ?? ""
            // zlib puts the path in front of its message; the caller names the file already.
            if message.hasPrefix(path + ": ") { message.removeFirst(path.count + 2) }
            if code == Z_ERRNO {
                throw .cannotRead(file: path, reason: String(cString: strerror(errno)))
            }
            throw .corruptCompression(file: path, reason: message.isEmpty ? "the compressed data is damaged" : message)
        }
        if count == 0 {
            // zlib reports a file cut short as a clean end unless the stream's state is asked.
            var code: Int32 = 0
            _ = gzerror(file, &code)
            if code != Z_OK {
                throw .corruptCompression(file: path, reason: "the compressed data ends before its last block")
            }
        }
        return Int(count)
    }

    mutating func close() {
        if let file { gzclose(file) }
        file = nil
    }
}
