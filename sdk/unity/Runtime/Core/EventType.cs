namespace Service.Unity
{
    /// <summary>
    /// The standard events of the service, and <see cref="CUSTOM"/> for an app's own. The case
    /// name is the wire value. Where two names mean the same (SIGN_UP, REGISTER) both exist for
    /// apps that already send one of them.
    /// </summary>
    public enum EventType
    {
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
}
