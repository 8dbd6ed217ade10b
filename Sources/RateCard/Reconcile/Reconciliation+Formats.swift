/// Every format of `margin reconcile` from one `Reconciliation`: the same findings and
/// figures, money as exact decimals (a share of a price that does not terminate is shown
/// to 12 places, half-even, the one rule of `Exact.decimalText`).
extension Reconciliation: RenderableReport {
    public var exitCode: Int32 { findings.isEmpty ? 0 : 1 }

    public var warnings: [Diagnostic] { appleWarnings + ledgerWarnings }

    /// Exact: with the currency's places when it has no more ("GBP 2.90"), else every
    /// place it has.
    static func money(_ m: Money?) -> String {
        guard let m else { return "" }
        return "\(m.currency.code) \(m.isWholeMinorUnits ? m.formatted() : m.amount.decimalText())"
    }

    var summaryLines: [(String, String)] {
        let s = summary
        var lines: [(String, String)] = [
            ("card", family),
            (
                "Apple transactions",
                "\(s.appleTransactions) (\(s.production) production, \(s.otherEnvironments) sandbox or Xcode, \(s.notPacks) not credit packs; \(s.historyPages) history pages)"
            ),
            ("Apple records", appleRecordsLine),
            (
                "notifications",
                s.notifications.isEmpty
                    ? "none"
                    : s.notifications.keys.sorted().map { "\($0) \(s.notifications[$0] ?? 0)" }
                        .joined(separator: ", ")
            ),
            (
                "ledger",
                "\(s.ledgerEntries) entries (\(s.topups) top-ups, \(s.revokes) revokes), \(s.ledgerDuplicates) duplicates, \(s.ledgerRejected) lines not read"
            ),
            ("matched", "\(s.matched) production purchases credited"),
            (
                "refunds",
                "\(s.refundsTakenBack) taken back, \(s.refundedUncredited) refunded before crediting, \(s.refundRequestsOpen) refund requests open"
            ),
        ]
        if s.noCardPrice > 0 {
            lines.append(
                (
                    "not price-checked",
                    "\(s.noCardPrice) purchases in a currency the card has no price in"
                ))
        }
        lines.append(("findings", "\(findings.count)"))
        return lines
    }

    /// Every record of every `--transactions` file accounted for: read, distinct, repeated,
    /// per file.
    var appleRecordsLine: String {
        let s = summary
        let files = s.transactionFiles.map {
            "\($0.path) \($0.transactions) transactions, \($0.notifications) notifications"
        }
        return
            "\(s.transactionRecords) transaction records read, \(s.repeatedTransactions) repeating an id read before (\(files.joined(separator: "; ")))"
    }

    var findingsTable: TextTable {
        var t = TextTable([
            .init("finding"), .init("ledger"), .init("entry", .left, .untrusted),
            .init("apple"), .init("transaction", .left, .untrusted),
            .init("product", .left, .untrusted), .init("credits", .right),
            .init("spent since", .right), .init("their cost", .right), .init("money", .right),
            .init("detail", .left, .untrusted),
        ])
        for f in findings {
            t.append([
                f.kind.rawValue, f.ledger?.description ?? "", f.ledgerId ?? "",
                f.apple?.description ?? "", f.transactionId ?? "", f.productId ?? "",
                String(f.credits), f.spentSince.map { String($0) } ?? "", Self.money(f.spentCost),
                Self.money(f.money), f.detail,
            ])
        }
        return t
    }

    var totalsTable: TextTable {
        var t = TextTable([
            .init("finding"), .init("what"), .init("count", .right), .init("credits", .right),
            .init("money", .right),
        ])
        for total in totals {
            t.append([
                total.kind.rawValue, total.kind.title, String(total.count), String(total.credits),
                total.money.map { Self.money($0) }.joined(separator: "; "),
            ])
        }
        return t
    }

    var salesTable: TextTable {
        var t = TextTable([
            .init("product", .left, .untrusted), .init("country", .left, .untrusted),
            .init("currency"), .init("from"), .init("to"), .init("units sold", .right),
            .init("refunded", .right), .init("proceeds", .right),
            .init("in transactions", .right), .init("per credit", .right),
            .init("matched by", .left, .untrusted),
        ])
        for s in sales {
            t.append([
                s.productId, s.country ?? "all", s.customerCurrency.code, "\(s.begin)",
                "\(s.end)", String(s.unitsSold), String(s.unitsRefunded), Self.money(s.proceeds),
                String(s.transactionUnits), Self.money(s.perCredit), s.matchedBy.rawValue,
            ])
        }
        return t
    }

