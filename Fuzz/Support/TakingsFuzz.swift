// The checks shared by the takings targets (`takings`, `takings_jsonl`, `takings_csv`):
// `TakingsRun.run` on arbitrary inputs, priced by the repository's `osg` card.
@testable import RateCard

/// The repository's cards, loaded once (the fuzzers run from the repository's root).
let fuzzPricing: CardTakingsPricing = {
    do {
        let repository = try CardRepository.load(paths: ["RateCards"])
        return CardTakingsPricing(
            family: "osg", repository: repository, currency: Currency(code: "CNY")!)
    } catch {
        fatalError("cannot load RateCards/ (run the fuzzer from the repository's root): \(error)")
    }
}()

/// A stated credit value, so that the value, profit and margin columns are rendered too.
let fuzzValuation = PnLValuation(
    credit: CreditValuation(stated: Money(try! Exact(decimal: "0.005"), Currency(code: "CNY")!)),
    meteredNote: "fuzz")

/// Runs the takings over `inputs` and checks what must hold for any input: no trap, an
/// unreadable input is a `TakingsInputError` naming it, every line is accounted for
/// (`lines = entries + duplicates + rejected + blank`), rejections name a real input at
/// a line of it and are listed in order, and (with `render`) the report renders in every
/// format.
@discardableResult
func checkTakings(
    _ inputs: [TakingsInput], options: TakingsOptions, priced: Bool, render: Bool = true
) -> TakingsReport? {
    let report: TakingsReport
    do {
        report = try TakingsRun.run(
            inputs: inputs, options: options, pricing: priced ? fuzzPricing : nil)
    } catch let error as TakingsInputError {
        require(
            inputs.contains { $0.path == error.path },
            "an input error names \(error.path), not an input")
        require(!error.message.isEmpty, "an input error without a message")
        return nil
    } catch {
        fatalError("property failed: TakingsRun threw \(type(of: error)): \(error)")
    }
    let i = report.input
    require(
        i.isBalanced,
        "accounting: lines \(i.lines) ≠ entries \(i.entries) + duplicates \(i.duplicates) + rejected \(i.rejected) (by class \(i.rejectedByClass)) + blank \(i.blank)"
    )
    require(
        i.lines >= 0 && i.entries >= 0 && i.duplicates >= 0 && i.rejected >= 0 && i.blank >= 0,
        "a negative count: \(i)")
    require(i.inWindow <= i.entries, "inWindow \(i.inWindow) > entries \(i.entries)")
    require(
        !report.errors.contains { $0.rule?.id == "accounting" },
        "an accounting error: \(report.errors)"
    )
    require(
        report.rejections.count <= min(i.rejected, options.rejectionsShown),
        "\(report.rejections.count) rejections listed, \(i.rejected) counted")
    require(report.rejections == report.rejections.sorted(), "rejections not in input order")
    for r in report.rejections {
        require(
            r.place.input >= 0 && r.place.input < inputs.count
                && inputs[r.place.input].path == r.place.path,
            "a rejection names input \(r.place.input) \(r.place.path)")
        require(
            r.place.line >= 1 && r.place.column >= 1,
            "a rejection at line \(r.place.line) column \(r.place.column)")
        require(!r.message.isEmpty, "a rejection without a message")
    }
    for row in report.rows {
        require(
            row.charges >= 0 && row.declines >= 0 && row.charged >= 0 && row.givenBack >= 0,
            "a negative row: \(row)")
        // Over all time every refund is of a charge, once, for no more than it charged.
        if options.window.since == nil, options.window.until == nil {
            require(
                row.givenBack <= row.charged && row.declines <= row.charges,
                "more given back than charged: \(row)")
        }
    }
    for p in report.periods {
        require(
            p.label.count == 10 || p.label.count == 8 || p.label.count == 7,
            "a period label \(p.label)")
        require(!p.label.hasPrefix("0000"), "a period in year 0000: \(p.label)")
        if let since = p.since, let until = p.until {
            require(since < until, "period \(p.label) is empty")
        }
    }
    for f in report.chargeAudit?.features ?? [] {
        let row = report.rows.first { $0.feature == f.feature }
        require(
            f.checked + f.missingQuantity + f.unchecked <= (row?.charges ?? 0),
            "the audit of \(f.feature) counts more charges than the table")
        require(
            f.mismatches <= f.checked && f.findings.count <= ChargeAudit.shown
                && f.findings.count <= f.mismatches + f.missingQuantity + f.unchecked,
            "audit counts of \(f.feature): \(f)")
        require(
            f.findings == f.findings.sorted(), "audit findings of \(f.feature) not in input order")
    }
    guard render else { return report }
    let valued = PnLReport(takings: report, valuation: fuzzValuation, features: ["asr", "llm"])
    _ = valued.json()
    _ = valued.csv()
    _ = valued.markdown()
    _ = PnLReport(takings: report).table()
    return report
}

/// A hash of the input's bytes (FNV-1a), so that the sampling choices below are the same
/// when an input is replayed.
func inputHash(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}

/// Whether an input also gets the comparison run (two threads, other blocks) beside the
/// checked one. The second run costs as much as the first, so it is made for every input
/// up to 1 KiB and for one in four larger ones (`RegressionTests` always compares).
func compareRuns(_ bytes: [UInt8]) -> Bool {
    bytes.count <= 1024 || inputHash(bytes) >> 62 == 0
}

/// Whether the checked run's report is rendered in every format: for one input in eight.
/// Rendering costs more than reading a small input, and its code is the same for every
/// report shape the reader can produce (`RegressionTests` always renders).
func renderReport(_ bytes: [UInt8]) -> Bool {
    (inputHash(bytes) >> 32) & 7 == 0
}

/// The table and accounting of two runs over the same input agree (threads, chunk sizes
/// and input order must not change them).
func requireSameTable(_ a: TakingsReport?, _ b: TakingsReport?, _ what: String) {
    guard let a, let b else {
        require((a == nil) == (b == nil), "\(what): one run could read the input, the other not")
        return
    }
    require(a.rows == b.rows, "\(what): rows differ")
    require(a.totals == b.totals, "\(what): totals differ")
    require(a.belowTheLine == b.belowTheLine, "\(what): below the line differs")
    require(a.input == b.input, "\(what): accounting differs: \(a.input) vs \(b.input)")
}
