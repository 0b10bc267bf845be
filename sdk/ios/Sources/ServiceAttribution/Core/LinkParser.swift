import Foundation

/// What a tapped link says, parsed from its URL alone.
struct ParsedLink: Equatable {
    let deeplinkId: String?
    let queryParams: [String: String]
}

/// Parses Universal Links (sdk/conformance/links.json) from the URL's text,
/// by the same rules as the Kotlin SDK, rather than with URLComponents, whose decoding of `+`
/// and of malformed escapes differs between OS versions.
enum LinkParser {
    private static let pattern = try! NSRegularExpression(
        pattern: "^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)(?:\\?([^#]*))?(?:#.*)?$"
    )

    /// Throws ``ServiceAttributionError/invalidArgument(_:)`` for a blank entry of `allowedHosts`.
    static func checkAllowedHosts(_ allowedHosts: Set<String>?) throws {
        if let hosts = allowedHosts, hosts.contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) {
            throw ServiceAttributionError.invalidArgument("allowedHosts must not hold a blank host name")
        }
    }

    /// The link, or nil when it is no absolute http(s) URL with a host, or its host is not one
    /// of `allowedHosts` (nil accepts every host; hosts compare without case, ports aside).
    static func parse(_ url: String, allowedHosts: Set<String>?) -> ParsedLink? {
        let text = url.trimmingCharacters(in: .whitespacesAndNewlines)
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        guard let match = pattern.firstMatch(in: text, options: [], range: range) else { return nil }
        let scheme = group(match, 1, in: text).lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        guard let host = hostOf(group(match, 2, in: text)) else { return nil }
        if let allowed = allowedHosts,
           !allowed.contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == host.lowercased() }) {
            return nil
        }
        let segments = group(match, 3, in: text).split(separator: "/", omittingEmptySubsequences: true)
        let deeplinkId = segments.count == 1 ? decode(String(segments[0]), plusIsSpace: false) : nil
        return ParsedLink(deeplinkId: deeplinkId, queryParams: query(group(match, 4, in: text)))
    }

    private static let anyScheme = try! NSRegularExpression(
        pattern: "^[A-Za-z][A-Za-z0-9+.-]*:[^?#]*(?:\\?([^#]*))?(?:#.*)?$"
    )

    /// A link of any scheme, for a direct deep link: an http(s) link as ``parse(_:allowedHosts:)``
    /// reads it; the app's own scheme (`myapp://open?deep_link_path=…`, or `myapp:open?…`
    /// without `//`, as Android delivers it too) with its query's parameters and no `deeplinkId`.
    /// Nil for text that is no URL (no scheme). A character a URL may not hold (a raw space, `|`)
    /// is read as written, as the Kotlin and Unity SDKs read it, and browsers open such a link.
    static func parseAnyScheme(_ url: String) -> ParsedLink? {
        let text = url.trimmingCharacters(in: .whitespacesAndNewlines)
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        guard let match = anyScheme.firstMatch(in: text, options: [], range: range) else { return nil }
        let scheme = self.scheme(of: text)
        if scheme == "http" || scheme == "https" { return parse(text, allowedHosts: nil) }
        return ParsedLink(deeplinkId: nil, queryParams: query(group(match, 1, in: text)))
    }

    /// The scheme of a link ``parseAnyScheme(_:)`` reads, lower-cased: what comes before its
    /// first `:`, the spaces around the link aside.
    static func scheme(of url: String) -> String {
        return url.trimmingCharacters(in: .whitespacesAndNewlines).prefix { $0 != ":" }.lowercased()
    }

    /// The link as a `URL`, each character a URL may not hold (a raw space, `|`) percent-encoded
    /// as UTF-8 first, the rest as written: so a link ``parseAnyScheme(_:)`` reads has the same
    /// URL on every iOS. `URL(string:)` alone refuses such text before iOS 17, and from iOS 17 on
    /// encodes the whole part that holds one, its escapes too (`%2F` would become `%252F`). Text
    /// with nothing to encode is read as written; the spaces around the link are no part of it.
    static func url(_ text: String) -> URL? {
        return URL(string: encodingInvalidCharacters(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// What a URL holds as written anywhere: RFC 3986's unreserved and reserved characters, but
    /// `#`, `[` and `]`, legal in their own places only (and `%`, only as an escape's start).
    private static let urlBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:/?@".utf8)

    /// `text` with each byte that may not stand where it is percent-encoded: those outside
    /// ``urlBytes``, a `%` that starts no escape, a `#` after the one that starts the fragment,
    /// and `[` or `]` outside the authority of a `scheme://` link (where an IPv6 host has them).
    /// An escape already written is left as it is, never encoded twice.
    private static func encodingInvalidCharacters(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var authority = 0..<0
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[(colon + 1)...].starts(with: "//".utf8) {
            let start = colon + 3
            let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            authority = start..<(end ?? bytes.count)
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count)
        var inFragment = false
        for (index, byte) in bytes.enumerated() {
            let legal: Bool
            switch byte {
            case UInt8(ascii: "%"):
                legal = index + 2 < bytes.count && hexDigit(bytes[index + 1]) != nil && hexDigit(bytes[index + 2]) != nil
            case UInt8(ascii: "#"):
                legal = !inFragment
                inFragment = true
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                legal = authority.contains(index)
            default:
                legal = urlBytes.contains(byte)
            }
            if legal {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static func group(_ match: NSTextCheckingResult, _ index: Int, in text: String) -> String {
        guard let range = Range(match.range(at: index), in: text) else { return "" }
        return String(text[range])
    }

    private static func hostOf(_ authority: String) -> String? {
        let hostPort: Substring
        if let at = authority.lastIndex(of: "@") {
            hostPort = authority[authority.index(after: at)...]
        } else {
            hostPort = authority[...]
        }
        let host: String
        if hostPort.hasPrefix("[") {
            let end = hostPort.firstIndex(of: "]") ?? hostPort.endIndex
            host = String(hostPort[..<end]) + "]"
        } else {
            host = String(hostPort.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        }
        return host.isEmpty || host == "[]" ? nil : host
    }

    /// A query string's pairs, decoded; the last value wins; a name without `=` has the value "".
    static func query(_ query: String) -> [String: String] {
        var params: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            params[decode(String(name), plusIsSpace: true)] = decode(String(value), plusIsSpace: true)
        }
        return params
    }

    /// Percent-decodes UTF-8; a malformed escape is kept as written rather than failing the link,
    /// and bytes that are no UTF-8 become U+FFFD.
    static func decode(_ text: String, plusIsSpace: Bool) -> String {
        if !text.contains("%") && !(plusIsSpace && text.contains("+")) { return text }
        let source = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == UInt8(ascii: "%"), index + 2 < source.count,
               let high = hexDigit(source[index + 1]), let low = hexDigit(source[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else if byte == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
                index += 1
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
