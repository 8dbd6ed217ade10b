#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file reads for the check inputs, with the system's reason when a file cannot be
/// read.
enum FileBytes {
    /// The bytes of the file at `path`; `what` names the file in the message ("the publish
    /// lock").
    static func read(_ path: String, what: String) throws(Diagnostic) -> [UInt8] {
        guard let f = fopen(path, "rb") else {
            throw Diagnostic(path: path, message: "cannot read \(what): \(reason())")
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { b in
                b.baseAddress.map { fread($0, 1, b.count, f) } ?? 0
            }
            if n > 0 { bytes.append(contentsOf: buffer[0..<n]) }
            if n < buffer.count {
                guard ferror(f) == 0 else {
                    throw Diagnostic(path: path, message: "cannot read \(what): \(reason())")
                }
                return bytes
            }
        }
    }

    /// At most `count` bytes from the start of the file at `path` (to tell its format).
    static func prefix(path: String, count: Int) throws(Diagnostic) -> [UInt8] {
        guard let f = fopen(path, "rb") else {
            throw Diagnostic(path: path, message: "cannot read the export: \(reason())")
        }
        defer { fclose(f) }
        var buffer = [UInt8](repeating: 0, count: max(1, count))
        let n = buffer.withUnsafeMutableBytes { b in
            b.baseAddress.map { fread($0, 1, b.count, f) } ?? 0
        }
        guard ferror(f) == 0 else {
            throw Diagnostic(path: path, message: "cannot read the export: \(reason())")
        }
        return Array(buffer[0..<n])
    }

    /// The text of the current `errno`.
    static func reason() -> String {
        String(cString: strerror(errno))
    }
}
