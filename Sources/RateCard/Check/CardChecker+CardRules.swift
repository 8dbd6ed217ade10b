/// The rules over one card's content, and over the versions of one card family.
extension CardChecker {
    /// `free-price`, `price-step`, `currency-decimals`, `feature-key`, `duplicate-feature`.
    static func cardFindings(_ loaded: LoadedCard) -> [Diagnostic] {
        let card = loaded.card
        let root = loaded.file.root
        let path = loaded.file.path
        var out: [Diagnostic] = []
        func report(_ rule: CheckRule, _ message: String, at location: SourceLocation) {
            out.append(
                Diagnostic(path: path, location: location, message: message, rule: .check(rule)))
        }

        let step = card.creditUnit.priceStep
        var seen: [String: SourceLocation] = [:]
        for feature in card.features {
            if !CardFileLoader.isStableIdentifier(feature.key) {
                report(
                    .featureKey,
                    "feature key \"\(feature.key)\" is not \(CardFileLoader.keyPattern); ledgers refer to features by key, so it must never be display text",
                    at: feature.keyLocation)
            }
            if let first = seen[feature.key] {
                report(
                    .duplicateFeature,
                    "feature \"\(feature.key)\" is defined twice in \(card.reference) (first at line \(first.line), column \(first.column))",
                    at: feature.keyLocation)
            } else {
                seen[feature.key] = feature.keyLocation
            }
            for d in feature.dimensions {
                let name = "feature \"\(feature.key)\", dimension \"\(d.name)\""
                if d.credits <= 0 {
                    // A provider-billed dimension is judged with its costs (`worstCaseFindings`):
                    // `free-usage` when the meter costs money, else `free-price`.
                    if !d.isProviderBilled {
                        report(
                            .freePrice, freePriceMessage(feature: feature, d, card: card),
                            at: d.creditsLocation)
                    }
                } else if d.credits % step != 0 {
                    report(
                        .priceStep,
                        "\(name) is charged \(Format.grouped(d.credits)) \(card.creditUnit.name)s, not a whole multiple of the card's price step of \(Format.grouped(step))\(stepValue(card)); round it to \(Format.grouped(d.credits / step * step)) or \(Format.grouped((d.credits / step + 1) * step))",
                        at: d.creditsLocation)
                }
            }
        }

        for (i, grant) in card.grants.enumerated() where grant.credits <= 0 {
            let location = root["grants"]?[i]?["credits"]?.location ?? grant.location
            report(
                .freePrice,
                "grant \"\(grant.key)\" gives \(grant.credits) credits: a grant must give a positive number of credits (remove it instead)",
                at: location)
        }

        for (i, pack) in card.packs.enumerated() {
            if pack.credits <= 0 {
                let location = root["packs"]?[i]?["credits"]?.location ?? pack.location
                report(
                    .freePrice,
                    "pack \"\(pack.productId)\" adds \(pack.credits) credits: a pack must add a positive number of credits",
                    at: location)
            }
            for price in pack.prices {
                let money = price.price
                if !money.amount.isPositive {
                    report(
                        .freePrice,
                        "pack \"\(pack.productId)\" is priced at \(money): a pack must cost money",
                        at: price.location)
                } else if !money.isWholeMinorUnits {
                    let decimals = money.amount.terminatingScale.map(String.init) ?? "more"
                    report(
                        .currencyDecimals,
                        "pack \"\(pack.productId)\" is priced at \(money), with \(decimals) decimals, but \(money.currency.code) has \(money.currency.minorUnits)",
                        at: price.location)
                }
            }
        }
        return out
    }

    /// "feature "asr", dimension "second" is charged 0 credits per 3 seconds: …"
    static func freePriceMessage(feature: Feature, _ d: Dimension, card: RateCard) -> String {
        "feature \"\(feature.key)\", dimension \"\(d.name)\" is charged \(d.credits) \(card.creditUnit.name)s per \(d.per) \(d.unit.rawValue)\(d.per == 1 ? "" : "s"): a feature must cost a positive number of credits"
    }

    /// " (GBP 0.01)" when the card says what a credit is worth, else "".
    private static func stepValue(_ card: RateCard) -> String {
        guard let face = card.creditUnit.faceValue,
            let value = try? face.multiplied(by: Exact(integer: card.creditUnit.priceStep))
        else { return "" }
        return " (\(value))"
    }

    /// `version-order` and `feature-removed`, over the versions of each card family.
    static func familyFindings(_ cards: [LoadedCard]) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let ids = Set(cards.map(\.card.id)).sorted()
        for id in ids {
            let versions = cards.filter { $0.card.id == id }.sorted {
                $0.card.version < $1.card.version
            }
            var earlierKeys: [String: Int] = [:]  // key → the newest earlier version that had it
            var retired = Set<String>()
            for (i, v) in versions.enumerated() {
                let card = v.card
                if i > 0 {
                    let previous = versions[i - 1].card
                    if !(previous.effective < card.effective) {
                        out.append(
                            Diagnostic(
                                path: v.file.path,
                                location: v.file.root["effective"]?.location ?? v.versionLocation,
                                message:
                                    "\(card.reference) takes effect at \(effectiveText(v)), not after \(previous.reference) (\(effectiveText(versions[i - 1]))): effective times must increase with the version",
                                rule: .check(.versionOrder)))
                    }
                }
                retired.formUnion(card.retired.map(\.key))
                let present = Set(card.features.map(\.key))
                let featuresLocation = v.file.root["features"]?.location ?? v.versionLocation
                for (key, version) in earlierKeys.sorted(by: { $0.key < $1.key })
                where !present.contains(key) && !retired.contains(key) {
                    out.append(
                        Diagnostic(
                            path: v.file.path, location: featuresLocation,
                            message:
                                "feature \"\(key)\" of \(id)@\(version) is missing from \(card.reference) and not listed in \"retired\": keys are never renamed; keep the feature, or retire the key",
                            rule: .check(.featureRemoved)))
                }
                for key in present { earlierKeys[key] = card.version }
            }
        }
        return out
    }

    /// The effective time as the file writes it.
    private static func effectiveText(_ card: LoadedCard) -> String {
        if case .string(let s)? = card.file.root["effective"]?.value { return s }
        return "\(card.card.effective)"
    }
}
