using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>A non-success answer from the service, with its HTTP status code.</summary>
    public sealed class ServiceHttpException : Exception
    {
        public ServiceHttpException(int code, string message) : base(message)
        {
            Code = code;
        }

        public int Code { get; }

        /// <summary>
        /// A route (the install, the consent update, events, sessions) answered so names a wrong
        /// address or key: a configuration error, and the route is not tried again for a while.
        /// </summary>
        public bool IsConfiguration
        {
            get { return Code == 401 || Code == 403 || Code == 404; }
        }

        /// <summary>
        /// The request was refused (a 4xx but "later"'s): sent again unchanged it would be refused
        /// again. Of these, 401, 403 and 404 are <see cref="IsConfiguration"/>, which every caller
        /// takes first.
        /// </summary>
        public bool IsRefusedForGood
        {
            get { return Code >= 400 && Code <= 499 && !IsRetryable; }
        }

        /// <summary>
        /// Worth sending again later: the service or the network, not the request. Of the 4xx,
        /// those that ask for it (sdk/conformance/delivery.json's `retryable4xx`): 408, 425 Too
        /// Early (a CDN that will not act on a request it took in TLS early data passes the same
        /// request sent again) and 429.
        /// </summary>
        public bool IsRetryable
        {
            get { return Code == 408 || Code == 425 || Code == 429 || Code >= 500; }
        }
    }

    /// <summary>
    /// A 2xx whose body is not what the contract says (not JSON, or JSON of another shape): a
    /// proxy or a captive portal answered, not the service. Sent again later, like a 5xx.
    /// </summary>
    public sealed class UnexpectedAnswerException : Exception
    {
        public UnexpectedAnswerException(string message) : base(message) { }
    }

    /// <summary>The SDK's side of the service's API: the bare SDK key in Authorization, JSON both ways.</summary>
    internal sealed class ApiClient
    {
        private readonly IHttpTransport transport;
        private readonly string baseUrl;
        private readonly string apiKey;
        private readonly IClock clock;
        /// <summary>Until when (UTC ticks) the service asked, by a Retry-After, not to be asked again.</summary>
        private long quietUntilTicks;

        public ApiClient(string baseUrl, string apiKey, IHttpTransport transport, IClock clock)
        {
            this.baseUrl = baseUrl.TrimEnd('/');
            this.apiKey = apiKey;
            this.transport = transport;
            this.clock = clock;
        }

        /// <summary>
        /// How much longer the service asked to be left alone: the Retry-After of its last answer
        /// that asked to be tried again later (408, 425, 429, 5xx); zero once that time has passed.
        /// </summary>
        public TimeSpan AskedToWait
        {
            get
            {
                var left = Interlocked.Read(ref quietUntilTicks) - clock.UtcNow.Ticks;
                return left > 0 ? TimeSpan.FromTicks(left) : TimeSpan.Zero;
            }
        }

        private void Heed(HttpAnswer answer)
        {
            if (!new ServiceHttpException(answer.Status, "").IsRetryable) return;
            var now = clock.UtcNow;
            var wait = RetryWait.Parse(answer.RetryAfter, now);
            if (wait == null) return;
            var until = (now + wait.Value).Ticks;
            long seen;
            do
            {
                seen = Interlocked.Read(ref quietUntilTicks);
                if (seen >= until) return;
            }
            while (Interlocked.CompareExchange(ref quietUntilTicks, until, seen) != seen);
        }

        /// <summary>
        /// The answer's JSON; a <see cref="ServiceHttpException"/> for any status but 2xx, an
        /// <see cref="UnexpectedAnswerException"/> for a 2xx whose body is not JSON or not of
        /// the shape <paramref name="contract"/> accepts.
        /// </summary>
        public async Task<JToken> Send(string method, string path, JToken body, Func<JToken, bool> contract = null)
        {
            var answer = await transport.Send(method, baseUrl + path, apiKey, body == null ? null : body.ToString(Formatting.None));
            if (answer.Status < 200 || answer.Status > 299)
            {
                Heed(answer);
                var refusal = new ServiceHttpException(answer.Status, method + " " + path + " answered " + answer.Status + ": " + answer.Body);
                if (!IsVerdict(refusal, answer.Body))
                {
                    throw new UnexpectedAnswerException(method + " " + path + " answered " + answer.Status
                        + " with a body that is not the service's refusal, sent again later: " + Excerpt(answer.Body));
                }
                throw refusal;
            }
            JToken json;
            try
            {
                json = string.IsNullOrEmpty(answer.Body) ? null : JsonText.Parse(answer.Body);
            }
            catch (JsonException)
            {
                throw new UnexpectedAnswerException(method + " " + path + " answered " + answer.Status + " with a body that is not JSON: " + Excerpt(answer.Body));
            }
            if (contract != null && !contract(json))
            {
                throw new UnexpectedAnswerException(method + " " + path + " answered " + answer.Status + " with a body the service does not give: " + Excerpt(answer.Body));
            }
            return json;
        }

        /// <summary>
        /// Whether a 4xx refuses what was sent for good, as the service says it: in its error
        /// shape (a JSON object with `error`). One from something in the way (a proxy's 400 or 407,
        /// a filter's 451, a captive portal's page) is no verdict on the request, and is sent again
        /// later as a 5xx is (delivery.json). A 413 splits a batch whatever its body: something in
        /// the way may take less than the service; 401, 403 and 404 are a configuration error either way.
        /// </summary>
        private static bool IsVerdict(ServiceHttpException refusal, string body)
        {
            if (!refusal.IsRefusedForGood || refusal.Code == 413 || refusal.IsConfiguration) return true;
            try
            {
                var json = string.IsNullOrEmpty(body) ? null : JsonText.Parse(body) as JObject;
                return json != null && json["error"] != null && json["error"].Type == JTokenType.String;
            }
            catch (JsonException)
            {
                return false;
            }
        }

        private static string Excerpt(string text)
        {
            if (text == null) return "(none)";
            return text.Length <= 200 ? text : text.Substring(0, 200) + "...";
        }

        /// <summary>The 202 of POST /v1/events and of POST /v1/sessions: how many were accepted, and lists of those that were not.</summary>
        public static bool VerdictsAnswer(JToken json)
        {
            var answer = json as JObject;
            return answer != null
                && answer["accepted"] != null && answer["accepted"].Type == JTokenType.Integer
                && (answer["rejected"] == null || answer["rejected"].Type == JTokenType.Array)
                && (answer["ignored"] == null || answer["ignored"].Type == JTokenType.Array);
        }

        /// <summary>A JSON object, as the install's and the consent update's answers are.</summary>
        public static bool AnObject(JToken json)
        {
            return json is JObject;
        }

        /// <summary>
        /// The remote configuration: an object that says whether the app is on. Anything else (no
        /// body, <c>{}</c>, a proxy's or a captive portal's answer) is not the service's, and never
        /// switches an app its owner switched off back on: the configuration kept stays in force.
        /// </summary>
        public static bool AConfiguration(JToken json)
        {
            var config = json as JObject;
            return config != null && config["enabled"] != null && config["enabled"].Type == JTokenType.Boolean;
        }
    }

    /// <summary>
    /// What a 202 of POST /v1/events or POST /v1/sessions says of the request's items, each by
    /// its position in the request (`index`). An item is named once: a second verdict naming it
    /// counts for nothing. What names no item of the request is kept in the service's words, for
    /// the drop of the items the answer does not account for.
    /// </summary>
    internal sealed class BatchVerdict
    {
        /// <summary>Positions to send again later (the install is not recorded yet, or the service asks for it).</summary>
        public readonly HashSet<int> Retry = new HashSet<int>();
        /// <summary>The service's error name of each position in <see cref="Retry"/> (null when it gave none).</summary>
        public readonly Dictionary<int, string> RetryError = new Dictionary<int, string>();
        /// <summary>Items refused for good: position and the service's detail.</summary>
        public readonly List<KeyValuePair<int, string>> Refused = new List<KeyValuePair<int, string>>();
        /// <summary>Items taken and not stored: position, the service's reason and detail.</summary>
        public readonly List<IgnoredItem> Ignored = new List<IgnoredItem>();
        /// <summary>Verdicts that name no item of the request (an index missing, not a whole number, out of range).</summary>
        public readonly List<string> Unexplained = new List<string>();
        /// <summary>How many items the service says it stored.</summary>
        public long Accepted;
        /// <summary>What the service says of items it stored not quite as sent, in its words.</summary>
        public readonly List<string> Warnings = new List<string>();

        /// <summary>
        /// A retryable refusal says the install is not recorded (`Conflict`): the install is
        /// reported again before these items. Any other retryable refusal (the service busy, say)
        /// only sends the items again later, the install as it is, as the Android SDK does.
        /// </summary>
        public bool InstallMissing
        {
            get { return RetryError.Values.Contains("Conflict"); }
        }

        public sealed class IgnoredItem
        {
            public int Index;
            public string Reason;
            public string Detail;
        }

        /// <summary>An answer that passed <see cref="ApiClient.VerdictsAnswer"/>, for a request of <paramref name="count"/> items.</summary>
        public static BatchVerdict Parse(JObject answer, int count)
        {
            var verdict = new BatchVerdict { Accepted = Math.Max(0, Whole(answer["accepted"]) ?? 0) };
            var named = new HashSet<int>();
            foreach (var rejected in Objects(answer["rejected"]))
            {
                var index = IndexIn(rejected["index"], count);
                var detail = Text(rejected["detail"]) ?? "no detail";
                if (index == null)
                {
                    verdict.Unexplained.Add("a refusal naming no item of the request (index " + Shown(rejected["index"]) + "): "
                        + (Text(rejected["error"]) ?? "rejected") + ": " + detail);
                    continue;
                }
                if (!named.Add(index.Value)) continue;
                var retryable = rejected["retryable"];
                if (retryable != null && retryable.Type == JTokenType.Boolean && (bool)retryable)
                {
                    verdict.Retry.Add(index.Value);
                    verdict.RetryError[index.Value] = Text(rejected["error"]);
                }
                else verdict.Refused.Add(new KeyValuePair<int, string>(index.Value, detail));
            }
            foreach (var ignored in Objects(answer["ignored"]))
            {
                var index = IndexIn(ignored["index"], count);
                var reason = Text(ignored["reason"]);
                var detail = Text(ignored["detail"]) ?? "no detail";
                if (index == null)
                {
                    verdict.Unexplained.Add("ignored by the service naming no item of the request (index " + Shown(ignored["index"]) + "): "
                        + (reason ?? "no reason") + ": " + detail);
                    continue;
                }
                if (!named.Add(index.Value)) continue;
                verdict.Ignored.Add(new IgnoredItem { Index = index.Value, Reason = reason, Detail = detail });
            }
            foreach (var warning in Objects(answer["warnings"]))
            {
                var id = Text(warning["event_id"]);
                verdict.Warnings.Add("#" + Shown(warning["index"]) + (id == null ? "" : " (" + id + ")") + ": "
                    + (Text(warning["detail"]) ?? "no detail"));
            }
            return verdict;
        }

        private static IEnumerable<JObject> Objects(JToken list)
        {
            var array = list as JArray;
            return array == null ? Enumerable.Empty<JObject>() : array.OfType<JObject>();
        }

        /// <summary>A position within the request, or null: missing, not a whole number, or outside it.</summary>
        private static int? IndexIn(JToken token, int count)
        {
            var index = Whole(token);
            return index.HasValue && index.Value >= 0 && index.Value < count ? (int)index.Value : (int?)null;
        }

        /// <summary>A JSON integer as a long, or null (one past a long's range too).</summary>
        private static long? Whole(JToken token)
        {
            if (token == null || token.Type != JTokenType.Integer) return null;
            try
            {
                return Convert.ToInt64(((JValue)token).Value, System.Globalization.CultureInfo.InvariantCulture);
            }
            catch (Exception)
            {
                // A BigInteger, which is no IConvertible.
                return null;
            }
        }

        private static string Text(JToken token)
        {
            if (token == null || token.Type == JTokenType.Null) return null;
            return token.Type == JTokenType.String ? (string)token : token.ToString(Formatting.None);
        }

        private static string Shown(JToken token)
        {
            return token == null ? "none" : token.ToString(Formatting.None);
        }
    }
}
