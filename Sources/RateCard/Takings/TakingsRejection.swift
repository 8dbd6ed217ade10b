/// A place in the inputs of a run: which input and which line.
struct TakingsPlace: Sendable, Hashable, Comparable {
    /// The input's index in the run's input list.
    let input: Int
    /// The input's name as given (`-` for standard input).
    let path: String
    /// 1-based line (for a device ledger document: the line where the entry starts).
    let line: Int
    /// 1-based byte column when known, otherwise 1.
    let column: Int

    init(input: Int, path: String, line: Int, column: Int = 1) {
        self.input = input
        self.path = path
        self.line = line
        self.column = column
    }

    static func < (lhs: TakingsPlace, rhs: TakingsPlace) -> Bool {
        (lhs.input, lhs.line, lhs.column) < (rhs.input, rhs.line, rhs.column)
    }

    /// `path:line`
    var description: String { "\(path):\(line)" }
}

/// Why a line was not used.
enum RejectionClass: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case malformedJSON = "malformed-json"
    case truncated
    case missingField = "missing-field"
    case wrongType = "wrong-type"
    case fractionalAmount = "fractional-amount"
    case amountOutOfRange = "amount-out-of-range"
    case wrongSign = "wrong-sign"
    case badTimestamp = "bad-timestamp"
    case unknownKind = "unknown-kind"
    case badValue = "bad-value"
    case refundOfUnknownCharge = "refund-of-unknown-charge"
    case refundExceedsCharge = "refund-exceeds-charge"
    case refundedTwice = "refunded-twice"
    case impossibleRollup = "impossible-rollup"
    case conflictingDuplicate = "conflicting-duplicate"
    case overflow

    static func < (lhs: RejectionClass, rhs: RejectionClass) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// One rejected line: where, which class of problem, and a lowercase message.
struct TakingsRejection: Sendable, Hashable, Comparable {
    let place: TakingsPlace
    let reason: RejectionClass
    let message: String

    init(place: TakingsPlace, reason: RejectionClass, message: String) {
        self.place = place
        self.reason = reason
        self.message = message
    }

    /// `path:line:column: error: message [rule]`, compiler style.
    var diagnostic: Diagnostic {
        Diagnostic(
            path: place.path, location: SourceLocation(line: place.line, column: place.column),
            severity: .error, message: message, rule: .rejected(reason))
    }

    static func < (lhs: TakingsRejection, rhs: TakingsRejection) -> Bool {
        (lhs.place, lhs.reason, lhs.message) < (rhs.place, rhs.reason, rhs.message)
    }
}

/// A line-level problem found while scanning, before the line's place is known in full.
struct LineProblem: Error, Sendable, Hashable {
    let reason: RejectionClass
    let message: String
    /// 1-based byte column within the line.
    let column: Int

    init(_ reason: RejectionClass, _ message: String, column: Int = 1) {
        self.reason = reason
        self.message = message
        self.column = column
    }
}

/// Keeps every rejection counted and the first `limit` of them (by place) in full, and
/// beside them the first `limit` conflicting duplicates: a conflict makes the run fail
/// (exit 1) whatever else it rejected, so it is always named, however many other lines
/// were rejected before it.
///
/// "First" is by input order and line, not by the order threads found them, so the
/// list is the same on every run.
struct RejectionLog: Sendable {
    let limit: Int
    private(set) var kept: [TakingsRejection] = []
    /// The first conflicting duplicates by place, kept apart from `kept`'s cap.
    private(set) var conflicts: [TakingsRejection] = []
    private(set) var count = 0
    private(set) var byClass: [RejectionClass: Int] = [:]

    init(limit: Int = 20) {
        self.limit = limit
    }

    mutating func add(_ r: TakingsRejection) {
        count += 1
        byClass[r.reason, default: 0] += 1
        keep(r)
    }

    private mutating func keep(_ r: TakingsRejection) {
        if r.reason == .conflictingDuplicate {
            Self.keep(r, in: &conflicts, limit: limit)
        } else {
            Self.keep(r, in: &kept, limit: limit)
        }
    }

    private static func keep(
        _ r: TakingsRejection, in list: inout [TakingsRejection], limit: Int
    ) {
        if list.count < limit {
            list.append(r)
            if list.count == limit { list.sort() }
        } else if let last = list.last, r < last {
            list.removeLast()
            let i = list.firstIndex { r < $0 } ?? list.count
            list.insert(r, at: i)
        }
    }

    mutating func merge(_ other: RejectionLog) {
        count += other.count
        for (k, v) in other.byClass { byClass[k, default: 0] += v }
        for r in other.kept { keep(r) }
        for r in other.conflicts { keep(r) }
    }

    /// The rejections listed: the first `limit` by place, then every kept conflict after
    /// them (so a conflict is never hidden by the cap).
    var first: [TakingsRejection] {
        let all = (kept + conflicts).sorted()
        let head = all.prefix(limit)
        return Array(head) + all.dropFirst(limit).filter { $0.reason == .conflictingDuplicate }
    }
}
