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
    /// Nil for text that is no URL (no scheme).
    static func parseAnyScheme(_ url: String) -> ParsedLink? {
        let text = url.trimmingCharacters(in: .whitespacesAndNewlines)
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        guard !text.contains(" "), let match = anyScheme.firstMatch(in: text, options: [], range: range) else { return nil }
        let scheme = text.prefix { $0 != ":" }.lowercased()
        if scheme == "http" || scheme == "https" { return parse(text, allowedHosts: nil) }
        return ParsedLink(deeplinkId: nil, queryParams: query(group(match, 1, in: text)))
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
