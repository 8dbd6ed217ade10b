import Foundation

/// The proceeds section of `margin report`: for each card family with a folder
/// `Proceeds/<card-id>/` beside the rate-card folder, holding the ledger exports in
/// `ledger/` and Apple's records in `apple/` (Summary Sales and financial reports as
/// `.txt`, transactions and notifications as `.json` or `.jsonl`), the report
/// `<card-id>-proceeds.md`: `margin pnl --proceeds` in Markdown, as of the end of the
/// latest report period (a fixed instant, so the report is the same on every run).
/// Without such a folder nothing is generated (docs/proceeds.md).
extension ReportSet {
    /// The folder the proceeds inputs live in, beside `cardsDirectory`.
    static func proceedsDirectory(cardsDirectory: String) -> String {
        FilePath.join(FilePath.folder(of: cardsDirectory), "Proceeds")
    }

    static func proceedsFiles(repository: CardRepository, cardsDirectory: String)
        throws(ReportError) -> [File]
    {
        let root = proceedsDirectory(cardsDirectory: cardsDirectory)
        let fm = FileManager.default
        guard let families = try? fm.contentsOfDirectory(atPath: root) else { return [] }
        var files: [File] = []
        for family in families.sorted() where !family.hasPrefix(".") {
            let folder = FilePath.join(root, family)
            func list(_ sub: String) -> [String] {
                let dir = FilePath.join(folder, sub)
                return ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter {
                    !$0.hasPrefix(".")
                }.sorted().map { FilePath.join(dir, $0) }
            }
            let ledger = list("ledger")
            let apple = list("apple")
            let reports = apple.filter { $0.hasSuffix(".txt") || $0.hasSuffix(".txt.gz") }
            let transactions = apple.filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }
            guard !ledger.isEmpty, !reports.isEmpty else {
                throw .proceeds(
                    [
                        Diagnostic(
                            path: folder,
                            message:
                                "a proceeds folder needs the ledger exports in ledger/ and Apple's reports (.txt or .txt.gz) in apple/"
                        )
                    ], summary: nil)
            }
            do {
                let products = ProductCatalogue(versions: repository.versions(of: family))
                    .products
                guard let end = try ProceedsRun.lastDay(of: reports, products: products) else {
                    continue
                }
                // The end of the latest report day, in Apple's (Pacific) time.
                let now = Timestamp(
                    startOf: CalendarDate(daysSinceEpoch: end.daysSinceEpoch + 1),
                    offsetMinutes: ProceedsRates.dayOffsetMinutes)
                var request = PnLRequest(
                    inputs: ledger.map { TakingsInput(path: $0) }, now: now,
                    cards: [cardsDirectory], card: family)
                request.proceeds = ProceedsSources(reports: reports, transactions: transactions)
                let report = try PnLRun.run(request)
                let text =
                    "<!-- \(CardReport.generatedMarker) from \(folder)/; do not edit: change the inputs and run `margin report` -->\n\n"
                    + "As of \(now.rfc3339UTC), the end of the latest report period.\n\n"
                    + report.renderMarkdown()
                files.append(File(name: "\(family)-proceeds.md", bytes: Array(text.utf8)))
            } catch let e as DiagnosedError {
                throw .proceeds(e.diagnostics, summary: e.summary ?? "\(folder): \(e)")
            } catch {
                throw .proceeds([Diagnostic(path: folder, message: "\(error)")], summary: nil)
            }
        }
        return files
    }
}
