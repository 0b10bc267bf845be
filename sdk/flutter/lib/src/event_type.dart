/// The standard events of the service, and [EventType.custom] for an app's own.
///
/// Where two names mean the same ([signUp] and [register]), both exist for apps that already
/// send one of them.
enum EventType {
  install,
  login,
  signUp,
  register,
  purchase,
  addToCart,
  addToWishlist,
  initiateCheckout,
  startTrial,
  subscribe,
  levelStart,
  levelComplete,
  tutorialComplete,
  search,
  viewItem,
  viewContent,
  share,
  custom,
}

/// The wire form of each case, which the native SDKs send: `addToCart` is `ADD_TO_CART`.
///
/// Written out case by case rather than derived from the Dart name, so that renaming a case
/// can never change what is sent.
extension EventTypeExtension on EventType {
  String get name => switch (this) {
        EventType.install => 'INSTALL',
        EventType.login => 'LOGIN',
        EventType.signUp => 'SIGN_UP',
        EventType.register => 'REGISTER',
        EventType.purchase => 'PURCHASE',
        EventType.addToCart => 'ADD_TO_CART',
        EventType.addToWishlist => 'ADD_TO_WISHLIST',
        EventType.initiateCheckout => 'INITIATE_CHECKOUT',
        EventType.startTrial => 'START_TRIAL',
        EventType.subscribe => 'SUBSCRIBE',
        EventType.levelStart => 'LEVEL_START',
        EventType.levelComplete => 'LEVEL_COMPLETE',
        EventType.tutorialComplete => 'TUTORIAL_COMPLETE',
        EventType.search => 'SEARCH',
        EventType.viewItem => 'VIEW_ITEM',
        EventType.viewContent => 'VIEW_CONTENT',
        EventType.share => 'SHARE',
        EventType.custom => 'CUSTOM',
      };
}
