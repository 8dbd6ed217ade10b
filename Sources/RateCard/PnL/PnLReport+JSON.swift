/// The P&L for programs, written through the shared `JSONOutput` (sorted keys, exact
/// decimal strings).
///
/// Per feature `feature`, `charges`, `charged`, `declines`, `givenBack`, `left` (integer
/// strings), `declineRate`, `cost`; when valued also `value`, `meteredCost`, `fixedCost`,
/// `profit` and `margin` (null unless the value is positive); a figure that could not be
/// computed is null and named in `errors`. An `input` object with `lines`, `entries`,
/// `duplicates`, `rejected`, `blank`, `inWindow`, `rejectedByClass`.
extension PnLReport {
    func json() -> String {
        JSONOutput.object(jsonObject()).rendered()
    }

    func jsonObject() -> [String: JSONOutput] {
        let t = takings
        let b = t.belowTheLine
        var below: [String: JSONOutput] = [
            "grants": .string(String(b.grants)),
            "granted": .string(String(b.granted)),
            "topups": .string(String(b.topups)),
            "toppedUp": .string(String(b.toppedUp)),
            "topupMoney": .array(
                b.topupMoney.map {
                    .object(["currency": .string($0.currency.code), "amount": .decimal($0.amount)])
                }),
            "outstanding": .string(String(b.outstanding)),
        ]
        if valuation != nil {
            below["outstandingValue"] = outstandingValue.map { .decimal($0.amount) } ?? .null
        }
        var o: [String: JSONOutput] = [
            "window": .object([
                "name": .string(t.window.name),
                "since": t.window.since.map { .string($0.rfc3339UTC) } ?? .null,
                "until": t.window.until.map { .string($0.rfc3339UTC) } ?? .null,
            ]),
            "features": .array(lines.map { .object(jsonRow($0)) }),
            "totals": .object(jsonRow(totals)),
            "belowTheLine": .object(below),
            "input": .object([
                "lines": .integer(Int128(t.input.lines)),
                "entries": .integer(Int128(t.input.entries)),
                "duplicates": .integer(Int128(t.input.duplicates)),
                "rejected": .integer(Int128(t.input.rejected)),
                "blank": .integer(Int128(t.input.blank)),
                "inWindow": .integer(Int128(t.input.inWindow)),
                "rejectedByClass": .object(
                    Dictionary(
                        uniqueKeysWithValues: t.input.rejectedByClass.map {
                            ($0.key.rawValue, JSONOutput.integer(Int128($0.value)))
                        })),
            ]),
            "rejections": .array(
                t.rejections.map {
                    .object([
                        "path": .string($0.place.path), "line": .integer(Int128($0.place.line)),
                        "column": .integer(Int128($0.place.column)),
                        "reason": .string($0.reason.rawValue), "message": .string($0.message),
                    ])
                }),
            "unknownFeatures": .array(t.unknownFeatures.map { .string($0) }),
            "warnings": .array(t.warnings.map { .string($0.rendered) }),
            "errors": .array((t.errors + errors).map { .string($0.rendered) }),
            "costCurrency": t.costCurrency.map { .string($0.code) } ?? .null,
        ]
        if let v = valuation { o["valuation"] = .object(jsonValuation(v)) }
        if let audit = t.chargeAudit { o["chargeAudit"] = jsonAudit(audit) }
        if let series = t.series {
            o["series"] = .object([
                "by": .string(series.period.rawValue),
                "offsetMinutes": .integer(Int128(series.offsetMinutes)),
            ])
            o["periods"] = .array(
                periods.map {
                    .object([
                        "period": .string($0.label),
                        "since": $0.since.map { .string($0.rfc3339UTC) } ?? .null,
                        "until": $0.until.map { .string($0.rfc3339UTC) } ?? .null,
                        "features": .array($0.lines.map { .object(jsonRow($0)) }),
                        "totals": .object(jsonRow($0.totals)),
                    ])
                })
        }
        return o
    }

    /// The charge audit: totals, and per feature the counts and the first findings.
    private func jsonAudit(_ a: ChargeAudit) -> JSONOutput {
        .object([
            "mismatches": .string(String(a.mismatches)),
            "missingQuantity": .string(String(a.missingQuantity)),
            "unchecked": .string(String(a.unchecked)),
            "features": .array(
                a.features.map { f in
                    .object([
                        "feature": .string(f.feature), "checked": .string(String(f.checked)),
                        "mismatches": .string(String(f.mismatches)),
                        "overCharged": .string(String(f.overCharged)),
                        "underCharged": .string(String(f.underCharged)),
                        "missingQuantity": .string(String(f.missingQuantity)),
                        "unchecked": .string(String(f.unchecked)),
                        "costIncomplete": .bool(f.costIncomplete),
                        "findings": .array(
                            f.findings.map { x in
                                .object([
                                    "place": .string(x.place.description),
                                    "charged": .string(String(x.charged)),
                                    "expected": x.expected.map { .string(String($0)) } ?? .null,
                                    "message": .string(x.message),
                                ])
                            }),
                    ])
                }),
        ])
    }

    private func jsonValuation(_ v: PnLValuation) -> [String: JSONOutput] {
        var o: [String: JSONOutput] = [
            "currency": .string(v.currency.code),
            "perCredit": .decimal(v.credit.perCredit.amount),
            "basis": .string(v.credit.basis),
            "stated": .string(v.credit.stated ? "true" : "false"),
            "meteredCosts": .string(v.meteredNote),
            "margin": .string(PnLValuation.marginBasis),
            "versionsInForce": .array(v.versionsInForce.map { .string($0) }),
            "valuedAt": v.valuedAt.map { .string($0) } ?? .null,
            "fxUsed": .array(
                v.fxUsed.map {
                    .object([
                        "base": .string($0.base.code), "quote": .string($0.quote.code),
                        "rate": .decimal($0.rate),
                        "from": .string($0.fromCommandLine ? "command line" : "file"),
                    ])
                }),
        ]
        if let u = v.creditUnit {
            var unit: [String: JSONOutput] = ["name": .string(u.name)]
            if let f = u.faceValue { unit["faceValue"] = .money(f) }
            o["creditUnit"] = .object(unit)
        }
        if let f = v.fixedCosts {
            o["fixedCosts"] = .string(f.note)
            o["fixedCostSheet"] = .object([
                "path": .string(f.sheet.path),
                "since": .string(f.sheet.since.description),
                "until": .string(f.sheet.until.description),
                "application": .string(f.application),
                "share": .decimal(f.share),
            ])
        }
        return o
    }

    private func jsonRow(_ l: Line) -> [String: JSONOutput] {
        let r = l.takings
        var o: [String: JSONOutput] = [
            "feature": .string(l.isTotal ? "total" : r.feature),
            "charges": .string(String(r.charges)),
            "charged": .string(String(r.charged)),
            "declines": .string(String(r.declines)),
            "givenBack": .string(String(r.givenBack)),
            "left": .string(String(r.left)),
            "declineRate": r.declineRate.map { .decimal($0) } ?? .null,
            "cost": r.cost.map { .decimal($0.amount) } ?? .null,
        ]
        guard valuation != nil else { return o }
        let f = l.figures
        func money(_ m: Money?) -> JSONOutput { m.map { .decimal($0.amount) } ?? .null }
        o["value"] = money(f?.value)
        o["meteredCost"] = money(f?.meteredCost)
        o["fixedCost"] = money(f?.fixedCost)
        o["cost"] = money(f?.cost)
        o["profit"] = money(f?.profit)
        o["margin"] = f?.margin.map { .decimal($0) } ?? .null
        return o
    }
}
