/// Every format of the proceeds section from one `ProceedsReport`: exact decimals (a value
/// that does not terminate is shown to 12 places, half-even, the one rule of
/// `Exact.decimalText`).
extension ProceedsReport: RenderableReport {
    var warnings: [Diagnostic] { appleWarnings + ledgerWarnings }

    static func money(_ m: Money?) -> String {
        guard let m else { return "" }
        return "\(m.currency.code) \(m.isWholeMinorUnits ? m.formatted() : m.amount.decimalText())"
    }

    var summaryLines: [(String, String)] {
        [
            ("card", family),
            ("window", window),
            ("reporting currency", currency.code),
            (
                "modelled value",
                "\(Self.money(modelledPerCredit)) per credit (the current estimate)"
            ),
            (
                "ledger",
                "\(ledgerEntries) entries of \(accounts) accounts, \(ledgerDuplicates) duplicates, \(ledgerRejected) lines not read, \(refundsIgnored) refunds not counted"
                    + (refundsBeforeCharge > 0
                        ? ", \(refundsBeforeCharge) dated before their charge (taken right after it)"
                        : "")
            ),
            (
                "taken back",
                "\(takenBack) credits by revokes"
                    + (takenBackBeyond > 0 ? ", \(takenBackBeyond) more than the account held" : "")
            ),
        ]
    }

    var featureTable: TextTable {
        var t = TextTable([
            .init("feature", .left, .untrusted), .init("credits", .right),
            .init("modelled", .right), .init("at proceeds", .right), .init("difference", .right),
            .init("by purchase", .right), .init("by period", .right), .init("free", .right),
            .init("refunded", .right), .init("sandbox", .right), .init("modelled credits", .right),
        ])
        func row(_ f: FeatureLine, emphasized: Bool = false) {
            let b = f.byBasis
            t.append(
                [
                    f.key, String(f.credits), Self.money(f.modelled), Self.money(f.proceeds),
                    Self.money(f.difference),
                ]
                    + ProceedsRate.Basis.allCases.map { String(b[$0.rawValue] ?? 0) },
                emphasized: emphasized)
        }
        for f in features { row(f) }
        var all: [String: Int128] = [:]
        for f in features { for (k, v) in f.byBasis { all[k, default: 0] += v } }
        row(
            FeatureLine(
                key: "total", credits: totalCredits, modelled: totalModelled,
                proceeds: totalProceeds, byBasis: all), emphasized: true)
        return t
    }

    var rateTable: TextTable {
        var t = TextTable([
            .init("basis"), .init("value of a credit", .left, .untrusted),
            .init("per credit", .right), .init("lots", .right), .init("credits bought", .right),
            .init("credits used", .right), .init("of them unbacked", .right),
        ])
        for r in rates {
            t.append([
                r.basis, r.label, Self.money(r.perCredit), String(r.lots), String(r.credits),
                String(r.used), String(r.unbacked),
            ])
        }
        return t
    }

    var liabilityLines: [(String, String)] {
        let l = liability
        return [
            ("at", l.at.rfc3339UTC),
            ("paid credits not yet spent", "\(l.paidCredits) in \(l.lots) lots"),
            ("their value at proceeds", Self.money(l.value)),
            ("breakage already recognised on them", Self.money(l.breakageRecognised)),
            ("contract liability (deferred revenue)", Self.money(l.deferred)),
            ("credits granted for free not yet spent", "\(l.freeCredits) (no money)"),
        ]
    }

    var breakageLines: [(String, String)] {
        [
            ("rule", breakage.rule),
            ("recognised in the window", Self.money(breakage.recognised)),
            (
                "lapsed in the window",
                "\(breakage.lapsedPaid) paid credits, \(breakage.lapsedFree) free credits"
            ),
        ]
    }

    var appleTable: TextTable {
        var t = TextTable([
            .init("report"), .init("from"), .init("to"), .init("product", .left, .untrusted),
            .init("country"), .init("currency"), .init("sold", .right), .init("refunded", .right),
            .init("proceeds", .right), .init("credits", .right), .init("per credit", .right),
        ])
        for a in apple {
            t.append([
                a.source, a.begin, a.end, a.productId, a.country, a.customerCurrency,
                String(a.unitsSold),
                String(a.unitsRefunded), a.proceeds.map { Self.money($0) }.joined(separator: "; "),
                String(a.credits), Self.money(a.perCredit),
            ])
        }
        return t
    }

