import Foundation
import Testing

@testable import RateCard

/// Every input a fuzz target ever failed on, kept under `Fixtures/regressions/<target>/`
/// and replayed through the code path of that target (see `Fuzz/<target>.swift`).
@Suite struct RegressionTests {
    static let folder = packageRoot.appendingPathComponent(
        "Tests/RateCardTests/Fixtures/regressions")

    /// "target/file" for every kept input.
    static let inputs: [String] = {
        let fm = FileManager.default
        let targets = (try? fm.contentsOfDirectory(atPath: folder.path)) ?? []
        return targets.sorted().flatMap { target in
            ((try? fm.contentsOfDirectory(atPath: folder.appendingPathComponent(target).path)) ?? [])
                .sorted().map { "\(target)/\($0)" }
        }
    }()

    @Test func everyTargetFolderIsKnown() {
        #expect(!Self.inputs.isEmpty)
        for input in Self.inputs {
            #expect(
                Replay.targets.contains(String(input.split(separator: "/")[0])),
                "\(input): no replay for this target")
        }
    }

    @Test(arguments: inputs)
    func replaysCleanly(_ input: String) throws {
        let bytes = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(input)))
        let target = String(input.split(separator: "/")[0])
        #expect(Replay.run(target, bytes) == nil)
    }

    /// The timestamps the fuzzer found: instants whose UTC year has no four-digit form.
    /// The argument the fuzzer found: a value that starts with a combining mark, which
    /// joins the '=' into one Character.
    @Test(arguments: ["\u{0347}x", "\u{301}", "=\u{301}"])
    func inlineValueStartingWithACombiningMark(_ value: String) throws {
        let parsed = try Replay.parser.parse(["--storekit=" + value])
        #expect(parsed.all("storekit") == [value])
    }

    @Test(arguments: [
        "9999-12-31T23:59:60Z", "9999-12-31T23:00:00-01:00", "0001-01-01T00:00:00+00:01",
    ])
    func timestampOutsideFourDigitYearsIsAnError(_ text: String) {
        #expect(throws: TimestampError.outOfRange) { try Timestamp(rfc3339: text) }
    }

    @Test(arguments: [
        "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59+01:00",
        "0001-01-01T00:00:00-00:01",
    ])
    func timestampAtTheEdgesOfFourDigitYearsReadsBack(_ text: String) throws {
        let stamp = try Timestamp(rfc3339: text)
        #expect(try Timestamp(rfc3339: stamp.rfc3339UTC) == stamp)
    }
}

/// The checks of each fuzz target, for replaying a kept input in `swift test`. Each returns
/// nil when the input is handled cleanly (accepted consistently or rejected with an error),
/// else what went wrong. A trap fails the test run, as it failed the fuzzer.
enum Replay {
    static let targets: Set<String> = [
        "decimal", "timestamp", "json", "canonical", "cardfile", "storekit", "args", "takings",
        "appstore",
    ]

    static func run(_ target: String, _ bytes: [UInt8]) -> String? {
        switch target {
        case "decimal": return decimal(bytes)
        case "timestamp": return timestamp(bytes)
        case "json", "canonical": return json(bytes)
        case "cardfile": return cardFile(bytes)
        case "storekit":
            _ = try? StoreKitConfiguration.load(bytes: bytes, path: "fuzz.storekit")
            return nil
        case "args": return arguments(bytes)
        case "takings": return takings(bytes)
        case "appstore":
            guard let root = try? JSONParser.parseDocument(bytes, path: "fuzz.json"),
                let file = try? AppStoreConnectFile.read(root, path: "fuzz.json")
            else { return nil }
            _ = ApplePriceList(productId: "p", files: [file]).resolve(
                on: CalendarDate(year: 2026, month: 9, day: 1)!, cardPrices: [])
            return nil
        default: return "no replay for target \(target)"
        }
    }

    static let parser = ArgumentParser([
        .init("cards", value: "DIR", help: ""), .init("format", value: "FORMAT", help: ""),
        .init("commission", value: "RATES", help: ""),
        .init("fx", value: "BASE/QUOTE=RATE", repeatable: true, help: ""),
        .init("storekit", value: "FILE", repeatable: true, help: ""), .init("check", help: ""),
        .init("help", help: ""),
    ])

    /// An accepted command line, written back as `--flag`, `--name=value`, `--` and the
    /// positionals, parses to the same result.
    static func arguments(_ bytes: [UInt8]) -> String? {
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard let parsed = try? parser.parse(arguments) else { return nil }
        var canonical = parsed.flags.sorted().map { "--" + $0 }
        for name in parsed.values.keys.sorted() {
            canonical += parsed.values[name]!.map { "--\(name)=\($0)" }
        }
        canonical += ["--"] + parsed.positionals
        return (try? parser.parse(canonical)) == parsed
            ? nil : "\(canonical) does not parse back to \(arguments)"
    }

