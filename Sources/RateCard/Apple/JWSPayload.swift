/// The payload of a JSON Web Signature in compact form (`header.payload.signature`, each
/// part base64url without padding), as Apple signs transactions (`JWSTransaction`) and
/// notifications (`signedPayload`).
///
/// Only the payload is decoded. **The signature and its certificate chain are not
/// verified**: a reconciliation reads records the developer fetched from Apple over TLS;
/// records of unknown origin must be verified (Apple's App Store Server Library) first.
enum JWSPayload {
    /// Whether `text` has the shape of a compact JWS: three non-empty base64url parts.
    static func looksLikeJWS(_ text: some StringProtocol) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(isBase64URL) }
    }

    /// The decoded payload bytes (UTF-8 JSON), or why they cannot be had.
    static func payload(_ text: some StringProtocol) -> Result<[UInt8], JWSError> {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(.notCompact(parts.count)) }
        guard let bytes = decodeBase64URL(parts[1]) else { return .failure(.badPayload) }
        return .success(bytes)
    }

    static func isBase64URL(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
    }

    /// RFC 4648 §5 without padding (a trailing `=` is tolerated); nil on any other byte or
    /// an impossible length.
    static func decodeBase64URL(_ text: some Collection<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        var count = 0
        var padding = false
        for b in text {
            if b == UInt8(ascii: "=") {
                padding = true
                continue
            }
            guard !padding else { return nil }
            let v: UInt8
            switch b {
            case 0x41...0x5A: v = b - 0x41
            case 0x61...0x7A: v = b - 0x61 + 26
            case 0x30...0x39: v = b - 0x30 + 52
            case UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "_"): v = 63
            default: return nil
            }
            acc = acc << 6 | UInt32(v)
            bits += 6
            count += 1
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        // One leftover character cannot carry a byte.
        if count % 4 == 1 { return nil }
        return out
    }
}

enum JWSError: Error, Sendable, Hashable, CustomStringConvertible {
    case notCompact(Int)
    case badPayload

    var description: String {
        switch self {
        case .notCompact(let n):
            "a signed JWS has three parts separated by '.', found \(n)"
        case .badPayload: "the JWS payload is not base64url"
        }
    }
}
