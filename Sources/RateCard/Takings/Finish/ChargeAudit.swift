/// The charge audit of a priced run: every charge in the window compared with what the
/// card version in force at its `at` charges for its quantity (`ChargeRules`).
///
/// A charge the card prices the same passes silently. A mismatch (the app charged other
/// than the card says: a billing bug) is counted with the credits over- or under-charged;
/// a charge without a quantity for a feature that needs one is counted apart (for a
/// metered feature its provider cost is then missing, so the cost is incomplete); a
/// charge the card's rule cannot be applied to is `unchecked`. The first few findings of
/// each feature are kept with their place.
struct ChargeAudit: Sendable, Hashable {
    /// How many findings of each feature are listed in full (all are counted).
    static let shown = 10

    /// One charge that did not pass.
    struct Finding: Sendable, Hashable, Comparable {
        enum Kind: String, Sendable, Hashable {
            case mismatch, missingQuantity, unchecked
        }

        let kind: Kind
        let place: TakingsPlace
        /// Credits the entry charged (positive).
        let charged: Int128
        /// Credits the card charges for its quantity; nil when there is none to compare.
        let expected: Int128?
        let message: String

        static func < (lhs: Finding, rhs: Finding) -> Bool { lhs.place < rhs.place }
    }

    /// One feature's audit.
    struct Feature: Sendable, Hashable {
        let feature: String
        /// Some version in force meters it (a provider cost).
        let metered: Bool
        /// Charges compared with the card (passed or not).
        let checked: Int
        let mismatches: Int
        /// Credits charged above the card's price, summed over mismatches.
        let overCharged: Int128
        /// Credits charged below the card's price, summed over mismatches.
        let underCharged: Int128
        /// Charges without a quantity, for a feature whose price or cost needs one.
        let missingQuantity: Int
        /// Charges whose quantity the card's rule cannot be applied to.
        let unchecked: Int
        /// The first findings by place.
        let findings: [Finding]

        /// True when the feature's metered cost misses some charges.
        var costIncomplete: Bool { metered && missingQuantity > 0 }
    }

    /// Features with any audited charge or finding, sorted by key.
    let features: [Feature]

    var mismatches: Int { features.reduce(0) { $0 + $1.mismatches } }
    var missingQuantity: Int { features.reduce(0) { $0 + $1.missingQuantity } }
    var unchecked: Int { features.reduce(0) { $0 + $1.unchecked } }
}

/// One feature's audit while merging, per shard.
struct AuditTally: Sendable {
    var checked = 0
    var mismatches = 0
    var overCharged: Int128 = 0
    var underCharged: Int128 = 0
    var missingQuantity = 0
    var metered = false
    var unchecked = 0
    var findings: [ChargeAudit.Finding] = []
    /// A sum of credits over- or under-charged passed 128 bits (reported as an error).
    var overflowed = false

    /// Counts one finding, and keeps it when it is among the first by place (the finding
    /// and its message are built only then).
    mutating func add(_ outcome: ChargeAuditOutcome, charged: Int128, place: TakingsPlace) {
        let kind: ChargeAudit.Finding.Kind
        switch outcome {
        case .mismatch(let expected):
            kind = .mismatch
            checked += 1
            mismatches += 1
            let (sum, o) =
                charged > expected
                ? overCharged.addingReportingOverflow(charged - expected)
                : underCharged.addingReportingOverflow(expected - charged)
            if o {
                overflowed = true
            } else if charged > expected {
                overCharged = sum
            } else {
                underCharged = sum
            }
        case .missingQuantity(let isMetered):
            kind = .missingQuantity
            missingQuantity += 1
            metered = metered || isMetered
        case .unchecked, .unknownDimension:
            kind = .unchecked
            unchecked += 1
        }
        guard findings.count < ChargeAudit.shown || findings.contains(where: { place < $0.place })
        else { return }
        let message: String
        var expectedCredits: Int128?
        switch outcome {
        case .mismatch(let expected):
            expectedCredits = expected
            message = "charged \(charged) credits, the card charges \(expected) for its quantity"
        case .missingQuantity(let isMetered):
            message =
                isMetered
                ? "no quantity: its metered cost is missing"
                : "no quantity: the charge cannot be checked"
        case .unchecked(let why):
            message = "cannot be checked: \(why.error)"
        case .unknownDimension:
            message = "cannot be checked: its quantity names a dimension the card does not have"
        }
        keep(
            ChargeAudit.Finding(
                kind: kind, place: place, charged: charged, expected: expectedCredits,
                message: message))
    }

    /// Counts a roll-up row's `charges` of a metered feature: they carry no quantity, so
    /// their metered cost is missing (one finding, at the row).
    mutating func addRollup(charges: Int, charged: Int128, place: TakingsPlace) {
        missingQuantity += charges
        metered = true
        guard findings.count < ChargeAudit.shown || findings.contains(where: { place < $0.place })
        else { return }
        keep(
            ChargeAudit.Finding(
                kind: .missingQuantity, place: place, charged: charged, expected: nil,
                message:
                    "a roll-up of \(charges) charges carries no quantity: their metered cost is missing"
            ))
    }

    private mutating func keep(_ f: ChargeAudit.Finding) {
        if findings.count < ChargeAudit.shown {
            findings.append(f)
        } else if let last = findings.max(), f < last, let k = findings.firstIndex(of: last) {
            findings[k] = f
        }
    }

    mutating func merge(_ o: AuditTally) {
        checked += o.checked
        mismatches += o.mismatches
        let (over, o1) = overCharged.addingReportingOverflow(o.overCharged)
        let (under, o2) = underCharged.addingReportingOverflow(o.underCharged)
        overflowed = overflowed || o.overflowed || o1 || o2
        (overCharged, underCharged) = (over, under)
        missingQuantity += o.missingQuantity
        metered = metered || o.metered
        unchecked += o.unchecked
        for f in o.findings { keep(f) }
    }

    var isEmpty: Bool { checked == 0 && missingQuantity == 0 && unchecked == 0 }
}
