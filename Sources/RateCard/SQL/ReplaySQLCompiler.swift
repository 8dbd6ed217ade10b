/// Compiles the re-pricing of `margin replay` into one SQL query per engine: the
/// per-feature table (requests, not re-priced, credits before and after and their change,
/// provider cost, value, profit and margin on each side), for ledgers that live in a
/// warehouse (docs/replay.md, "The SQL form").
///
/// It reuses `margin pnl --sql` for everything before the pricing: the source and its
/// forms (`SQLSource`), each row checked as `margin pnl` checks it, every entry once by id
/// (`PnLSQLCompiler.entryCTEs`, here carrying the entry's `card` field and whether its
/// quantity has a member no card dimension has), and the provider cost of a request as
/// integer numerators over one common denominator (`SQLCostPlan`, `costExpression`). The
/// cost plan prices a list of cards: the family's versions (or OLD), then NEW; a side
/// picks its card by index (`v`).
///
/// Then, per charge and side, what `ReplaySide.price` decides, as CASE arms per card and
/// feature: the feature (in the version the `card` field names when that version has it,
/// else the version in force; or OLD; or NEW), a member its feature does not have, a
/// missing quantity (a feature counted per use is one use), `exact` quantities that are
/// not whole intervals; the credits of a card side (each dimension's started, complete or
/// exact intervals times its credits, summed); the cost at the schedule period of the
/// request's time (NEW's at `--costs-at` when given). Refunds take a re-priced charge's
/// credits back on both sides (on a card's side, a partial refund its share, rounded
/// down).
///
/// Out of the SQL form, said in the query's header and in the docs: the balance replay and
/// its declines, and the packs in practice (both need each device's entries in ledger
/// order with running state, which is `margin replay`'s job); an id with conflicting
/// copies stops the query (margin keeps the first copy, which a table cannot say); of
/// several refunds of one charge the query takes the earliest (margin the first in the
/// file: the same for an export in time order).
struct ReplaySQLCompiler {
    let plan: ReplayPlan
    let pnl: PnLSQLCompiler
    let d: SQLDialect
    /// Index of NEW in the priced cards; the before side's cards are `0..<newIndex`.
    let newIndex: Int
    let beforeCards: [RateCard]

    init(plan: ReplayPlan, dialect: SQLDialect, source: SQLSource) throws(SQLCompileError) {
        self.plan = plan
        d = dialect
        beforeCards = plan.old.map { [$0] } ?? plan.family
        guard !beforeCards.isEmpty else {
            throw .usage("no version of card '\(plan.new.id)' prices the ledger's charges")
        }
        newIndex = beforeCards.count
        var request = PnLSQLRequest(
            dialect: dialect, source: source, family: plan.new.id, repository: plan.repository,
            window: .all, currency: plan.currency, perCredit: plan.credit.perCredit)
        request.versionList = beforeCards + [plan.new]
        guard !request.dimensions.isEmpty else {
            throw .usage("the cards have no dimension: nothing to re-price by quantity")
        }
        pnl = try PnLSQLCompiler(request)
    }

    var dims: [String] { pnl.request.dimensions }
    var cards: [RateCard] { beforeCards + [plan.new] }