    static func decimal(_ bytes: [UInt8]) -> String? {
        for part in bytes.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false) {
            guard let value = try? Exact(decimal: String(decoding: part, as: UTF8.self)) else {
                continue
            }
            guard let text = value.canonicalDecimal, (try? Exact(decimal: text)) == value else {
                return "\(value) does not round-trip through its canonical text"
            }
        }
        return nil
    }

    static func timestamp(_ bytes: [UInt8]) -> String? {
        guard let stamp = try? Timestamp(rfc3339: String(decoding: bytes, as: UTF8.self)) else {
            return nil
        }
        guard let back = try? Timestamp(rfc3339: stamp.rfc3339UTC), back == stamp else {
            return "\(stamp.rfc3339UTC) does not read back"
        }
        return nil
    }

    static func json(_ bytes: [UInt8]) -> String? {
        guard let node = try? JSONParser.parse(bytes) else { return nil }
        guard let first = try? CanonicalJSON.serialize(node) else { return nil }
        guard let again = try? JSONParser.parse(first),
            let second = try? CanonicalJSON.serialize(again)
        else {
            return "the canonical form does not read back"
        }
        return first == second ? nil : "canonical JSON is not idempotent"
    }

    static func cardFile(_ bytes: [UInt8]) -> String? {
        var loaded: [(path: String, file: CardFile)] = []
        for (i, file) in bytes.split(separator: 0, omittingEmptySubsequences: false).enumerated() {
            if let f = try? CardFileLoader.load(bytes: Array(file), path: "fuzz-\(i).json") {
                loaded.append(("fuzz-\(i).json", f))
            }
        }
        guard let repository = try? CardRepository.assemble(loaded) else { return nil }
        let margins = repository.cards.compactMap {
            try? PackMargins(card: $0, repository: repository)
        }
        for format in OutputFormat.allCases {
            _ = PackReport(margins).render(format)
        }
        return nil
    }

    // MARK: Takings (`Fuzz/takings*.swift`)

    static let takingsFormats: [TakingsFormat?] = [
        nil, .jsonLines, .ledgerDocument, .csv, .rollupJSONLines, .rollupCSV, nil, nil,
    ]

    /// `Fuzz/takings.swift`: the first byte picks the format (bits 0–2), pricing (bit 3),
    /// the window (bits 4–5) and one input or several split at NUL (bit 6).
    static func takings(_ bytes: [UInt8]) -> String? {
        guard let selector = bytes.first else { return nil }
        let format = takingsFormats[Int(selector & 7)]
        let since = try! Timestamp(rfc3339: "2026-11-01T00:00:00Z")
        let until = try! Timestamp(rfc3339: "2026-11-20T00:00:00+08:00")
        var window = TakingsWindow.all
        var series: TakingsSeries?
        switch (selector >> 4) & 3 {
        case 1: window = TakingsWindow(since: since, until: nil)
        case 2: window = TakingsWindow(since: nil, until: until)
        case 3:
            window = TakingsWindow(since: since, until: until)
            series = TakingsSeries(period: .day, offsetMinutes: 480)
        default: break
        }
        let body = Array(bytes.dropFirst())
        let files =
            selector & 64 != 0
            ? Array(
                body.split(separator: 0, omittingEmptySubsequences: false).prefix(4).map(Array.init)
            ) : [body]
        let inputs = files.enumerated().map {
            TakingsInput(name: "in\($0.offset).txt", bytes: $0.element, format: format)
        }
        let pricing = selector & 8 != 0 ? takingsPricing : nil
        return sameTakings(
            inputs, TakingsOptions(window: window, series: series, threads: 2, chunkBytes: 65536),
            TakingsOptions(window: window, series: series, threads: 1, chunkBytes: 256), pricing)
    }

    /// A stated credit value, so that the value, profit and margin columns are rendered too.
    static let pnlFixtureValuation = PnLValuation(
        credit: CreditValuation(
            stated: Money(try! Exact(decimal: "0.005"), Currency(code: "CNY")!)),
        meteredNote: "regression")

    static let takingsPricing: CardTakingsPricing = {
        let repository = try! CardRepository.load(paths: [repositoryCards])
        return CardTakingsPricing(
            family: "osg", repository: repository, currency: Currency(code: "CNY")!)
    }()

    /// Both runs balance and give the same table (or both cannot read the input).
    static func sameTakings(
        _ inputs: [TakingsInput], _ a: TakingsOptions, _ b: TakingsOptions,
        _ pricing: (any TakingsPricing)?
    ) -> String? {
        let first = try? TakingsRun.run(inputs: inputs, options: a, pricing: pricing)
        let second = try? TakingsRun.run(inputs: inputs, options: b, pricing: pricing)
        guard let first, let second else {
            return (first == nil) == (second == nil)
                ? nil : "one run could read the input, the other not"
        }
        for r in [first, second] where !r.input.isBalanced {
            return "accounting does not balance: \(r.input)"
        }
        guard first.rows == second.rows, first.totals == second.totals,
            first.belowTheLine == second.belowTheLine, first.input == second.input
        else {
            return "the table depends on threads and block size"
        }
        let unvalued = PnLReport(takings: first)
        _ = unvalued.json()
        _ = unvalued.csv()
        _ = unvalued.markdown()
        _ = unvalued.table()
        let valued = PnLReport(
            takings: first, valuation: pnlFixtureValuation, features: ["asr", "llm"])
        _ = valued.json()
        _ = valued.csv()
        _ = valued.markdown()
        _ = valued.table()
        return nil
    }
}
