using System;
using System.Collections.Generic;

namespace Service.Unity
{
    /// <summary>Direct deep links from a tapped URL (sdk/conformance/listeners.json's `direct`), and the link that opened the app.</summary>
    internal static class DeepLinks
    {
        /// <summary>A service link (http, https) as HandleUniversalLink parsed it.</summary>
        public static ServiceDeepLink Direct(ServiceLinkResult link)
        {
            var parameters = link.QueryParams;
            return new ServiceDeepLink(ServiceDeepLinkKind.Direct, link.DeeplinkId, PathOf(parameters), parameters, link.Url);
        }

        /// <summary>
        /// The link's `deep_link_path`, null when it names none or an empty one
        /// (`?deep_link_path=`): an empty path leads nowhere, as a deferred link's empty path is
        /// none on every SDK, and the iOS SDK reads a direct link's so. The parameter itself
        /// stays in the link's parameters as written.
        /// </summary>
        private static string PathOf(Dictionary<string, string> parameters)
        {
            string path;
            parameters.TryGetValue(SdkCore.DeepLinkPath, out path);
            return string.IsNullOrEmpty(path) ? null : path;
        }

        /// <summary>Android's Intent.ACTION_VIEW: the action of the intent a tapped link starts an activity with.</summary>
        public const string ActionView = "android.intent.action.VIEW";

        /// <summary>
        /// Android's Intent.FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY: set on the intent of an activity
        /// the recent apps started again (after the process had ended), which is the intent that
        /// first made the task, link included.
        /// </summary>
        public const int LaunchedFromHistory = 0x00100000;

        /// <summary>
        /// The link the app was opened with at this launch, for the app to hand over
        /// (<see cref="ServiceSDK.LaunchUrl"/>): <paramref name="launchUrl"/> (Unity's
        /// Application.absoluteURL at load), or null when there is none, or when the Android
        /// intent that started the activity is no tapped link's. One the recent apps relaunched
        /// carries again the link of the launch that first made the task, handed over then: as a
        /// direct deep link once more, it would take the user back to where that link led,
        /// though they only reopened the app. One of another action than VIEW (the launcher's, an
        /// app's own) is no tap either. With no intent to read (iOS, or Java that could not say),
        /// the link is taken as it is.
        /// </summary>
        public static string LaunchLink(string launchUrl, LaunchIntent intent)
        {
            if (string.IsNullOrWhiteSpace(launchUrl)) return null;
            if (intent == null) return launchUrl;
            if (intent.Action != ActionView || (intent.Flags & LaunchedFromHistory) != 0) return null;
            return launchUrl;
        }

        /// <summary>Any absolute URL: a service link as HandleUniversalLink reads it, another scheme by its query alone.</summary>
        public static ServiceDeepLink Parse(string url)
        {
            if (string.IsNullOrWhiteSpace(url)) return null;
            string scheme;
            Dictionary<string, string> parameters;
            if (!LinkParser.TryAnyScheme(url, out scheme, out parameters)) return null;
            if (scheme == "http" || scheme == "https")
            {
                var link = LinkParser.Parse(url, null);
                return link == null ? null : Direct(link);
            }
            return new ServiceDeepLink(ServiceDeepLinkKind.Direct, null, PathOf(parameters), parameters, url);
        }
    }
}
