/// The unit a quantity is counted in.
///
/// Time units convert into each other exactly; every other unit only matches itself.
enum MeterUnit: String, Sendable, Hashable, CaseIterable {
    case second, minute, hour
    case token, character, byte
    case request, event, file, passage, word, item

    /// How many of `other` make one of `self`, when the two are convertible
    /// (one minute is 60 seconds), or nil.
    func size(in other: MeterUnit) -> Exact? {
        if self == other { return .one }
        guard let a = secondsPerUnit, let b = other.secondsPerUnit else { return nil }
        return try? Exact(a, over: b)
    }

    var secondsPerUnit: Int128? {
        switch self {
        case .second: 1
        case .minute: 60
        case .hour: 3600
        default: nil
        }
    }
}
