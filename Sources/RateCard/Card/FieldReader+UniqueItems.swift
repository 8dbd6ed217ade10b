extension FieldReader {
    /// The items of array `field` that `read` turns into values, keeping the first of each
    /// `key`: a later item with the same key is an error at its place, worded by
    /// `duplicate(path, key, lineOfTheFirst)`, and is dropped. Used for every list a file
    /// keys by name (packs, grants, dimensions, territories).
    func uniqueItems<T>(
        _ items: [JSONNode], _ field: String, read: (JSONNode, String) -> T?,
        key: (T) -> String, at location: (T) -> SourceLocation,
        duplicate: (_ path: String, _ key: String, _ firstLine: Int) -> String
    ) -> [T] {
        var seen: [String: SourceLocation] = [:]
        var out: [T] = []
        for (i, item) in items.enumerated() {
            let path = "\(field)[\(i)]"
            guard let value = read(item, path) else { continue }
            let k = key(value)
            if let first = seen[k] {
                error(duplicate(path, k, first.line), at: location(value))
                continue
            }
            seen[k] = location(value)
            out.append(value)
        }
        return out
    }
}
