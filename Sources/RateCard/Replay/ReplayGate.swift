/// The CI gate over a replay: `margin check --replay FILE… --max-credit-change 10%
/// --max-margin-drop 5` and `margin diff OLD NEW --usage FILE…` with the same limits.
///
/// One error per feature whose re-priced credits move by more than the credit limit
/// (either way: a price cut past the limit is as much a change to review as a rise), at
/// the feature's key in the candidate card; one error when the overall margin falls by
/// more than the margin limit (percentage points), at the card itself. Features with no
/// re-priced request are not judged.
struct ReplayLimits: Sendable, Hashable {
    /// The largest change allowed, as a share of the credits before (0.1 for 10%).
    let maxCreditChange: Exact?
    /// The largest fall of the overall margin allowed, in percentage points.
    let maxMarginDrop: Exact?

    /// From the options' texts: "10%" or "10" (percent) for both.
    init(maxCreditChange: String?, maxMarginDrop: String?) throws(UsageError) {
        func percent(
            _ text: String?, _ option: String, expected: String
        ) throws(UsageError) -> Exact? {
            guard var t = text else { return nil }
            if t.hasSuffix("%") { t.removeLast() }
            guard let v = try? Exact(decimal: t), !v.isNegative else {
                throw UsageError("--\(option) \(text ?? ""): expected \(expected)")
            }
            return v
        }
        self.maxCreditChange = try percent(
            maxCreditChange, "max-credit-change",
            expected: "a percentage of 0 or more, such as 10%"
        ).map {
            (try? $0.divided(by: Exact(100))) ?? $0
        }
        self.maxMarginDrop = try percent(
            maxMarginDrop, "max-margin-drop",
            expected:
                "percentage points of 0 or more, such as 5 (the fall of the margin, 25% → 20% is 5)"
        )
        guard self.maxCreditChange != nil || self.maxMarginDrop != nil else {
            throw UsageError("give --max-credit-change, --max-margin-drop or both")
        }
    }

    init(creditChange: Exact?, marginDrop: Exact?) {
        maxCreditChange = creditChange
        maxMarginDrop = marginDrop
    }
}

enum ReplayGate {
    /// What `diff --usage` and `check --replay` say when NEW's packs cannot value a credit:
    /// they take no `--credit-value`.
    static let valueHint =
        "the replay values a credit by the candidate's packs; replay this usage with 'margin replay FILE… --card NEW --credit-value MONEY' instead"

