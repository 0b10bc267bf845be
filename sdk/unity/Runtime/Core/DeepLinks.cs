using System;

namespace Service.Unity
{
    /// <summary>Direct deep links from a tapped URL (sdk/conformance/listeners.json's `direct`).</summary>
    internal static class DeepLinks
    {
        /// <summary>A service link (http, https) as HandleUniversalLink parsed it.</summary>
        public static ServiceDeepLink Direct(ServiceLinkResult link)
        {
            var parameters = link.QueryParams;
            string path;
            parameters.TryGetValue(SdkCore.DeepLinkPath, out path);
            return new ServiceDeepLink(ServiceDeepLinkKind.Direct, link.DeeplinkId, path, parameters, link.Url);
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
            var parameters = LinkParser.Query(url);
            string path;
            parameters.TryGetValue(SdkCore.DeepLinkPath, out path);
            return new ServiceDeepLink(ServiceDeepLinkKind.Direct, null, path, parameters, url);
        }
    }
}
