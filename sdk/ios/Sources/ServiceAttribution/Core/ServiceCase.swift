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
