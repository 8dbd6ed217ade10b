extension JSONParser {
    /// Parses a whole file's bytes, turning a syntax error into a diagnostic at its place
    /// in `path`.
    static func parseDocument(_ bytes: [UInt8], path: String) throws(Diagnostics) -> JSONNode {
        do {
            return try parse(bytes)
        } catch {
            throw Diagnostics([
                Diagnostic(path: path, location: error.location, message: error.message)
            ])
        }
    }

    /// Reads and parses the file at `path`; `what` names it in messages ("the publish lock").
    static func parseFile(_ path: String, what: String) throws(Diagnostics) -> (
        bytes: [UInt8], root: JSONNode
    ) {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: what) } catch { throw Diagnostics([error]) }
        return (bytes, try parseDocument(bytes, path: path))
    }
}
