/// The audit query: every row `margin pnl` rejects or warns about, with its reason, so
/// nothing is lost silently in the warehouse either.
extension PnLSQLCompiler {
    /// `id, reason, detail, source_file, source_row`, sorted by reason and id. Reasons are `margin pnl`'s rule names
    /// (`missing-field`, `bad-timestamp`, `conflicting-duplicate`, `refund-of-unknown-charge`,
    /// `unknown-feature`, `refunded-twice`, …) plus the charge audit's
    /// (`refund-exceeds-charge`, `price-mismatch`, `metered-without-quantity`) and
    /// `sql-refund-tie` (refunds of one charge at one instant with different amounts, which
    /// stops the query), `sql-quantity-scale` (a quantity finer than the query reads, which stops `--sql`) and
    /// `unknown-dimension` (margin's `cost` error, which stops it too).
    func audit() -> String {
        var ctes = entryCTEs(origin: true)
        ctes += rejectedRowCTEs()
        ctes += refundAuditCTEs()
        ctes += chargeAuditCTEs()
        let parts = [
            "bad", "conf", "fine", "odd", "rfbad", "twice", "tie", "larger", "unknown", "price",
            "noq",
        ]
        ctes.append(
            (
                "audit",
                parts.map {
                    ["bad", "conf"].contains($0)
                        ? "SELECT id, reason, detail, own, src_file, src_row FROM \($0)"
                        : "SELECT id, reason, detail, FALSE AS own, CAST(NULL AS \(textType)) AS src_file, \(d.nullInteger) AS src_row FROM \($0)"
                }.joined(separator: "\n    UNION ALL ")
            ))
        // Where each row came from (`SQLSource`): a rejected line or a conflicting copy its
        // own; an entry (a refund, a charge) the first copy's.
        let select = """
            SELECT a.id AS id, a.reason AS reason, a.detail AS detail,
                   CASE WHEN a.own THEN a.src_file ELSE o.src_file END AS source_file, CASE WHEN a.own THEN a.src_row ELSE o.src_row END AS source_row
            FROM audit a LEFT JOIN e o ON o.id = a.id
            ORDER BY \(d.orderByBytes("a.reason")), \(d.orderByBytes("a.id")), source_file, source_row
            """
        return header(kind: "the audit of margin pnl (every entry it rejects or warns about)")
            + with(ctes) + "\n" + select + d.settings + ";\n"
    }

    /// Why `margin pnl` rejects a row of `p` that is not valid: the rule it names first.
    var rejectionReason: String {
        // A whole number that is not one: written with a fraction or an exponent, too long,
        // or not a number at all (an object, `"abc"`, `"05"`), in margin's order of checks.
        func whole(_ c: String) -> String {
            """
            WHEN \(d.isTrue(d.matches(c, "^-?[0-9]+[.eE].*$"))) THEN 'fractional-amount'
                 WHEN \(d.isTrue(d.matches(c, "^-?[1-9][0-9]*$"))) THEN 'amount-out-of-range' ELSE 'wrong-type'
            """
        }
        // A quantity member that is negative or written with an exponent is margin's
        // `bad-value`; one that is no decimal at all (`true`, `"7x"`, `"07"`), or a quantity
        // that is not an object, its `wrong-type`.
        // A member is judged only when it is not one the query reads (a negative zero and
        // a member the engine shows with an exponent are; the latter stops the query).
        let badMember = request.dimensions.indices.map {
            "(q_\($0) IS NOT NULL AND NOT \(d.isTrue(d.matches("q_\($0)", Self.memberPattern))) AND NOT \(d.isTrue(d.matches("q_\($0)", Self.exponentPattern))) AND \(d.isTrue(d.matches("q_\($0)", "^(-|[0-9.]*[eE]).*$"))))"
        }
        let member =
            badMember.isEmpty
            ? "'wrong-type'"
            : "CASE WHEN \(badMember.joined(separator: " OR ")) THEN 'bad-value' ELSE 'wrong-type' END"
        // margin's order (EntryScanner): each field's own problem as the line is read (in
        // the order exports write the keys: id, at, kind, amount, …, quantity, …,
        // balanceAfter; margin takes them in the line's own key order, which a table does
        // not keep), then the required fields, then the charge's feature or the refund's
        // charge, then the sign, then an empty feature or refundOf.
        return """
            CASE WHEN id = '' THEN 'bad-value'
                 WHEN at_text IS NOT NULL AND NOT time_ok THEN 'bad-timestamp'
                 WHEN at_text IS NOT NULL AND NOT range_ok THEN 'bad-timestamp'
                 WHEN kind IS NOT NULL AND NOT kind_ok THEN 'unknown-kind'
                 WHEN amount IS NOT NULL AND amt IS NULL THEN CASE \(whole("amount")) END
                 WHEN NOT q_obj THEN 'wrong-type' WHEN NOT quantity_ok THEN \(member)
                 WHEN NOT balance_ok THEN CASE \(whole("balance_after")) END
                 WHEN NOT present THEN 'missing-field' WHEN NOT needs_ok THEN 'missing-field'
                 WHEN NOT sign_ok THEN 'wrong-sign'
                 WHEN feature = '' OR refund_of = '' THEN 'bad-value' ELSE 'wrong-type' END
            """
    }

