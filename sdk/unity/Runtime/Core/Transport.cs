using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Service.Unity
{
    /// <summary>An HTTP answer: its status, its body as text, and its Retry-After header if any.</summary>
    public sealed class HttpAnswer
    {
        public HttpAnswer(int status, string body, string retryAfter = null)
        {
            Status = status;
            Body = body;
            RetryAfter = retryAfter;
        }

        public int Status { get; }
        public string Body { get; }
        /// <summary>The answer's Retry-After header as it came; null when it has none.</summary>
        public string RetryAfter { get; }
    }

    /// <summary>
    /// How the core reaches the service: HttpClient where the platform has it, UnityWebRequest in
    /// a WebGL build, which has no sockets of its own. Throws when no answer came (offline).
    /// </summary>
    public interface IHttpTransport
    {
        Task<HttpAnswer> Send(string method, string url, string authorization, string jsonBody);
    }

    /// <summary>
    /// Where the core's work runs. With threads, on the thread pool and a timer; in a WebGL
    /// build, which has none, on the main thread, continuing after each answer.
    /// </summary>
    public interface IScheduler
    {
        /// <summary>Starts work; the task ends with it.</summary>
        Task Start(Func<Task> work);

        /// <summary>Runs an action once, after a delay.</summary>
        void After(TimeSpan delay, Action action);
    }

    /// <summary>The transport of platforms with sockets: desktop, Android, iOS, the Editor.</summary>
    public sealed class HttpClientTransport : IHttpTransport
    {
        private readonly HttpClient http;

        public HttpClientTransport(HttpMessageHandler handler = null)
        {
            // A long poll for attribution waits up to 20 s on the service's side.
            http = new HttpClient(handler ?? new HttpClientHandler()) { Timeout = TimeSpan.FromSeconds(30) };
            // Mono's HttpClient sends none of its own: the service keeps an install's and its
            // events' user agent, and hands it to the ad networks' postbacks.
            http.DefaultRequestHeaders.TryAddWithoutValidation("User-Agent", UserAgent);
        }

        /// <summary>What the requests name themselves by.</summary>
        internal static readonly string UserAgent = "ServiceSDK-Unity/" + Requests.SdkVersion;

        public async Task<HttpAnswer> Send(string method, string url, string authorization, string jsonBody)
        {
            using (var request = new HttpRequestMessage(new HttpMethod(method), url))
            {
                request.Headers.TryAddWithoutValidation("Authorization", authorization);
                if (jsonBody != null)
                {
                    request.Content = new StringContent(jsonBody, Encoding.UTF8);
                    request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
                }
                using (var response = await http.SendAsync(request))
                {
                    IEnumerable<string> retryAfter;
                    return new HttpAnswer(
                        (int)response.StatusCode,
                        await response.Content.ReadAsStringAsync(),
                        response.Headers.TryGetValues("Retry-After", out retryAfter) ? retryAfter.FirstOrDefault() : null);
                }
            }
        }
    }

    /// <summary>The scheduler of platforms with threads.</summary>
    public sealed class ThreadPoolScheduler : IScheduler
    {
        public Task Start(Func<Task> work)
        {
            return Task.Run(work);
        }

        public void After(TimeSpan delay, Action action)
        {
            Timer timer = null;
            timer = new Timer(_ =>
            {
                timer.Dispose();
                action();
            }, null, delay, Timeout.InfiniteTimeSpan);
        }
    }
}
