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
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// The bound on a wait for what must happen (a callback, a request on its way, a thread's
    /// return, a gate the test opens): far beyond what any run takes on a busy machine, so that
    /// only a hang fails. Each wait ends as soon as what it waits for happens, so a passing run
    /// never waits it out; a wait for what must not happen is a different thing, and stays short.
    /// </summary>
    internal static class Patience
    {
        public static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

        /// <summary>Polls <paramref name="condition"/> (running <paramref name="between"/> before each look) until it holds, or fails the test with <paramref name="what"/> once <see cref="Bound"/> passed.</summary>
        public static void Until(Func<bool> condition, string what, Action between = null)
        {
            var deadline = DateTime.UtcNow + Bound;
            while (true)
            {
                if (between != null) between();
                if (condition()) return;
                Assert.Less(DateTime.UtcNow, deadline, what);
                Thread.Sleep(5);
            }
        }
    }

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

        /// <summary>Every value held, for a test that looks for what must not be kept.</summary>
        public List<string> Values()
        {
            lock (values) return values.Values.ToList();
        }
    }

    /// <summary>
    /// PlayerPrefs as the SDK sees them: writes go to memory, and reach the disk only when
    /// saved. A crash loses what was not saved: <see cref="AfterCrash"/> is the store the next
    /// process reads.
    /// </summary>
    internal sealed class DiskStore : IDiskStore
    {
        private readonly Dictionary<string, string> memory;
        private readonly Dictionary<string, string> disk;
        public int Saves;

        public DiskStore() : this(new Dictionary<string, string>()) { }

        private DiskStore(Dictionary<string, string> disk)
        {
            this.disk = disk;
            memory = new Dictionary<string, string>(disk);
        }

        public string Get(string key)
        {
            lock (memory)
            {
                string value;
                return memory.TryGetValue(key, out value) ? value : null;
            }
        }

        public void Set(string key, string value)
        {
            lock (memory) memory[key] = value;
        }

        public void Remove(string key)
        {
            lock (memory) memory.Remove(key);
        }

        public void Save()
        {
            lock (memory)
            {
                disk.Clear();
                foreach (var pair in memory) disk[pair.Key] = pair.Value;
                Saves++;
            }
        }

        /// <summary>What is on the disk, for a key.</summary>
        public string OnDisk(string key)
        {
            lock (memory)
            {
                string value;
                return disk.TryGetValue(key, out value) ? value : null;
            }
        }

        /// <summary>The process ends without a save (no pause, no quit): the next one reads the disk.</summary>
        public DiskStore AfterCrash()
        {
            lock (memory) return new DiskStore(new Dictionary<string, string>(disk));
        }
    }

    /// <summary>The TCF values a consent platform stored on the device.</summary>
    internal sealed class FixedTcf : ITcfSource
    {
        public TcfValues Values;
        /// <summary>Reading the values throws, as a consent platform's damaged values may.</summary>
        public volatile bool Unreadable;

        public TcfValues Read()
        {
            if (Unreadable) throw new InvalidOperationException("IABTCF_gdprApplies is not a number");
            return Values;
        }
    }

    /// <summary>
    /// Unity's main thread as the behaviour runs it: what is posted waits for the next frame,
    /// which the test runs with <see cref="Drain"/>.
    /// </summary>
    internal sealed class QueuedMainThread : IMainThread
    {
        private readonly Queue<Action> posted = new Queue<Action>();

        public void Post(Action action)
        {
            lock (posted) posted.Enqueue(action);
        }

        /// <summary>Runs everything posted (and posted meanwhile); how many ran.</summary>
        public int Drain()
        {
            var ran = 0;
            while (true)
            {
                Action next;
                lock (posted)
                {
                    if (posted.Count == 0) return ran;
                    next = posted.Dequeue();
                }
                next();
                ran++;
            }
        }
    }

    /// <summary>What the app's listeners heard, as it would record them.</summary>
    internal sealed class Heard
    {
        public readonly List<Dictionary<string, object>> Attributions = new List<Dictionary<string, object>>();
        public readonly List<ServiceDeepLink> DeepLinks = new List<ServiceDeepLink>();
        public readonly List<ServiceError> Errors = new List<ServiceError>();

        public Heard(SdkListeners listeners)
        {
            listeners.AddAttribution(map => { lock (this) Attributions.Add(map); });
            listeners.AddDeepLink(link => { lock (this) DeepLinks.Add(link); });
            listeners.AddError(error => { lock (this) Errors.Add(error); });
        }

        /// <summary>Only the error listener.</summary>
        public static Heard ErrorsOf(SdkListeners listeners)
        {
            return new Heard(listeners, true);
        }

        private Heard(SdkListeners listeners, bool errorsOnly)
        {
            listeners.AddError(error => { lock (this) Errors.Add(error); });
        }

        public List<ServiceError> Dropped(ServiceDropReason reason)
        {
            lock (this) return Errors.Where(e => e.Kind == ServiceErrorKind.EventsDropped && e.Reason == reason).ToList();
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

    /// <summary>The device's clock, which a test can set ahead or behind the real one, or hold at a time.</summary>
    internal sealed class SettableClock : IClock
    {
        public TimeSpan Offset;
        /// <summary>The time the clock shows, still; null: the real one plus <see cref="Offset"/>.</summary>
        public DateTime? Held;

        public DateTime UtcNow
        {
            get { return Held ?? DateTime.UtcNow + Offset; }
        }
    }

    /// <summary>
    /// Work on the thread pool, as in an app; a delayed action (a retry, the next read of remote
    /// configuration) runs only when the test fires it, so no test waits for a timer.
    /// </summary>
    internal sealed class ManualTimers : IScheduler
    {
        private readonly List<KeyValuePair<TimeSpan, Action>> pending = new List<KeyValuePair<TimeSpan, Action>>();

        /// <summary>While set, work started waits for it before it begins (a call made meanwhile comes first).</summary>
        public volatile ManualResetEventSlim HeldStarts;

        public Task Start(Func<Task> work)
        {
            var held = HeldStarts;
            if (held == null) return Task.Run(work);
            return Task.Run(async () =>
            {
                held.Wait(Patience.Bound);
                await work();
            });
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

        /// <summary>Runs (once) every action waiting with a delay up to this one (retries, saves); how many ran.</summary>
        public int FireUpTo(TimeSpan longest)
        {
            List<Action> due;
            lock (pending)
            {
                due = pending.Where(p => p.Key <= longest).Select(p => p.Value).ToList();
                pending.RemoveAll(p => p.Key <= longest);
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
        /// <summary>Called with each request's method and path as it leaves, before the service has it (an app's call made meanwhile).</summary>
        public volatile Action<string> Leaving;
        /// <summary>Every request that reached the service: its method and path, and the answer's status and body.</summary>
        public readonly List<Tuple<string, int, string>> Answers = new List<Tuple<string, int, string>>();
        /// <summary>The body of each request that reached the service, as it went, by method and path; null for none.</summary>
        public readonly List<KeyValuePair<string, string>> Bodies = new List<KeyValuePair<string, string>>();

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
            var leaving = Leaving;
            if (leaving != null) leaving(request.Method + " " + request.RequestUri.AbsolutePath);
            var sent = request.Content == null ? null : await request.Content.ReadAsStringAsync();
            lock (Bodies) Bodies.Add(new KeyValuePair<string, string>(request.Method + " " + request.RequestUri.AbsolutePath, sent));
            var answer = await base.SendAsync(request, token);
            var text = answer.Content == null ? "" : await answer.Content.ReadAsStringAsync();
            lock (Answers) Answers.Add(Tuple.Create(request.Method + " " + request.RequestUri.AbsolutePath, (int)answer.StatusCode, text));
            return answer;
        }

        /// <summary>The requests sent so far to a path, as "METHOD /path".</summary>
        public List<Tuple<string, int, string>> To(string methodAndPathStart)
        {
            lock (Answers) return Answers.Where(a => a.Item1.StartsWith(methodAndPathStart)).ToList();
        }

        /// <summary>The JSON bodies of the requests sent so far to a path, as "METHOD /path".</summary>
        public List<JObject> BodiesTo(string methodAndPathStart)
        {
            lock (Bodies) return Bodies.Where(b => b.Key.StartsWith(methodAndPathStart) && b.Value != null).Select(b => JsonText.ParseObject(b.Value)).ToList();
        }
    }

    /// <summary>A scripted backend for the rules that need answers the service gives rarely.</summary>
    internal sealed class ScriptedBackend : HttpMessageHandler
    {
        public readonly List<KeyValuePair<string, JToken>> Requests = new List<KeyValuePair<string, JToken>>();
        /// <summary>Each request's body as the SDK wrote it (the parsed one above reads date-like strings as dates).</summary>
        public readonly List<KeyValuePair<string, string>> Texts = new List<KeyValuePair<string, string>>();
        public Func<string, JToken, Tuple<int, JToken>> Answer;
        /// <summary>An answer whose body is text as it is (not JSON); null: <see cref="Answer"/> answers.</summary>
        public Func<string, JToken, Tuple<int, string>> RawAnswer;
        /// <summary>The Retry-After header of the answer to a request of this key; null: none.</summary>
        public Func<string, string> RetryAfter;
        /// <summary>Every request fails as offline ones do, and is not recorded.</summary>
        public volatile bool Offline;
        /// <summary>Each request's User-Agent header, as sent.</summary>
        public readonly List<string> UserAgents = new List<string>();
        /// <summary>Each request's Authorization header, and its body's Content-Type (null without one), as sent.</summary>
        public readonly List<Tuple<string, string>> Headers = new List<Tuple<string, string>>();

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken token)
        {
            if (Offline) throw new HttpRequestException("network unreachable");
            var text = request.Content == null ? null : await request.Content.ReadAsStringAsync();
            var body = text == null ? null : JToken.Parse(text);
            var key = request.Method + " " + request.RequestUri.PathAndQuery;
            lock (Requests)
            {
                UserAgents.Add(request.Headers.UserAgent.ToString());
                Headers.Add(Tuple.Create(
                    request.Headers.Authorization == null ? null : request.Headers.Authorization.ToString(),
                    request.Content == null ? null : request.Content.Headers.ContentType.ToString()));
                Requests.Add(new KeyValuePair<string, JToken>(key, body));
                Texts.Add(new KeyValuePair<string, string>(key, text));
            }
            var raw = RawAnswer == null ? null : RawAnswer(key, body);
            if (raw != null)
            {
                return new HttpResponseMessage((HttpStatusCode)raw.Item1) { Content = new StringContent(raw.Item2, Encoding.UTF8, "text/html") };
            }
            var answer = Answer(key, body);
            var response = new HttpResponseMessage((HttpStatusCode)answer.Item1)
            {
                Content = new StringContent(answer.Item2 == null ? "" : answer.Item2.ToString(), Encoding.UTF8, "application/json"),
            };
            var retryAfter = RetryAfter == null ? null : RetryAfter(key);
            if (retryAfter != null) response.Headers.TryAddWithoutValidation("Retry-After", retryAfter);
            return response;
        }

        /// <summary>The service's usual answers: on, install taken, every event and session accepted.</summary>
        public static Tuple<int, JToken> Usual(string key, JToken body)
        {
            if (key.StartsWith("GET /v1/config")) return Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":true}"));
            var list = key.StartsWith("POST /v1/events") ? "events" : key.StartsWith("POST /v1/sessions") ? "sessions" : null;
            if (list != null)
            {
                var count = body == null || !(body[list] is JArray) ? 0 : ((JArray)body[list]).Count;
                return Tuple.Create(202, (JToken)new JObject { { "accepted", count }, { "ignored", new JArray() }, { "rejected", new JArray() } });
            }
            if (key.StartsWith("POST /v1/installs") && key.EndsWith("/consent"))
            {
                return Tuple.Create(202, (JToken)new JObject { { "service_id", key.Split('/')[3] }, { "consent", body == null ? null : body["consent"] } });
            }
            if (key.StartsWith("POST /v1/installs")) return Tuple.Create(202, (JToken)new JObject { { "service_id", body == null ? null : body["service_id"] } });
            return Tuple.Create(202, (JToken)new JObject());
        }
    }

    internal static class Backends
    {
        /// <summary>The requests sent so far whose key starts so.</summary>
        public static List<KeyValuePair<string, JToken>> To(this ScriptedBackend backend, string start)
        {
            lock (backend.Requests) return backend.Requests.Where(r => r.Key.StartsWith(start)).ToList();
        }
    }

    internal static class Setups
    {
        public static SdkSetup For(
            string baseUrl, HttpMessageHandler handler, IKeyValueStore store = null, IDevice device = null,
            IClock clock = null, IScheduler scheduler = null, IMainThread mainThread = null, ITcfSource tcf = null)
        {
            return new SdkSetup
            {
                Tcf = tcf,
                Store = store ?? new MemoryStore(),
                Device = device ?? new FixedDevice(),
                Log = new ListLog(),
                MainThread = mainThread ?? new InlineMainThread(),
                Clock = clock ?? new SystemClock(),
                Scheduler = scheduler,
                BaseUrl = baseUrl,
                Transport = new HttpClientTransport(handler),
                RetryDelay = TimeSpan.FromMilliseconds(100),
                // Exact waits, so that a test can name the one a retry is due at; RetryWaitTests
                // checks the jitter the SDK ships with.
                Jitter = backoff => backoff,
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

        /// <summary>The service's OpenAPI document (spec/openapi.json): the schemas of what it takes.</summary>
        public static JObject OpenApi()
        {
            return JObject.Parse(File.ReadAllText(Path.Combine(Root, "spec", "openapi.json")));
        }

        public static JObject Vectors(string file)
        {
            // Strings stay strings: a date-time in a vector is the text an app passes.
            using (var reader = new Newtonsoft.Json.JsonTextReader(new StringReader(File.ReadAllText(Path.Combine(Root, "sdk", "conformance", file)))))
            {
                reader.DateParseHandling = Newtonsoft.Json.DateParseHandling.None;
                return JObject.Load(reader);
            }
        }
    }
}
