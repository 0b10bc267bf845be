using System;
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

        /// <summary>The key was rejected (or, a 403, the request refused before the service: on GET /v1/config only a 401 switches the SDK off).</summary>
        public bool IsAuthentication
        {
            get { return Code == 401 || Code == 403; }
        }

        /// <summary>
        /// A route (the install, the consent update, events, sessions) answered so names a wrong
        /// address or key: a configuration error, and the route is not tried again for a while.
        /// </summary>
        public bool IsConfiguration
        {
            get { return Code == 401 || Code == 403 || Code == 404; }
        }

        /// <summary>
        /// The request itself was refused (a 4xx but the key's and "later"'s): sent again unchanged
        /// it would be refused again.
        /// </summary>
        public bool IsRefusedForGood
        {
            get { return Code >= 400 && Code <= 499 && !IsAuthentication && !IsRetryable; }
        }

        /// <summary>Worth sending again later: the service or the network, not the request.</summary>
        public bool IsRetryable
        {
            get { return Code == 408 || Code == 429 || Code >= 500; }
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

        public ApiClient(string baseUrl, string apiKey, IHttpTransport transport)
        {
            this.baseUrl = baseUrl.TrimEnd('/');
            this.apiKey = apiKey;
            this.transport = transport;
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
                throw new ServiceHttpException(answer.Status, method + " " + path + " answered " + answer.Status + ": " + answer.Body);
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

        /// <summary>The remote configuration: an object (or no body at all, which keeps the SDK on).</summary>
        public static bool AConfiguration(JToken json)
        {
            return json == null || json is JObject;
        }
    }
}
