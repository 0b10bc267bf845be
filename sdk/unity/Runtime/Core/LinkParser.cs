using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace Service.Unity
{
    /// <summary>
    /// Parses a link of the service from its URL alone, with no network call, to the rules every
    /// SDK shares (sdk/conformance/links.json).
    /// </summary>
    internal static class LinkParser
    {
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
            var text = url.Trim();
            Uri uri;
            if (!Uri.TryCreate(text, UriKind.Absolute, out uri)) return null;
            var scheme = uri.Scheme.ToLowerInvariant();
            if ((scheme != "http" && scheme != "https") || uri.Host.Length == 0) return null;
            if (allowed != null && !allowed.Contains(uri.Host.ToLowerInvariant())) return null;

            var segments = uri.AbsolutePath.Split('/').Where(segment => segment.Length > 0).ToList();
            var deeplinkId = segments.Count == 1 ? Decode(segments[0], false) : null;
            return new ServiceLinkResult(deeplinkId, QueryParams(RawQuery(text)), url);
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