    /// The rows with a problem of their own: rejected (`bad`, `rejectionReason`), conflicting copies
    /// (`conf`), a quantity finer than the query reads (`fine`), a dimension the feature lacks (`odd`).
    func rejectedRowCTEs() -> [(String, String)] {
        var ctes: [(String, String)] = []
        ctes.append(
            (
                "bad",
                "SELECT id, \(rejectionReason) AS reason, CAST(NULL AS \(textType)) AS detail, TRUE AS own, src_file, src_row FROM p WHERE NOT valid"
            ))
        ctes.append(
            (
                "conf",
                """
                SELECT p.id AS id, 'conflicting-duplicate' AS reason, 'the same id with different content: ' || \(d.text("e.copies")) || ' copies, none is chosen' AS detail,
                       TRUE AS own, p.src_file AS src_file, p.src_row AS src_row
                FROM p JOIN e ON e.id = p.id WHERE p.valid AND e.conflict
                """
            ))
        ctes.append(
            (
                "fine",
                "SELECT id, 'sql-quantity-scale' AS reason, 'a quantity has more than \(SQLCostPlan.quantityScale) decimal places, or is written with an exponent' AS detail FROM e WHERE too_fine = 1"
            ))
        ctes.append(
            (
                "odd",
                "SELECT id, 'unknown-dimension' AS reason, 'a metered charge with a quantity in a dimension its feature does not have in the card version in force: margin pnl cannot cost it' AS detail FROM e WHERE odd_dims = 1"
            ))
        return ctes
    }

    /// The refunds margin warns about: of no charge or another feature (`rfbad`), larger than
    /// their charge (`larger`), a charge refunded twice (`twice`) or twice at one instant (`tie`).
    func refundAuditCTEs() -> [(String, String)] {
        var ctes: [(String, String)] = []
        ctes.append(
            (
                "rf",
                """
                SELECT rf.id AS id, rf.refund_of AS refund_of, rf.feature AS feature, rf.amt AS amt, rf.secs AS secs, rf.nanos AS nanos,
                       ch.id AS ch_id, ch.kind AS ch_kind, ch.feature AS ch_feature, ch.amt AS ch_amt
                FROM e rf LEFT JOIN e ch ON ch.id = rf.refund_of WHERE rf.kind = 'refund'
                """
            ))
        ctes.append(
            (
                "rfbad",
                """
                SELECT id, CASE WHEN ch_id IS NULL OR ch_kind <> 'charge' THEN 'refund-of-unknown-charge' ELSE 'bad-value' END AS reason,
                       CASE WHEN ch_id IS NULL THEN 'no entry has the id ' || refund_of WHEN ch_kind <> 'charge' THEN refund_of || ' is a ' || ch_kind || ', not a charge'
                            ELSE 'the refund is for ' || feature || ' but the charge was for ' || ch_feature END AS detail
                FROM rf WHERE ch_id IS NULL OR ch_kind <> 'charge' OR ch_feature <> feature
                """
            ))
        ctes.append(
            (
                "rfok",
                "SELECT * FROM rf WHERE ch_id IS NOT NULL AND ch_kind = 'charge' AND ch_feature = feature"
            ))
        ctes.append(
            (
                "larger",
                """
                SELECT id, 'refund-exceeds-charge' AS reason, 'gives back ' || \(d.text("amt")) || ' of a charge of ' || \(d.text("-ch_amt")) AS detail
                FROM rfok WHERE amt > -ch_amt
                """
            ))
        ctes += refundCTEs()
        ctes.append(
            (
                "twice",
                """
                SELECT rv.id AS id, 'refunded-twice' AS reason, 'charge ' || rv.refund_of || ' is already given back by ' || rk.kept_id AS detail
                FROM rv JOIN rk ON rk.k_ref = rv.refund_of WHERE rv.id <> rk.kept_id
                """
            ))
        ctes.append(
            (
                "tie",
                """
                SELECT rv.id AS id, 'sql-refund-tie' AS reason, 'charge ' || rv.refund_of || ' is refunded twice at one instant with different amounts: margin keeps one by id hash, the query stops' AS detail
                FROM rv JOIN rk ON rk.k_ref = rv.refund_of WHERE rk.k_amt <> rk.k_amt_max AND rv.secs = rk.k_secs AND rv.nanos = rk.k_nanos
                """
            ))
        return ctes
    }

