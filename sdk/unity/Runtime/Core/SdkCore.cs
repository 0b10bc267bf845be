using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>What the core runs on: the platform's seams, and where the service is.</summary>
    public sealed class SdkSetup
    {
        public IKeyValueStore Store { get; set; }
        public IDevice Device { get; set; }
        public ILog Log { get; set; }
        public IMainThread MainThread { get; set; }
        public IClock Clock { get; set; }
        /// <summary>The service's address; the spec names none, so the app sets it.</summary>
        public string BaseUrl { get; set; }
        /// <summary>How requests reach the service; null: HttpClient.</summary>
        public IHttpTransport Transport { get; set; }
        /// <summary>Where the SDK's work runs; null: the thread pool.</summary>
        public IScheduler Scheduler { get; set; }
        /// <summary>First delay before sending again after a failure; doubles up to a minute.</summary>
        public TimeSpan RetryDelay { get; set; } = TimeSpan.FromSeconds(2);
        /// <summary>How long one attribution read waits for an unresolved match (0 to 20 s).</summary>
        public int AttributionWaitSeconds { get; set; } = 10;
    }

    /// <summary>
    /// Every rule of the SDK, with no Unity type: configure once, remote configuration, the
    /// install tracked once, events kept on the device until the service has them (in order,
    /// each once), the customer user id, attribution reads and deletion. The static
    /// <see cref="ServiceSDK"/> holds one for the app; tests make as many as they need.
    /// </summary>
    internal sealed class SdkCore
    {
        public const string MatchStatus = "service_match_status";
        private const string ServiceIdKey = "service_sdk.service_id";
        private const string FirstOpenKey = "service_sdk.first_open";
        private const string InstallTrackedKey = "service_sdk.install_tracked";
        private const string EnabledKey = "service_sdk.enabled";
        private const string AttributionKey = "service_sdk.attribution";
        private const string CustomerUserIdKey = "service_sdk.customer_user_id";
        private const int EventBatch = 100;
        private static readonly TimeSpan MaxRetryDelay = TimeSpan.FromMinutes(1);
        /// <summary>Remote configuration is read again this often when it names no interval.</summary>
        public static readonly TimeSpan DefaultRefreshInterval = TimeSpan.FromHours(1);
        private static readonly HashSet<string> Settled = new HashSet<string>
        {
            "matched", "matched_no_params", "organic", "skipped",
        };

        private readonly SdkSetup setup;
        private readonly EventQueue queue;
        private readonly SemaphoreSlim sending = new SemaphoreSlim(1, 1);
        private readonly object gate = new object();
        private ApiClient api;
        private Task initialization;
        private Task flushing = Task.FromResult(0);
        private LogLevel logLevel = LogLevel.Info;
        private string customerUserId;
        private volatile bool configured;
        private volatile bool disabled;
        private TimeSpan retryDelay;
        private bool retryScheduled;
        private TimeSpan refreshInterval = DefaultRefreshInterval;
        private DeviceSignals deviceSignals;
        /// <summary>The whole install was refused for good in this process: the bare one goes instead.</summary>
        private bool installRefused;

        private readonly IScheduler scheduler;

        public SdkCore(SdkSetup setup)
        {
            this.setup = setup;
            scheduler = setup.Scheduler ?? new ThreadPoolScheduler();
            queue = new EventQueue(setup.Store);
            retryDelay = setup.RetryDelay;
        }

        public bool IsConfigured
        {
            get { return configured; }
        }

        /// <summary>Before Configure, and once the key was rejected or the app switched off.</summary>
        public bool IsSdkDisabled
        {
            get { return !configured || disabled; }
        }

        public string ServiceId
        {
            get { return configured ? setup.Store.Get(ServiceIdKey) : null; }
        }

        public void Configure(string apiKey, int level, string userId)
        {
            if (string.IsNullOrEmpty(apiKey)) throw new ArgumentException("apiKey must not be empty", "apiKey");
            if (level < (int)LogLevel.Debug || level > (int)LogLevel.Error)
            {
                throw new ArgumentException("logLevel must be 0 (DEBUG) to 3 (ERROR)", "logLevel");
            }
            lock (gate)
            {
                // One configure per process: a repeat, its customer user id included, changes nothing.
                if (configured) return;
                logLevel = (LogLevel)level;
                if (string.IsNullOrEmpty(setup.BaseUrl))
                {
                    disabled = true;
                    configured = true;
                    Write(LogLevel.Error, "no service address is set (ServiceSDK.BaseUrl): the SDK is off");
                    initialization = Task.FromResult(0);
                    return;
                }
                api = new ApiClient(setup.BaseUrl, apiKey, setup.Transport ?? new HttpClientTransport());
                if (setup.Store.Get(ServiceIdKey) == null)
                {
                    setup.Store.Set(ServiceIdKey, Guid.NewGuid().ToString());
                    setup.Store.Set(FirstOpenKey, Requests.Iso(setup.Clock.UtcNow));
                }
                // Kept across launches: a launch that names none goes on with the last one set.
                if (Blank(userId)) customerUserId = setup.Store.Get(CustomerUserIdKey);
                else KeepCustomerUserId(userId);
                disabled = setup.Store.Get(EnabledKey) == "false";
                configured = true;
                initialization = scheduler.Start(Initialize);
            }
        }

        /// <summary>
        /// From the next event on, and kept for the next launches. Null or blank clears it; one the
        /// service would refuse (over 256 characters) is refused here with an error in the log
        /// and clears it too, so that later events never go under the user before.
        /// </summary>
        public void SetCustomerUserId(string userId)
        {
            RequireConfigured();
            KeepCustomerUserId(Blank(userId) ? null : userId);
        }

        private void KeepCustomerUserId(string userId)
        {
            var problem = userId == null ? null : Fields.CustomerUserIdProblem(userId);
            if (problem != null)
            {
                Write(LogLevel.Error, problem + ": it is not sent, and events go without a customer user id until a valid one is set");
                userId = null;
            }
            lock (gate) customerUserId = userId;
            if (userId == null) setup.Store.Remove(CustomerUserIdKey);
            else setup.Store.Set(CustomerUserIdKey, userId);
        }

        public void SendEvent(EventType eventType, string eventName, IDictionary<string, object> parameters)
        {
            RequireConfigured();
            if (eventType == EventType.CUSTOM && Blank(eventName))
            {
                throw new ArgumentException("a CUSTOM event needs an eventName", "eventName");
            }
            var checkedParameters = EventParameters.Check(parameters);
            // The SDK tracks the install itself; a manual one would count it twice.
            if (eventType == EventType.INSTALL || disabled) return;
            string userId;
            lock (gate) userId = customerUserId;
            queue.Add(new QueuedEvent
            {
                EventId = Guid.NewGuid().ToString("N"),
                EventType = eventType.ToString(),
                // A standard event's name is not sent: the type names it.
                EventName = eventType == EventType.CUSTOM ? eventName : null,
                Parameters = checkedParameters == null ? null : JToken.FromObject(checkedParameters),
                EventTime = Requests.Iso(setup.Clock.UtcNow),
                CustomerUserId = userId,
            });
            Flush();
        }

        /// <summary>
        /// The install's attribution parameters, to exactly one of the two callbacks, on the main
        /// thread. `failed` is never kept, so the next read asks the service again.
        /// </summary>
        public void GetAttributionParams(Action<Dictionary<string, object>> onSuccess, Action<string> onError)
        {
            if (onSuccess == null) throw new ArgumentNullException("onSuccess");
            RequireConfigured();
            scheduler.Start(async () =>
            {
                try
                {
                    var parameters = await ReadAttribution();
                    setup.MainThread.Post(() => onSuccess(parameters));
                }
                catch (Exception error)
                {
                    Write(LogLevel.Warn, "attribution read failed: " + error.Message);
                    if (onError != null) setup.MainThread.Post(() => onError(error.Message));
                }
            });
        }

        /// <summary>Deletes the install's data at the service; then nothing of it stays on the device.</summary>
        public async Task DeleteUserData()
        {
            RequireConfigured();
            if (api == null) throw new InvalidOperationException("the SDK is off: no service address");
            await initialization;
            await api.Send("DELETE", "/v1/installs/" + Uri.EscapeDataString(ServiceId), null)
                ;
            setup.Store.Remove(AttributionKey);
            queue.Clear();
        }

        /// <summary>Resolves once initialization and the sending under way are done (for tests).</summary>
        internal async Task Idle()
        {
            if (initialization != null) await initialization;
            Task current;
            do
            {
                lock (gate) current = flushing;
                await current;
            } while (!ReferenceEquals(current, flushing));
        }

        internal int Queued
        {
            get { return queue.Count; }
        }

        private async Task Initialize()
        {
            await ReadConfig(true);
            if (!disabled) await SendQueued();
        }

        /// <summary>
        /// GET /v1/config: on or off as it says. Read at Configure and again every
        /// `refresh_interval_seconds` it names (an hour when it names none) while the app runs,
        /// so that an app switched off, or on again, follows without a restart. A rejected key
        /// ends the reading; offline, the last configuration kept holds until the next one.
        /// </summary>
        private async Task ReadConfig(bool first)
        {
            try
            {
                var config = await api.Send("GET", "/v1/config", null);
                var enabled = config == null || config.Value<bool?>("enabled") != false;
                var seconds = config == null ? null : config.Value<long?>("refresh_interval_seconds");
                refreshInterval = seconds.HasValue && seconds.Value >= 1 ? TimeSpan.FromSeconds(seconds.Value) : DefaultRefreshInterval;
                setup.Store.Set(EnabledKey, enabled ? "true" : "false");
                if (enabled)
                {
                    if (disabled && !first) Write(LogLevel.Info, "the app is switched on again in its remote configuration");
                    disabled = false;
                }
                else if (first || !disabled)
                {
                    SwitchOff("the app is switched off in its remote configuration");
                }
            }
            catch (ServiceHttpException error) when (error.IsAuthentication)
            {
                SwitchOff("the SDK key was rejected (" + error.Code + ")");
                return;
            }
            catch (Exception error)
            {
                // Offline or the service down: go on with the last configuration kept.
                Write(LogLevel.Warn, "remote configuration not fetched: " + error.Message);
            }
            scheduler.After(refreshInterval, RefreshConfig);
        }

        /// <summary>Reads the configuration again in turn with the sending, then sends what waits.</summary>
        private void RefreshConfig()
        {
            lock (gate)
            {
                var before = flushing;
                flushing = scheduler.Start(async () =>
                {
                    await Finished(before);
                    await ReadConfig(false);
                    if (!disabled) await SendQueued();
                });
            }
        }

        /// <summary>How long until remote configuration is read again (for tests).</summary>
        internal TimeSpan RefreshInterval
        {
            get { return refreshInterval; }
        }

        private void SwitchOff(string why)
        {
            disabled = true;
            // The owner asked for nothing to be sent: what waits is dropped, not kept for later.
            queue.Clear();
            Write(LogLevel.Error, why + ": the SDK sends nothing");
        }

        /// <summary>Sends what is queued once initialization and the sending before are done.</summary>
        private void Flush()
        {
            lock (gate)
            {
                var before = flushing;
                flushing = scheduler.Start(async () =>
                {
                    await Finished(before);
                    await Finished(initialization);
                    await SendQueued();
                });
            }
        }

        /// <summary>Waits for a task, whatever its end: a failed send was logged where it failed.</summary>
        private static async Task Finished(Task task)
        {
            try
            {
                await task;
            }
            catch (Exception)
            {
                // Logged by the send that failed.
            }
        }

        /// <summary>The install first, once; then the queued events in order, 100 a request.</summary>
        private async Task SendQueued()
        {
            await sending.WaitAsync();
            try
            {
                if (disabled) return;
                if (setup.Store.Get(InstallTrackedKey) != "true") await TrackInstall();
                while (!disabled && queue.Count > 0)
                {
                    var batch = queue.Peek(EventBatch);
                    var body = new JObject
                    {
                        { "events", new JArray(batch.Select(e => Requests.Event(e, ServiceId))) },
                    };
                    JToken answer;
                    try
                    {
                        answer = await api.Send("POST", "/v1/events", body);
                    }
                    catch (ServiceHttpException error) when (error.IsRefusedForGood)
                    {
                        // The batch itself was refused (a 4xx): sent again it would be refused
                        // again and hold up every later event.
                        Write(LogLevel.Error, "the service refused a batch of " + batch.Count + " events; they are dropped: " + error.Message);
                        queue.Remove(batch.Select(e => e.EventId));
                        continue;
                    }
                    // Accepted, ignored and refused for good leave; a retryable refusal stays.
                    var rejected = answer?["rejected"] as JArray ?? new JArray();
                    var keep = new HashSet<string>(rejected
                        .Where(r => r.Value<bool?>("retryable") == true)
                        .Select(r => r.Value<string>("event_id")));
                    var refused = rejected.Where(r => r.Value<bool?>("retryable") != true)
                        .Select(r => "#" + r.Value<int?>("index") + " " + r.Value<string>("event_id") + ": " + r.Value<string>("detail"))
                        .ToList();
                    if (refused.Count > 0)
                    {
                        Write(LogLevel.Error, "the service refused " + refused.Count + " of " + batch.Count
                            + " events for good; they are dropped: " + string.Join("; ", refused));
                    }
                    queue.Remove(batch.Select(e => e.EventId).Where(id => !keep.Contains(id)));
                    if (keep.Count > 0)
                    {
                        // The service has no install for them: it is reported again before they are.
                        setup.Store.Remove(InstallTrackedKey);
                        throw new InvalidOperationException("events to send again later");
                    }
                }
                retryDelay = setup.RetryDelay;
            }
            catch (ServiceHttpException error) when (error.IsAuthentication)
            {
                SwitchOff("the SDK key was rejected (" + error.Code + ")");
            }
            catch (Exception error)
            {
                // Offline, or the service unwell: everything stays queued, in order, for later.
                Write(LogLevel.Info, "sending later: " + error.Message);
                ScheduleRetry();
            }
            finally
            {
                sending.Release();
            }
        }

        /// <summary>
        /// POST /v1/installs. An install the service refuses for good is not sent again as it was:
        /// one error in the log, then the install with only its required fields, so that it is
        /// recorded and its events are taken. Should that be refused too, it is tried again later,
        /// as offline.
        /// </summary>
        private async Task TrackInstall()
        {
            string userId;
            lock (gate) userId = customerUserId;
            var firstOpen = DateTime.Parse(
                setup.Store.Get(FirstOpenKey), null, System.Globalization.DateTimeStyles.RoundtripKind).ToUniversalTime();
            // A clock put right since the first open: not a first open in the future.
            var now = setup.Clock.UtcNow.ToUniversalTime();
            if (firstOpen > now) firstOpen = now;
            var device = deviceSignals ?? (deviceSignals = setup.Device.Read());
            if (!installRefused)
            {
                try
                {
                    await api.Send("POST", "/v1/installs", Requests.Install(ServiceId, firstOpen, setup.Clock.UtcNow, device, userId));
                    setup.Store.Set(InstallTrackedKey, "true");
                    return;
                }
                catch (ServiceHttpException error) when (error.IsRefusedForGood)
                {
                    installRefused = true;
                    Write(LogLevel.Error, "the service refused the install; it is sent again with its required fields only: " + error.Message);
                }
            }
            await api.Send("POST", "/v1/installs", Requests.BareInstall(ServiceId, firstOpen, setup.Clock.UtcNow, device.Os == "ios" ? "ios" : "android"));
            setup.Store.Set(InstallTrackedKey, "true");
        }

        private void ScheduleRetry()
        {
            lock (gate)
            {
                if (retryScheduled) return;
                retryScheduled = true;
            }
            var delay = retryDelay;
            retryDelay = TimeSpan.FromTicks(Math.Min(retryDelay.Ticks * 2, MaxRetryDelay.Ticks));
            scheduler.After(delay, () =>
            {
                lock (gate) retryScheduled = false;
                Flush();
            });
        }

        private async Task<Dictionary<string, object>> ReadAttribution()
        {
            if (disabled) return Status("not_configured");
            var kept = setup.Store.Get(AttributionKey);
            if (kept != null) return JObject.Parse(kept).ToObject<Dictionary<string, object>>();
            await initialization;
            if (disabled) return Status("not_configured");
            // The install must be at the service before it can be matched.
            await Idle();
            if (setup.Store.Get(InstallTrackedKey) != "true") return Status("failed");
            var answer = await api.Send(
                "GET",
                "/v1/installs/" + Uri.EscapeDataString(ServiceId) + "/attribution?wait_seconds=" + setup.AttributionWaitSeconds,
                null) as JObject ?? new JObject();
            var parameters = answer.ToObject<Dictionary<string, object>>();
            object status;
            if (!parameters.TryGetValue(MatchStatus, out status)) return Status("failed");
            if (Settled.Contains(status as string)) setup.Store.Set(AttributionKey, answer.ToString());
            return parameters;
        }

        private static Dictionary<string, object> Status(string status)
        {
            return new Dictionary<string, object> { { MatchStatus, status } };
        }

        private void RequireConfigured()
        {
            if (!configured) throw new InvalidOperationException("call ServiceSDK.Configure first");
        }

        private void Write(LogLevel level, string message)
        {
            if (level >= logLevel) setup.Log.Write(level, message);
        }

        private static bool Blank(string text)
        {
            return text == null || text.Trim().Length == 0;
        }
    }
}
