import Foundation
import ReminderSimZlib

/// A ZIP archive read in place: its central directory lists the entries, and each entry is streamed
/// from its local header through zlib, without temporary files. An entry that is itself gzip data (as
/// the `.json.gz` files of an analytics export) is decompressed once more on the way.
///
/// Only what exports use is read: stored and deflated entries on one disk, without encryption or ZIP64.
struct ZipArchive {
    /// One file of the archive, as its central directory describes it.
    struct Entry {
        /// The path inside the archive, as stored (shown escaped in messages).
        let name: String
        /// The entry's fixed-size record in the central directory (46 bytes).
        let record: [UInt8]

        /// General-purpose flags; bit 0 marks an encrypted entry.
        var flags: UInt16 { record.le16(8) }
        /// 0: stored, 8: deflated.
        var method: UInt16 { record.le16(10) }
        /// CRC-32 of the uncompressed data.
        var crc: UInt32 { record.le32(16) }
        var compressedSize: Int { Int(record.le32(20)) }
        var size: Int { Int(record.le32(24)) }
        /// Where the entry's local header starts in the file.
        var localHeaderOffset: Int { Int(record.le32(42)) }
    }

    /// The central directory is read whole; a larger one is refused.
    static let maximumDirectoryBytes = 64 << 20

    let path: String
    private(set) var entries: [Entry] = []
    private let handle: FileHandle
    private let fileSize: Int

