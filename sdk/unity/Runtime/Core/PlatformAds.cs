namespace Service.Unity
{
    /// <summary>
    /// Whether the app asked for Apple Ads attribution: the iOS layer then reads Apple's
    /// AdServices token for the install. Elsewhere it changes nothing.
    /// </summary>
    internal static class PlatformAds
    {
        private static volatile bool enabled;

        public static bool Enabled
        {
            get { return enabled; }
        }

        public static void Enable()
        {
            enabled = true;
        }
    }
}
