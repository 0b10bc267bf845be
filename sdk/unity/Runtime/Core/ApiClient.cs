using System;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
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

        /// <summary>Worth sending again later: the service or the network, not the request.</summary>
        public bool IsRetryable
        {
            get { return Code == 408 || Code == 429 || Code >= 500; }
        }
    }

    /// <summary>The SDK's side of the service's API: the bare SDK key in Authorization, JSON both ways.</summary>
    internal sealed class ApiClient
    {
        private readonly HttpClient http;
        private readonly string baseUrl;
        private readonly string apiKey;

        public ApiClient(string baseUrl, string apiKey, HttpMessageHandler handler)
        {
            this.baseUrl = baseUrl.TrimEnd('/');
            this.apiKey = apiKey;
            // A long poll for attribution waits up to 20 s on the service's side.
            http = new HttpClient(handler ?? new HttpClientHandler()) { Timeout = TimeSpan.FromSeconds(30) };
        }

        /// <summary>The answer's JSON; a <see cref="ServiceHttpException"/> for any status but 2xx.</summary>
        public async Task<JToken> Send(HttpMethod method, string path, JToken body)
        {
            using (var request = new HttpRequestMessage(method, baseUrl + path))
            {
                request.Headers.TryAddWithoutValidation("Authorization", apiKey);
                if (body != null)
                {
                    request.Content = new StringContent(body.ToString(Formatting.None), Encoding.UTF8);
                    request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
                }
                using (var response = await http.SendAsync(request).ConfigureAwait(false))
                {
                    var text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                    var status = (int)response.StatusCode;
                    if (status < 200 || status > 299)
                    {
                        throw new ServiceHttpException(status, method + " " + path + " answered " + status + ": " + text);
                    }
                    return string.IsNullOrEmpty(text) ? null : JToken.Parse(text);
                }
            }
        }
    }
}
