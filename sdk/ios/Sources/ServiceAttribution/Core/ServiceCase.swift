import Foundation

extension String {
    /// The text in lower case as the service lowers it (JavaScript's `toLowerCase()`, as Kotlin's
    /// `lowercase()`): Unicode's full mappings, and a capital sigma that ends a word as the final
    /// ς. Swift's `lowercased()` maps each character alone, which makes "ΝΙΚΟΣ" "νικοσ" where the
    /// service has "νικος", and a hash made of it that the service's never equals.
    var lowercasedAsService: String {
        let scalars = Array(unicodeScalars)
        var out = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            if scalar == "\u{03A3}", String.endsWord(scalars, at: index) {
                out.append("\u{03C2}")
            } else {
                out.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            }
        }
        return String(out)
    }

    /// The text without the spaces around it, as the service trims it (JavaScript's `trim()`):
    /// Unicode's space separators, tab, the line ends, vertical tab, form feed and the byte order
    /// mark. Foundation's `.whitespacesAndNewlines` keeps the byte order mark and takes U+0085,
    /// so a value copied with either would hash to what the service's never equals.
    var trimmedAsService: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isServiceSpace }),
              let last = scalars.lastIndex(where: { !$0.isServiceSpace }) else { return "" }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[first...last])
        return String(out)
    }

    /// Unicode's Final_Sigma condition: a cased letter before the sigma and none after it, the
    /// case-ignorable characters between (an apostrophe, a combining mark) passed over.
    private static func endsWord(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        var before = index - 1
        while before >= 0, scalars[before].properties.isCaseIgnorable { before -= 1 }
        guard before >= 0, scalars[before].properties.isCased else { return false }
        var after = index + 1
        while after < scalars.count, scalars[after].properties.isCaseIgnorable { after += 1 }
        return after == scalars.count || !scalars[after].properties.isCased
    }
}

extension Unicode.Scalar {
    /// A space to JavaScript's `trim()` (`String.trimmedAsService`).
    var isServiceSpace: Bool {
        switch value {
        case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0xFEFF, 0x2028, 0x2029:
            return true
        default:
            return properties.generalCategory == .spaceSeparator
        }
    }
}
