@testable import RateCard

/// A synthetic export for tests: devices in several UTC offsets, each with a correct
/// balance chain, charges with quantities, refunds of earlier charges, grants, top-ups,
/// and about 3% of lines repeating an earlier entry spelled differently.
struct GeneratedExport {
    static let features = ["transcript", "debrief", "saveToVault", "readNote", "llm"]
    static let offsets = ["Z", "+08:00", "-05:00", "+05:30", "+09:45", "-00:30"]

    var lines: [String] = []

    init(
        entries: Int, seed: UInt64, devices deviceCount: Int = 12, start: Int64 = 1_793_000_000,
        span: Int64 = 90 * 86_400
    ) {
        var rng = SplitMix64(seed: seed)
        struct Device {
            var name: String
            var offset: String
            var balance: Int64 = 0
            var seq = 0
            var charges: [(String, String, Int64)] = []
        }
        var devices = (0..<deviceCount).map {
            Device(
                name: "dev\($0)",
                offset: GeneratedExport.offsets[$0 % GeneratedExport.offsets.count])
        }
        var time = start
        while lines.count < entries {
            time += Int64.random(in: 1...(2 * span / Int64(entries) + 1), using: &rng)
            if !lines.isEmpty, Int.random(in: 0..<100, using: &rng) < 3 {
                lines.append(
                    GeneratedExport.respell(lines[Int.random(in: 0..<lines.count, using: &rng)]))
                continue
            }
            let d = Int.random(in: 0..<devices.count, using: &rng)
            devices[d].seq += 1
            let id = "\(devices[d].name)-\(devices[d].seq)"
            let at = GeneratedExport.rfc3339(
                time, nanos: Int.random(in: 0..<1000, using: &rng) * 1_000_000,
                offset: devices[d].offset)
            var fields: [(String, String)]
            let roll = Int.random(in: 0..<100, using: &rng)
            var amount: Int64
            if devices[d].seq == 1 {
                amount = 5_000_000
                fields = [("kind", "\"grant\""), ("note", "\"starting credit\"")]
            } else if roll < 8, !devices[d].charges.isEmpty {
                let (charge, feature, charged) = devices[d].charges.remove(
                    at: Int.random(in: 0..<devices[d].charges.count, using: &rng))
                amount = charged
                fields = [
                    ("kind", "\"refund\""), ("feature", "\"\(feature)\""),
                    ("refundOf", "\"\(charge)\""), ("reason", "\"notUsable\""),
                ]
            } else if roll < 11 {
                amount = 5_000_000
                fields = [
                    ("kind", "\"topup\""), ("paymentRef", "\"pay-\(id)\""),
                    ("price", "\"GBP 5.00\""),
                ]
            } else {
                let feature = GeneratedExport.features[
                    Int.random(in: 0..<GeneratedExport.features.count, using: &rng)]
                let seconds = Int.random(in: 1...600, using: &rng)
                amount = Int64((seconds + 59) / 60) * 30_000
                fields = [
                    ("kind", "\"charge\""), ("feature", "\"\(feature)\""),
                    ("quantity", "{\"second\":\(seconds)}"),
                ]
                devices[d].charges.append((id, feature, amount))
                amount = -amount
            }
            devices[d].balance += amount
            fields =
                [("id", "\"\(id)\""), ("at", "\"\(at)\""), ("amount", String(amount))] + fields
                + [
                    ("device", "\"\(devices[d].name)\""),
                    ("balanceAfter", String(devices[d].balance)),
                ]
            lines.append("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
        }
    }

    /// The same entry with its keys in reverse order and the amount as a string.
    static func respell(_ line: String) -> String {
        guard case .object(let members) = try! JSONParser.parse(line).value else { return line }
        let parts = members.reversed().map { m -> String in
            var out: [UInt8] = []
            if m.key == "amount", case .number(let n) = m.value.value {
                return "\"amount\":\"\(n)\""
            }
            TakingsJSONWriter.write(m.value, into: &out)
            return TakingsJSONWriter.string(m.key) + ":" + String(decoding: out, as: UTF8.self)
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    static func rfc3339(_ utc: Int64, nanos: Int, offset: String) -> String {
        let minutes = offset == "Z" ? 0 : try! TakingsSeries.offset(offset)
        let (date, sod) = Timestamp(seconds: utc).local(offsetMinutes: minutes)
        func p2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var frac = String(nanos / 1_000_000)
        frac = String(repeating: "0", count: 3 - frac.count) + frac
        return "\(date)T\(p2(sod / 3600)):\(p2(sod / 60 % 60)):\(p2(sod % 60)).\(frac)\(offset)"
    }
}

/// The takings table computed the plain way, for cross-checking: the strict tree parser,
/// a dictionary of entries by id, and a loop.
struct IndependentTable {
    struct Row: Equatable {
        var charges = 0, charged: Int128 = 0, declines = 0, givenBack: Int128 = 0
    }

    var rows: [String: Row] = [:]
    var byPeriod: [String: [String: Row]] = [:]
    var outstanding: Int128 = 0
    var grants = 0

    init(lines: [String], since: Timestamp?, until: Timestamp?, byDayAtOffset offset: Int? = nil) {
        struct E {
            var at: Timestamp
            var kind: String
            var amount: Int128
            var feature: String?
            var refundOf: String?
        }
        var entries: [String: E] = [:]
        for line in lines where !line.allSatisfy(\.isWhitespace) {
            guard let node = try? JSONParser.parse(line), let m = node.members else { continue }
            func str(_ k: String) -> String? {
                guard let v = m.first(where: { $0.key == k })?.value.value else { return nil }
                if case .string(let s) = v { return s }
                if case .number(let s) = v { return s }
                return nil
            }
            guard let id = str("id"), let at = str("at"), let time = try? Timestamp(rfc3339: at),
                let kind = str("kind"),
                let amountText = str("amount"),
                let amount = try? Exact(decimal: amountText).integerValue
            else { continue }
            entries[id] = E(
                at: time, kind: kind, amount: amount, feature: str("feature"),
                refundOf: str("refundOf"))
        }
        func inWindow(_ t: Timestamp) -> Bool {
            (since.map { t >= $0 } ?? true) && (until.map { t < $0 } ?? true)
        }
        for e in entries.values {
            if e.kind == "refund", entries[e.refundOf ?? ""]?.kind != "charge" { continue }
            if until.map({ e.at < $0 }) ?? true { outstanding += e.amount }
            guard inWindow(e.at) else { continue }
            let period = offset.map { e.at.local(offsetMinutes: $0).date.description } ?? ""
            switch e.kind {
            case "charge":
                rows[e.feature!, default: Row()].charges += 1
                rows[e.feature!, default: Row()].charged += -e.amount
                byPeriod[period, default: [:]][e.feature!, default: Row()].charges += 1
                byPeriod[period, default: [:]][e.feature!, default: Row()].charged += -e.amount
            case "refund":
                rows[e.feature!, default: Row()].declines += 1
                rows[e.feature!, default: Row()].givenBack += e.amount
                byPeriod[period, default: [:]][e.feature!, default: Row()].declines += 1
                byPeriod[period, default: [:]][e.feature!, default: Row()].givenBack += e.amount
            case "grant":
                grants += 1
            default:
                break
            }
        }
    }

    static func rows(_ report: [TakingsReport.Row]) -> [String: Row] {
        Dictionary(
            uniqueKeysWithValues: report.map {
                (
                    $0.feature,
                    Row(
                        charges: $0.charges, charged: $0.charged, declines: $0.declines,
                        givenBack: $0.givenBack)
                )
            })
    }
}
