using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Service.Unity.Tests
{
    internal sealed class MemoryStore : IKeyValueStore
    {
        private readonly Dictionary<string, string> values = new Dictionary<string, string>();

        public string Get(string key)
        {
            lock (values)
            {
                string value;
                return values.TryGetValue(key, out value) ? value : null;
            }
        }

        public void Set(string key, string value)
        {
            lock (values) values[key] = value;
        }

        public void Remove(string key)
        {
            lock (values) values.Remove(key);
        }
    }

    internal sealed class FixedDevice : IDevice
    {
        public DeviceSignals Signals = new DeviceSignals
        {
            Os = "android",
            OsVersion = "14",
            DeviceModel = "Pixel 8",
            AppVersion = "3.2.1",
            Locale = "de-DE",
            Timezone = "Europe/Berlin",
        };

        public DeviceSignals Read()
        {
            return Signals;
        }
    }

    internal sealed class ListLog : ILog
    {
        public readonly List<string> Lines = new List<string>();

        public void Write(LogLevel level, string message)
        {
            lock (Lines) Lines.Add(level + " " + message);
        }

        /// <summary>The lines at this level that say this.</summary>
        public List<string> At(LogLevel level, string saying)
        {
            lock (Lines) return Lines.Where(line => line.StartsWith(level + " ") && line.Contains(saying)).ToList();
        }
    }

    /// <summary>Runs callbacks at once, and remembers on which thread and how many.</summary>
    internal sealed class InlineMainThread : IMainThread
    {
        public int Posted;

        public void Post(Action action)
        {
            Interlocked.Increment(ref Posted);
            action();
        }
    }

    internal sealed class SystemClock : IClock
    {
        public DateTime UtcNow
        {
            get { return DateTime.UtcNow; }
        }
    }

    /// <summary>The device's clock, which a test can set ahead or behind the real one.</summary>
    internal sealed class SettableClock : IClock
    {
        public TimeSpan Offset;

        public DateTime UtcNow
        {
            get { return DateTime.UtcNow + Offset; }
        }
    }

    /// <summary>
    /// Work on the thread pool, as in an app; a delayed action (a retry, the next read of remote
    /// configuration) runs only when the test fires it, so no test waits for a timer.
    /// </summary>
    internal sealed class ManualTimers : IScheduler
    {
        private readonly List<KeyValuePair<TimeSpan, Action>> pending = new List<KeyValuePair<TimeSpan, Action>>();

        public Task Start(Func<Task> work)
        {
            return Task.Run(work);
        }

        public void After(TimeSpan delay, Action action)
        {
            lock (pending) pending.Add(new KeyValuePair<TimeSpan, Action>(delay, action));
        }

        /// <summary>The delays of the actions waiting.</summary>
        public List<TimeSpan> Delays
        {
            get { lock (pending) return pending.Select(p => p.Key).ToList(); }
        }

        /// <summary>Runs (once) every action waiting now, whatever its delay; how many ran.</summary>
        public int FireAll()
        {
            List<Action> due;
            lock (pending)
            {
                due = pending.Select(p => p.Value).ToList();
                pending.Clear();
            }
            foreach (var action in due) action();
            return due.Count;
        }

        /// <summary>Runs (once) every action waiting with this delay; how many ran.</summary>
        public int Fire(TimeSpan delay)
        {
            List<Action> due;
            lock (pending)
            {
                due = pending.Where(p => p.Key == delay).Select(p => p.Value).ToList();
                pending.RemoveAll(p => p.Key == delay);
            }
            foreach (var action in due) action();
            return due.Count;
        }
    }

    /// <summary>
    /// The device's network to the real service, which a test can cut (every request fails as
    /// offline ones do), make the next answers a 503, as a struggling proxy would, or have a
    /// broken middlebox rewrite the next request to a path, which the service then judges.
    /// </summary>
    internal sealed class CuttableNetwork : DelegatingHandler
    {
        public volatile bool Off;
        public int FailNext;
        public int Sent;
        /// <summary>The path of the next request to rewrite, and how its JSON body is changed.</summary>
        public string ManglePath;
        public Action<JObject> Mangle;

        public CuttableNetwork() : base(new HttpClientHandler()) { }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken token)
        {
            if (Off) throw new HttpRequestException("network unreachable");
            if (Interlocked.Decrement(ref FailNext) >= 0)
            {
                return new HttpResponseMessage(HttpStatusCode.ServiceUnavailable) { Content = new StringContent("") };
            }
            var mangle = Mangle;
            if (mangle != null && request.RequestUri.AbsolutePath == ManglePath)
            {
                Mangle = null;
                var body = JObject.Parse(await request.Content.ReadAsStringAsync());
                mangle(body);
                request.Content = new StringContent(body.ToString(), System.Text.Encoding.UTF8, "application/json");
            }
            Interlocked.Increment(ref Sent);
            return await base.SendAsync(request, token);
        }
    }

    /// <summary>A scripted backend for the rules that need answers the service gives rarely.</summary>
    internal sealed class ScriptedBackend : HttpMessageHandler
    {
        public readonly List<KeyValuePair<string, JToken>> Requests = new List<KeyValuePair<string, JToken>>();
        public Func<string, JToken, Tuple<int, JToken>> Answer;

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken token)
        {
            var body = request.Content == null ? null : JToken.Parse(await request.Content.ReadAsStringAsync());
            var key = request.Method + " " + request.RequestUri.PathAndQuery;
            lock (Requests) Requests.Add(new KeyValuePair<string, JToken>(key, body));
            var answer = Answer(key, body);
            return new HttpResponseMessage((HttpStatusCode)answer.Item1)
            {
                Content = new StringContent(answer.Item2 == null ? "" : answer.Item2.ToString(), Encoding.UTF8, "application/json"),
            };
        }

        /// <summary>The service's usual answers: on, install taken, every event accepted.</summary>
        public static Tuple<int, JToken> Usual(string key, JToken body)
        {
            if (key.StartsWith("GET /v1/config")) return Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":true}"));
            if (key.StartsWith("POST /v1/events")) return Tuple.Create(202, (JToken)JObject.Parse("{\"accepted\":[],\"rejected\":[]}"));
            return Tuple.Create(202, (JToken)new JObject());
        }
    }

    internal static class Setups
    {
        public static SdkSetup For(
            string baseUrl, HttpMessageHandler handler, IKeyValueStore store = null, IDevice device = null,
            IClock clock = null, IScheduler scheduler = null)
        {
            return new SdkSetup
            {
                Store = store ?? new MemoryStore(),
                Device = device ?? new FixedDevice(),
                Log = new ListLog(),
                MainThread = new InlineMainThread(),
                Clock = clock ?? new SystemClock(),
                Scheduler = scheduler,
                BaseUrl = baseUrl,
                Transport = new HttpClientTransport(handler),
                RetryDelay = TimeSpan.FromMilliseconds(100),
                AttributionWaitSeconds = 5,
            };
        }
    }

    internal static class Repo
    {
        /// <summary>The repository root: test.sh passes it; else found from the test assembly.</summary>
        public static string Root
        {
            get
            {
                var given = Environment.GetEnvironmentVariable("REPO_ROOT");
                if (!string.IsNullOrEmpty(given)) return given;
                var dir = new DirectoryInfo(AppDomain.CurrentDomain.BaseDirectory);
                while (dir != null && !Directory.Exists(Path.Combine(dir.FullName, "sdk", "conformance")))
                {
                    dir = dir.Parent;
                }
                if (dir == null) throw new InvalidOperationException("repository root not found");
                return dir.FullName;
            }
        }

        public static JObject Vectors(string file)
        {
            return JObject.Parse(File.ReadAllText(Path.Combine(Root, "sdk", "conformance", file)));
        }
    }
}
