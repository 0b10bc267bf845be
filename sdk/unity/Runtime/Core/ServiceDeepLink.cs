using System.Collections.Generic;

namespace Service.Unity
{
    public enum ServiceDeepLinkKind
    {
        /// <summary>A link that opened the app (HandleUniversalLink, HandleDeepLink).</summary>
        Direct,

        /// <summary>The link that brought the install, from its attribution: once per install.</summary>
        Deferred,
    }

    /// <summary>A deep link for <see cref="ServiceSDK.DeepLinkReceived"/>; read-only.</summary>
    public sealed class ServiceDeepLink
    {
        private readonly Dictionary<string, string> parameters;

        internal ServiceDeepLink(ServiceDeepLinkKind kind, string deeplinkId, string path, Dictionary<string, string> parameters, string url)
        {
            Kind = kind;
            DeeplinkId = deeplinkId;
            Path = path;
            this.parameters = parameters ?? new Dictionary<string, string>();
            Url = url;
        }

        public ServiceDeepLinkKind Kind { get; }

        /// <summary>The link's id on the link host; null for a deferred link and for a custom scheme.</summary>
        public string DeeplinkId { get; }

        /// <summary>Its `deep_link_path`: where in the app it leads; null when it names none.</summary>
        public string Path { get; }

        /// <summary>
        /// The link's parameters, `deep_link_path` included: a direct link's query, a deferred
        /// link's custom parameters from its attribution. A copy.
        /// </summary>
        public Dictionary<string, string> Params
        {
            get { return new Dictionary<string, string>(parameters); }
        }

        /// <summary>The URL as it was given; null for a deferred link.</summary>
        public string Url { get; }

        public override string ToString()
        {
            return "ServiceDeepLink(Kind: " + Kind + ", DeeplinkId: " + DeeplinkId + ", Path: " + Path + ", Url: " + Url + ")";
        }
    }
}