    /// Whether the file starts as a ZIP archive does (a local header, or the end record of an empty one).
    static func isArchive(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4), head.count == 4 else { return false }
        let bytes = Array(head)
        return bytes == [0x50, 0x4B, 0x03, 0x04] || bytes == [0x50, 0x4B, 0x05, 0x06]
    }

    init(path: String) throws(ImportError) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .cannotRead(file: path, reason: "cannot open it for reading")
        }
        self.handle = handle
        do {
            fileSize = Int(try handle.seekToEnd())
        } catch {
            throw .cannotRead(file: path, reason: systemReason(error))
        }
        entries = try readDirectory()
    }

    func close() {
        try? handle.close()
    }

    private func damaged(_ reason: String) -> ImportError {
        .corruptCompression(file: path, reason: reason)
    }

    /// `count` bytes at `offset`, or fewer at the end of the file.
    private func bytes(at offset: Int, count: Int) throws(ImportError) -> [UInt8] {
        do {
            try handle.seek(toOffset: UInt64(offset))
            return Array(try handle.read(upToCount: count) ?? Data())
        } catch {
            throw .cannotRead(file: path, reason: systemReason(error))
        }
    }

    /// The entries, from the end-of-central-directory record found in the archive's last 64 KiB.
    private func readDirectory() throws(ImportError) -> [Entry] {
        let tailStart = max(0, fileSize - (22 + 0xFFFF))
        let tail = try bytes(at: tailStart, count: fileSize - tailStart)
        var found: Int?
        var i = tail.count - 22
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4B, tail[i + 2] == 0x05, tail[i + 3] == 0x06 {
                found = i
                break
            }
            i -= 1
        }
        guard let end = found else {
            throw damaged("no end-of-central-directory record: the archive is cut short or is not a ZIP archive")
        }
        let record = Array(tail[end...])
        let count = Int(record.le16(10))
        let directorySize = Int(record.le32(12)), directoryOffset = Int(record.le32(16))
        guard record.le16(4) == 0, record.le16(6) == 0, record.le16(8) == record.le16(10) else {
            throw damaged("archives split over several disks are not supported")
        }
        guard count != 0xFFFF, directoryOffset != 0xFFFF_FFFF, directorySize != 0xFFFF_FFFF else {
            throw damaged("ZIP64 archives are not supported")
        }
        guard directorySize <= Self.maximumDirectoryBytes else {
            throw damaged("the central directory is larger than \(LogImporter.size(Self.maximumDirectoryBytes))")
        }
        guard directoryOffset + directorySize <= tailStart + end else {
            throw damaged("the central directory lies beyond the end of the archive (it is cut short)")
        }
        let directory = try bytes(at: directoryOffset, count: directorySize)
        var entries: [Entry] = []
        var at = 0
        for n in 0..<count {
            guard at + 46 <= directory.count, directory.le32(at) == 0x0201_4B50 else {
                throw damaged("central directory entry \(n + 1) of \(count) is damaged")
            }
            let nameLength = Int(directory.le16(at + 28))
            let skip = nameLength + Int(directory.le16(at + 30)) + Int(directory.le16(at + 32))
            guard at + 46 + skip <= directory.count else {
                throw damaged("central directory entry \(n + 1) of \(count) is damaged")
            }
            entries.append(Entry(
                name: String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self),
                record: Array(directory[at..<(at + 46)])))
            at += 46 + skip
        }
        try Self.checkApart(entries, damaged)
        return entries
    }

    /// Throws unless every entry's local header and data lie apart from the others': entries whose
    /// data is shared (each one read again, a small archive standing for terabytes) are refused.
    /// An entry takes at least its 30-byte local header and its compressed data.
    static func checkApart(_ entries: [Entry], _ damaged: (String) -> ImportError) throws(ImportError) {
        let order = entries.indices.sorted { entries[$0].localHeaderOffset < entries[$1].localHeaderOffset }
        for (a, b) in zip(order, order.dropFirst()) {
            let first = entries[a]
            guard first.localHeaderOffset + 30 + first.compressedSize <= entries[b].localHeaderOffset else {
                throw damaged("entries \(Excerpt.name(first.name, limit: 200)) and \(Excerpt.name(entries[b].name, limit: 200)) "
                    + "share their data (the archive repeats one entry's data under other names)")
            }
        }
    }

    /// Streams the decompressed content of `entry` to `body`, `chunkSize` compressed bytes at a time,
    /// checking its CRC-32; a gzip entry is decompressed again. Problems name the archive and the entry.
    /// An entry may expand to `bombRatio` times its compressed size, and to `bombFloor` bytes whatever it is.
    static let bombRatio = 2_000
    static let bombFloor = 64 << 20

    func read(_ entry: Entry, chunkSize: Int, into body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let place = "\(path) entry \(Excerpt.name(entry.name, limit: 200))"
        func damaged(_ reason: String) -> ImportError { .corruptCompression(file: place, reason: reason) }
        guard entry.flags & 1 == 0 else { throw damaged("the entry is encrypted") }
        guard entry.method == 0 || entry.method == 8 else {
            throw damaged("compression method \(entry.method) is not supported (only stored and deflated entries are)")
        }
        let header = try bytes(at: entry.localHeaderOffset, count: 30)
        guard header.count == 30, header.le32(0) == 0x0403_4B50 else {
            throw damaged("no local header where the central directory puts it (the archive is cut short or damaged)")
        }
        let dataStart = entry.localHeaderOffset + 30 + Int(header.le16(26)) + Int(header.le16(28))
        guard dataStart + entry.compressedSize <= fileSize else {
            throw damaged("the entry's data runs past the end of the archive (it is cut short)")
        }
        var inner = InnerStream(place: place)
        var crc = crc32(0, nil, 0)
        var produced = 0
        // What the entry may expand to: a gzip file inside a deflated entry is compressed twice, and a bomb
        // of a few kilobytes would take minutes to read; no log compresses 2,000-fold.
        let allowed = max(Self.bombFloor, Self.bombRatio * max(entry.compressedSize, 1))
        var delivered = 0
        func counted(_ bytes: UnsafeRawBufferPointer) throws {
            delivered += bytes.count
            guard delivered <= allowed else {
                throw damaged("it expands more than \(Self.bombRatio)-fold, past \(Self.bombFloor >> 20) MiB: a decompression bomb, "
                    + "not a log")
            }
            try body(bytes)
        }
        func deliver(_ bytes: UnsafeRawBufferPointer) throws {
            crc = crc32(crc, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
            produced += bytes.count
            // Past the size the directory states: damaged, and not worth reading to its end.
            guard produced <= entry.size else { throw damaged("the data does not match the archive's checksum (CRC-32) or size") }
            try inner.feed(bytes, into: counted)
        }
        let inflater = entry.method == 8 ? try Inflater(windowBits: -MAX_WBITS, place: place) : nil
        var ended = inflater == nil
        var offset = 0
        while offset < entry.compressedSize {
            let chunk = try bytes(at: dataStart + offset, count: min(chunkSize, entry.compressedSize - offset))
            guard !chunk.isEmpty else { throw damaged("the entry's data runs past the end of the archive (it is cut short)") }
            offset += chunk.count
            try chunk.withUnsafeBytes { raw in
                if let inflater {
                    guard !ended else { return }
                    ended = try inflater.inflate(raw, output: deliver).ended
                } else {
                    try deliver(raw)
                }
            }
        }
        guard ended else { throw damaged("the compressed data ends before its last block") }
        guard produced == entry.size, crc == uLong(entry.crc) else {
            throw damaged("the data does not match the archive's checksum (CRC-32) or size")
        }
        try inner.finish()
    }
}