    /// With `--by`: per period and feature, the credits, the modelled value, the value at
    /// proceeds and the difference.
    var periodTable: TextTable {
        var t = TextTable([
            .init("period"), .init("feature", .left, .untrusted), .init("credits", .right),
            .init("modelled", .right), .init("at proceeds", .right), .init("difference", .right),
        ])
        for p in periods {
            for f in p.features {
                t.append([
                    p.period, f.key, String(f.credits), Self.money(f.modelled),
                    Self.money(f.proceeds), Self.money(f.difference),
                ])
            }
        }
        return t
    }

    func renderTable(bold: Bool) -> String {
        func lines(_ l: [(String, String)]) -> String {
            l.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + "\n"
        }
        var out = "Credits at Apple's proceeds (first in, first out per account):\n"
        out += lines(summaryLines) + "\n" + featureTable.plain(bold: bold)
        if let series {
            out += "\nBy \(series) (charges and refunds in the period of their own time):\n"
            out += periodTable.plain(bold: bold)
        }
        out += "\nValues of a credit:\n" + rateTable.plain(bold: bold)
        out += "\nLiability:\n" + lines(liabilityLines)
        out += "\nBreakage:\n" + lines(breakageLines)
        if !apple.isEmpty {
            out += "\nApple's proceeds (days in Pacific time):\n" + appleTable.plain(bold: bold)
        }
        return out + "\n" + Self.method.map { "- " + $0 }.joined(separator: "\n") + "\n"
    }

    func renderMarkdown() -> String {
        func lines(_ l: [(String, String)]) -> String {
            l.map { "- \($0.0): \($0.1)" }.joined(separator: "\n") + "\n"
        }
        var out = "## Credits at Apple's proceeds\n\n" + lines(summaryLines) + "\n"
        out += featureTable.markdown()
        if let series {
            out += "\n### By \(series)\n\nCharges and refunds in the period of their own time.\n\n"
            out += periodTable.markdown()
        }
        out += "\n### Values of a credit\n\n" + rateTable.markdown()
        out += "\n### Liability\n\n" + lines(liabilityLines)
        out += "\n### Breakage\n\n" + lines(breakageLines)
        if !apple.isEmpty {
            out += "\n### Apple's proceeds\n\nDays in Pacific time.\n\n" + appleTable.markdown()
        }
        return out + "\n### Method\n\n" + Self.method.map { "- " + $0 }.joined(separator: "\n")
            + "\n"
    }

    /// One row per figure: `section,key,basis,credits,amount,currency` (exact decimals).
    func renderCSV() -> String {
        var t = TextTable([
            .init("section"), .init("key", .left, .untrusted), .init("basis"),
            .init("credits"), .init("amount"), .init("currency"),
        ])
        let c = currency.code
        for f in features {
            t.append([
                "feature", f.key, "modelled", String(f.credits), f.modelled.amount.decimalText(), c,
            ])
            t.append([
                "feature", f.key, "proceeds", String(f.credits), f.proceeds.amount.decimalText(), c,
            ])
            for b in ProceedsRate.Basis.allCases {
                if let n = f.byBasis[b.rawValue] {
                    t.append(["feature", f.key, b.rawValue, String(n), "", ""])
                }
            }
        }
        for p in periods {
            for f in p.features {
                t.append([
                    "period", "\(p.period) \(f.key)", "modelled", String(f.credits),
                    f.modelled.amount.decimalText(), c,
                ])
                t.append([
                    "period", "\(p.period) \(f.key)", "proceeds", String(f.credits),
                    f.proceeds.amount.decimalText(), c,
                ])
            }
        }
        for r in rates {
            t.append([
                "rate", r.label, r.basis, String(r.used), r.perCredit.amount.decimalText(), c,
            ])
        }
        let l = liability
        t.append([
            "liability", "paid", "proceeds", String(l.paidCredits), l.value.amount.decimalText(), c,
        ])
        t.append([
            "liability", "breakage recognised", "", "", l.breakageRecognised.amount.decimalText(),
            c,
        ])
        t.append(["liability", "deferred", "", "", l.deferred.amount.decimalText(), c])
        t.append(["liability", "free", "free", String(l.freeCredits), "0", c])
        t.append(["breakage", "recognised", "", "", breakage.recognised.amount.decimalText(), c])
        t.append(["breakage", "lapsed paid", "", String(breakage.lapsedPaid), "", ""])
        t.append(["breakage", "lapsed free", "free", String(breakage.lapsedFree), "", ""])
        return t.csv()
    }

