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
