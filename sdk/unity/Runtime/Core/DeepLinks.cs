using System;
using System.Collections.Generic;

namespace Service.Unity
{
    /// <summary>Direct deep links from a tapped URL (sdk/conformance/listeners.json's `direct`).</summary>
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

        /// <summary>Any absolute URL: a service link as HandleUniversalLink reads it, another scheme by its query alone.</summary>
        public static ServiceDeepLink Parse(string url)
        {
            if (string.IsNullOrWhiteSpace(url)) return null;
            var text = url.Trim();
            Uri uri;
            if (!Uri.TryCreate(text, UriKind.Absolute, out uri)) return null;
            // A scheme as written (Mono takes "/path" for a file URI).
            var colon = text.IndexOf(':');
            if (colon <= 0 || !string.Equals(text.Substring(0, colon), uri.Scheme, StringComparison.OrdinalIgnoreCase)) return null;
            var scheme = uri.Scheme.ToLowerInvariant();
            if (scheme == "http" || scheme == "https")
            {
                var link = LinkParser.Parse(url, null);
                return link == null ? null : Direct(link);
            }
            var parameters = LinkParser.Query(text);
            return new ServiceDeepLink(ServiceDeepLinkKind.Direct, null, PathOf(parameters), parameters, url);
        }
    }
}