    var financialTable: TextTable {
        var t = TextTable([
            .init("fiscal from"), .init("to"), .init("product", .left, .untrusted),
            .init("country", .left, .untrusted), .init("sold", .right),
            .init("returned", .right), .init("proceeds", .right),
            .init("in transactions", .right), .init("per credit", .right),
            .init("matched by", .left, .untrusted),
        ])
        for f in financial {
            t.append([
                "\(f.start)", "\(f.end)", f.productId, f.country ?? "all", String(f.sold),
                String(f.returned), Self.money(f.proceeds), String(f.transactionUnits),
                Self.money(f.perCredit), f.matchedBy.rawValue,
            ])
        }
        return t
    }

    static let method =
        "money is the customer's price from Apple's transactions (not proceeds: Apple's reports are the record), shared by credits where a finding is part of a purchase; credits granted per purchase are quantity × the pack's credits of the card in force at the purchase date; spent since is the device's charges less refunds after the top-up, at most the credits not taken back, and their cost the provider cost of those charges (by the sheets of the version in force, in the providers' currency) for the share counted; JWS signatures are not verified"

    public func renderTable(bold: Bool) -> String {
        var out = summaryLines.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + "\n"
        if !findings.isEmpty {
            out += "\n" + totalsTable.plain(bold: bold) + "\n" + findingsTable.plain(bold: bold)
        }
        if !sales.isEmpty {
            out +=
                "\nApple's Summary Sales Reports (estimates; days in Pacific time):\n"
                + salesTable.plain(bold: bold)
        }
        if !financial.isEmpty {
            out +=
                "\nApple's financial reports (final; Apple's fiscal months):\n"
                + financialTable.plain(bold: bold)
        }
        return out + "\n" + Self.method + "\n"
    }

    public func renderMarkdown() -> String {
        var out = "# Reconciliation of the ledger with Apple's records\n\n"
        out += summaryLines.map { "- \($0.0): \($0.1)" }.joined(separator: "\n") + "\n"
        if !findings.isEmpty {
            out += "\n## Findings\n\n" + totalsTable.markdown() + "\n" + findingsTable.markdown()
        }
        if !sales.isEmpty {
            out +=
                "\n## Summary Sales Reports\n\nEstimates; days in Pacific time.\n\n"
                + salesTable.markdown()
        }
        if !financial.isEmpty {
            out +=
                "\n## Financial reports\n\nFinal; Apple's fiscal months.\n\n"
                + financialTable.markdown()
        }
        return out + "\n" + Self.method + "\n"
    }

    /// One row per finding (`Kind` ids in `finding`), exact decimals.
    public func renderCSV() -> String {
        var t = TextTable([
            .init("finding"), .init("ledgerFile", .left, .untrusted), .init("ledgerLine"),
            .init("entry", .left, .untrusted), .init("appleFile", .left, .untrusted),
            .init("appleLine"), .init("transaction", .left, .untrusted),
            .init("product", .left, .untrusted), .init("credits"), .init("spentSince"),
            .init("spentCost"), .init("spentCostCurrency"), .init("amount"), .init("currency"),
            .init("detail", .left, .untrusted),
        ])
        for f in findings {
            t.append([
                f.kind.rawValue, f.ledger?.path ?? "", f.ledger.map { String($0.line) } ?? "",
                f.ledgerId ?? "", f.apple?.path ?? "", f.apple.map { String($0.line) } ?? "",
                f.transactionId ?? "", f.productId ?? "", String(f.credits),
                f.spentSince.map { String($0) } ?? "", f.spentCost?.amount.decimalText() ?? "",
                f.spentCost?.currency.code ?? "", f.money?.amount.decimalText() ?? "",
                f.money?.currency.code ?? "", f.detail,
            ])
        }
        return t.csv()
    }

