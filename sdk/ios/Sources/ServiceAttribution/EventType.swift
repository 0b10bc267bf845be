/// The standard events, and `custom` for the app's own. A case's raw value is the value sent on
/// the wire (`addToCart` is sent as `ADD_TO_CART`). Where two cases mean the same (`signUp` and
/// `register`), both exist for compatibility. `install` is tracked by the SDK itself: passed to
/// ``ServiceAttribution/sendEvent(_:name:parameters:)`` it is dropped on the device.
public enum EventType: String, CaseIterable, Sendable {
    case install = "INSTALL"
    case login = "LOGIN"
    case signUp = "SIGN_UP"
    case register = "REGISTER"
    case purchase = "PURCHASE"
    case addToCart = "ADD_TO_CART"
    case addToWishlist = "ADD_TO_WISHLIST"
    case initiateCheckout = "INITIATE_CHECKOUT"
    case startTrial = "START_TRIAL"
    case subscribe = "SUBSCRIBE"
    case levelStart = "LEVEL_START"
    case levelComplete = "LEVEL_COMPLETE"
    case tutorialComplete = "TUTORIAL_COMPLETE"
    case search = "SEARCH"
    case viewItem = "VIEW_ITEM"
    case viewContent = "VIEW_CONTENT"
    case share = "SHARE"
    case custom = "CUSTOM"

    /// The value sent as `event_type`, as Unity and Kotlin name the case.
    public var wireName: String {
        return rawValue
    }
}
