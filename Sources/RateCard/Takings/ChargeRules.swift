/// What the card charges for one feature key, version by version: the tables the charge
/// audit looks a charge up in, built once per run from the card family.
///
/// Each version's feature (nil when that version does not have the key) with its
/// dimensions' quantity-key hashes, so that a scanned line's quantities are matched
/// without building strings. A charge is audited against the version in force at its
/// `at`; before the first version took effect, against the first (as costs are).
public struct ChargeRules: Sendable {
    struct Version: Sendable {
        let effectiveSeconds: Int64
        let effectiveNanos: Int32
        let rule: Rule?
    }

    struct Rule: Sendable {
        let feature: Feature
        /// `ContentHasher.dimensionKeyHash` of each dimension's name, in order.
        let keyHashes: [UInt64]
        /// The one dimension counts uses (unit `event` or `request`): a charge without a
        /// quantity is one use.
        let perUse: Bool
        /// Some dimension has a provider cost: without a quantity the cost is missing.
        let metered: Bool
    }

    let versions: [Version]

    /// From the versions of one family, oldest first.
    init(key: String, versions cards: [RateCard]) {
        versions = cards.map { card in
            let rule = card.features.first { $0.key == key }.map { f in
                Rule(feature: f, keyHashes: f.dimensions.map { ContentHasher.dimensionKeyHash($0.name) },
                     perUse: f.dimensions.count == 1 && [.event, .request].contains(f.dimensions[0].unit),
                     metered: f.dimensions.contains { if case .provider = $0.cost { true } else { false } })
            }
            return Version(effectiveSeconds: card.effective.seconds, effectiveNanos: card.effective.nanoseconds, rule: rule)
        }
    }

    /// The rule of the version in force at an instant.
    @inline(__always)
    func rule(seconds: Int64, nanoseconds: UInt32) -> Rule? {
        var k = 0
        for (j, v) in versions.enumerated() where (v.effectiveSeconds, v.effectiveNanos) <= (seconds, Int32(nanoseconds)) { k = j }
        return versions.isEmpty ? nil : versions[k].rule
    }
}

/// What the audit found for one charge; stored only when it is not a pass.
enum ChargeAuditOutcome: Sendable, Hashable {
    /// The charge carries no quantity, and the feature needs one (`metered`: for its
    /// provider cost, so the cost is incomplete).
    case missingQuantity(metered: Bool)
    /// The card charges `expected` credits for the quantity.
    case mismatch(expected: Int128)
    /// The card's charge rule cannot be applied (a dimension it does not have, a quantity
    /// that is not a whole number of intervals under exact rounding).
    case unchecked(String)
}

extension ChargeRules.Rule {
    /// Audits one scanned charge of `amount` (negative) credits: nil when it is what the
    /// card charges, otherwise the finding. The card's own charge computation
    /// (`Feature.credits`) does the arithmetic.
    @inline(__always)
    func audit(_ amount: Int64, _ scanner: EntryScanner) -> ChargeAuditOutcome? {
        let dims = scanner.dimensions
        let expected: Int128
        do throws(ChargeError) {
            if dims.isEmpty {
                guard perUse else { return .missingQuantity(metered: metered) }
                expected = try feature.credits { _ in .one }
            } else {
                for d in dims where !keyHashes.contains(d.keyHash) {
                    return .unchecked("quantity names \"\(scanner.string(d.key) ?? "")\", a dimension the card does not charge for (it has: \(feature.dimensions.map(\.name).joined(separator: ", ")))")
                }
                expected = try feature.credits { k in
                    guard let q = dims.first(where: { $0.keyHash == keyHashes[k] }) else { return nil }
                    return q.scale == 0 ? Exact(integer: q.significand) : ((try? Exact(q.significand, over: Exact.powerOfTen(q.scale))) ?? .zero)
                }
            }
        } catch {
            return .unchecked(error.description)
        }
        return expected == -Int128(amount) ? nil : .mismatch(expected: expected)
    }
}
