import Foundation

/// The IAB TCF values the app's consent platform (CMP) keeps in `UserDefaults.standard`, as
/// the IAB's "Consent Management Platform API" specification places them on iOS:
/// `IABTCF_TCString` (a string) and `IABTCF_gdprApplies` (1 or 0, an integer; a CMP that writes
/// a string "1" or "0" is read too). Read, never written.
final class ConsentPlatformDefaults: ConsentSignals {
    static let tcStringKey = "IABTCF_TCString"
    static let gdprAppliesKey = "IABTCF_gdprApplies"

    private let defaults: UserDefaults

    init(defaults: UserDefaults = .standard) {
        self.defaults = defaults
    }

    var tcString: String? {
        guard let value = defaults.string(forKey: ConsentPlatformDefaults.tcStringKey), !value.isEmpty else { return nil }
        return value
    }

    var gdprApplies: Bool? {
        switch defaults.object(forKey: ConsentPlatformDefaults.gdprAppliesKey) {
        case let number as NSNumber:
            return number.intValue == 1 ? true : number.intValue == 0 ? false : nil
        case let text as String:
            return text == "1" ? true : text == "0" ? false : nil
        default:
            return nil
        }
    }
}