/// The decompressed bytes of an archive entry: passed on as they are, or gunzipped when they start
/// with the gzip magic bytes (members one after another, as gzip allows).
private struct InnerStream {
    let place: String
    private var decided = false
    private var head: [UInt8] = []
    private var gzip: Inflater?
    private var memberEnded = false

    init(place: String) { self.place = place }

    mutating func feed(_ bytes: UnsafeRawBufferPointer, into body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !bytes.isEmpty else { return }
        if decided { return try pass(bytes, into: body) }
        head.append(contentsOf: bytes)
        guard head.count >= 2 else { return }
        decided = true
        if head[0] == 0x1F, head[1] == 0x8B { gzip = try Inflater(windowBits: MAX_WBITS + 16, place: place) }
        let held = head
        head = []
        try held.withUnsafeBytes { try pass($0, into: body) }
    }

    private mutating func pass(_ bytes: UnsafeRawBufferPointer, into body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let gzip else { return try body(bytes) }
        var rest = bytes
        while !rest.isEmpty {
            if memberEnded {
                gzip.reset()
                memberEnded = false
            }
            let (ended, consumed) = try gzip.inflate(rest, output: body)
            rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
            memberEnded = ended
            if !ended { break }
        }
    }

    mutating func finish() throws {
        if !decided, !head.isEmpty {
            throw ImportError.corruptCompression(file: place, reason: "the entry holds a single byte, not a log")
        }
        if gzip != nil, !memberEnded {
            throw ImportError.corruptCompression(file: place, reason: "the gzip data ends before its last block")
        }
    }
}

/// One zlib inflate stream: raw deflate (negative window bits) or gzip (window bits + 16).
private final class Inflater {
    private var stream = z_stream()
    private var output = [UInt8](repeating: 0, count: 1 << 16)
    private let place: String

    init(windowBits: Int32, place: String) throws(ImportError) {
        self.place = place
        guard inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .corruptCompression(file: place, reason: "zlib cannot start decompressing")
        }
    }

    deinit { inflateEnd(&stream) }

    func reset() { inflateReset(&stream) }

    /// Decompresses `input`, handing each piece of output to `body`; stops at the end of the stream.
    /// Returns whether the stream ended and how much of `input` it used.
    func inflate(_ input: UnsafeRawBufferPointer, output body: (UnsafeRawBufferPointer) throws -> Void) throws
        -> (ended: Bool, consumed: Int)
    {
        guard let base = input.baseAddress, !input.isEmpty else { return (false, 0) }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        let capacity = output.count
        while true {
            let (code, produced) = output.withUnsafeMutableBytes { out -> (Int32, Int) in
                stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(capacity)
                let code = ReminderSimZlib.inflate(&stream, Z_NO_FLUSH)
                return (code, capacity - Int(stream.avail_out))
            }
            if produced > 0 { try output.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<produced])) } }
            let consumed = input.count - Int(stream.avail_in)
            switch code {
            case Z_STREAM_END: return (true, consumed)
            case Z_OK, Z_BUF_ERROR:
                if stream.avail_in == 0 && produced < capacity { return (false, consumed) }
                if code == Z_BUF_ERROR && produced == 0 { return (false, consumed) }
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "the compressed data is damaged"
                throw ImportError.corruptCompression(file: place, reason: message)
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// The little-endian 16-bit value at `i` of a ZIP record; the caller has checked the bounds.
    fileprivate func le16(_ i: Int) -> UInt16 { UInt16(self[i]) | UInt16(self[i + 1]) << 8 }
    /// The little-endian 32-bit value at `i`.
    fileprivate func le32(_ i: Int) -> UInt32 { UInt32(le16(i)) | UInt32(le16(i + 2)) << 16 }
}
