/// What the card charges for one feature key, version by version: the tables the charge
/// audit looks a charge up in, built once per run from the card family.
///
/// Each version's feature (nil when that version does not have the key) with its
/// dimensions' quantity-key hashes, so that a scanned line's quantities are matched
/// without building strings. A charge is audited against the version in force at its
/// `at`; before the first version took effect, against the first (as costs are).
final class ChargeRules: Sendable {
    struct Version: Sendable {
        let effectiveSeconds: Int64
        let effectiveNanos: Int32
        let rule: Rule?
        /// `rule` without a reference count: the hot path's handle (`rule` keeps it alive
        /// as long as these rules are). Reading it copies a pointer; reading `rule` and
        /// calling through it cost a retain and a release per audited charge (4% of the
        /// plain 1M export's cycles, perf).
        let unretained: Unmanaged<Rule>?

        init(effectiveSeconds: Int64, effectiveNanos: Int32, rule: Rule?) {
            self.effectiveSeconds = effectiveSeconds
            self.effectiveNanos = effectiveNanos
            self.rule = rule
            unretained = rule.map { Unmanaged.passUnretained($0) }
        }
    }

    /// One version's charge rule for the key. A class, so that looking it up per charge
    /// copies a reference, not the feature.
    final class Rule: Sendable {
        let feature: Feature
        /// `ContentHasher.dimensionKeyHash` of each dimension's name, in order.
        let keyHashes: [UInt64]
        /// Each dimension's terms for `Dimension.credits(whole:…)`.
        let terms: [(credits: Int128, per: Int128, rounding: ChargeRounding)]
        /// The one dimension counts uses (unit `event` or `request`): a charge without a
        /// quantity is one use.
        let perUse: Bool
        /// Some dimension has a provider cost: without a quantity the cost is missing.
        let metered: Bool

        init(_ f: Feature) {
            feature = f
            keyHashes = f.dimensions.map { ContentHasher.dimensionKeyHash($0.name) }
            terms = f.dimensions.map { ($0.credits, $0.per, $0.rounding) }
            perUse = f.dimensions.count == 1 && [.event, .request].contains(f.dimensions[0].unit)
            metered = f.dimensions.contains { if case .provider = $0.cost { true } else { false } }
        }
    }

    let versions: [Version]

    /// From the versions of one family, oldest first.
    init(key: String, versions cards: [RateCard]) {
        versions = cards.map { card in
            Version(
                effectiveSeconds: card.effective.seconds,
                effectiveNanos: card.effective.nanoseconds,
                rule: card.features.first { $0.key == key }.map(Rule.init))
        }
    }

    /// The rule of the version in force at an instant.
    func rule(seconds: Int64, nanoseconds: UInt32) -> Rule? {
        version(seconds: seconds, nanoseconds: nanoseconds).flatMap { versions[$0].rule }
    }

    /// The same rule unretained (the hot path's): valid while these rules are alive.
    @inline(__always)
    func unretainedRule(seconds: Int64, nanoseconds: UInt32) -> Unmanaged<Rule>? {
        version(seconds: seconds, nanoseconds: nanoseconds).flatMap { versions[$0].unretained }
    }

    /// The index of the version in force at an instant (the first before any took effect).
    @inline(__always)
    private func version(seconds: Int64, nanoseconds: UInt32) -> Int? {
        var k = 0
        var j = 1
        while j < versions.count,
            (versions[j].effectiveSeconds, versions[j].effectiveNanos) <= (
                seconds, Int32(nanoseconds)
            )
        {
            k = j
            j += 1
        }
        return versions.isEmpty ? nil : k
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
    case unchecked(ChargeErrorBox)
    /// The scanned quantity's dimension number `k` is not one of the card's: turned into
    /// `unchecked` by the reader, which has its name.
    case unknownDimension(Int)
}

extension ChargeRules.Rule {
    /// Audits one scanned charge of `amount` (negative) credits: nil when it is what the
    /// card charges, otherwise the finding. The card's own charge computation does the
    /// arithmetic: `Dimension.credits(whole:…)` for whole quantities (the common case,
    /// with the terms precomputed), `Feature.credits` for any other.
    @inline(__always)
    func audit(_ amount: Int64, _ dims: UnsafeBufferPointer<EntryScanner.Dimension>)
        -> ChargeAuditOutcome?
    {
        for (k, d) in dims.enumerated() where !keyHashes.contains(d.keyHash) {
            return .unknownDimension(k)
        }
        let expected: Int128?
        do throws(ChargeError) {
            expected = try self.expected(dims)
        } catch {
            return .unchecked(ChargeErrorBox(error))
        }
        guard let expected else { return .missingQuantity(metered: metered) }
        return expected == -Int128(amount) ? nil : .mismatch(expected: expected)
    }

    /// What the card charges for the scanned quantity; nil when there is none and the
    /// feature needs one.
    @inline(__always)
    private func expected(_ dims: UnsafeBufferPointer<EntryScanner.Dimension>) throws(ChargeError)
        -> Int128?
    {
        if dims.isEmpty {
            guard perUse else { return nil }
            return try Dimension.credits(
                whole: 1, credits: terms[0].credits, per: terms[0].per, rounding: terms[0].rounding,
                name: feature.dimensions[0].name)
        }
        var whole = true
        for d in dims where d.scale != 0 { whole = false }
        guard whole else {
            return try feature.credits { k in
                guard let q = dims.first(where: { $0.keyHash == keyHashes[k] }) else { return nil }
                return (try? Exact(q.significand, over: Exact.powerOfTen(q.scale))) ?? .zero
            }
        }
        var total: Int128 = 0
        for k in 0..<terms.count {
            var quantity: Int128 = 0
            for d in dims where d.keyHash == keyHashes[k] { quantity = d.significand }
            guard quantity != 0 else { continue }
            let t = terms[k]
            let c = try Dimension.credits(
                whole: quantity, credits: t.credits, per: t.per, rounding: t.rounding,
                name: feature.dimensions[k].name)
            let (sum, o) = total.addingReportingOverflow(c)
            guard !o else { throw .overflow(dimension: feature.dimensions[k].name) }
            total = sum
        }
        return total
    }
}

/// A charge error kept by reference, so that an audit outcome stays a few bytes wide on
/// the hot path (it is returned for every audited charge).
final class ChargeErrorBox: Sendable, Hashable {
    let error: ChargeError

    init(_ error: ChargeError) {
        self.error = error
    }

    static func == (lhs: ChargeErrorBox, rhs: ChargeErrorBox) -> Bool { lhs.error == rhs.error }
    func hash(into hasher: inout Hasher) { hasher.combine(error) }
}
