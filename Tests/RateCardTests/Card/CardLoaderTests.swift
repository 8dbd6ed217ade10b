import Testing

@testable import RateCard

/// A small valid card, one field per line so that tests can point at lines.
let sampleCard = """
    {
      "kind": "card",
      "id": "demo",
      "version": 3,
      "effective": "2026-08-18T00:00:00+08:00",
      "creditUnit": {"name": "credit", "priceStep": 1},
      "features": [
        {"key": "asr", "dimensions": [
          {"name": "second", "unit": "second", "credits": 1, "per": 3, "rounding": "up",
           "cost": {"provider": "asr-sheet", "meter": "audio"}}]}
      ],
      "grants": [{"key": "signup", "credits": 1000}],
      "packs": [
        {"productId": "3000tks", "type": "consumable", "credits": 3000,
         "prices": [{"currency": "CNY", "amount": "28"}]}
      ]
    }
    """

let sampleSheet = """
    {
      "kind": "provider",
      "id": "asr-sheet",
      "currency": "CNY",
      "reviewed": "2026-08-18",
      "source": "https://example.com/pricing",
      "meters": [{"key": "audio", "unit": "second", "per": "3600", "price": "4.5"}]
    }
    """

@Suite struct CardLoaderTests {
    @Test func loadsTheSample() throws {
        let repo = try repository(["card.json": sampleCard, "sheet.json": sampleSheet])
        let card = try #require(repo.cards.first)
        #expect(card.reference == "demo@3")
        #expect(card.features.first?.dimensions.first?.per == 3)
        #expect(card.packs.first?.prices.first?.price.amount == exact("28"))
        #expect(card.effective.rfc3339UTC == "2026-08-17T16:00:00Z")
    }