    /// The query of the per-feature table.
    func query() -> String {
        let q = d.quoted("quantity")
        let outside =
            "CASE WHEN \(d.isTrue("\(q) IS NOT NULL AND \(d.hasMemberOutside(q, dims))")) THEN 1 ELSE 0 END"
        var ctes = pnl.entryCTEs(carry: [("x_card", "card"), ("x_out", outside)])
        ctes.append(
            (
                "g",
                "SELECT COALESCE(SUM(CASE WHEN conflict THEN 1 ELSE 0 END), 0) AS conflicts, COALESCE(SUM(too_fine), 0) AS too_fine FROM e"
            ))
        ctes.append(("rj", "SELECT COUNT(*) AS rejected FROM p WHERE NOT valid"))
        ctes += chargeCTEs()
        ctes += refundBackCTEs()
        ctes += featureTotalCTEs()
        let message =
            "'margin: ' || \(d.text("g.conflicts")) || ' ids with conflicting duplicates and ' || \(d.text("g.too_fine")) || ' entries with a quantity finer than \(SQLCostPlan.quantityScale) places: run margin pnl --sql-audit \(d.rawValue) to list them'"
        let select = """
            SELECT feature, requests, repriced, not_repriced, not_repriced_credits, refunded,
                   credits_b AS credits_before, credits_a AS credits_after, credit_change, \(ratioResult("share")) AS credit_change_share,
                   \(pnl.moneyResult("cost_b_num")) AS cost_before, \(pnl.moneyResult("cost_a_num")) AS cost_after,
                   \(pnl.moneyResult("value_b_num")) AS value_before, \(pnl.moneyResult("value_a_num")) AS value_after,
                   \(pnl.moneyResult("profit_b_num")) AS profit_before, \(pnl.moneyResult("profit_a_num")) AS profit_after,
                   \(ratioResult("margin_b")) AS margin_before, \(ratioResult("margin_a")) AS margin_after, ledger_credits, rj.rejected AS rejected
            FROM r2 CROSS JOIN g CROSS JOIN rj
            WHERE \(d.check("g.conflicts = 0 AND g.too_fine = 0", message: message,
                            constant: "margin: ids with conflicting duplicates or a quantity finer than \(SQLCostPlan.quantityScale) places: run margin pnl --sql-audit \(d.rawValue) to list them"))
            ORDER BY total, \(d.orderByBytes("feature"))
            """
        return header() + pnl.with(ctes) + "\n" + select + d.settings + ";\n"
    }

    /// The charges priced on both sides (`c0`…`c3`): credits and cost before and after, and
    /// whether both sides re-price them (`ch`).
    func chargeCTEs() -> [(String, String)] {
        var ctes: [(String, String)] = []
        let qv = dims.indices.map { "qv_\($0)" }.joined(separator: ", ")
        let empty =
            "CASE WHEN x_out = 0 AND "
            + dims.indices.map { "qv_\($0) IS NULL" }.joined(separator: " AND ")
            + " THEN 1 ELSE 0 END"
        ctes.append(
            (
                "c0",
                """
                SELECT id, feature, amt, secs, nanos, x_out, \(qv), \(empty) AS qn,
                       \(beforeVersion) AS v_b, \(newIndex) AS v_a
                FROM e WHERE kind = 'charge'
                """
            ))
        let sideB = side("b", cards: Array(beforeCards.enumerated()), ledger: plan.old == nil)
        let sideA = side("a", cards: [(newIndex, plan.new)], ledger: false)
        ctes.append(
            (
                "c1",
                "SELECT c0.*, \(sideB.joined(separator: ", ")),\n       \(sideA.joined(separator: ", ")) FROM c0"
            ))
        let keep = "id, feature, amt, ok_b, ok_a, cr_b, cr_a"
        let qb = dims.indices.map { "qe_b_\($0) AS qi_\($0)" }.joined(separator: ", ")
        let qa = dims.indices.map { "qe_a_\($0) AS qi_\($0)" }.joined(separator: ", ")
        let costsAt = plan.costsAt.map { "\($0.seconds)" } ?? "secs"
        ctes.append(
            (
                "c2",
                """
                SELECT \(keep), secs, v_a, \(dims.indices.map { "qe_a_\($0)" }.joined(separator: ", ")), \(pnl.costExpression) AS cost_b
                FROM (SELECT \(keep), secs, v_a, \(dims.indices.map { "qe_a_\($0)" }.joined(separator: ", ")), \(qb), v_b AS v\(pnl.periodColumns(at: "secs")) FROM c1) x
                """
            ))
        ctes.append(
            (
                "c3",
                """
                SELECT \(keep), cost_b, \(pnl.costExpression) AS cost_a
                FROM (SELECT \(keep), cost_b, \(qa), v_a AS v\(pnl.periodColumns(at: costsAt)) FROM c2) y
                """
            ))
        ctes.append(
            (
                "ch",
                """
                SELECT id, feature, amt, CASE WHEN ok_b = 1 AND ok_a = 1 THEN 1 ELSE 0 END AS ok,
                       \(plan.old == nil ? d.wide("-amt") : "cr_b") AS cb, cr_a AS ca, cost_b, cost_a
                FROM c3
                """
            ))
        return ctes
    }

