/// Locale-independent text formatting for people.
enum Format {
    /// What every command shows for a figure that does not exist or cannot be computed
    /// (a margin of nothing, a cost without a rate).
    static let missing = "—"

    /// The minus sign of every negative figure people read (tables, Markdown, the
    /// reports, the charts): U+2212, as finance documents print it. CSV and JSON keep the
    /// ASCII hyphen-minus, for programs.
    static let minus = "\u{2212}"

    /// `text` with the sign of each negative figure in it made `minus`: a hyphen-minus
    /// that a digit follows and that starts the text or follows a space, "(", "+" or "/"
    /// ("-0.21", "0.50 → -0.25", "CNY -3.00", "(-1.2%)"). A hyphen inside a word or a
    /// date ("osg-v10", "2026-11-02", "+08:00") or an option ("--fx") is left alone.
    static func humanMinus(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "-")) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 4)
        var previous: Character? = nil
        var iterator = text.makeIterator()
        var current = iterator.next()
        while let c = current {
            let next = iterator.next()
            if c == "-", let n = next, n.isASCII, n.isNumber,
                previous == nil || previous == " " || previous == "(" || previous == "+"
                    || previous == "/"
            {
                out += minus
            } else {
                out.append(c)
            }
            previous = c
            current = next
        }
        return out
    }

    /// 3000 → "3,000"; -1500000 → "-1,500,000".
    static func grouped(_ v: Int128) -> String {
        let digits = Array(String(v.magnitude))
        var out: [Character] = []
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (v < 0 ? "-" : "") + String(out)
    }

    /// An exact fraction as a percentage rounded half-even to one place: 0.4482… → "44.8%".
    static func percent(_ v: Exact, places: Int = 1) -> String {
        guard let p = try? v.multiplied(by: 100).formatted(scale: places, rule: .halfEven) else {
            return missing
        }
        return p + "%"
    }

    /// A threshold the user gave (`--min-margin 16.91`) as a percentage, exactly as given,
    /// with at least the one place percentages are shown with: "16.91%", "20.0%", never
    /// rounded (a message must name the floor it applied).
    static func floor(_ v: Exact) -> String {
        guard let p = try? v.multiplied(by: 100) else { return missing }
        let text = p.decimalText()
        return (text.contains(".") ? text : text + ".0") + "%"
    }
}
