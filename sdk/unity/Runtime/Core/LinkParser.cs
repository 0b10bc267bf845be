using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;

namespace Service.Unity
{
    /// <summary>
    /// Parses a link of the service from its URL alone, with no network call, to the rules every
    /// SDK shares (sdk/conformance/links.json).
    /// </summary>
    /// <remarks>
    /// Read from the text as the Kotlin and iOS SDKs read it, not with <see cref="Uri"/>, which
    /// refuses links a browser opens (an encoded host, a port past 65535) and rewrites the path
    /// (`/a/../abc` is `/abc` to it), so that one link would give the app another deeplinkId.
    /// </remarks>
    internal static class LinkParser
    {
        private static readonly Regex WebUrl = new Regex(
            @"\A([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?\z",
            RegexOptions.CultureInvariant);

        /// <summary>A URL of any scheme: its scheme and its query.</summary>
        private static readonly Regex AnyUrl = new Regex(
            @"\A([A-Za-z][A-Za-z0-9+.-]*):[^?#]*(?:\?([^#]*))?(?:#.*)?\z",
            RegexOptions.CultureInvariant);

        public static ServiceLinkResult Parse(string url, string[] allowedHosts)
        {
            if (string.IsNullOrEmpty(url)) throw new ArgumentException("url must not be empty", "url");
            HashSet<string> allowed = null;
            if (allowedHosts != null)
            {
                if (allowedHosts.Any(host => host == null || host.Trim().Length == 0))
                {
                    throw new ArgumentException("allowedHosts must not hold a blank host", "allowedHosts");
                }
                allowed = new HashSet<string>(allowedHosts.Select(host => host.Trim().ToLowerInvariant()));
            }
            // Spaces around the link are no part of it, as the Kotlin and iOS SDKs read it (Uri
            // reads past them, the query below would not).
            var match = WebUrl.Match(url.Trim());
            if (!match.Success || !IsWebScheme(match.Groups[1].Value)) return null;
            var linkHost = HostOf(match.Groups[2].Value);
            if (linkHost == null) return null;
            if (allowed != null && !allowed.Contains(linkHost.ToLowerInvariant())) return null;

            var segments = match.Groups[3].Value.Split('/').Where(segment => segment.Length > 0).ToList();
            var deeplinkId = segments.Count == 1 ? Decode(segments[0], false) : null;
            return new ServiceLinkResult(deeplinkId, QueryParams(match.Groups[4].Value), url);
        }

        /// <summary>An http(s) URL with a host, read as <see cref="Parse"/> reads one.</summary>
        public static bool IsWebLink(string url)
        {
            var match = WebUrl.Match(url.Trim());
            return match.Success && IsWebScheme(match.Groups[1].Value) && HostOf(match.Groups[2].Value) != null;
        }

        /// <summary>
        /// The scheme of a URL of any scheme (`myapp://open?…`, or `myapp:open?…` without `//`,
        /// which Android delivers too), lower-cased, and its query's parameters; false for text
        /// that is no URL.
        /// </summary>
        public static bool TryAnyScheme(string url, out string scheme, out Dictionary<string, string> parameters)
        {
            var match = AnyUrl.Match(url.Trim());
            scheme = match.Success ? match.Groups[1].Value.ToLowerInvariant() : null;
            parameters = match.Success ? QueryParams(match.Groups[2].Value) : null;
            return match.Success;
        }

        private static bool IsWebScheme(string scheme)
        {
            return string.Equals(scheme, "http", StringComparison.OrdinalIgnoreCase)
                || string.Equals(scheme, "https", StringComparison.OrdinalIgnoreCase);
        }

        /// <summary>The host of an authority (`user@host:port`, `[::1]:8080`), or null when it names none.</summary>
        private static string HostOf(string authority)
        {
            var hostPort = authority.Substring(authority.LastIndexOf('@') + 1);
            string host;
            if (hostPort.StartsWith("[", StringComparison.Ordinal))
            {
                var end = hostPort.IndexOf(']');
                host = (end < 0 ? hostPort : hostPort.Substring(0, end)) + "]";
            }
            else
            {
                var colon = hostPort.IndexOf(':');
                host = colon < 0 ? hostPort : hostPort.Substring(0, colon);
            }
            return host.Length == 0 || host == "[]" ? null : host;
        }

        /// <summary>The query parameters of any URL, by the rules of a link's.</summary>
        public static Dictionary<string, string> Query(string url)
        {
            return QueryParams(RawQuery(url));
        }

        /// <summary>The query as written, not as Uri normalizes it; the fragment is no part of it.</summary>
        private static string RawQuery(string url)
        {
            var fragment = url.IndexOf('#');
            var beforeFragment = fragment < 0 ? url : url.Substring(0, fragment);
            var question = beforeFragment.IndexOf('?');
            return question < 0 ? "" : beforeFragment.Substring(question + 1);
        }

        private static Dictionary<string, string> QueryParams(string query)
        {
            var parameters = new Dictionary<string, string>();
            foreach (var pair in query.Split('&'))
            {
                if (pair.Length == 0) continue;
                var equals = pair.IndexOf('=');
                var name = equals < 0 ? pair : pair.Substring(0, equals);
                var value = equals < 0 ? "" : pair.Substring(equals + 1);
                parameters[Decode(name, true)] = Decode(value, true);
            }
            return parameters;
        }

        /// <summary>
        /// Percent-decoding as UTF-8 (with + as a space in a query). An escape that is no valid
        /// byte keeps its text: a link must never make the app throw.
        /// </summary>
        private static string Decode(string text, bool plusIsSpace)
        {
            var bytes = new List<byte>();
            var output = new StringBuilder();
            Action flush = () =>
            {
                if (bytes.Count == 0) return;
                output.Append(Encoding.UTF8.GetString(bytes.ToArray()));
                bytes.Clear();
            };
            for (var i = 0; i < text.Length; i++)
            {
                var c = text[i];
                int high, low;
                if (c == '%' && i + 2 < text.Length
                    && (high = Hex(text[i + 1])) >= 0 && (low = Hex(text[i + 2])) >= 0)
                {
                    bytes.Add((byte)(high * 16 + low));
                    i += 2;
                    continue;
                }
                flush();
                output.Append(plusIsSpace && c == '+' ? ' ' : c);
            }
            flush();
            return output.ToString();
        }

        private static int Hex(char c)
        {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            return -1;
        }
    }
}