    /// The credits each charge's first refund gives back on both sides, per feature (`rb`):
    /// the earliest refund (then the smallest id) naming a charge of the ledger, of the
    /// refunds that can have happened: as `margin replay`, one that gives back more than its
    /// charge took or is of another feature is left out (`rv`).
    func refundBackCTEs() -> [(String, String)] {
        var ctes: [(String, String)] = []
        ctes.append(
            (
                "rv",
                """
                SELECT rf.id AS id, rf.refund_of AS refund_of, rf.amt AS amt, rf.secs AS secs, rf.nanos AS nanos
                FROM e rf JOIN e c ON c.id = rf.refund_of WHERE rf.kind = 'refund' AND c.kind = 'charge'
                  AND rf.amt <= -c.amt AND (rf.feature IS NULL OR c.feature IS NULL OR rf.feature = c.feature)
                """
            ))
        ctes.append(
            ("rs", "SELECT refund_of AS s_ref, MIN(secs) AS s_secs FROM rv GROUP BY refund_of"))
        ctes.append(
            (
                "rn",
                """
                SELECT rv.refund_of AS n_ref, MIN(rv.secs) AS n_secs, MIN(rv.nanos) AS n_nanos
                FROM rv JOIN rs ON rs.s_ref = rv.refund_of AND rv.secs = rs.s_secs GROUP BY rv.refund_of
                """
            ))
        ctes.append(
            (
                "ri",
                """
                SELECT rv.refund_of AS i_ref, MIN(rv.id) AS i_id
                FROM rv JOIN rn ON rn.n_ref = rv.refund_of AND rv.secs = rn.n_secs AND rv.nanos = rn.n_nanos
                GROUP BY rv.refund_of
                """
            ))
        func share(_ credits: String) -> String {
            "CASE WHEN rv.amt + ch.amt = 0 THEN \(credits) ELSE \(d.quotient("\(credits) * \(d.wide("rv.amt"))", d.wide("-ch.amt"))) END"
        }
        ctes.append(
            (
                "rb",
                """
                SELECT ch.feature AS feature, COUNT(*) AS refunded, SUM(\(plan.old == nil ? d.wide("rv.amt") : share("ch.cb"))) AS back_b, SUM(\(share("ch.ca"))) AS back_a
                FROM ri JOIN rv ON rv.refund_of = ri.i_ref AND rv.id = ri.i_id JOIN ch ON ch.id = ri.i_ref
                WHERE ch.ok = 1 GROUP BY ch.feature
                """
            ))
        return ctes
    }

