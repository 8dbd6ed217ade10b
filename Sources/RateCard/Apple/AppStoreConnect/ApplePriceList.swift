import Foundation

/// Every App Store Connect file bound to one product (`--price-points PRODUCT_ID=FILE`,
/// repeatable: several pages of one response are several files), and the price each
/// territory has on a date.
struct ApplePriceList: Sendable, Hashable {
    let productId: String
    let files: [AppStoreConnectFile]

    init(productId: String, files: [AppStoreConnectFile]) {
        self.productId = productId
        self.files = files
    }

    /// A territory's price as Apple states it, and the schedule entry it came from.
    struct Resolved: Sendable, Hashable {
        let point: ApplePricePoint
        let scheduled: AppleScheduledPrice?
    }

    /// Reads `bindings` (product id → files, in the order given), collecting every problem
    /// of every file before throwing.
    static func load(_ bindings: [(productId: String, path: String)]) throws(Diagnostics)
        -> [String: ApplePriceList]
    {
        var byProduct: [String: [AppStoreConnectFile]] = [:]
        var problems: [Diagnostic] = []
        for b in bindings {
            do {
                byProduct[b.productId, default: []].append(
                    try AppStoreConnectFile.load(path: b.path))
            } catch {
                problems.append(contentsOf: error.items)
            }
        }
        if !problems.isEmpty { throw Diagnostics(problems) }
        var out: [String: ApplePriceList] = [:]
        for (product, files) in byProduct {
            out[product] = ApplePriceList(productId: product, files: files)
        }
        return out
    }

    /// Warnings about the pages: a `links.next` page that is not loaded, fewer records than
    /// `meta.paging.total`, and each file's own warnings.
    var warnings: [Diagnostic] {
        var out = files.flatMap(\.warnings)
        let selfs = Set(files.compactMap(\.selfLink))
        for f in files {
            if let next = f.nextLink, !selfs.contains(next) {
                out.append(
                    Diagnostic(
                        path: f.path, severity: .warning,
                        message:
                            "links.next names a page that is not loaded (\(FieldReader.excerpt(next))): save it and add it with another --price-points \(productId)=FILE",
                        rule: .check(.applePaging)))
            }
        }
        let paged = files.filter { $0.total != nil }
        if let total = paged.compactMap(\.total).max() {
            let read = paged.map(\.dataCount).reduce(0, +)
            if read < total, let first = paged.first {
                out.append(
                    Diagnostic(
                        path: first.path, severity: .warning,
                        message:
                            "meta.paging.total is \(total) but the \(paged.count) page\(paged.count == 1 ? "" : "s") given for \(productId) hold \(read) records: some territories are missing",
                        rule: .check(.applePaging)))
            }
        }
        return out
    }

    /// The price of each territory on `date`.
    ///
    /// A schedule decides where it has entries: the entry in force on the date (manual
    /// before automatic; an old price ends on the day the new one starts). Otherwise a
    /// territory with one price point has that one; one with several (a list of every
    /// point of the product) has the one whose customer price is the card's price in that
    /// currency (its own price when the card prices that storefront), else none and a
    /// warning. A territory whose schedule has no price in force on the date is a warning.
    func resolve(
        on date: CalendarDate, cardPrices: [PackPrice], preferring prices: TerritoryPrices? = nil
    ) -> (
        prices: [String: Resolved], diagnostics: [Diagnostic]
    ) {
        var out: [String: Resolved] = [:]
        var diagnostics: [Diagnostic] = []
        let scheduled = files.flatMap(\.scheduledPrices)
        var scheduledTerritories = Set<String>()
        for territory in Set(scheduled.map(\.territory)).sorted() {
            scheduledTerritories.insert(territory)
            let entries = uniqueByID(scheduled.filter { $0.territory == territory })
            let now = entries.filter { $0.applies(on: date) }
            let chosen = now.filter(\.manual).isEmpty ? now : now.filter(\.manual)
            guard let first = chosen.first else {
                if let any = entries.first {
                    let spans = entries.map { e in
                        "\(e.start.map(\.description) ?? "ever") to \(e.end.map(\.description) ?? "open")"
                    }
                    diagnostics.append(
                        Diagnostic(
                            path: any.point.path, location: any.location, severity: .warning,
                            message:
                                "\(productId) in \(territory): no price of the schedule is in force on \(date) (\(spans.joined(separator: ", "))); Apple's figures are not used there",
                            rule: .check(.appleSchedule)))
                }
                continue
            }
            if chosen.count > 1 {
                diagnostics.append(
                    Diagnostic(
                        path: first.point.path, location: chosen[1].location, severity: .warning,
                        message:
                            "\(productId) in \(territory): \(chosen.count) prices are in force on \(date) (\(chosen.map { "\($0.point.customerPrice)" }.joined(separator: ", "))); the first is used",
                        rule: .check(.appleSchedule)))
            }
            out[territory] = Resolved(point: first.point, scheduled: first)
        }
        let points = uniquePoints(files.flatMap(\.pricePoints)).filter {
            !scheduledTerritories.contains($0.territory)
        }
        for territory in Set(points.map(\.territory)).sorted() {
            let candidates = points.filter { $0.territory == territory }
            if candidates.count == 1 {
                out[territory] = Resolved(point: candidates[0], scheduled: nil)
                continue
            }
            let wanted: [Money]
            if let own = prices?.specific[territory] {
                wanted = [own.price]
            } else {
                wanted = cardPrices.filter { $0.storefront == nil || $0.storefront == territory }
                    .map(\.price)
            }
            let matching = candidates.filter { c in
                wanted.contains {
                    $0.currency == c.customerPrice.currency && $0.amount == c.customerPrice.amount
                }
            }
            if matching.count == 1 {
                out[territory] = Resolved(point: matching[0], scheduled: nil)
            } else {
                diagnostics.append(
                    Diagnostic(
                        path: candidates[0].path, location: candidates[0].location,
                        severity: .warning,
                        message:
                            "\(productId) in \(territory): the files list \(candidates.count) price points and none is the card's price; give the product's schedule or the equalizations of its price point",
                        rule: .check(.appleAmbiguous)))
            }
        }
        return (out, diagnostics)
    }

    private func uniqueByID(_ entries: [AppleScheduledPrice]) -> [AppleScheduledPrice] {
        var seen = Set<String>()
        return entries.filter { seen.insert($0.id).inserted }
    }

    private func uniquePoints(_ points: [ApplePricePoint]) -> [ApplePricePoint] {
        var seen = Set<String>()
        return points.filter { seen.insert($0.id).inserted }
    }
}
