import Foundation
import ReminderSimZlib

/// Reads a gzip file (one or more concatenated members) through the system zlib, chunk by chunk; input
/// that does not start with gzip's magic bytes (a plain log through a pipe) is passed through as it is.
///
/// The members are inflated one after the other with zlib's own stream API rather than its `gz*`
/// functions, which stop without a word at bytes after a member that do not start another one: here
/// every byte must belong to a member, so a damaged second member, or anything appended, is an error
/// that says where, not visits silently left out.
struct GzipReader {
    private let path: String
    private var file: UnsafeMutablePointer<FILE>?
    /// The inflate state, at a fixed address (zlib keeps a pointer back to it).
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutablePointer<UInt8>
    private static let inputSize = 1 << 17
    private var inputEnded = false
    /// Bytes read from the file so far.
    private var bytesRead: Int64 = 0
    private var inflating = false
    /// Plain input, passed through.
    private var plain = false
    /// The last member ended with nothing after it.
    private var finished = false
    /// Where the current member starts in the file.
    private var memberStart: Int64 = 0

    /// Why `path` cannot be opened for reading, in the system's words but for the two most common
    /// ("no such file", "permission denied"): a loop of symbolic links says so rather than "no such file".
    static func openFailure(_ path: String) -> String {
        guard access(path, R_OK) != 0 else { return "it could not be opened" }
        let code = errno
        switch code {
        case ENOENT, ENOTDIR: return "no such file"
        case EACCES: return "permission denied"
        default: return String(cString: strerror(code))
        }
    }

    /// Whether the file starts with the gzip magic bytes 1F 8B.
    static func isCompressed(_ path: String) throws(ImportError) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .cannotRead(file: path, reason: Self.openFailure(path))
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
        guard let opened = fopen(path, "rb") else {
            throw .cannotRead(file: path, reason: "cannot open it for reading: \(String(cString: strerror(errno)))")
        }
        try self.init(file: opened, path: path)
    }

    /// Reads what is left of an open descriptor (standard input) from where it stands, without
    /// opening anything again: a pipe whose writer is gone, or a file partly read already, is read
    /// as it is. `path` names it in messages.
    init(descriptor: Int32, path: String) throws(ImportError) {
        let copy = dup(descriptor)
        guard copy >= 0, let opened = fdopen(copy, "rb") else {
            if copy >= 0 { Foundation.close(copy) }
            throw .cannotRead(file: path, reason: "cannot read it: \(String(cString: strerror(errno)))")
        }
        try self.init(file: opened, path: path)
    }

    private init(file opened: UnsafeMutablePointer<FILE>, path: String) throws(ImportError) {
        self.path = path
        file = opened
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        input = .allocate(capacity: Self.inputSize)
        do throws(ImportError) {
            try start()
        } catch {
            close()
            throw error
        }
    }

    /// Reads the first bytes, and starts inflating when they are gzip's.
    private mutating func start() throws(ImportError) {
        try refill()
        // Two bytes tell gzip from plain text; a first read of a pipe may bring only one.
        while stream.pointee.avail_in < 2 && !inputEnded { try refill() }
        if stream.pointee.avail_in >= 2 && stream.pointee.next_in[0] == 0x1F && stream.pointee.next_in[1] == 0x8B {
            // 16 + 15: a gzip wrapper, the largest window.
            guard inflateInit2_(stream, 16 + 15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw .corruptCompression(file: path, reason: "zlib could not start")
            }
            inflating = true
        } else {
            plain = true
        }
    }

    /// Reads the next chunk of the file after what the stream holds, which it must have used up.
    private mutating func refill() throws(ImportError) {
        guard let file, !inputEnded else { return }
        let kept = Int(stream.pointee.avail_in)
        if kept > 0 && stream.pointee.next_in != input { input.update(from: stream.pointee.next_in, count: kept) }
        let count = fread(input + kept, 1, Self.inputSize - kept, file)
        if count == 0 {
            if ferror(file) != 0 { throw .cannotRead(file: path, reason: String(cString: strerror(errno))) }
            inputEnded = true
        }
        bytesRead += Int64(count)
        stream.pointee.next_in = input
        stream.pointee.avail_in = UInt32(kept + count)
    }

    /// Fills `buffer` with decompressed bytes; returns how many, 0 at the end of the data.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ImportError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0, file != nil, !finished else { return 0 }
        let room = min(buffer.count, Int(UInt32.max))
        if plain {
            if stream.pointee.avail_in == 0 { try refill() }
            let count = min(room, Int(stream.pointee.avail_in))
            base.copyMemory(from: stream.pointee.next_in, byteCount: count)
            stream.pointee.next_in += count
            stream.pointee.avail_in -= UInt32(count)
            if count == 0 { finished = true }
            return count
        }
        stream.pointee.next_out = base.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(room)
        while stream.pointee.avail_out > 0 {
            if stream.pointee.avail_in == 0 {
                try refill()
                if stream.pointee.avail_in == 0 {
                    // The file ends: cleanly only between members.
                    if stream.pointee.total_in == 0 { finished = true; break }
                    throw .corruptCompression(file: path, reason: "the compressed data ends before its last block")
                }
            }
            let code = inflate(stream, Z_NO_FLUSH)
            switch code {
            case Z_OK:
                continue
            case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                continue  // more input is read above
            case Z_STREAM_END:
                // The member is complete: another may follow, every byte of which must be gzip.
                memberStart = bytesRead - Int64(stream.pointee.avail_in)
                inflateReset(stream)
            case Z_DATA_ERROR where stream.pointee.total_out == 0 && memberStart > 0:
                throw .corruptCompression(file: path, reason: "the \(bytesRead - memberStart) bytes from byte \(memberStart) on "
                    + "are not gzip data (a damaged member, or something appended)")
            case Z_MEM_ERROR:
                throw .corruptCompression(file: path, reason: "out of memory")
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? ""
                throw .corruptCompression(file: path, reason: message.isEmpty ? "the compressed data is damaged" : message)
            }
        }
        return room - Int(stream.pointee.avail_out)
    }

    mutating func close() {
        guard let file else { return }
        if inflating { inflateEnd(stream) }
        inflating = false
        fclose(file)
        self.file = nil
        stream.deinitialize(count: 1).deallocate()
        input.deallocate()
    }
}