    func renderJSON() -> String { json.rendered() }

    /// The section as one JSON object (also a member of `pnl`'s JSON).
    var json: JSONOutput {
        func credits(_ n: Int128) -> JSONOutput { .string(String(n)) }
        func featureJSON(_ f: FeatureLine) -> JSONOutput {
            .object([
                "feature": .string(f.key), "credits": credits(f.credits),
                "modelled": JSONOutput.money(f.modelled), "proceeds": JSONOutput.money(f.proceeds),
                "difference": JSONOutput.money(f.difference),
                "byBasis": .object(f.byBasis.mapValues(credits)),
            ])
        }
        let featuresJSON = features.map(featureJSON)
        let ratesJSON: [JSONOutput] = rates.map { r in
            .object([
                "basis": .string(r.basis), "label": .string(r.label),
                "perCredit": JSONOutput.money(r.perCredit), "lots": .integer(Int128(r.lots)),
                "credits": credits(r.credits), "used": credits(r.used),
                "unbacked": credits(r.unbacked),
            ])
        }
        let l = liability
        let appleJSON: [JSONOutput] = apple.map { a in
            .object([
                "report": .string(a.source), "from": .string(a.begin), "to": .string(a.end),
                "productId": .string(a.productId), "country": .string(a.country),
                "customerCurrency": .string(a.customerCurrency),
                "unitsSold": credits(a.unitsSold), "unitsRefunded": credits(a.unitsRefunded),
                "proceeds": .array(a.proceeds.map(JSONOutput.money)), "credits": credits(a.credits),
                "perCredit": a.perCredit.map(JSONOutput.money) ?? .null,
            ])
        }
        var members: [String: JSONOutput] = [
            "card": .string(family), "window": .string(window), "currency": .string(currency.code),
            "modelledPerCredit": JSONOutput.money(modelledPerCredit),
            "features": .array(featuresJSON),
            "total": .object([
                "credits": credits(totalCredits), "modelled": JSONOutput.money(totalModelled),
                "proceeds": JSONOutput.money(totalProceeds),
            ]),
            "rates": .array(ratesJSON),
            "liability": .object([
                "at": .string(l.at.rfc3339UTC), "paidCredits": credits(l.paidCredits),
                "lots": .integer(Int128(l.lots)), "value": JSONOutput.money(l.value),
                "breakageRecognised": JSONOutput.money(l.breakageRecognised),
                "deferred": JSONOutput.money(l.deferred), "freeCredits": credits(l.freeCredits),
            ]),
            "breakage": .object([
                "rule": .string(breakage.rule),
                "recognised": JSONOutput.money(breakage.recognised),
                "lapsedPaid": credits(breakage.lapsedPaid),
                "lapsedFree": credits(breakage.lapsedFree),
            ]),
            "apple": .array(appleJSON),
            "ledger": .object([
                "entries": .integer(Int128(ledgerEntries)), "accounts": .integer(Int128(accounts)),
                "duplicates": .integer(Int128(ledgerDuplicates)),
                "rejected": .integer(Int128(ledgerRejected)),
                "refundsIgnored": .integer(Int128(refundsIgnored)),
                "refundsBeforeCharge": .integer(Int128(refundsBeforeCharge)),
                "takenBack": credits(takenBack), "takenBackBeyond": credits(takenBackBeyond),
            ]),
            "method": .array(Self.method.map { .string($0) }),
        ]
        if let series {
            members["by"] = .string(series)
            members["periods"] = .array(
                periods.map {
                    .object([
                        "period": .string($0.period),
                        "features": .array($0.features.map(featureJSON)),
                    ])
                })
        }
        return .object(members)
    }
}
