import Foundation
import Testing

@testable import RateCard

/// `Gzip` and `Inflater` against an independent answer: data generated here (seeded) is
/// compressed by the system `gzip` and by Python's `gzip` and `zlib` (levels 0, 1, 6 and 9,
/// with and without a file name, every zlib strategy, a small window, full flushes, several
/// members, every optional header field), decompressed by ours and compared byte for byte.
/// Then cut-short and corrupt files: every one is a `GzipError`, never a trap, and a file
/// that decompresses at all gives exactly the original.
@Suite struct GzipTests {
    /// The generated inputs: empty, one byte, random bytes, long runs, report-like text,
    /// repeats just inside the 32 KiB window, and a mixture; all but the first two are more
    /// than 64 KiB.
    static let inputs: [(name: String, bytes: [UInt8])] = {
        var rng = SplitMix64(seed: 1952)
        func random(_ n: Int) -> [UInt8] {
            (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
        var runs: [UInt8] = []
        while runs.count < 100_000 {
            runs += repeatElement(
                UInt8.random(in: 0...3, using: &rng), count: Int.random(in: 1...2_000, using: &rng))
        }
        var text = ""
        let skus = ["demo.credits.100", "demo.credits.500", "demo.plan.monthly"]
        let countries = ["GB", "US", "DE", "FR", "JP", "BR", "IN"]
        while text.utf8.count < 100_000 {
            let sku = skus.randomElement(using: &rng)!
            let units = Int.random(in: -3...40, using: &rng)
            text +=
                "APPLE\tUS\t\(sku)\t\t\tIA1\t\(units)\t.\(Int.random(in: 10...99, using: &rng))\t11/01/2026\t11/30/2026\tGBP\t\(countries.randomElement(using: &rng)!)\tGBP\t123456\t0.99\n"
        }
        let block = random(30_000)
        var far: [UInt8] = []
        for _ in 0..<4 { far += block }
        far += random(20_000)
        var mixed: [UInt8] = []
        while mixed.count < 150_000 {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: mixed += random(Int.random(in: 1...500, using: &rng))
            case 1: mixed += Array("the value of a credit sold in each period ".utf8)
            default:
                guard !mixed.isEmpty else { continue }
                let distance = Int.random(in: 1...min(32_768, mixed.count), using: &rng)
                let length = Int.random(in: 3...600, using: &rng)
                for _ in 0..<length { mixed.append(mixed[mixed.count - distance]) }
            }
        }
        return [
            ("empty", []), ("one-byte", [0x78]), ("random", random(70_000)), ("runs", runs),
            ("text", Array(text.utf8)), ("far", far), ("mixed", mixed),
        ]
    }()

    /// Writes every variant Python makes of each input in `dir/in` to `dir/out`.
    static let python = #"""
        import gzip, io, os, sys, zlib
        d = sys.argv[1]
        def raw(data, level=6, wbits=-15, mem=8, strategy=zlib.Z_DEFAULT_STRATEGY, flushes=0):
            c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)
            if flushes:
                step = max(1, len(data) // flushes)
                out = b"".join(c.compress(data[k:k + step]) + c.flush(zlib.Z_FULL_FLUSH)
                               for k in range(0, len(data), step))
                return out + c.flush()
            return c.compress(data) + c.flush()
        for name in sorted(os.listdir(os.path.join(d, "in"))):
            data = open(os.path.join(d, "in", name), "rb").read()
            out = {}
            for level in (0, 1, 6, 9):
                out["gz-%d" % level] = gzip.compress(data, compresslevel=level, mtime=0)
                b = io.BytesIO()
                with gzip.GzipFile(filename=name + ".txt", mode="wb", fileobj=b,
                                   compresslevel=level, mtime=1764547200) as f:
                    f.write(data)
                out["gzname-%d" % level] = b.getvalue()
                out["raw-%d" % level] = raw(data, level)
            out["raw-fixed"] = raw(data, strategy=zlib.Z_FIXED)
            out["raw-huffman"] = raw(data, strategy=zlib.Z_HUFFMAN_ONLY)
            out["raw-rle"] = raw(data, strategy=zlib.Z_RLE)
            out["raw-filtered"] = raw(data, strategy=zlib.Z_FILTERED)
            out["raw-window9"] = raw(data, level=9, wbits=-9, mem=1)
            out["raw-flushes"] = raw(data, flushes=7)
            header = bytes([0x1F, 0x8B, 8, 0x1F]) + (1764547200).to_bytes(4, "little") + bytes([0, 3])
            header += (6).to_bytes(2, "little") + b"AP\x02\x00hi" + b"report.txt\x00" + b"a comment\x00"
            header += (zlib.crc32(header) & 0xFFFF).to_bytes(2, "little")
            out["gz-allflags"] = header + raw(data, 9) + zlib.crc32(data).to_bytes(4, "little") \
                + (len(data) & 0xFFFFFFFF).to_bytes(4, "little")
            half = len(data) // 2
            out["gz-members"] = gzip.compress(data[:half], 9) + gzip.compress(data[half:], 1) \
                + b"\x00" * 7
            out["crc"] = str(zlib.crc32(data)).encode()
            for k, v in out.items():
                open(os.path.join(d, "out", name + "." + k), "wb").write(v)
        """#

    static func run(_ arguments: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "\(arguments.prefix(2)) failed")
        return data
    }

    @Test func pythonGzipAndZlibAgree() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        for sub in ["in", "out"] {
            try FileManager.default.createDirectory(
                at: dir.url.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        for (name, bytes) in Self.inputs {
            try Data(bytes).write(to: dir.url.appendingPathComponent("in/\(name)"))
        }
        let script = dir.url.appendingPathComponent("make.py")
        try Data(Self.python.utf8).write(to: script)
        _ = try Self.run(["python3", script.path, dir.path])
        var checked = 0
        for (name, bytes) in Self.inputs {
            func output(_ variant: String) throws -> [UInt8] {
                [UInt8](
                    try Data(contentsOf: dir.url.appendingPathComponent("out/\(name).\(variant)")))
            }
            let crc = String(decoding: try output("crc"), as: UTF8.self)
            #expect(String(CRC32.checksum(bytes[...])) == crc, "CRC-32 of \(name)")
            for level in [0, 1, 6, 9] {
                for variant in ["gz-\(level)", "gzname-\(level)"] {
                    #expect(try Gzip.decompress(try output(variant)) == bytes, "\(name).\(variant)")
                    checked += 1
                }
            }
            for variant in ["gz-allflags", "gz-members"] {
                #expect(try Gzip.decompress(try output(variant)) == bytes, "\(name).\(variant)")
                checked += 1
            }
            for variant in [
                "raw-0", "raw-1", "raw-6", "raw-9", "raw-fixed", "raw-huffman", "raw-rle",
                "raw-filtered", "raw-window9", "raw-flushes",
            ] {
                let deflated = try output(variant)
                var inflater = Inflater(deflated, at: 0)
                var out: [UInt8] = []
                try inflater.inflate(into: &out, limit: Gzip.defaultLimit)
                #expect(out == bytes, "\(name).\(variant)")
                #expect(inflater.position == deflated.count, "\(name).\(variant) ends at its end")
                checked += 1
            }
        }
        #expect(checked == Self.inputs.count * 20)
    }

    @Test func systemGzipAgrees() throws {
        let dir = try TemporaryFolder()
        defer { dir.cleanup() }
        for (name, bytes) in Self.inputs {
            let file = dir.url.appendingPathComponent("\(name).txt")
            try Data(bytes).write(to: file)
            for flags in [["-1"], ["-6"], ["-9"], ["-9", "-n"]] {
                let gz = [UInt8](try Self.run(["gzip", "-c"] + flags + [file.path]))
                #expect(Gzip.isGzip(gz))
                #expect(try Gzip.decompress(gz) == bytes, "\(name) gzip \(flags)")
            }
        }
    }

    /// A small gzip file from the fixtures (`gzip` of the example sales report).
    static let fixture: [UInt8] = {
        (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: appleFixture("sales-2026-11.txt.gz")))))
            ?? []
    }()

    @Test func everyCutShortFileIsAnError() throws {
        let plain = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: appleFixture("sales-2026-11.txt"))))
        #expect(try Gzip.decompress(Self.fixture) == plain)
        for n in 2..<Self.fixture.count {
            #expect(throws: GzipError.self, "cut at \(n)") {
                try Gzip.decompress(Array(Self.fixture[0..<n]))
            }
        }
        // A cut inside the data names the end of the file as the place.
        #expect(throws: GzipError(offset: 200, "the compressed data is cut short")) {
            try Gzip.decompress(Array(Self.fixture[0..<200]))
        }
        #expect(throws: GzipError(offset: 400, "the gzip file is cut short (in the trailer)")) {
            try Gzip.decompress(Array(Self.fixture[0..<400]))
        }
    }

    /// Flipping any one bit of the file gives an error or, where gzip does not look (the
    /// time stamp, the operating system, the unused bits of the last byte of data), the
    /// original: never other data.
    @Test func aFlippedBitIsAnErrorOrHarmless() throws {
        let plain = try Gzip.decompress(Self.fixture)
        var errors = 0
        for k in 2..<Self.fixture.count {
            for bit in [0, 3, 7] {
                var b = Self.fixture
                b[k] ^= 1 << bit
                do {
                    #expect(try Gzip.decompress(b) == plain, "byte \(k) bit \(bit)")
                } catch { errors += 1 }
            }
        }
        #expect(errors > (Self.fixture.count - 12) * 3 * 9 / 10)
    }

    @Test func headerAndTrailerErrors() throws {
        let f = Self.fixture
        let n = try Gzip.decompress(f).count
        #expect(n == 1_216)
        var method = f
        method[2] = 9
        #expect(throws: GzipError(offset: 2, "compression method 9 is not DEFLATE (8)")) {
            try Gzip.decompress(method)
        }
        var reserved = f
        reserved[3] = 0x20
        #expect(throws: GzipError(offset: 3, "reserved header flags are set")) {
            try Gzip.decompress(reserved)
        }
        var size = f
        size[f.count - 4] ^= 1
        #expect(
            throws: GzipError(
                offset: f.count - 4, "the data is 1216 bytes, the trailer says 1217 (modulo 2^32)")
        ) { try Gzip.decompress(size) }
        #expect(
            throws: GzipError(
                offset: f.count,
                "3 bytes after the end of the gzip data are not another gzip member")
        ) { try Gzip.decompress(f + [0x1F, 0x8C, 0]) }
        #expect(try Gzip.decompress(f + f + [0, 0]).count == 2 * n)
        #expect(throws: GzipError(offset: 119, "the data decompresses to more than 100 bytes")) {
            try Gzip.decompress(f, limit: 100)
        }
        // FHCRC set over a header whose CRC is wrong.
        var header: [UInt8] = [0x1F, 0x8B, 8, 0x02, 0, 0, 0, 0, 0, 3, 0x12, 0x34]
        header += [0x03, 0x00]  // an empty final fixed block
        header += [0, 0, 0, 0, 0, 0, 0, 0]
        #expect(
            throws: GzipError(offset: 10, "the header's CRC does not match: the header is corrupt")
        ) { try Gzip.decompress(header) }
        let crc = CRC32.checksum(header[0..<10])
        header[10] = UInt8(crc & 0xFF)
        header[11] = UInt8(crc >> 8 & 0xFF)
        #expect(try Gzip.decompress(header) == [])
    }

    @Test func malformedDeflateData() throws {
        func inflate(_ bytes: [UInt8]) throws(Inflater.Failure) -> [UInt8] {
            var i = Inflater(bytes, at: 0)
            var out: [UInt8] = []
            try i.inflate(into: &out, limit: 1 << 20)
            return out
        }
        #expect(throws: Inflater.Failure(offset: 0, message: "a block of the reserved type 3")) {
            try inflate([0x07])
        }
        #expect(
            throws: Inflater.Failure(
                offset: 1, message: "a stored block's length 5 does not match its complement")
        ) { try inflate([0x01, 0x05, 0x00, 0x00, 0x00]) }
        #expect(try inflate([0x01, 0x02, 0x00, 0xFD, 0xFF, 0x41, 0x42]) == Array("AB".utf8))
        // A fixed block: the literal "a", then a match of 3 at distance 2, with 1 byte
        // decoded.
        var w = BitWriter()
        w.bits(1, 1)
        w.bits(1, 2)
        w.code(0x30 + 0x61, 8)
        w.code(1, 7)  // length symbol 257: 3
        w.code(1, 5)  // distance symbol 1: 2
        #expect(
            throws: Inflater.Failure(
                offset: 2,
                message: "a distance of 2 reaches before the start of the data (1 bytes decoded)")
        ) { try inflate(w.bytes) }
        var ok = BitWriter()
        ok.bits(1, 1)
        ok.bits(1, 2)
        ok.code(0x30 + 0x61, 8)
        ok.code(0x30 + 0x62, 8)
        ok.code(1, 7)
        ok.code(1, 5)
        ok.code(0, 7)  // end of block
        #expect(try inflate(ok.bytes) == Array("ababa".utf8))
        // A dynamic block whose code-length code is over-subscribed (every one of 19 codes
        // of length 1).
        var over = BitWriter()
        over.bits(1, 1)
        over.bits(2, 2)
        over.bits(0, 5)
        over.bits(0, 5)
        over.bits(15, 4)
        for _ in 0..<19 { over.bits(1, 3) }
        #expect(
            throws: Inflater.Failure(
                offset: 9, message: "the code-length code has more codes than its lengths allow")
        ) { try inflate(over.bytes) }
    }
}

/// DEFLATE's bit order for hand-made streams: fields lowest bit first, Huffman codes highest
/// bit first.
private struct BitWriter {
    var bytes: [UInt8] = []
    var used = 8

    mutating func bit(_ b: Int) {
        if used == 8 {
            bytes.append(0)
            used = 0
        }
        bytes[bytes.count - 1] |= UInt8(b & 1) << UInt8(used)
        used += 1
    }

    mutating func bits(_ value: Int, _ n: Int) {
        for k in 0..<n { bit(value >> k) }
    }

    mutating func code(_ value: Int, _ n: Int) {
        for k in stride(from: n - 1, through: 0, by: -1) { bit(value >> k) }
    }
}
