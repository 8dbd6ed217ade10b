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
            if isFirst(k, at: location(value), in: &seen, { duplicate(path, k, $0.line) }) {
                out.append(value)
            }
        }
        return out
    }

    /// Whether `key` is met for the first time in `seen` (then it is recorded there at
    /// `location`); a repeat is an error at `location`, worded by `duplicate(firstPlace)`.
    /// The one check of every key a file may give once (list items, meters, FX pairs,
    /// StoreKit product ids).
    func isFirst<Key: Hashable>(
        _ key: Key, at location: SourceLocation, in seen: inout [Key: SourceLocation],
        _ duplicate: (_ first: SourceLocation) -> String
    ) -> Bool {
        if let first = seen[key] {
            error(duplicate(first), at: location)
            return false
        }
        seen[key] = location
        return true
    }
}
