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

        /// <summary>The key was rejected: the SDK switches itself off.</summary>
        public bool IsAuthentication
        {
            get { return Code == 401 || Code == 403; }
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

        /// <summary>The answer's JSON; a <see cref="ServiceHttpException"/> for any status but 2xx.</summary>
        public async Task<JToken> Send(string method, string path, JToken body)
        {
            var answer = await transport.Send(method, baseUrl + path, apiKey, body == null ? null : body.ToString(Formatting.None));
            if (answer.Status < 200 || answer.Status > 299)
            {
                throw new ServiceHttpException(answer.Status, method + " " + path + " answered " + answer.Status + ": " + answer.Body);
            }
            return string.IsNullOrEmpty(answer.Body) ? null : JToken.Parse(answer.Body);
        }
    }
}