    /// Per feature and in total (`t`): requests, credits, cost, value and profit on both
    /// sides, the money figures and the ratios (`r2`).
    func featureTotalCTEs() -> [(String, String)] {
        var ctes: [(String, String)] = []
        let zero = d.wideLiteral(0)
        ctes.append(
            (
                "t1",
                """
                SELECT feature, COUNT(*) AS requests, SUM(ok) AS repriced, SUM(1 - ok) AS not_repriced,
                       SUM(CASE WHEN ok = 0 THEN \(d.wide("-amt")) ELSE \(zero) END) AS not_repriced_credits,
                       SUM(\(d.wide("-amt"))) AS ledger_credits,
                       SUM(CASE WHEN ok = 1 THEN cb ELSE \(zero) END) AS gross_b, SUM(CASE WHEN ok = 1 THEN ca ELSE \(zero) END) AS gross_a,
                       SUM(CASE WHEN ok = 1 THEN cost_b ELSE \(zero) END) AS cost_b_num, SUM(CASE WHEN ok = 1 THEN cost_a ELSE \(zero) END) AS cost_a_num
                FROM ch GROUP BY feature
                """
            ))
        ctes.append(
            (
                "t2",
                """
                SELECT t1.feature AS feature, 0 AS total, requests, repriced, not_repriced, not_repriced_credits, ledger_credits,
                       COALESCE(rb.refunded, 0) AS refunded, gross_b - COALESCE(rb.back_b, \(zero)) AS credits_b,
                       gross_a - COALESCE(rb.back_a, \(zero)) AS credits_a, cost_b_num, cost_a_num
                FROM t1 LEFT JOIN rb ON rb.feature = t1.feature
                """
            ))
        let sums = [
            "requests", "repriced", "not_repriced", "not_repriced_credits", "ledger_credits",
            "refunded", "credits_b", "credits_a", "cost_b_num", "cost_a_num",
        ]
        ctes.append(
            (
                "t",
                """
                SELECT feature, total, \(sums.joined(separator: ", ")) FROM t2
                UNION ALL
                SELECT CAST(NULL AS \(SQLSchema.types(d).text)) AS feature, 1 AS total, \(sums.map { "COALESCE(SUM(\($0)), 0) AS \($0)" }.joined(separator: ", ")) FROM t2
                """
            ))
        let rate = d.wideLiteral(pnl.plan.valueRate)
        ctes.append(
            (
                "n0",
                "SELECT t.*, credits_b * \(rate) AS value_b_num, credits_a * \(rate) AS value_a_num FROM t"
            ))
        ctes.append(
            (
                "n",
                "SELECT n0.*, value_b_num - cost_b_num AS profit_b_num, value_a_num - cost_a_num AS profit_a_num, credits_a - credits_b AS credit_change FROM n0"
            ))
        let money = ["cost_b", "cost_a", "value_b", "value_a", "profit_b", "profit_a"]
        ctes += pnl.moneyCTEs(from: "n", columns: money.map { "\($0)_num" })
        ctes += ratioCTEs(
            from: "m4",
            [
                ("share", "credit_change", "credits_b"),
                ("margin_b", "profit_b_num", "value_b_num"),
                ("margin_a", "profit_a_num", "value_a_num"),
            ])
        return ctes
    }