    /// Each bad value is reported at its own line and column, naming the field.
    @Test(arguments: [
        (
            "\"version\": 3", "\"version\": \"three\"", 4, 14,
            "version: \"three\" is not a whole number"
        ),
        ("\"version\": 3", "\"version\": 3.5", 4, 14, "version: 3.5 is not a whole number"),
        ("\"version\": 3", "\"version\": 99999999999999999999999999", 4, 14, "out of range"),
        (
            "\"effective\": \"2026-08-18T00:00:00+08:00\"", "\"effective\": \"2026-08-18\"", 5, 16,
            "effective"
        ),
        (
            "\"effective\": \"2026-08-18T00:00:00+08:00\"",
            "\"effective\": \"2026-02-30T00:00:00Z\"", 5, 16, "impossible date"
        ),
        (
            "\"effective\": \"2026-08-18T00:00:00+08:00\"",
            "\"effective\": \"2026-08-18T00:00:00\"", 5, 16, "no UTC offset"
        ),
        ("\"unit\": \"second\"", "\"unit\": \"seconds\"", 9, 34, "did you mean \"second\""),
        (
            "\"rounding\": \"up\"", "\"rounding\": \"ceil\"", 9, 80,
            "rounding: \"ceil\" is not one of"
        ),
        ("\"per\": 3", "\"per\": 0", 9, 65, "out of range"),
        ("\"per\": 3", "\"per\": -3", 9, 65, "out of range"),
        ("\"credits\": 1000}", "\"credits\": 1e3}", 12, 43, "exponent"),
        (
            "\"credits\": 3000", "\"credits\": 1000000000000000000000000000000", 14, 63,
            "out of range"
        ),
        ("\"currency\": \"CNY\"", "\"currency\": \"RMB\"", 15, 30, "not a known ISO 4217"),
        ("\"amount\": \"28\"", "\"amount\": \"28 CNY\"", 15, 47, "is not a decimal"),
        ("\"amount\": \"28\"", "\"amount\": 28.0.0", 15, 51, "unexpected"),
        ("\"productId\"", "\"productID\"", 14, 6, "did you mean \"productId\""),
        ("\"kind\": \"card\"", "\"kind\": \"cards\"", 2, 11, "did you mean \"card\""),
    ])
    func reportsFileLineColumnAndField(
        original: String, replacement: String, line: Int, column: Int, fragment: String
    ) throws {
        let text = sampleCard.replacingFirst(original, with: replacement)
        #expect(text != sampleCard, "the replacement did not apply")
        let diags = loadDiagnostics(text, path: "RateCards/demo-v3.json")
        let d = try #require(
            diags.first { $0.message.contains(fragment) } ?? diags.first,
            "no diagnostic for \(replacement)")
        #expect(d.path == "RateCards/demo-v3.json")
        #expect(d.location == SourceLocation(line: line, column: column), "\(d.rendered)")
        #expect(d.message.contains(fragment), "\(d.rendered)")
    }

    @Test func collectsEveryProblemNotOnlyTheFirst() {
        let text = sampleCard.replacingFirst("\"version\": 3", with: "\"version\": 0")
            .replacingFirst("\"currency\": \"CNY\"", with: "\"currency\": \"XYZ\"")
        let diags = loadDiagnostics(text)
        #expect(diags.count == 2)
        #expect(diags.map(\.location.line) == [4, 15])
    }

    @Test(arguments: [
        ("", "empty"), ("   ", "empty"), ("[]", "expected an object"),
        ("{\"kind\": \"card\"", "truncated"),
        ("{}", "kind: missing required field"), ("{\"kind\": 5}", "expected a string"),
    ])
    func rejectsDegenerateFiles(text: String, fragment: String) throws {
        let d = try #require(loadDiagnostics(text).first)
        #expect(d.message.contains(fragment), "\(d.rendered)")
    }

    @Test func rejectsDuplicatedDimensionsAndMissingFields() throws {
        let dup = sampleCard.replacingFirst(
            "\"features\": [",
            with:
                "\"features\": [\n{\"key\": \"x\", \"dimensions\": [{\"name\": \"a\", \"unit\": \"event\", \"credits\": 1, \"per\": 1, \"rounding\": \"up\", \"cost\": {\"none\": \"device\"}}, {\"name\": \"a\", \"unit\": \"event\", \"credits\": 1, \"per\": 1, \"rounding\": \"up\", \"cost\": {\"none\": \"device\"}}]},"
        )
        #expect(loadDiagnostics(dup).contains { $0.message.contains("appears twice") })
        let missing = sampleCard.replacingFirst("\"id\": \"demo\",", with: "")
        #expect(
            loadDiagnostics(missing).contains {
                $0.message == "id: missing required field" && $0.location.line == 1
            })
    }

    @Test func rejectsDuplicatePacksGrantsAndPrices() throws {
        let packs = sampleCard.replacingFirst(
            "\"packs\": [",
            with:
                "\"packs\": [{\"productId\": \"3000tks\", \"type\": \"consumable\", \"credits\": 1, \"prices\": []},"
        )
        #expect(
            loadDiagnostics(packs).contains {
                $0.message.contains("product \"3000tks\" appears twice")
            })
        let grants = sampleCard.replacingFirst(
            "[{\"key\": \"signup\", \"credits\": 1000}]",
            with:
                "[{\"key\": \"signup\", \"credits\": 1000}, {\"key\": \"signup\", \"credits\": 5}]")
        #expect(
            loadDiagnostics(grants).contains {
                $0.message.contains("grant \"signup\" appears twice") && $0.location.line == 12
            })
        let prices = sampleCard.replacingFirst(
            "[{\"currency\": \"CNY\", \"amount\": \"28\"}]",
            with:
                "[{\"currency\": \"CNY\", \"amount\": \"28\"}, {\"currency\": \"CNY\", \"amount\": \"30\"}]"
        )
        #expect(
            loadDiagnostics(prices).contains { $0.message.contains("a CNY price is already given") }
        )
    }

    @Test func crossChecksProviderBindings() throws {
        let wrongMeter = sampleCard.replacingFirst(
            "\"meter\": \"audio\"", with: "\"meter\": \"video\"")
        #expect(throws: Diagnostics.self) {
            try repository(["card.json": wrongMeter, "sheet.json": sampleSheet])
        }
        do {
            _ = try repository(["card.json": wrongMeter, "sheet.json": sampleSheet])
        } catch let e as Diagnostics {
            #expect(e.items.first?.message.contains("has no meter \"video\"") == true)
            #expect(e.items.first?.location.line == 10)
        }
        let wrongUnit = sampleCard.replacingFirst(
            "\"unit\": \"second\"", with: "\"unit\": \"token\"")
        #expect(throws: Diagnostics.self) {
            try repository(["card.json": wrongUnit, "sheet.json": sampleSheet])
        }
        #expect(throws: Diagnostics.self) { try repository(["card.json": sampleCard]) }
    }

    @Test func resolvesTheVersionInForce() throws {
        let v4 = sampleCard.replacingFirst("\"version\": 3", with: "\"version\": 4")
            .replacingFirst("2026-08-18T00:00:00+08:00", with: "2026-10-01T00:00:00Z")
        let repo = try repository(["a.json": sampleCard, "b.json": v4, "sheet.json": sampleSheet])
        #expect(repo.card("demo", at: try Timestamp(rfc3339: "2026-09-30T23:59:59Z"))?.version == 3)
        #expect(repo.card("demo", at: try Timestamp(rfc3339: "2026-10-01T00:00:00Z"))?.version == 4)
        #expect(repo.card("demo", at: try Timestamp(rfc3339: "2026-08-17T15:59:59Z")) == nil)
        #expect(repo.card(reference: "demo")?.version == 4)
        #expect(repo.card(reference: "demo@3")?.version == 3)
    }

    @Test func loadsTheRepositorysOwnCards() throws {
        let repo = try CardRepository.load(paths: [repositoryCards])
        #expect(repo.cards.map(\.reference) == ["osg@10", "voice-debrief@1"])
        #expect(
            repo.providers.keys.sorted() == ["deepseek-v4-flash", "doubao-seedasr-2-streaming"])
        #expect(repo.fx.placeholder)
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = range(of: target) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }
}