    /// The findings of one replay, at its candidate card's places. A replay that re-priced
    /// nothing is one error (`replay-nothing-repriced`): the limits judged no charge, and a
    /// gate that passes on nothing would say the change is safe on usage it never saw.
    static func findings(_ report: ReplayReport, limits: ReplayLimits) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let card = report.card
        let path = card.source.path
        // A feature the usage charges and NEW removes: none of its charges can be re-priced,
        // so no limit can judge it, and that is the largest change of all.
        for row in report.features where row.notRepriced > 0 {
            guard let key = row.feature, report.removedFeatures.contains(key) else { continue }
            let had =
                report.isLedgerSide ? "the ledger's versions have it" : "\(report.before) has it"
            out.append(
                Diagnostic(
                    path: path, location: card.source.location,
                    message:
                        "on the replayed usage, feature \(key) has \(Format.grouped(Int128(row.requests))) requests (\(Format.grouped(row.notRepricedCredits)) credits charged), but \(report.new) has no feature \"\(key)\" (\(had)): none can be re-priced, past any limit",
                    rule: .replay(.creditChange)))
        }
        guard report.total.repriced > 0 else {
            return out + [
                Diagnostic(
                    path: path, location: card.source.location,
                    message:
                        "on the replayed usage, no charge could be re-priced under \(report.new) against \(report.before) (\(Format.grouped(Int128(report.total.notRepriced))) not re-priced of \(Format.grouped(Int128(report.total.requests)))): the limits judged nothing",
                    rule: .replay(.nothingRepriced))
            ]
        }
        if let limit = limits.maxCreditChange {
            for row in report.features where row.repriced > 0 {
                guard let share = row.creditChangeShare, limit < magnitude(share) else { continue }
                let key = row.feature ?? ""
                let location =
                    card.features.first { $0.key == key }?.keyLocation ?? card.source.location
                out.append(
                    Diagnostic(
                        path: path, location: location,
                        message:
                            "on the replayed usage, feature \(key) takes \(Format.grouped(row.creditsBefore)) → \(Format.grouped(row.creditsAfter)) credits under \(report.new) against \(report.before) (\(share.isPositive ? "+" : "")\(Format.percent(share)) over \(row.repriced) re-priced requests), past --max-credit-change \(Format.percent(limit))",
                        rule: .replay(.creditChange)))
            }
        }
        if let limit = limits.maxMarginDrop, let drop = report.total.marginDropPoints,
            limit < drop
        {
            let b = report.total.marginBefore.map { Format.percent($0) } ?? Format.missing
            let a = report.total.marginAfter.map { Format.percent($0) } ?? Format.missing
            out.append(
                Diagnostic(
                    path: path, location: card.source.location,
                    message:
                        "on the replayed usage, the overall margin falls \(points(drop)) points under \(report.new) against \(report.before) (\(b) → \(a)), past --max-margin-drop \(limit.decimalText())",
                    rule: .replay(.marginDrop)))
        }
        return out
    }

    private static func magnitude(_ v: Exact) -> Exact {
        v.isNegative ? ((try? v.negated()) ?? v) : v
    }

    /// Percentage points, one place, half-even ("1.5").
    private static func points(_ v: Exact) -> String {
        (try? v.formatted(scale: 1, rule: .halfEven)) ?? Format.missing
    }

    /// `margin check --replay`: every card family's newest version in `cards` replayed on
    /// `inputs` against the ledger's own charges; families the usage does not touch (no
    /// request re-priced), or whose every charge line names another card id in its `card`
    /// field, are not judged.
    static func check(
        cards: [String], inputs: [TakingsInput], limits: ReplayLimits, fxOverrides: [FXRate] = [],
        memoryLimit: Int? = nil
    ) throws -> [Diagnostic] {
        let repo = try CardRepository.load(paths: cards)
        var out: [Diagnostic] = []
        for id in repo.cardIDs {
            guard let newest = repo.versions(of: id).last else { continue }
            var request = ReplayRequest(
                inputs: inputs, cards: cards, new: newest.reference, fxOverrides: fxOverrides,
                memoryLimit: memoryLimit)
            request.valueHint = valueHint
            let report: ReplayReport
            var unvalued: String?
            do {
                report = try ReplayRun.run(request)
            } catch PnLError.valuation(let why) {
                // A card that sells no priced pack (a subscription-only card): its credits
                // can still be compared, at no value; its margin cannot be judged.
                let currency = PackMargins.costCurrency(
                    card: newest, providers: PackMargins.providers(of: newest, in: repo))
                request.creditValue = Money(.zero, currency)
                report = try ReplayRun.run(request)
                unvalued = why
            }
            // A family is judged on its own usage: not one the usage does not touch,
            // nor one whose every charge line names another card (`osg@10` charges
            // replayed under a `talk` card that happens to share feature keys).
            // A family that removes every feature the usage charges is judged (by the
            // removal) though nothing is re-priced.
            let removesUsed = report.features.contains {
                $0.notRepriced > 0 && report.removedFeatures.contains($0.feature ?? "")
            }
            guard report.total.repriced > 0 || removesUsed, !report.usageOfAnotherCard else {
                continue
            }
            out += findings(report, limits: limits)
            if let unvalued, let limit = limits.maxMarginDrop {
                out.append(
                    Diagnostic(
                        path: newest.source.path, location: newest.source.location,
                        message:
                            "on the replayed usage, the overall margin under \(report.new) cannot be judged against --max-margin-drop \(limit.decimalText()): \(unvalued.replacingOccurrences(of: ": " + valueHint, with: ""))",
                        rule: .replay(.marginDrop)))
            }
        }
        return out
    }
}

extension CheckReport {
    /// This report with the replay gate's findings sorted in (`ReplayGate.check`); as it
    /// is when the files could not be read, since no card is then known to replay.
    func replaying(
        _ exports: [String], cards: [String], limits: ReplayLimits, fxOverrides: [FXRate] = [],
        memoryLimit: Int? = nil
    ) throws -> CheckReport {
        guard !unreadable else { return self }
        let more = try ReplayGate.check(
            cards: cards, inputs: exports.map { TakingsInput(path: $0) }, limits: limits,
            fxOverrides: fxOverrides, memoryLimit: memoryLimit)
        return CheckReport(diagnostics: diagnostics + more, files: files, unreadable: unreadable)
    }
}
