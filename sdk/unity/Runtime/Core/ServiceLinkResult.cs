using System.Collections.Generic;

namespace Service.Unity
{
    /// <summary>A tapped Universal Link or App Link of the service, parsed from its URL alone.</summary>
    public sealed class ServiceLinkResult
    {
        private readonly Dictionary<string, string> queryParams;

        internal ServiceLinkResult(string deeplinkId, Dictionary<string, string> queryParams, string url)
        {
            DeeplinkId = deeplinkId;
            this.queryParams = queryParams;
            Url = url;
        }

        /// <summary>The link's single path segment, or null when its path has none or more than one.</summary>
        public string DeeplinkId { get; }

        /// <summary>
        /// Every query parameter of the URL, deep_link_path and the link's own ones included:
        /// percent-decoded, the last value of a repeated name winning, a missing value as "".
        /// A copy, so the result stays as it was parsed.
        /// </summary>
        public Dictionary<string, string> QueryParams
        {
            get { return new Dictionary<string, string>(queryParams); }
        }

        /// <summary>The URL as it was given.</summary>
        public string Url { get; }

        public override string ToString()
        {
            return "ServiceLinkResult(DeeplinkId: " + DeeplinkId + ", Url: " + Url + ")";
        }
    }
}
