/// Reads typed fields out of parsed JSON, collecting a diagnostic for each problem.
///
/// Every loader (cards, provider sheets, FX and commission files) goes through this, so
/// every message names the file, the line and column of the offending value, and the
/// field by its dotted path (`packs[2].prices[0].amount`).
public final class FieldReader {
    let path: String
    private(set) var diagnostics: [Diagnostic] = []

    init(path: String) {
        self.path = path
    }

    func error(_ message: String, at location: SourceLocation, rule: DiagnosticRule? = nil) {
        diagnostics.append(Diagnostic(path: path, location: location, message: message, rule: rule))
    }

    /// The members of `node` as an object, checking that only `allowed` keys appear.
    func object(_ node: JSONNode, _ field: String, allowed: Set<String>? = nil) -> [String:
        JSONMember]?
    {
        guard case .object(let members) = node.value else {
            error("\(field): expected an object, found \(node.value.kindName)", at: node.location)
            return nil
        }
        var result: [String: JSONMember] = [:]
        for m in members {
            if let allowed, !allowed.contains(m.key) {
                let hint =
                    FieldReader.didYouMean(m.key, in: allowed)
                error("\(FieldReader.join(field, m.key)): unknown field\(hint)", at: m.keyLocation)
                continue
            }
            result[m.key] = m
        }
        return result
    }

    func required(
        _ members: [String: JSONMember], _ key: String, in field: String,
        at location: SourceLocation
    ) -> JSONNode? {
        guard let m = members[key] else {
            error("\(FieldReader.join(field, key)): missing required field", at: location)
            return nil
        }
        return m.value
    }

    func string(_ node: JSONNode, _ field: String) -> String? {
        guard case .string(let s) = node.value else {
            error("\(field): expected a string, found \(node.value.kindName)", at: node.location)
            return nil
        }
        return s
    }

    func nonEmptyString(_ node: JSONNode, _ field: String) -> String? {
        guard let s = string(node, field) else { return nil }
        guard !s.trimmingWhitespace.isEmpty else {
            error("\(field): must not be empty", at: node.location)
            return nil
        }
        return s
    }

    func bool(_ node: JSONNode, _ field: String) -> Bool? {
        guard case .bool(let b) = node.value else {
            error(
                "\(field): expected true or false, found \(node.value.kindName)", at: node.location)
            return nil
        }
        return b
    }

    func array(_ node: JSONNode, _ field: String) -> [JSONNode]? {
        guard case .array(let a) = node.value else {
            error("\(field): expected an array, found \(node.value.kindName)", at: node.location)
            return nil
        }
        return a
    }

    /// An exact decimal written as a JSON string ("4.5") or a plain JSON number without
    /// exponent (4.5). Strings are preferred for money so no tool on the way can turn them
    /// into floating point.
    func decimal(_ node: JSONNode, _ field: String) -> Exact? {
        let text: String
        switch node.value {
        case .string(let s): text = s
        case .number(let s): text = s
        default:
            error(
                "\(field): expected a decimal number (e.g. \"4.5\"), found \(node.value.kindName)",
                at: node.location)
            return nil
        }
        do {
            return try Exact(decimal: text)
        } catch {
            self.error(
                "\(field): \"\(FieldReader.excerpt(text))\" is not a decimal: \(error)",
                at: node.location)
            return nil
        }
    }

    func positiveDecimal(_ node: JSONNode, _ field: String) -> Exact? {
        guard let v = decimal(node, field) else { return nil }
        guard v.isPositive else {
            error("\(field): must be greater than zero, found \(v)", at: node.location)
            return nil
        }
        return v
    }

    /// A whole number written as a JSON integer or a string of one, within `range`.
    func integer(
        _ node: JSONNode, _ field: String,
        range: ClosedRange<Int128> = Int128(Int64.min)...Int128(Int64.max)
    ) -> Int128? {
        let text: String
        switch node.value {
        case .string(let s): text = s
        case .number(let s): text = s
        default:
            error(
                "\(field): expected a whole number, found \(node.value.kindName)", at: node.location
            )
            return nil
        }
        let value: Exact
        do {
            value = try Exact(decimal: text)
        } catch {
            self.error(
                "\(field): \"\(FieldReader.excerpt(text))\" is not a whole number: \(error)",
                at: node.location)
            return nil
        }
        guard let i = value.integerValue else {
            error("\(field): \(FieldReader.excerpt(text)) is not a whole number", at: node.location)
            return nil
        }
        guard range.contains(i) else {
            error(
                "\(field): \(FieldReader.excerpt(text)) is out of range (\(range.lowerBound)…\(range.upperBound))",
                at: node.location)
            return nil
        }
        return i
    }

    /// A calendar date `YYYY-MM-DD`.
    func date(_ node: JSONNode, _ field: String) -> CalendarDate? {
        guard let s = string(node, field) else { return nil }
        guard let d = CalendarDate(s) else {
            error(
                "\(field): \"\(FieldReader.excerpt(s))\" is not a valid date (expected YYYY-MM-DD)",
                at: node.location)
            return nil
        }
        return d
    }

    func currency(_ node: JSONNode, _ field: String) -> Currency? {
        guard let s = string(node, field) else { return nil }
        guard let c = Currency(code: s) else {
            error(
                "\(field): \"\(FieldReader.excerpt(s))\" is not a known ISO 4217 currency code",
                at: node.location)
            return nil
        }
        return c
    }

    /// `text` as quoted in a message: whole when short, else its start and its length, so
    /// that a megabyte-long number does not become a megabyte-long message.
    static func excerpt(_ text: String) -> String {
        guard text.count > 60 else { return text }
        return "\(text.prefix(40))… (\(text.count) characters)"
    }

    static func join(_ field: String, _ key: String) -> String {
        field.isEmpty ? key : "\(field).\(key)"
    }

    /// `; did you mean "name"?` for the allowed name nearest to `word` (`closest`), or
    /// nothing: the one wording of the hint after a file's unknown word.
    static func didYouMean(_ word: String, in candidates: some Sequence<String>) -> String {
        closest(word, in: candidates).map { "; did you mean \"\($0)\"?" } ?? ""
    }

    /// The allowed name nearest to `word`, when it is close enough to be a likely typo.
    public static func closest(_ word: String, in candidates: some Sequence<String>) -> String? {
        var best: (String, Int)?
        for c in candidates {
            // The distance is at least the difference in length: skip hopeless candidates
            // before the quadratic comparison (a megabyte-long unknown key stays cheap).
            guard abs(word.count - c.count) <= max(1, c.count / 3) else { continue }
            let d = editDistance(word.lowercased(), c.lowercased())
            guard d <= max(1, c.count / 3) else { continue }
            if let (b, bd) = best, bd < d || (bd == d && b <= c) { continue }
            best = (c, d)
        }
        return best?.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                cur[j] = min(
                    prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&prev, &cur)
        }
        return prev[b.count]
    }
}

extension String {
    var trimmingWhitespace: Substring {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return s
    }
}
