package com.service.attribution

/**
 * The standard events, and CUSTOM for the app's own. A case's name is the value sent on the
 * wire. Where two cases mean the same (SIGN_UP and REGISTER), both exist for compatibility.
 * INSTALL is tracked by the SDK itself: passed to sendEvent it is dropped on the device.
 */
enum class EventType {
    INSTALL,
    LOGIN,
    SIGN_UP,
    REGISTER,
    PURCHASE,
    ADD_TO_CART,
    ADD_TO_WISHLIST,
    INITIATE_CHECKOUT,
    START_TRIAL,
    SUBSCRIBE,
    LEVEL_START,
    LEVEL_COMPLETE,
    TUTORIAL_COMPLETE,
    SEARCH,
    VIEW_ITEM,
    VIEW_CONTENT,
    SHARE,
    CUSTOM,
}