    /// The charges margin warns about, in the window: of a feature not on the card (`unknown`),
    /// at another price than the version in force (`price`), metered without a quantity (`noq`).
    func chargeAuditCTEs() -> [(String, String)] {
        var ctes: [(String, String)] = []
        let known = request.knownFeatures.map { d.literal($0) }.joined(separator: ", ")
        ctes.append(
            (
                "ce",
                """
                SELECT e.*, \(versionExpression) AS v, \(quantityColumns(prefix: "qi_")) FROM e WHERE kind = 'charge' AND NOT conflict
                """
            ))
        ctes.append(
            (
                "unknown",
                """
                SELECT id, 'unknown-feature' AS reason, 'feature ' || feature || ' is not on card \(request.family)' AS detail
                FROM ce WHERE \(known.isEmpty ? "TRUE" : "feature NOT IN (\(known))") AND \(inWindow("secs", "nanos"))
                """
            ))
        ctes.append(
            (
                "priced",
                "SELECT id, amt, v, feature, \(priceExpression) AS expected, \(hasQuantity) AS has_quantity, \(meteredWithoutQuantity) AS unmetered FROM ce WHERE \(inWindow("secs", "nanos")) AND \(onVersion)"
            ))
        ctes.append(
            (
                "price",
                """
                SELECT id, 'price-mismatch' AS reason, 'charged ' || \(d.text("-amt")) || ', the card version in force charges ' || COALESCE(\(d.text("expected")), 'no whole number of intervals') || ' for its quantity' AS detail
                FROM priced WHERE has_quantity AND (expected IS NULL OR expected <> -amt)
                """
            ))
        ctes.append(
            (
                "noq",
                """
                SELECT id, 'metered-without-quantity' AS reason, 'a charge of a metered feature without a quantity: its provider cost is unknown' AS detail
                FROM priced WHERE unmetered
                """
            ))
        return ctes
    }

    var textType: String { SQLSchema.types(d).text }

    /// Whether a charge's feature is on the card version in force at its time: margin's
    /// charge audit compares only those (`ChargeRules`), the charges in the window, so the
    /// audit's `price-mismatch` and `metered-without-quantity` rows are the same charges.
    var onVersion: String {
        let arms = request.versions.enumerated().map { i, card in
            let keys = card.features.map { d.literal($0.key) }.joined(separator: ", ")
            return "WHEN v = \(i) THEN \(keys.isEmpty ? "FALSE" : "feature IN (\(keys))")"
        }
        return d.isTrue("CASE " + arms.joined(separator: " ") + " ELSE FALSE END")
    }

    /// Whether a charge carries any quantity the card knows.
    var hasQuantity: String {
        let dims = request.dimensions
        guard !dims.isEmpty else { return "FALSE" }
        return "(" + dims.indices.map { "qv_\($0) IS NOT NULL" }.joined(separator: " OR ") + ")"
    }

    /// Credits the version in force charges for a charge's quantity (NULL when an `exact`
    /// dimension is not a whole number of intervals, or the feature is not on that version).
    var priceExpression: String {
        let dims = request.dimensions
        var arms: [String] = []
        for (i, card) in request.versions.enumerated() {
            for f in card.features {
                var terms: [String] = []
                for dim in f.dimensions {
                    guard let j = dims.firstIndex(of: dim.name) else { continue }
                    let q = "qi_\(j)"
                    let per = d.wideLiteral(dim.per * 1_000_000)
                    let credits = d.wideLiteral(dim.credits)
                    switch dim.rounding {
                    case .up: terms.append("\(d.quotient("\(q) + \(per) - 1", per)) * \(credits)")
                    case .down: terms.append("\(d.quotient(q, per)) * \(credits)")
                    case .exact:
                        terms.append(
                            "(CASE WHEN \(q) % \(per) = 0 THEN \(d.quotient(q, per)) * \(credits) END)"
                        )
                    }
                }
                arms.append(
                    "WHEN v = \(i) AND feature = \(d.literal(f.key)) THEN \(terms.isEmpty ? d.wideLiteral(0) : terms.joined(separator: " + "))"
                )
            }
        }
        return arms.isEmpty
            ? "CAST(NULL AS \(d.wide))" : "CASE " + arms.joined(separator: " ") + " END"
    }

    /// A charge of a feature metered by the version in force that carries no quantity of
    /// any metered dimension.
    var meteredWithoutQuantity: String {
        let dims = request.dimensions
        var arms: [String] = []
        for p in plan.priced {
            let present = p.terms.compactMap { t in
                dims.firstIndex(of: t.dimension).map { "qv_\($0) IS NOT NULL" }
            }
            arms.append(
                "WHEN v = \(p.version) AND feature = \(d.literal(p.feature)) THEN \(present.isEmpty ? "TRUE" : "NOT (" + present.joined(separator: " OR ") + ")")"
            )
        }
        return arms.isEmpty
            ? "FALSE" : "\(d.isTrue("CASE " + arms.joined(separator: " ") + " ELSE FALSE END"))"
    }
}
