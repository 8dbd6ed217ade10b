// Fuzz target `appstore`: the App Store Connect response reader on arbitrary bytes, and what
// it accepts resolved on two dates and modelled in a storefront. Nothing may trap: bad input
// is a `Diagnostics` naming the file.
@testable import RateCard

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = "fuzz.json"
    let file: AppStoreConnectFile
    do {
        let root = try JSONParser.parseDocument(inputBytes(data, size), path: path)
        file = try AppStoreConnectFile.read(root, path: path)
    } catch {
        require(!error.items.isEmpty, "a rejected file without a diagnostic")
        for d in error.items {
            require(d.path == path, "diagnostic names \(d.path), not \(path)")
            require(d.location.line >= 1 && d.location.column >= 1, "diagnostic at \(d.location)")
        }
        return 0
    }
    let list = ApplePriceList(productId: "p", files: [file, file])
    _ = list.warnings
    for day in ["2026-01-01", "2026-09-01"] {
        guard let date = CalendarDate(day) else { continue }
        let (prices, _) = list.resolve(on: date, cardPrices: [])
        for (territory, resolved) in prices {
            require(resolved.point.territory == territory, "a price filed under another territory")
            let sf = Storefront(
                territory: territory, name: territory,
                currency: resolved.point.customerPrice.currency, taxIncluded: true,
                tax: Exact(percent: 19))
            let regime = CommissionRegime(
                program: .standard, rate: Exact(percent: 30), from: date, status: .confirmed)
            _ = try? ModelledProceeds(
                price: resolved.point.customerPrice, storefront: sf, regime: regime, on: date)
        }
    }
    return 0
}
