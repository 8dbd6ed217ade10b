/// Wording shared by the generated reports: charge rules, provider prices and schedules
/// in words a finance reader can check against the card file.
///
/// Money is shown exactly (canonical decimal text) where it is a rate (a price per token
/// may be CNY 0.000003); totals are rounded once, half-even, by the report.
enum ReportText {
    /// "1 credit", "3,000 credits", "30,000 microcredits (GBP 0.03)".
    ///
    /// The money value is shown when the credit unit has a face value: exact when it is not
    /// a whole number of the currency's minor unit.
    static func credits(_ count: Int128, unit: CreditUnit) -> String {
        var s = "\(Format.grouped(count)) \(count == 1 ? unit.name : plural(unit.name))"
        if let face = unit.faceValue, let value = try? face.multiplied(by: Exact(integer: count)) {
            s += " (\(money(value)))"
        }
        return s
    }

    /// "GBP 0.03": minor units when the amount is whole in them, otherwise exact.
    static func money(_ m: Money) -> String {
        m.isWholeMinorUnits ? "\(m.currency.code) \(m.formatted())" : m.description
    }

    /// A dimension's charge in words: "1 credit per started 3 s",
    /// "1 credit per complete 1,000 tokens", "50,000 microcredits (GBP 0.05) per event".
    static func chargeRule(_ d: Dimension, unit: CreditUnit) -> String {
        "\(credits(d.credits, unit: unit)) per \(interval(d))"
    }

    /// "started 3 s", "started second", "event", "complete 400 tokens", "3 s (whole intervals only)".
    static func interval(_ d: Dimension) -> String {
        let isTime = d.unit.size(in: .second) != nil
        let amount =
            d.per == 1 ? d.unit.rawValue : "\(Format.grouped(d.per)) \(d.unit.abbreviation)"
        switch d.rounding {
        case .up:
            // A count of events is always whole: "per started event" would mislead.
            return isTime || d.per > 1 ? "started \(amount)" : amount
        case .down:
            return isTime || d.per > 1 ? "complete \(amount)" : amount
        case .exact:
            return d.per > 1 ? "\(amount) (whole intervals only)" : amount
        }
    }

    /// "CNY 4.5 per 3,600 s", "CNY 3 per 1,000,000 tokens (cacheMiss)".
    static func meterPrice(_ meter: Meter, currency: Currency) -> String {
        let per = meter.per.integerValue.map { Format.grouped($0) } ?? meter.per.decimalText()
        let unit = meter.per == .one ? meter.unit.rawValue : "\(per) \(meter.unit.abbreviation)"
        let prices = meter.variants.map { v in
            let name = v.name == "standard" ? "" : " (\(v.name))"
            return "\(currency.code) \(v.price.decimalText()) per \(unit)\(name)"
        }
        var s = prices.joined(separator: "; ")
        if let i = meter.increment {
            s += "; billed in increments of \(i.decimalText()) \(meter.unit.abbreviation)"
        }
        if let m = meter.minimum {
            s += "; at least \(m.decimalText()) \(meter.unit.abbreviation) per request"
        }
        return s
    }

    /// "peak Mon–Fri 09:00–12:00 and 14:00–18:00; offPeak otherwise (UTC+08:00)".
    static func schedule(_ s: PriceSchedule) -> String {
        var groups: [(period: String, days: [Int], spans: [String])] = []
        for w in s.windows {
            let days = w.weekdays.sorted()
            let span = "\(clock(w.from))–\(clock(w.until))"
            if let i = groups.firstIndex(where: { $0.period == w.period && $0.days == days }) {
                groups[i].spans.append(span)
            } else {
                groups.append((w.period, days, [span]))
            }
        }
        var parts = groups.map { "\($0.period) \(weekdays($0.days)) \(list($0.spans))" }
        parts.append("\(s.defaultPeriod) otherwise")
        return parts.joined(separator: "; ") + " (\(utcOffset(s.offsetMinutes)))"
    }

    /// "0.5 at offPeak and 1 at peak", sorted by period name.
    static func multipliers(_ s: PriceSchedule) -> String {
        list(
            s.multipliers.sorted { $0.key < $1.key }.map {
                "\($0.value.decimalText()) at \($0.key)"
            })
    }

    /// ISO weekdays as text: a run of three or more is a range ("Mon–Fri").
    static func weekdays(_ days: [Int]) -> String {
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        func name(_ d: Int) -> String { (1...7).contains(d) ? names[d - 1] : "day \(d)" }
        if days == Array(1...7) { return "every day" }
        var runs: [[Int]] = []
        for d in days {
            if let last = runs.last?.last, last + 1 == d {
                runs[runs.count - 1].append(d)
            } else {
                runs.append([d])
            }
        }
        return runs.map { r in
            if r.count >= 3, let first = r.first, let last = r.last {
                return "\(name(first))–\(name(last))"
            }
            return r.map(name).joined(separator: ", ")
        }
        .joined(separator: ", ")
    }

    /// Seconds since local midnight as "HH:MM" ("24:00" at the end of the day).
    static func clock(_ seconds: Int) -> String {
        func p2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var s = "\(p2(seconds / 3600)):\(p2(seconds / 60 % 60))"
        if seconds % 60 != 0 { s += ":\(p2(seconds % 60))" }
        return s
    }

    /// "UTC+08:00", "UTC".
    static func utcOffset(_ minutes: Int) -> String {
        if minutes == 0 { return "UTC" }
        func p2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "UTC\(minutes < 0 ? "-" : "+")\(p2(abs(minutes) / 60)):\(p2(abs(minutes) % 60))"
    }

    /// The instant as written, with its own offset: "2026-08-18T00:00:00+08:00".
    static func timestamp(_ t: Timestamp) -> String {
        let (date, second) = t.local(offsetMinutes: t.offsetMinutes)
        func p2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let offset = t.offsetMinutes == 0 ? "Z" : String(utcOffset(t.offsetMinutes).dropFirst(3))
        return "\(date)T\(p2(second / 3600)):\(p2(second / 60 % 60)):\(p2(second % 60))\(offset)"
    }

    /// "a", "a and b", "a, b and c".
    static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: ""
        case 1: items[0]
        default: items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
    }

    /// A chart label that fits about `limit` characters: a long dotted product id keeps
    /// its distinguishing end ("ai.voicedebrief.app.credit.500" → "…app.credit.500").
    static func shortLabel(_ label: String, limit: Int = 16) -> String {
        guard label.count > limit else { return label }
        let parts = label.split(separator: ".", omittingEmptySubsequences: false)
        var tail = ""
        for part in parts.reversed() {
            let candidate = tail.isEmpty ? String(part) : part + "." + tail
            if candidate.count + 1 > limit { break }
            tail = candidate
        }
        return tail.isEmpty ? String(label.prefix(limit - 1)) + "…" : "…" + tail
    }

    static func plural(_ word: String) -> String { word.hasSuffix("s") ? word : word + "s" }

    /// Text safe inside a Markdown paragraph or table cell: no HTML, no stray emphasis.
    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "*", "_", "`", "[", "]", "\\": out += "\\" + String(c)
            case "\n": out += " "
            default: out.append(c)
            }
        }
        return out
    }

    /// `code` in backticks (identifiers, keys, paths).
    static func code(_ s: String) -> String {
        "`" + s.replacingOccurrences(of: "`", with: "'") + "`"
    }
}
