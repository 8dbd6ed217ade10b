#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads an input's bytes in large blocks: a file, standard input, or memory.
///
/// Files are read with plain `read(2)` calls into the caller's buffer, so no file is
/// ever held whole in memory (except a device ledger document, which is one device's log).
final class ByteSource {
    let fd: Int32
    /// The size of a regular file, which can be mapped block by block instead of read.
    private(set) var regularFileSize: Int?
    private let ownsFD: Bool
    private let memory: [UInt8]?
    private var offset = 0
    /// Bytes read so far (by `read`; a mapped file is not read through it).
    private(set) var consumed = 0
    let path: String

    init(_ input: TakingsInput) throws(TakingsInputError) {
        path = input.path
        switch input.source {
        case .file(let file):
            let fd = open(file, O_RDONLY)
            guard fd >= 0 else {
                throw TakingsInputError(
                    path: input.path, message: "cannot open: \(String(cString: strerror(errno)))")
            }
            var st = stat()
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw TakingsInputError(
                    path: input.path, message: "is a directory, not a takings export")
            }
            self.fd = fd
            ownsFD = true
            memory = nil
            if (st.st_mode & S_IFMT) == S_IFREG { regularFileSize = Int(st.st_size) }
        case .standardInput:
            fd = 0
            ownsFD = false
            memory = nil
        case .bytes(let bytes):
            fd = -1
            ownsFD = false
            memory = bytes
        }
    }

    deinit {
        if ownsFD { close(fd) }
    }

    /// How many bytes are left to read when the input is in memory; nil for a file or
    /// standard input (a file's size is not trusted: some report 0, some grow).
    var remaining: Int? {
        memory.map { $0.count - offset }
    }

    /// True when the input is in memory and all of it has been read.
    var atKnownEnd: Bool { memory.map { offset >= $0.count } ?? false }

    /// A buffer size for reading the rest: `limit`, or less when fewer bytes are left (one
    /// more than are left, so that a single `fill` sees the end), but at least 4 KiB. A
    /// small input is read through a small buffer, a large one through `limit` bytes.
    func blockSize(limit: Int) -> Int {
        guard let left = remaining else { return limit }
        return min(limit, max(4096, left + 1))
    }

    /// Reads up to `count` bytes into `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(TakingsInputError) -> Int
    {
        if let memory {
            let n = min(count, memory.count - offset)
            if n > 0 {
                memory.withUnsafeBufferPointer { src in
                    buffer.update(from: src.baseAddress! + offset, count: n)
                }
                offset += n
            }
            consumed += max(0, n)
            return max(0, n)
        }
        while true {
            let n = Glibc.read(fd, buffer, count)
            if n >= 0 {
                consumed += n
                return n
            }
            if errno == EINTR { continue }
            throw TakingsInputError(
                path: path, message: "read failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Reads until `count` bytes are in or the input ends.
    func fill(_ buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(TakingsInputError) -> Int {
        var filled = 0
        while filled < count {
            let n = try read(into: buffer + filled, count: count - filled)
            if n == 0 { break }
            filled += n
        }
        return filled
    }
}