    public func renderJSON() -> String {
        func opt(_ s: String?) -> JSONOutput { s.map { .string($0) } ?? .null }
        let s = summary
        let summaryJSON: JSONOutput = .object([
            "appleTransactions": .integer(Int128(s.appleTransactions)),
            "production": .integer(Int128(s.production)),
            "otherEnvironments": .integer(Int128(s.otherEnvironments)),
            "notPacks": .integer(Int128(s.notPacks)),
            "historyPages": .integer(Int128(s.historyPages)),
            "transactionRecords": .integer(Int128(s.transactionRecords)),
            "repeatedTransactions": .integer(Int128(s.repeatedTransactions)),
            "transactionFiles": .array(
                s.transactionFiles.map {
                    .object([
                        "path": .string($0.path),
                        "transactions": .integer(Int128($0.transactions)),
                        "notifications": .integer(Int128($0.notifications)),
                    ])
                }),
            "notifications": .object(s.notifications.mapValues { .integer(Int128($0)) }),
            "ledgerEntries": .integer(Int128(s.ledgerEntries)),
            "ledgerDuplicates": .integer(Int128(s.ledgerDuplicates)),
            "ledgerRejected": .integer(Int128(s.ledgerRejected)),
            "topups": .integer(Int128(s.topups)),
            "revokes": .integer(Int128(s.revokes)),
            "matched": .integer(Int128(s.matched)),
            "refundsTakenBack": .integer(Int128(s.refundsTakenBack)),
            "refundedUncredited": .integer(Int128(s.refundedUncredited)),
            "refundRequestsOpen": .integer(Int128(s.refundRequestsOpen)),
            "noCardPrice": .integer(Int128(s.noCardPrice)),
        ])
        let findingsJSON: [JSONOutput] = findings.map { f in
            .object([
                "finding": .string(f.kind.rawValue),
                "ledger": f.ledger.map {
                    .object([
                        "file": .string($0.path), "line": .integer(Int128($0.line)),
                        "id": opt(f.ledgerId),
                    ])
                } ?? .null,
                "apple": f.apple.map {
                    .object(["file": .string($0.path), "line": .integer(Int128($0.line))])
                } ?? .null,
                "transactionId": opt(f.transactionId),
                "productId": opt(f.productId),
                "credits": .string(String(f.credits)),
                "spentSince": f.spentSince.map { .string(String($0)) } ?? .null,
                "spentCost": f.spentCost.map(JSONOutput.money) ?? .null,
                "money": f.money.map(JSONOutput.money) ?? .null,
                "detail": .string(f.detail),
            ])
        }
        let totalsJSON: [JSONOutput] = totals.map { t in
            .object([
                "finding": .string(t.kind.rawValue), "count": .integer(Int128(t.count)),
                "credits": .string(String(t.credits)),
                "money": .array(t.money.map(JSONOutput.money)),
            ])
        }
        let salesJSON: [JSONOutput] = sales.map { l in
            .object([
                "productId": .string(l.productId),
                "country": l.country.map(JSONOutput.string) ?? .null,
                "matchedBy": .string(l.matchedBy.rawValue),
                "customerCurrency": .string(l.customerCurrency.code),
                "from": .string("\(l.begin)"), "to": .string("\(l.end)"),
                "unitsSold": .string(String(l.unitsSold)),
                "unitsRefunded": .string(String(l.unitsRefunded)),
                "proceeds": JSONOutput.money(l.proceeds),
                "transactionUnits": .string(String(l.transactionUnits)),
                "perCredit": l.perCredit.map(JSONOutput.money) ?? .null,
            ])
        }
        let financialJSON: [JSONOutput] = financial.map { l in
            .object([
                "from": .string("\(l.start)"), "to": .string("\(l.end)"),
                "productId": .string(l.productId), "sold": .string(String(l.sold)),
                "country": l.country.map(JSONOutput.string) ?? .null,
                "matchedBy": .string(l.matchedBy.rawValue),
                "transactionUnits": .string(String(l.transactionUnits)),
                "returned": .string(String(l.returned)), "proceeds": JSONOutput.money(l.proceeds),
                "perCredit": l.perCredit.map(JSONOutput.money) ?? .null,
            ])
        }
        return JSONOutput.object([
            "card": .string(family), "summary": summaryJSON, "findings": .array(findingsJSON),
            "totals": .array(totalsJSON), "sales": .array(salesJSON),
            "financial": .array(financialJSON), "method": .string(Self.method),
        ]).rendered()
    }
}
