/// The gzip file format (RFC 1952) around DEFLATE data: App Store Connect delivers its
/// Summary Sales and financial reports as `.txt.gz`.
///
/// Every member of the file is read (a file of several members is their contents one after
/// the other, as `gzip -dc` gives it): the header with its optional fields (`FEXTRA`,
/// `FNAME`, `FCOMMENT`, and `FHCRC`, which is checked), the DEFLATE data (`Inflater`), and
/// the trailer, whose CRC-32 and length (ISIZE, modulo 2³²) must match what was decoded.
/// Zero bytes after the last member (padding) are allowed; anything else is an error.
/// The output is bounded (`limit`): a file that decompresses to more is refused.
enum Gzip {
    /// At most this many bytes are decompressed from one file (1 GiB): far above any
    /// report, and a bound on what a malicious file can make the reader hold.
    static let defaultLimit = 1 << 30

    /// A file that starts with gzip's magic bytes 1F 8B (whatever its name).
    static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// The contents of every member of the gzip file `bytes`, one after the other.
    static func decompress(_ bytes: [UInt8], limit: Int = defaultLimit) throws(GzipError)
        -> [UInt8]
    {
        var out: [UInt8] = []
        var p = 0
        repeat {
            p = try member(bytes, at: p, into: &out, limit: limit)
            if bytes[p...].allSatisfy({ $0 == 0 }) { break }
            guard p + 1 < bytes.count, bytes[p] == 0x1F, bytes[p + 1] == 0x8B else {
                throw GzipError(
                    offset: p,
                    "\(bytes.count - p) bytes after the end of the gzip data are not another gzip member"
                )
            }
        } while true
        return out
    }

    private enum Flag {
        static let headerCRC: UInt8 = 0x02
        static let extra: UInt8 = 0x04
        static let name: UInt8 = 0x08
        static let comment: UInt8 = 0x10
        static let reserved: UInt8 = 0xE0
    }

    /// Reads the member at `start`, appending its contents to `out`; returns the offset
    /// after its trailer.
    private static func member(_ bytes: [UInt8], at start: Int, into out: inout [UInt8], limit: Int)
        throws(GzipError) -> Int
    {
        func cutShort(_ what: String) -> GzipError {
            GzipError(offset: bytes.count, "the gzip file is cut short (in the \(what))")
        }
        guard bytes.count - start >= 10 else { throw cutShort("header") }
        guard bytes[start] == 0x1F, bytes[start + 1] == 0x8B else {
            throw GzipError(offset: start, "not a gzip member (no magic bytes 1F 8B)")
        }
        guard bytes[start + 2] == 8 else {
            throw GzipError(
                offset: start + 2,
                "compression method \(bytes[start + 2]) is not DEFLATE (8)")
        }
        let flags = bytes[start + 3]
        guard flags & Flag.reserved == 0 else {
            throw GzipError(offset: start + 3, "reserved header flags are set")
        }
        var p = start + 10
        if flags & Flag.extra != 0 {
            guard bytes.count - p >= 2 else { throw cutShort("extra field") }
            let length = Int(bytes[p]) | Int(bytes[p + 1]) << 8
            p += 2
            guard bytes.count - p >= length else { throw cutShort("extra field") }
            p += length
        }
        for (flag, what) in [(Flag.name, "file name"), (Flag.comment, "comment")]
        where flags & flag != 0 {
            guard let end = bytes[p...].firstIndex(of: 0) else { throw cutShort(what) }
            p = end + 1
        }
        if flags & Flag.headerCRC != 0 {
            guard bytes.count - p >= 2 else { throw cutShort("header CRC") }
            let stored = UInt16(bytes[p]) | UInt16(bytes[p + 1]) << 8
            let computed = UInt16(truncatingIfNeeded: CRC32.checksum(bytes[start..<p]))
            guard stored == computed else {
                throw GzipError(offset: p, "the header's CRC does not match: the header is corrupt")
            }
            p += 2
        }
        let memberStart = out.count
        var inflater = Inflater(bytes, at: p)
        do { try inflater.inflate(into: &out, limit: limit) } catch {
            throw GzipError(offset: error.offset, error.message)
        }
        p = inflater.position
        guard bytes.count - p >= 8 else { throw cutShort("trailer") }
        let storedCRC = littleEndian32(bytes, p)
        let storedSize = littleEndian32(bytes, p + 4)
        let crc = CRC32.checksum(out[memberStart...])
        guard storedCRC == crc else {
            throw GzipError(
                offset: p,
                "the CRC-32 of the data does not match the trailer's (\(hex(crc)), not \(hex(storedCRC))): the data is corrupt"
            )
        }
        let size = UInt32(truncatingIfNeeded: out.count - memberStart)
        guard storedSize == size else {
            throw GzipError(
                offset: p + 4,
                "the data is \(out.count - memberStart) bytes, the trailer says \(storedSize) (modulo 2^32)"
            )
        }
        return p + 8
    }

    private static func littleEndian32(_ bytes: [UInt8], _ p: Int) -> UInt32 {
        UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16
            | UInt32(bytes[p + 3]) << 24
    }

    private static func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// A gzip file could not be decompressed: what is wrong and the byte offset in the file
/// where it was found.
struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    let offset: Int
    let message: String

    init(offset: Int, _ message: String) {
        self.offset = offset
        self.message = message
    }

    var description: String { "\(message) (at byte offset \(offset))" }
}