    func header() -> String {
        let p = pnl.plan
        var lines = [
            "-- the per-feature replay of margin replay, for \(d.rawValue), written by margin replay --sql (docs/replay.md).",
            "-- after: \(plan.new.reference); before: \(plan.old.map(\.reference) ?? "the ledger's own charges, costed by the \(plan.new.id) version that charged each (its card field, else the version in force): " + beforeCards.map { "\($0.reference) from \($0.effective.rfc3339UTC)" }.joined(separator: ", "))",
            "-- costs: "
                + (plan.costsAt.map { "after as if every request ran at \($0.rfc3339UTC); before" }
                    ?? "both sides")
                + " at the schedule period of each request's own time, in \(plan.currency.code); a credit is worth \(plan.credit.perCredit.amount.decimalText(maxScale: 38))",
            "-- money columns: DECIMAL(38, \(p.scale)), "
                + (p.exact
                    ? "exact (integer sums over \(p.denominator), which divides 10^\(p.scale))"
                    : "exact integer sums over \(p.denominator), divided once and rounded half-even to \(p.scale) places"),
            "-- credit_change_share and the margins: exact ratios rounded half-even to \(Self.ratioPlaces) places (NULL without credits or value)",
            "-- not in this query: the balance replay (declines, credits left) and the packs in practice, which need each device's entries in ledger order: run margin replay",
            "-- an id with conflicting copies stops the query (margin replay keeps the first); of several refunds of one charge the earliest is used",
        ]
        if d == .spark {
            lines.append(
                "-- run with spark.sql.ansi.enabled=true (the default from Spark 4.0), so that an overflow is an error, not NULL"
            )
        }
        if d == .clickhouse {
            lines.append(
                "-- ClickHouse Int128 arithmetic wraps on overflow: sums stay exact below 1.7e38 / \(max(p.valueRate, 1)) credits per feature"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The before side's card index of a charge: the family version its `card` field
    /// names (the number after its last `@`, as `Int` reads it) when that version has the
    /// charge's feature, else the version in force at its time, as `ReplaySide.card(at:)`
    /// walks the versions; 0 (OLD) with `--against`.
    var beforeVersion: String {
        guard plan.old == nil else { return "0" }
        var named: [String] = []
        for (i, card) in beforeCards.enumerated() {
            let keys = card.features.map { d.literal($0.key) }.joined(separator: ", ")
            guard !keys.isEmpty else { continue }
            named.append(
                "WHEN \(d.isTrue(d.matches("x_card", "@[+]?0*\(card.version)$"))) AND feature IN (\(keys)) THEN \(i)"
            )
        }
        // ReplaySide.card(at:): the first version, then each next one while it took effect.
        var inForce = "\(beforeCards.count - 1)"
        for k in stride(from: beforeCards.count - 2, through: 0, by: -1) {
            inForce =
                "CASE WHEN \(pnl.atOrAfter("secs", "nanos", beforeCards[k + 1].effective)) THEN \(inForce) ELSE \(k) END"
        }
        return named.isEmpty
            ? inForce : "CASE " + named.joined(separator: " ") + " ELSE \(inForce) END"
    }

    /// One side's columns: `ok_S` (1 when the side prices the charge), `cr_S` (a card
    /// side's credits) and `qe_S_i` (the quantity numerators its cost is taken from).
    func side(_ s: String, cards: [(Int, RateCard)], ledger: Bool) -> [String] {
        let v = "v_\(s)"
        var ok: [String] = []
        var credits: [String] = []
        var perUse: [Int: [String]] = [:]
        for (i, card) in cards {
            var seen = Set<String>()
            for f in card.features where seen.insert(f.key).inserted {
                let arm = "\(v) = \(i) AND feature = \(d.literal(f.key))"
                let names = Set(f.dimensions.map(\.name))
                let odd =
                    ["x_out = 1"]
                    + dims.enumerated().filter { !names.contains($0.element) }
                    .map { "qv_\($0.offset) IS NOT NULL" }
                let single =
                    f.dimensions.count == 1 && [.event, .request].contains(f.dimensions[0].unit)
                if single, let j = dims.firstIndex(of: f.dimensions[0].name) {
                    perUse[j, default: []].append("(\(arm))")
                }
                // No quantity and one is needed.
                let missing = !single && !f.dimensions.isEmpty ? "qn = 1" : "1 = 0"
                var bad = odd
                if ledger {
                    if f.dimensions.contains(where: \.isMetered) { bad.append(missing) }
                } else {
                    bad.append(missing)
                }
                // The quantity of each dimension (numerators over 10^6), one use when none.
                func quantity(_ name: String) -> String {
                    guard let j = dims.firstIndex(of: name) else { return d.wideLiteral(0) }
                    let given = "COALESCE(\(d.wide("qv_\(j) * 1000000")), \(d.wideLiteral(0)))"
                    return single
                        ? "CASE WHEN qn = 1 THEN \(d.wideLiteral(1_000_000)) ELSE \(given) END"
                        : given
                }
                var terms: [String] = []
                if !ledger {
                    for dim in f.dimensions {
                        let q = quantity(dim.name)
                        let per = d.wideLiteral(dim.per * 1_000_000)
                        let intervals: String
                        switch dim.rounding {
                        case .up: intervals = d.quotient("\(q) + \(per) - 1", per)
                        case .down, .exact: intervals = d.quotient(q, per)
                        }
                        if dim.rounding == .exact { bad.append("\(q) % \(per) <> 0") }
                        terms.append("\(intervals) * \(d.wideLiteral(dim.credits))")
                    }
                }
                ok.append(
                    "WHEN \(arm) THEN CASE WHEN \(bad.joined(separator: " OR ")) THEN 0 ELSE 1 END")
                if !ledger {
                    credits.append(
                        "WHEN \(arm) THEN \(terms.isEmpty ? d.wideLiteral(0) : terms.joined(separator: " + "))"
                    )
                }
            }
        }
        var out = [
            ok.isEmpty ? "0 AS ok_\(s)" : "CASE \(ok.joined(separator: " ")) ELSE 0 END AS ok_\(s)",
            credits.isEmpty
                ? "\(d.wideLiteral(0)) AS cr_\(s)"
                : "CASE \(credits.joined(separator: " ")) ELSE \(d.wideLiteral(0)) END AS cr_\(s)",
        ]
        for j in dims.indices {
            let given = "COALESCE(\(d.wide("qv_\(j) * 1000000")), \(d.wideLiteral(0)))"
            if let arms = perUse[j] {
                out.append(
                    "CASE WHEN qn = 1 AND (\(arms.joined(separator: " OR "))) THEN \(d.wideLiteral(1_000_000)) ELSE \(given) END AS qe_\(s)_\(j)"
                )
            } else {
                out.append("\(given) AS qe_\(s)_\(j)")
            }
        }
        return out
    }

    /// Places of the ratio columns (change share, margins): as margin's JSON writes a
    /// ratio that never ends (`Exact.nonTerminatingPlaces`).
    static let ratioPlaces = Exact.nonTerminatingPlaces

    /// Stages that turn each ratio `x / y` of integer columns into its half-even rounded
    /// quotient at `ratioPlaces` places: `name_q` (the scaled magnitude) and `name_neg`;
    /// NULL when `y` is zero.
    func ratioCTEs(from source: String, _ ratios: [(name: String, x: String, y: String)]) -> [(
        String, String
    )] {
        let unit = d.wideLiteral(Int128(tenTo: Self.ratioPlaces))
        let a = ratios.map { r in
            "CASE WHEN \(r.x) < 0 THEN -\(r.x) ELSE \(r.x) END * \(unit) AS \(r.name)_ax, CASE WHEN \(r.y) < 0 THEN -\(r.y) ELSE \(r.y) END AS \(r.name)_ay, CASE WHEN (\(r.x) < 0) <> (\(r.y) < 0) AND \(r.x) <> 0 THEN 1 ELSE 0 END AS \(r.name)_neg"
        }
        // ClickHouse evaluates both arms of a CASE: the divisor is never zero.
        let b = ratios.map { r in
            let y = "\(r.name)_ay"
            let nonzero = "CASE WHEN \(y) = 0 THEN \(d.wideLiteral(1)) ELSE \(y) END"
            let q = d.quotient("\(r.name)_ax", nonzero)
            return
                "CASE WHEN \(y) = 0 THEN NULL ELSE \(q) END AS \(r.name)_q0, CASE WHEN \(y) = 0 THEN NULL ELSE \(r.name)_ax % \(nonzero) END AS \(r.name)_r"
        }
        let c = ratios.map { r in
            "CASE WHEN 2 * \(r.name)_r > \(r.name)_ay OR (2 * \(r.name)_r = \(r.name)_ay AND \(r.name)_q0 % 2 = 1) THEN \(r.name)_q0 + 1 ELSE \(r.name)_q0 END AS \(r.name)_q"
        }
        return [
            ("r0", "SELECT \(source).*, \(a.joined(separator: ", ")) FROM \(source)"),
            ("r1", "SELECT r0.*, \(b.joined(separator: ", ")) FROM r0"),
            ("r2", "SELECT r1.*, \(c.joined(separator: ", ")) FROM r1"),
        ]
    }

    /// The decimal of ratio `name` (after `ratioCTEs`).
    func ratioResult(_ name: String) -> String {
        let unit = d.wideLiteral(Int128(tenTo: Self.ratioPlaces))
        let text =
            "CASE WHEN \(name)_neg = 1 THEN '-' ELSE '' END || \(d.text(d.quotient("\(name)_q", unit))) || '.' || \(d.leftPad(d.text("\(name)_q % \(unit)"), Self.ratioPlaces, "0"))"
        return
            "CASE WHEN \(name)_q IS NULL THEN NULL ELSE \(d.decimalResult(text, scale: Self.ratioPlaces)) END"
    }
}

extension ReplayRun {
    /// `margin replay … --sql DIALECT`: the per-feature table as one query over `source`
    /// (read from the options as `margin pnl --sql` reads it), with the same cards,
    /// currency, value of a credit and `--costs-at` as the run.
    static func sql(_ request: ReplayRequest, dialect: SQLDialect, source: SQLSource)
        throws -> String
    {
        try ReplaySQLCompiler(plan: try ReplayPlan(request), dialect: dialect, source: source)
            .query()
    }
}
