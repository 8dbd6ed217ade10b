#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file writes that either happen completely or not at all.
///
/// The bytes go to a new temporary file in the target's directory, are flushed to disk
/// with `fsync`, and the temporary file is then renamed over the target. `rename` within
/// one file system is atomic, so a reader (or an interrupted run) sees either the old file
/// or the new one, never a half-written one.
enum AtomicFile {
    /// Replaces the file at `path` with `bytes`, atomically.
    ///
    /// A new file gets mode 0644 less the process umask; an existing file keeps its mode.
    /// On failure the target is untouched and the temporary file is removed.
    static func write(_ bytes: [UInt8], to path: String) throws(AtomicFileError) {
        let directory = directoryName(of: path)
        var mode: mode_t = 0o644
        var existing = stat()
        if stat(path, &existing) == 0 {
            guard existing.st_mode & S_IFMT != S_IFDIR else {
                throw .failed(.isDirectory, path: path)
            }
            mode = existing.st_mode & 0o7777
        }

        let (temporary, descriptor) = try createTemporary(beside: path, mode: mode)
        do throws(AtomicFileError) {
            try writeAll(bytes, to: descriptor, path: path)
            guard fsync(descriptor) == 0 else {
                throw AtomicFileError.failed(.sync(errno), path: path)
            }
            guard close(descriptor) == 0 else {
                throw AtomicFileError.failed(.write(errno), path: path)
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .failed(.rename(code), path: path)
        }
        // Make the rename itself durable; a directory that cannot be opened or synced
        // (some file systems refuse) does not undo a completed write.
        let directoryDescriptor = open(directory, O_RDONLY)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Opens a fresh `.name.tmp-PID-N` file beside `path`, never reusing an existing one.
    private static func createTemporary(beside path: String, mode: mode_t) throws(AtomicFileError)
        -> (String, Int32)
    {
        let directory = directoryName(of: path)
        let name = baseName(of: path)
        let process = getpid()
        for attempt in 0..<100 {
            let candidate =
                (directory == "." && !path.hasPrefix("./") ? "" : directory + "/")
                + ".\(name).tmp-\(process)-\(attempt)"
            let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if descriptor >= 0 { return (candidate, descriptor) }
            let code = errno
            if code != EEXIST { throw .failed(.create(code), path: path) }
        }
        throw .failed(.create(EEXIST), path: path)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String)
        throws(AtomicFileError)
    {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .failed(.write(errno), path: path)
            }
            offset += written
        }
    }

    static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

/// The system `write(2)`, named apart from `AtomicFile.write`.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// Why an atomic write did not happen. The target file is unchanged in every case.
enum AtomicFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The step that failed, with the system's `errno` where there is one.
    enum Step: Sendable, Hashable {
        case isDirectory
        case create(Int32)
        case write(Int32)
        case sync(Int32)
        case rename(Int32)
    }

    case failed(Step, path: String)

    var description: String {
        switch self {
        case .failed(let step, let path):
            switch step {
            case .isDirectory: "cannot write '\(path)': it is a directory"
            case .create(let code):
                "cannot write '\(path)': cannot create a temporary file beside it: \(Self.message(code))"
            case .write(let code): "cannot write '\(path)': \(Self.message(code))"
            case .sync(let code):
                "cannot write '\(path)': flushing to disk failed: \(Self.message(code))"
            case .rename(let code):
                "cannot write '\(path)': cannot replace it: \(Self.message(code))"
            }
        }
    }

    private static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text).lowercased()
    }
}
