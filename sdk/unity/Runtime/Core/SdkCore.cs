using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>What the core runs on: the platform's seams, and where the service is.</summary>
    public sealed class SdkSetup
    {
        /// <summary>Where the SDK keeps its state; an <see cref="IDiskStore"/> is saved within a second of each change.</summary>
        public IKeyValueStore Store { get; set; }
        public IDevice Device { get; set; }
        public ILog Log { get; set; }
        /// <summary>Where the app's callbacks and listeners run: Unity's main thread.</summary>
        public IMainThread MainThread { get; set; }
        public IClock Clock { get; set; }
        /// <summary>The IAB TCF values on the device; null where the platform has none.</summary>
        public ITcfSource Tcf { get; set; }
        /// <summary>Google Play's install referrer (Android); null: what <see cref="Device"/> gives, if anything.</summary>
        public IInstallReferrerSource InstallReferrer { get; set; }
        /// <summary>
        /// What tells this install of the app from another that a backup restored the SDK's
        /// state to, read at load: on Android the package's first install time, which an update
        /// keeps and a reinstall or a new phone changes; on iOS the IDFV, which a restore to
        /// another iPhone changes. Null where unknown: no check.
        /// </summary>
        public string InstallFingerprint { get; set; }
        /// <summary>The service's address, when the host gives it; null: the app's (ServiceSDK.BaseUrl) as Configure is called. The spec names none.</summary>
        public string BaseUrl { get; set; }
        /// <summary>
        /// Why this platform sends nothing (a desktop, WebGL or console player: the service takes
        /// installs from Android and iOS); null where it sends.
        /// </summary>
        public string Unsupported { get; set; }
        /// <summary>
        /// The link the app was opened with at this launch, as the engine gives it at load (Unity's
        /// Application.absoluteURL); null or empty: none. The app reads it through
        /// <see cref="ServiceSDK.LaunchUrl"/>, which <see cref="LaunchIntent"/> may withhold it from.
        /// </summary>
        public string LaunchUrl { get; set; }
        /// <summary>
        /// On Android, the intent the app's activity was started with, read at load: whether
        /// <see cref="LaunchUrl"/> comes from a link tapped for this launch. Null where there is
        /// none to read (iOS) or it could not be read: the link is taken as it is.
        /// </summary>
        public LaunchIntent LaunchIntent { get; set; }
        /// <summary>How requests reach the service; null: HttpClient.</summary>
        public IHttpTransport Transport { get; set; }
        /// <summary>Where the SDK's work runs; null: the thread pool.</summary>
        public IScheduler Scheduler { get; set; }
        /// <summary>First delay before sending again after a failure; doubles up to a minute.</summary>
        public TimeSpan RetryDelay { get; set; } = TimeSpan.FromSeconds(2);
        /// <summary>The wait before an attempt whose backoff is given: <see cref="RetryWait.Jittered"/> (tests: exact).</summary>
        internal Func<TimeSpan, TimeSpan> Jitter { get; set; } = backoff => RetryWait.Jittered(backoff);
        /// <summary>How long one attribution read waits for an unresolved match (0 to 20 s).</summary>
        public int AttributionWaitSeconds { get; set; } = 10;
        /// <summary>Where the conversion values go (the iOS plugin); null: nowhere, as on Android.</summary>
        internal IConversionValues ConversionValues { get; set; }
        /// <summary>Time for the send made as the app goes to the background (the iOS plugin); null: none asked for.</summary>
        internal IBackgroundTime BackgroundTime { get; set; }
    }

    /// <summary>
    /// Every rule of the SDK, with no Unity type: configure once, remote configuration, the
    /// install tracked once, events kept on the device until the service has them (in order,
    /// each once, a batch refused as a whole split until the one refused event is known), every
    /// drop logged, counted and reported, sessions (when one starts, kept and delivered as events
    /// are), stop and start, anonymous mode, consent, the customer user id, attribution reads,
    /// the listeners, and deletion. The static
    /// <see cref="ServiceSDK"/> holds one for the app; tests make as many as they need.
    /// </summary>
    internal sealed class SdkCore
    {
        public const string MatchStatus = "service_match_status";
        public const string DeepLinkPath = "deep_link_path";
        /// <summary>
        /// The query parameter iOS adds to the URL it opens the app with at an AdAttributionKit
        /// re-engagement (iOS 18), AdAttributionKit's `Postback.reengagementOpenURLParameter`:
        /// written out because the core builds where AdAttributionKit is not.
        /// </summary>
        public const string ReengagementOpenParameter = "AdAttributionKitReengagementOpen";
        private const string ServiceIdKey = "service_sdk.service_id";
        private const string FirstOpenKey = "service_sdk.first_open";
        private const string InstallTrackedKey = "service_sdk.install_tracked";
        private const string EnabledKey = "service_sdk.enabled";
        private const string AttributionKey = "service_sdk.attribution";
        private const string CustomerUserIdKey = "service_sdk.customer_user_id";
        private const string StoppedKey = "service_sdk.stopped";
        private const string AnonymousKey = "service_sdk.anonymous";
        private const string DeferredKey = "service_sdk.deferred_deep_link";
        /// <summary>
        /// The install's data was deleted (DeleteUserData, or through the service's API, learned
        /// from its answers): nothing more is sent for it, in any later launch either.
        /// </summary>
        private const string DeletedKey = "service_sdk.deleted";
        /// <summary>Remote configuration's conversion value schema as last read (`null` for none); absent until one is read.</summary>
        private const string SchemaKey = "service_sdk.skadnetwork";
        private const string ConversionKey = "service_sdk.conversion_values";
        /// <summary>
        /// The events waiting to be evaluated (<see cref="awaitingConversion"/>), kept on the device:
        /// a first launch that ends before its first configuration is read leaves them to the next.
        /// </summary>
        private const string AwaitingConversionKey = "service_sdk.conversion_waiting";
        /// <summary>Remote configuration's `session_interval_seconds` as last read; absent until one names it.</summary>
        private const string SessionIntervalKey = "service_sdk.session_interval";
        /// <summary>
        /// Remote configuration's `refresh_interval_seconds` as last read; absent until one names
        /// it. A later launch whose read fails waits this long before reading again, as the Kotlin
        /// and iOS SDKs wait the kept configuration's interval.
        /// </summary>
        private const string RefreshIntervalKey = "service_sdk.refresh_interval";
        /// <summary>The <see cref="SdkSetup.InstallFingerprint"/> of the install that kept these keys.</summary>
        internal const string InstallFingerprintKey = "service_sdk.install_fingerprint";
        /// <summary>Events waiting for the first open or the first configuration, at most.</summary>
        private const int MaxAwaitingConversion = 1000;
        /// <summary>Answers of a Play Store that cannot answer now after which the install goes without its referrer (the Kotlin SDK's too).</summary>
        internal const int MaxReferrerTries = 3;
        /// <summary>Reads of Apple's AdServices token that failed before the install goes without it.</summary>
        internal const int MaxAdsTokenTries = 3;

        /// <summary>Every key the core keeps (the Unity layer loads these from PlayerPrefs).</summary>
        public static readonly string[] StoreKeys =
        {
            ServiceIdKey, FirstOpenKey, InstallTrackedKey, EnabledKey, AttributionKey, EventQueue.Key,
            CustomerUserIdKey, DropReporter.Key, StoppedKey, AnonymousKey, ConsentState.Key, ConsentState.SentKey,
            ConsentState.TrackingSentKey, DeferredKey,
            SchemaKey, ConversionKey, AwaitingConversionKey, SessionQueue.Key, DropReporter.SessionsKey, SessionIntervalKey, RefreshIntervalKey, DeletedKey,
            InstallFingerprintKey,
        };

        internal static readonly TimeSpan MaxRetryDelay = TimeSpan.FromMinutes(1);
        /// <summary>The longest wait for the app's ATT answer that <see cref="WaitForTrackingAuthorization"/> takes, in seconds.</summary>
        public const int MaxTrackingWaitSeconds = 360;
        /// <summary>How often the ATT status is read while the install waits for it.</summary>
        internal static readonly TimeSpan TrackingCheckInterval = TimeSpan.FromSeconds(1);
        /// <summary>A change reaches the disk (PlayerPrefs.Save) at most this long after it is made.</summary>
        public static readonly TimeSpan SaveDelay = TimeSpan.FromSeconds(1);
        /// <summary>
        /// Remote configuration is read again this often when it names no interval, or one its
        /// contract refuses (sdk/conformance/remote-config.json).
        /// </summary>
        public static readonly TimeSpan DefaultRefreshInterval = TimeSpan.FromHours(1);
        /// <summary>The contract's largest integer, JSON's exact ones: 2^53 - 1.</summary>
        private const long MaxContractInteger = 9007199254740991L;
        /// <summary>
        /// The longest interval taken: a day. A longer one would leave an app the owner switched
        /// off sending for days after; and beyond about 49.7 days (2^32 - 2 ms) the timer, beyond
        /// TimeSpan's range the interval itself, would throw, and the configuration be lost with it.
        /// </summary>
        public static readonly TimeSpan MaxRefreshInterval = TimeSpan.FromHours(24);
        private static readonly HashSet<string> Settled = new HashSet<string>
        {
            "matched", "matched_no_params", "organic", "skipped",
        };
        /// <summary>The attribution route's own keys; the others of a matched install are its link's parameters.</summary>
        private static readonly HashSet<string> AttributionKeys = new HashSet<string>
        {
            "service_match_status", "media_source", "campaign_id", "campaign_name", "adset_id", "adset_name",
            "ad_id", "ad_name", "click_id", "click_to_first_open_hours", "matching_type", "confidence_score",
        };

        private readonly SdkSetup setup;
        private readonly SavingStore store;
        private readonly EventQueue queue;
        private readonly SdkListeners listeners;
        /// <summary>Set by <see cref="Retire"/>: the core does nothing more.</summary>
        private volatile bool retired;
        private readonly DropReporter drops;
        private readonly ConsentState consent;
        private readonly Delivery<QueuedEvent> delivery;
        private readonly SessionQueue sessions;
        private readonly DropReporter sessionDrops;
        private readonly Delivery<QueuedSession> sessionDelivery;
        private readonly SessionTracker sessionTracker = new SessionTracker();
        private readonly RouteHold eventRoute;
        private readonly RouteHold sessionRoute;
        private readonly SemaphoreSlim sending = new SemaphoreSlim(1, 1);
        private readonly object gate = new object();
        private ApiClient api;
        private Task initialization;
        private bool initialized;
        private Task flushing = Task.FromResult(0);
        private Task resolving = Task.FromResult(0);
        /// <summary>
        /// The attribution is read for the listeners: from the first read until it settles or the
        /// reading ends, the waits between reads included, so that no second reader starts beside it.
        /// </summary>
        private bool readingAttribution;
        /// <summary>The attribution route refused the key (401, 403): asked again it would answer the same; not read again in this process.</summary>
        private bool attributionRefused;
        /// <summary>The attribution route knew no such install (404): not read again until the install is reported again.</summary>
        private bool attributionOfNoInstall;
        /// <summary>How long after a read that did not settle the attribution is read again: doubles up to a minute.</summary>
        private TimeSpan attributionDelay;
        private bool attributionRaised;
        /// <summary>
        /// The deferred deep link was handed to a listener in this process, under
        /// <see cref="gate"/>: never offered again in it. Set at the hand-over, while the
        /// listener's call waits for the main thread and the device does not say delivered yet
        /// (nor will, if the process ends first), so that an offer meanwhile (a listener set,
        /// Start(), a switch-on, the attribution read) does not hand it over twice.
        /// </summary>
        private bool deferredHandedOver;

        /// <summary>The losses of the queues read back at the SDK's making, to tell at Configure.</summary>
        private readonly Action unreadableToTell;

        /// <summary>
        /// Attribution listeners added while the SDK was configured but not running (stopped,
        /// switched off): told the kept attribution once it runs again, though the others were
        /// told already this launch.
        /// </summary>
        private Action<Dictionary<string, object>> attributionOwed;
        /// <summary>What a backup brought from another install was forgotten as this core was made: said at Configure.</summary>
        private bool restoredBackupForgotten;
        private LogLevel logLevel = LogLevel.Info;
        private string customerUserId;
        private volatile bool configured;
        private volatile bool disabled;
        /// <summary>
        /// Off only as an earlier launch's configuration said, until this launch's first reading:
        /// events are taken meanwhile, and sent or dropped (reported as `disabled`) by what it says,
        /// or by the configuration kept when it cannot be read.
        /// </summary>
        private volatile bool offUntilRead;
        /// <summary>When this launch's Configure ran: the session of a launch off only as kept starts then, once its reading switches the SDK on.</summary>
        private DateTime launchedAt;
        private volatile bool stopped;
        /// <summary>
        /// How many times this process emptied the queues for good, a Stop or a switch-off (the
        /// remote configuration, a rejected key, Configure finding no usable address), counted
        /// under <see cref="gate"/>, which an event is queued under: an event waiting for its
        /// conversion value carries the count it was queued at, so one whose count is behind was
        /// dropped since; an earlier launch's are all at 0, behind any drop. Each forgets the events
        /// waiting under <see cref="conversionGate"/> once it let go of the gate, never inside it,
        /// as the app may be called from under that lock (Apple's refusal): a Start on another
        /// thread, and its events, may come between, and the count tells theirs from the drop's;
        /// an event queued before the drop and evaluated after its forgetting is told by it too.
        /// </summary>
        private volatile int queueDrops;
        private volatile bool anonymous;
        private volatile bool deleted;
        /// <summary>The HTTP status that refused the install in this process: nothing more is sent until the next start.</summary>
        private int? configurationError;
        private TimeSpan retryDelay;
        private bool retryScheduled;
        /// <summary>
        /// The scheduled retry's number: one whose number is no longer this one finds its work
        /// done (sent at once as the app went to the background) and does nothing.
        /// </summary>
        private int retryGeneration;
        private bool flushWaiting;
        /// <summary>
        /// Why the last send run failed (offline, an answer not the service's, the install
        /// refused), or the install waits: what a read of the attribution tells onError while the
        /// install is not recorded.
        /// </summary>
        private volatile string lastSendError;
        /// <summary>Why SendEvent kept nothing, of those already said at INFO in this process (<see cref="NotSent"/>).</summary>
        private readonly HashSet<string> notSentSaid = new HashSet<string>();
        /// <summary>1 once SetConsent changed the consent since a send run last checked it (<see cref="ConsentBeforeBatch"/>).</summary>
        private int consentChanged;
        /// <summary>
        /// Guards <see cref="saveScheduled"/> alone: a queue asks for a save while it holds its own
        /// lock, and the core queues a session while it holds <see cref="gate"/>, so the save's
        /// lock must be one that is never held while another is taken.
        /// </summary>
        private readonly object saveGate = new object();
        private bool saveScheduled;
        private int refreshGeneration;
        private TimeSpan refreshInterval = DefaultRefreshInterval;
        /// <summary>
        /// A configuration of the service's is known: read in this launch, or kept from an earlier
        /// one (<see cref="EnabledKey"/>, written at each reading). Until one is (an install's
        /// first launch offline, or its GET /v1/config failing), the events wait on the device:
        /// whether the owner switched the app off is not known, and they are sent, or dropped as
        /// `disabled`, as the first reading says, as the Kotlin and iOS SDKs hold them. The install,
        /// the consent and the sessions go meanwhile, as there.
        /// </summary>
        private volatile bool configurationKnown;
        /// <summary>
        /// The backoff of the next read of remote configuration while none is known: the send
        /// retries' (2 s doubling to a minute), not the hour of the periodic reading, since the
        /// events wait for it. Zero before the first failed read, and once a read succeeds.
        /// </summary>
        private TimeSpan configRetryDelay;
        private DeviceSignals deviceSignals;
        /// <summary>
        /// The device's tracking (advertising id, ATT status) as last read for the consent route,
        /// under <see cref="gate"/> as the two below; null until read in this process.
        /// </summary>
        private DeviceSignals trackingSignals;
        /// <summary>
        /// The tracking is to be read again before the next send: at each start (Configure, Start)
        /// and each return from the background, as the user may have changed it meanwhile (limit
        /// ad tracking, the advertising id deleted, ATT in iOS's Settings).
        /// </summary>
        private bool trackingStale = true;
        /// <summary>
        /// Up to how long an install not recorded yet waits for the app's App Tracking
        /// Transparency answer (<see cref="WaitForTrackingAuthorization"/>), under
        /// <see cref="gate"/> as the three below; null: it does not wait, or waited in this process.
        /// </summary>
        private TimeSpan? trackingWait;
        /// <summary>When the wait began (this process's Configure), and when it ends.</summary>
        private DateTime trackingWaitBegan;
        private DateTime trackingWaitEnds;
        /// <summary>The wait began, and was said in the log: its end is said too.</summary>
        private bool trackingWaitSaid;
        /// <summary>The next read of the ATT status is scheduled.</summary>
        private bool trackingCheckScheduled;
        /// <summary>The app went to the background and has not come back yet.</summary>
        private bool away;
        /// <summary>The Play install referrer answered for good (or was given up on): the signals hold it.</summary>
        private bool referrerRead;
        private int referrerTries;
        private int adsTokenFailures;
        /// <summary>The whole install was refused for good in this process: the bare one goes instead.</summary>
        private bool installRefused;
        /// <summary>Guards the conversion values: the schema, the events waiting, the windows' state in the store.</summary>
        private readonly object conversionGate = new object();
        private ConversionSchema schema;
        /// <summary>Events taken before the first open or the first configuration is known, evaluated in order once both are.</summary>
        private readonly List<AwaitingConversion> awaitingConversion = new List<AwaitingConversion>();
        /// <summary>
        /// Apple refused this launch's registration: asked again at the next launch, not at each
        /// reading of this one. Under <see cref="conversionGate"/>.
        /// </summary>
        private bool refusedRegistration;
        /// <summary>
        /// The launch's first remote configuration is applied (read, or its read failed and the
        /// one kept holds): a re-engagement open is told to Apple at once from then on. Under
        /// <see cref="gate"/>, as the two below.
        /// </summary>
        private bool configurationApplied;
        /// <summary>
        /// A re-engagement open noted while no configuration was applied yet (before Configure,
        /// or while the first GET /v1/config is on its way): Apple is told once one is.
        /// </summary>
        private bool reengagementWaiting;
        /// <summary>
        /// The last re-engagement URL taken: the same open handed over twice (HandleDeepLink and
        /// HandleUniversalLink, or the cold start's URL and deepLinkActivated) makes one update.
        /// Cleared wherever that open is dropped untold (Stop, a switch-off, the install's data
        /// deleted): the same URL handed again is taken then. Apple's refusal does not clear it,
        /// as in the iOS SDK: Apple was told, and said no.
        /// </summary>
        private string lastReengagementOpen;
        /// <summary>
        /// The first http(s) link that opened the app before the install was sent, under
        /// <see cref="gate"/>: the install's `open_url`, whose click id is the service's first
        /// attribution method (docs/attribution.md), and on iOS, with no install referrer, the
        /// only one a Universal Link gives. The first one wins, as in the Kotlin and iOS SDKs: it
        /// is the link that brought the user; a later tap in the same launch is no part of the install.
        /// </summary>
        private string openUrl;
        /// <summary>The rejected key (401 on GET /v1/config) was told to the error listener in this process.</summary>
        private bool keyRejectionReported;

        private readonly IScheduler scheduler;

        public SdkCore(SdkSetup setup, SdkListeners listeners = null)
        {
            this.setup = setup;
            scheduler = setup.Scheduler ?? new ThreadPoolScheduler();
            store = new SavingStore(setup.Store, RequestSave);
            // Before any key is read: the queue, the flags and the rest below are this install's own.
            restoredBackupForgotten = ForgetRestoredBackup();
            queue = new EventQueue(store);
            retryDelay = setup.RetryDelay;
            stopped = store.Get(StoppedKey) == "true";
            anonymous = store.Get(AnonymousKey) == "true";
            ReadAdvertisingIdUnlessAnonymous();
            deleted = store.Get(DeletedKey) == "true";
            this.listeners = listeners ?? new SdkListeners();
            this.listeners.Use(setup.MainThread, setup.Log);
            this.listeners.Attach(this);
            drops = DropReporter.ForEvents(store, this.listeners, Write);
            Action installMissing = () => store.Remove(InstallTrackedKey);
            Action installDeleted = () => ForgetDeletedInstall("the service says the install's data was deleted");
            consent = new ConsentState(store, setup.Tcf, setup.Clock, this.listeners, Write, installMissing);
            delivery = new Delivery<QueuedEvent>(queue, new DeliveredKind<QueuedEvent>
            {
                Path = "/v1/events",
                Noun = "event",
                IdField = "event_id",
                Describe = e => e.EventType + " " + e.EventId,
                // Anonymous mode is read for each request: set meanwhile, it holds from the next
                // one, and marks every event of it anonymous, those queued before it went on too.
                Body = (batch, serviceId, sentAt) => Requests.Events(batch, serviceId, sentAt, anonymous),
            }, setup.Clock, drops, Write, installMissing, installDeleted);
            sessions = new SessionQueue(store);
            sessionDrops = DropReporter.ForSessions(store, Write);
            sessionDelivery = new Delivery<QueuedSession>(sessions, new DeliveredKind<QueuedSession>
            {
                Path = "/v1/sessions",
                Noun = "session",
                IdField = "session_id",
                Describe = session => "session " + session.SessionId,
                Body = Requests.Sessions,
            }, setup.Clock, sessionDrops, Write, installMissing, installDeleted);
            eventRoute = new RouteHold("POST /v1/events", () => queue.Count + " events");
            sessionRoute = new RouteHold("POST /v1/sessions", () => sessions.Count + " sessions");
            sessionTracker.Interval = IntervalOf(store.Get(SessionIntervalKey));
            refreshInterval = KeptRefreshInterval(store.Get(RefreshIntervalKey));
            var kept = store.Get(SchemaKey);
            if (kept != null) schema = ConversionSchema.Parse(ParseOrNull(kept));
            awaitingConversion.AddRange(AwaitingConversion.ParseAll(store.Get(AwaitingConversionKey)));
            // What a damaged value of the device cost: counted and logged now, never silently an
            // empty queue; told to the app at Configure, once its handlers are there (a link that
            // opened the app makes the SDK as the app loads, before its scripts subscribe).
            unreadableToTell = drops.Unreadable(queue.LostOnLoad, queue.LostAtLeast, queue.LostWhy);
            unreadableToTell += sessionDrops.Unreadable(sessions.LostOnLoad, sessions.LostAtLeast, sessions.LostWhy);
            ForgetUnreadableAttribution();
        }

        /// <summary>
        /// PlayerPrefs go into the platform's backups (Android's Auto Backup and device transfer,
        /// iCloud and iTunes backups), which restore them to another install of the app: the old
        /// install's service id, its install sent, its queue, its stop or deletion. That install
        /// would then send no install of its own (the ad that brought it is never credited), two
        /// devices would send under one id, and a restored stop or deletion would silence it for
        /// ever. Another fingerprint than the one kept is another install: every key of the SDK
        /// goes, and it starts as a new one. Done as the core is made, not at Configure, because
        /// the core reads its state then, and a call made before Configure (Stop, SetConsent, an
        /// event) is the new install's own and must stay. No fingerprint kept yet (a first
        /// launch): it is kept, and nothing goes.
        /// </summary>
        /// <returns>Whether the keys were forgotten.</returns>
        private bool ForgetRestoredBackup()
        {
            var current = setup.InstallFingerprint;
            if (string.IsNullOrEmpty(current)) return false;
            var kept = store.Get(InstallFingerprintKey);
            if (kept == current) return false;
            if (kept != null)
            {
                foreach (var key in StoreKeys) store.Remove(key);
            }
            store.Set(InstallFingerprintKey, current);
            return kept != null;
        }

        /// <summary>
        /// An attribution kept on the device that cannot be read (a damaged value) is as none kept,
        /// so that it is read again from the service: parsed at Configure, at Start and for each
        /// listener, it would otherwise throw there every time.
        /// </summary>
        private void ForgetUnreadableAttribution()
        {
            var kept = store.Get(AttributionKey);
            if (kept == null) return;
            try
            {
                JsonText.ParseObject(kept);
            }
            catch (JsonException error)
            {
                Write(LogLevel.Error, "the attribution kept on the device cannot be read, so it is read again from the service: " + error.Message);
                store.Remove(AttributionKey);
            }
        }

        /// <summary>The attribution kept on the device, or null when none is.</summary>
        private Dictionary<string, object> KeptAttribution()
        {
            var kept = store.Get(AttributionKey);
            if (kept == null) return null;
            try
            {
                return JsonText.ParseObject(kept).ToObject<Dictionary<string, object>>(JsonText.Serializer);
            }
            catch (JsonException error)
            {
                // Only what this core wrote is kept (an unreadable value is forgotten at load).
                Write(LogLevel.Error, "the attribution kept on the device cannot be read: " + error.Message);
                return null;
            }
        }

        /// <summary>
        /// Retires this core (a play session in the Editor ended, its statics kept): nothing it
        /// had scheduled runs from now on, and it sends nothing more; the session that follows
        /// has a core of its own.
        /// </summary>
        internal void Retire()
        {
            retired = true;
        }

        /// <summary>Work on the scheduler, for this core while it is not retired.</summary>
        private Task StartWork(Func<Task> work)
        {
            return scheduler.Start(() => retired ? Task.CompletedTask : work());
        }

        /// <summary>An action after a delay, for this core while it is not retired.</summary>
        private void After(TimeSpan delay, Action action)
        {
            scheduler.After(delay, () =>
            {
                if (!retired) action();
            });
        }

        /// <summary>The listeners this core raises (the facade's, or a test's own).</summary>
        public SdkListeners Listeners
        {
            get { return listeners; }
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
            get { return configured ? store.Get(ServiceIdKey) : null; }
        }

        /// <param name="appBaseUrl">The service's address the app set by the time it calls Configure, used when the setup names none.</param>
        public void Configure(string apiKey, int level, string userId, string appBaseUrl = null)
        {
            if (string.IsNullOrEmpty(apiKey)) throw new ArgumentException("apiKey must not be empty", "apiKey");
            if (level < (int)LogLevel.Debug || level > (int)LogLevel.Error)
            {
                throw new ArgumentException("logLevel must be 0 (DEBUG) to 3 (ERROR)", "logLevel");
            }
            string offBecause = null;
            Action leftDropped = null;
            lock (gate)
            {
                // One configure per process: a repeat, its customer user id included, changes nothing.
                if (configured) return;
                logLevel = (LogLevel)level;
                if (restoredBackupForgotten)
                {
                    Write(LogLevel.Info, "this SDK's data came from a backup of another install of the app: it starts as a new install");
                }
                var baseUrl = string.IsNullOrEmpty(setup.BaseUrl) ? appBaseUrl : setup.BaseUrl;
                offBecause = setup.Unsupported ?? AddressProblem(baseUrl);
                if (offBecause != null)
                {
                    disabled = true;
                    configured = true;
                    initialization = Task.FromResult(0);
                    // Off, and the queues emptied, in one step under the gate SendEvent queues
                    // under, as a switch-off empties them (see SwitchOff): the count tells the
                    // events this drop forgets from any queued after it. Told once the gate is
                    // let go, after the configuration error: a listener may call the SDK.
                    queueDrops++;
                    leftDropped = ClearQueued(ServiceDropReason.Disabled, offBecause);
                }
                else
                {
                    api = new ApiClient(baseUrl, apiKey, setup.Transport ?? new HttpClientTransport(), setup.Clock);
                    if (store.Get(ServiceIdKey) == null)
                    {
                        store.Set(ServiceIdKey, Guid.NewGuid().ToString());
                        store.Set(FirstOpenKey, Requests.Iso(setup.Clock.UtcNow));
                        // The install's identity is on the disk at once: a crash now makes no second install.
                        SaveNow();
                    }
                    // Kept across launches: a launch that names none goes on with the last one set.
                    if (Blank(userId)) customerUserId = store.Get(CustomerUserIdKey);
                    else KeepCustomerUserId(userId);
                    var keptEnabled = store.Get(EnabledKey);
                    configurationKnown = keptEnabled != null;
                    disabled = keptEnabled == "false";
                    offUntilRead = disabled;
                    launchedAt = setup.Clock.UtcNow;
                    configured = true;
                    // An install recorded at an earlier launch never waits, even reported again.
                    if (store.Get(InstallTrackedKey) == "true") trackingWait = null;
                    if (trackingWait.HasValue)
                    {
                        trackingWaitBegan = setup.Clock.UtcNow;
                        trackingWaitEnds = trackingWaitBegan + trackingWait.Value;
                    }
                    // Anything queued in an earlier process after the deletion (an event taken as
                    // it ran) never goes. Emptied under the gate Start clears the stop under, as
                    // Stop empties the queue: the flags read once the gate is let go may be a Start's
                    // on another thread, which would have what the stop left sent, or the Start's
                    // own session dropped as the stop's. Told once the gate is let go, as Stop
                    // tells its drop: a listener may call the SDK.
                    if (deleted) leftDropped = ClearQueued(ServiceDropReason.Deleted, "the install's data was deleted");
                    // What a Stop in an earlier process left to the answer of a batch on its way,
                    // the process ending before that answer came, never goes either: dropped as the stop's.
                    else if (stopped) leftDropped = ClearQueued(ServiceDropReason.Stopped, "the app stopped the SDK");
                    if (stopped)
                    {
                        // Stopped: not even the remote configuration is read until Start.
                        Write(LogLevel.Info, "the SDK is stopped (ServiceSDK.Stop): it sends nothing until ServiceSDK.Start");
                        initialization = Task.FromResult(0);
                    }
                    else
                    {
                        // Each start of the process is a session, unless the SDK is switched off or the
                        // install's data was deleted.
                        if (!disabled && !deleted) QueueSession();
                        initialized = true;
                        initialization = StartWork(Initialize);
                    }
                }
            }
            if (unreadableToTell != null) unreadableToTell();
            if (offBecause != null)
            {
                SwitchOffAtConfigure(offBecause, leftDropped);
                return;
            }
            if (leftDropped != null) leftDropped();
            // The first open is known now: what was sent before Configure is evaluated if it can be.
            EvaluateConversion(null);
        }

        /// <summary>
        /// Why the service's address cannot be used, or null when it can. One that is no absolute
        /// http or https URL (the scheme forgotten: "attribution.example.com") fails every request
        /// inside HttpClient before it leaves the device, which reads as offline: retried for ever,
        /// the queue filling up, and the app never told. So it switches the SDK off as a missing
        /// one does. http stays allowed, for a service run on the developer's own machine.
        /// </summary>
        private static string AddressProblem(string baseUrl)
        {
            if (string.IsNullOrEmpty(baseUrl)) return "no service address is set (ServiceSDK.BaseUrl)";
            Uri address;
            // As written: .NET reads past spaces around it, the requests are made from it untrimmed.
            if (baseUrl.Trim().Length == baseUrl.Length
                && Uri.TryCreate(baseUrl, UriKind.Absolute, out address)
                && (address.Scheme == Uri.UriSchemeHttp || address.Scheme == Uri.UriSchemeHttps)
                && address.Host.Length > 0)
            {
                return null;
            }
            return "the service address is no absolute http or https URL (ServiceSDK.BaseUrl = \"" + baseUrl + "\")";
        }

        /// <summary>
        /// Configure found no service address, or one it cannot use, or runs on a platform the
        /// service takes no install from: the SDK is off in this process, as the Kotlin and iOS
        /// SDKs switch themselves off without an address, and the app is told, not only the log:
        /// a configuration error with no HTTP status to the error listener (Unity's Configure has
        /// no init listener or completion, which Kotlin and iOS tell instead), and what was
        /// queued dropped with the reason `disabled`, as their switch-off drops it. Run once
        /// Configure let go of the gate, under which the queues were emptied:
        /// <paramref name="dropped"/> tells that drop.
        /// </summary>
        private void SwitchOffAtConfigure(string why, Action dropped)
        {
            // The events that waited for their conversion value are dropped with the queue, an
            // earlier launch's kept on the device too: forgotten, as a switch-off forgets them,
            // or a later launch whose address works would evaluate them once its reading says
            // on, and Apple would be given values for events the service never receives.
            // Forgotten outside the gate, never inside it (see queueDrops).
            ForgetDropped();
            var message = why + ": the SDK is off and sends nothing in this run";
            Write(LogLevel.Error, message);
            listeners.RaiseError(new ServiceError(ServiceErrorKind.Configuration, null, null, 1, message));
            dropped();
        }

        /// <summary>
        /// Before Configure, on iOS: an install not recorded yet waits up to
        /// <paramref name="timeoutSeconds"/> (1 to 360) from Configure while the app's App Tracking
        /// Transparency status is `not_determined`, read again every second, so that an install
        /// whose user allows tracking at the app's prompt carries the IDFA; what is queued waits
        /// behind it, as it does for any install on its way. Once the user answers, or the time is
        /// up, it goes with the tracking as it is then. On Android, and for an install already
        /// recorded, nothing waits. After Configure it is too late: a warning, and nothing changes.
        /// </summary>
        public void WaitForTrackingAuthorization(int timeoutSeconds)
        {
            if (timeoutSeconds < 1 || timeoutSeconds > MaxTrackingWaitSeconds)
            {
                throw new ArgumentOutOfRangeException("timeoutSeconds", timeoutSeconds, "timeoutSeconds must be 1 to " + MaxTrackingWaitSeconds);
            }
            lock (gate)
            {
                if (!configured)
                {
                    trackingWait = TimeSpan.FromSeconds(timeoutSeconds);
                    return;
                }
            }
            Write(LogLevel.Warn, "WaitForTrackingAuthorization after Configure changes nothing: call it before, as the install may be on its way");
        }

        /// <summary>
        /// Whether the install, not recorded yet, waits now for the app's ATT answer
        /// (<see cref="WaitForTrackingAuthorization"/>): true while the status reads
        /// `not_determined` on iOS and the time is not up, with the next read scheduled.
        /// </summary>
        private bool WaitsForTracking()
        {
            lock (gate)
            {
                if (!trackingWait.HasValue) return false;
            }
            DeviceSignals read = null;
            try
            {
                var tracking = setup.Device as IDeviceTracking;
                // A host without a tracking read gives the status of its one read of the device.
                read = tracking != null ? tracking.ReadTracking() : Signals();
            }
            catch (Exception error)
            {
                Write(LogLevel.Warn, "the device's tracking was not read: " + error.Message);
            }
            var ios = read != null && read.Os == "ios";
            var status = read == null ? null : read.AttStatus;
            var waiting = ios && status == "not_determined";
            string said = null;
            TimeSpan? check = null;
            lock (gate)
            {
                if (!trackingWait.HasValue) return false;
                var seconds = (int)trackingWait.Value.TotalSeconds;
                var now = setup.Clock.UtcNow;
                var left = trackingWaitEnds - now;
                // A clock set back since Configure ends the wait rather than lengthen it.
                if (!waiting || left <= TimeSpan.Zero || now < trackingWaitBegan)
                {
                    // Over for this process, whatever comes next (a retry, an install refused).
                    trackingWait = null;
                    if (trackingWaitSaid)
                    {
                        said = !waiting
                            ? "the app's tracking authorization is " + (status ?? "unknown") + ": the install goes"
                            : now < trackingWaitBegan
                                ? "the device's clock went back during the wait for the app's tracking authorization: the install goes without it"
                                : "no tracking authorization came in " + seconds + " s: the install goes without it";
                    }
                    waiting = false;
                }
                else
                {
                    if (!trackingWaitSaid)
                    {
                        trackingWaitSaid = true;
                        said = "the install waits for the app's tracking authorization, up to " + seconds + " s";
                    }
                    if (!trackingCheckScheduled)
                    {
                        trackingCheckScheduled = true;
                        check = left < TrackingCheckInterval ? left : TrackingCheckInterval;
                    }
                }
            }
            if (said != null) Write(LogLevel.Info, said);
            if (check.HasValue)
            {
                After(check.Value, () =>
                {
                    lock (gate) trackingCheckScheduled = false;
                    Flush();
                });
            }
            return waiting;
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
            // Under the gate a deletion is marked under (ForgetDeletedInstall): once the install's
            // data is deleted, its user's id went with it and is not kept again.
            lock (gate)
            {
                if (deleted) userId = null;
                customerUserId = userId;
                if (userId == null) store.Remove(CustomerUserIdKey);
                else store.Set(CustomerUserIdKey, userId);
            }
        }

        /// <summary>
        /// Queues the event (before Configure too: it goes once Configure ran) and sends what is
        /// queued. While stopped, or switched off, and once the install's data was deleted, the
        /// event is not queued.
        /// </summary>
        public void SendEvent(EventType eventType, string eventName, IDictionary<string, object> parameters)
        {
            if (eventType == EventType.CUSTOM && Blank(eventName))
            {
                throw new ArgumentException("a CUSTOM event needs an eventName", "eventName");
            }
            var checkedParameters = EventParameters.Check(parameters);
            // The SDK tracks the install itself; a manual one would count it twice.
            if (eventType == EventType.INSTALL)
            {
                Write(LogLevel.Debug, "INSTALL is not sent: the SDK reports the install itself, once");
                return;
            }
            if (stopped)
            {
                NotSent("the SDK is stopped", eventType);
                return;
            }
            // As the Kotlin SDK does: not queued, no drop reported (the app is told nothing went).
            if (deleted)
            {
                NotSent("the install's data was deleted", eventType);
                return;
            }
            if (disabled && !offUntilRead)
            {
                NotSent("the SDK is switched off", eventType);
                return;
            }
            var now = setup.Clock.UtcNow;
            // Hashed before the queue: a matching parameter reaches neither the disk nor the
            // network in clear.
            List<string> leftOut;
            var queuedParameters = Pii.Protect(checkedParameters, out leftOut);
            if (leftOut.Count > 0)
            {
                Write(LogLevel.Warn, eventType + ": matching parameters with no usable value were left out: " + string.Join(", ", leftOut));
            }
            var overflow = -1;
            var queuedAt = 0;
            string refused = null;
            // Queued under the gate Stop is marked under, which it empties the queue after: an
            // event is either queued before a Stop, and dropped by it (reported), or not at all.
            // So are a deletion and a switch-off, each marked with the queues emptied in one step
            // under it: read again here, as the ones read above may be older.
            lock (gate)
            {
                if (stopped) refused = "the SDK is stopped";
                else if (deleted) refused = "the install's data was deleted";
                else if (disabled && !offUntilRead) refused = "the SDK is switched off";
                else
                {
                    // Anonymous when taken: the event never carries the customer user id, not on the
                    // device either, and is sent marked anonymous, even once the mode is off when it is sent.
                    var takenAnonymous = anonymous;
                    queuedAt = queueDrops;
                    overflow = delivery.Add(new QueuedEvent
                    {
                        EventId = Guid.NewGuid().ToString("N"),
                        EventType = eventType.ToString(),
                        // A standard event's name is not sent: the type names it.
                        EventName = eventType == EventType.CUSTOM ? eventName : null,
                        Parameters = queuedParameters == null ? null : JToken.FromObject(queuedParameters, JsonText.Serializer),
                        EventTime = Requests.Iso(now),
                        CustomerUserId = takenAnonymous ? null : configured ? customerUserId : store.Get(CustomerUserIdKey),
                        Anonymous = takenAnonymous,
                    });
                }
            }
            if (refused != null)
            {
                NotSent(refused, eventType);
                return;
            }
            drops.Drop(ServiceDropReason.QueueFull, overflow, "the queue held its " + EventQueue.Capacity + " events; the oldest made room");
            // With the parameters as they are queued, so as the service reads them: a matching
            // parameter the app gave as a number (a phone number, a date of birth) is a hash by
            // now, and its clear value is not kept on the device while the event waits there.
            EvaluateConversion(new AwaitingConversion(eventType, eventName, queuedParameters, now, queuedAt));
            if (configured) Flush();
        }

        /// <summary>
        /// SendEvent kept nothing (stopped, switched off, the install's data deleted), which is no
        /// drop: said at INFO, the app's level by default, once per reason in a process, so that
        /// no event goes without a word and no log fills with a line per event; the later ones at
        /// DEBUG. As the Kotlin SDK says it.
        /// </summary>
        private void NotSent(string why, EventType eventType)
        {
            bool first;
            lock (notSentSaid) first = notSentSaid.Add(why);
            if (first) Write(LogLevel.Info, why + ": " + eventType + " is not sent, nor any event while it is");
            else Write(LogLevel.Debug, why + ": " + eventType + " is not sent");
        }

        /// <summary>
        /// Stops the SDK, as the user asked: what is queued is dropped (reason `stopped`), but for a
        /// batch on its way, which its answer settles (<see cref="Delivery{T}.Clear"/>), and
        /// from now on, across launches, nothing is queued and no request is made until Start.
        /// </summary>
        public void Stop()
        {
            const string why = "the app stopped the SDK";
            int droppedEvents;
            int droppedSessions;
            lock (gate)
            {
                if (stopped) return;
                stopped = true;
                queueDrops++;
                store.Set(StoppedKey, "true");
                // A re-engagement open waiting for a configuration is dropped untold.
                if (reengagementWaiting) lastReengagementOpen = null;
                reengagementWaiting = false;
                // The retry waiting is void and the backoff starts again: after a Start, the
                // service is tried at once, and a first failure waits the first step, not the
                // minute the backoff reached before the stop.
                if (retryScheduled)
                {
                    retryScheduled = false;
                    retryGeneration++;
                }
                retryDelay = setup.RetryDelay;
                // Emptied under the gate the stop is marked under, which Start and SendEvent
                // queue under: a Start on another thread that follows at once, and the events
                // and session queued after it, are not this stop's to drop. A batch on its way is
                // left to its answer: what the service accepts of it is delivered, not reported
                // dropped; the rest is dropped once the answer is in.
                droppedEvents = delivery.Clear(ServiceDropReason.Stopped, why);
                droppedSessions = sessionDelivery.Clear(ServiceDropReason.Stopped, why);
            }
            Write(LogLevel.Info, "the SDK is stopped: nothing is sent or queued until ServiceSDK.Start");
            // The events it drops are not evaluated either, not even once a reading asked before
            // the Stop answers: Apple is told nothing of what the user's opt-out dropped. Only
            // those: a Start on another thread since the gate was let go, and its events, are not
            // this stop's.
            ForgetDropped();
            // Told outside the gate: a listener may call the SDK.
            drops.Drop(ServiceDropReason.Stopped, droppedEvents, why);
            sessionDrops.Drop(ServiceDropReason.Stopped, droppedSessions, why);
            // On the disk at once: the user's opt-out must hold in a launch after a crash.
            SaveNow();
        }

        /// <summary>Starts the SDK again after Stop, which is a session: the install if it was never sent, then the session and the events sent after.</summary>
        public void Start()
        {
            var first = false;
            var running = false;
            Dictionary<string, object> stored = null;
            Action<Dictionary<string, object>> handlers = null;
            lock (gate)
            {
                if (!stopped) return;
                stopped = false;
                store.Remove(StoppedKey);
                if (configured && api != null)
                {
                    running = true;
                    trackingStale = true;
                    // The SDK started again is a session, unless switched off or the install's data deleted.
                    if (!disabled && !deleted) QueueSession();
                    first = !initialized;
                    initialized = true;
                    if (first) initialization = StartWork(Initialize);
                    // Before this launch's configuration is applied, that step tells them.
                    if (!disabled && !deleted && configurationApplied) stored = KeptAttribution();
                    if (stored != null) handlers = HandlersToTellAgain();
                }
            }
            // On the disk at once, as the stop is: a launch after a crash must not stay stopped.
            SaveNow();
            if (!running) return;
            Write(LogLevel.Info, "the SDK is started again");
            if (!first) RefreshConfig();
            if (stored != null) RaiseAttribution(handlers, stored);
        }

        public bool IsStopped
        {
            get { return stopped; }
        }

        /// <summary>
        /// The app went to the background (Unity: paused). The time away counts from now, and the
        /// sessions and events still to send go at once, a retry waiting or not: the OS may end an
        /// app in the background without a word, and what it held would wait for the next launch,
        /// days later, or never go. On iOS the send runs in the time iOS lends for it, given back
        /// once the send is done and its state is saved.
        /// </summary>
        /// <remarks>
        /// An install not recorded yet is left to its own retry: sending it reads the Play install
        /// referrer, whose reads are counted (<see cref="MaxReferrerTries"/>) and spaced by the
        /// retry's delay so the Play Store has time to answer. Sent at each trip to the background,
        /// a user leaving and coming back a few times on the first launch would use up those reads
        /// within seconds, and the install would go without its referrer.
        /// </remarks>
        public void EnteredBackground()
        {
            sessionTracker.Background(setup.Clock.UtcNow);
            lock (gate) away = true;
            SendBeforeSuspension();
        }

        private void SendBeforeSuspension()
        {
            lock (gate)
            {
                if (!configured || api == null || disabled || stopped || deleted || configurationError != null) return;
                // The install not recorded yet: its retry, waiting or under way, is left alone (see above).
                if (store.Get(InstallTrackedKey) != "true") return;
                if (queue.Count == 0 && sessions.Count == 0) return;
                // The service asked to be left alone for a while (a Retry-After): its retry keeps its time.
                if (api.AskedToWait > TimeSpan.Zero) return;
                // The retry waiting is void: its work is done now. The backoff it reached is kept.
                if (retryScheduled)
                {
                    retryScheduled = false;
                    retryGeneration++;
                }
            }
            var giveBack = BorrowBackgroundTime();
            Write(LogLevel.Debug, "the app went to the background: what is queued is sent now");
            Flush();
            if (giveBack == null) return;
            StartWork(async () =>
            {
                await SendingDone();
                giveBack();
            });
        }

        /// <summary>
        /// Time the OS lends for the send (iOS), or null: none asked for, or none lent. What is
        /// returned gives it back once; after the OS took it back, it does nothing.
        /// </summary>
        private Action BorrowBackgroundTime()
        {
            var time = setup.BackgroundTime;
            if (time == null) return null;
            var over = 0;
            Action end;
            try
            {
                end = time.Begin(() =>
                {
                    if (Interlocked.Exchange(ref over, 1) != 0) return;
                    Write(LogLevel.Info, "iOS took back the time it lent in the background before the send was done: what is left stays queued");
                });
            }
            catch (Exception error)
            {
                Write(LogLevel.Warn, "no time was asked for in the background: " + error.Message);
                return null;
            }
            if (end == null) return null;
            return () =>
            {
                if (Interlocked.Exchange(ref over, 1) != 0) return;
                Write(LogLevel.Debug, "the send made in the background is done: the time iOS lent is given back");
                try
                {
                    end();
                }
                catch (Exception error)
                {
                    Write(LogLevel.Warn, "the time lent in the background was not given back: " + error.Message);
                }
            };
        }

        /// <summary>
        /// The app is back in the foreground: after at least the session interval away, a new
        /// session, unless the SDK is not configured, stopped or switched off. Back from the
        /// background at all, the device's tracking is read again once the install is recorded,
        /// and a change the user made meanwhile goes to the service (<see cref="SendQueued"/>).
        /// </summary>
        public void EnteredForeground()
        {
            var session = sessionTracker.Foreground(setup.Clock.UtcNow);
            lock (gate)
            {
                var returned = away;
                away = false;
                if (!configured || api == null || stopped || disabled || deleted) return;
                if (session) QueueSession();
                else if (!returned || store.Get(InstallTrackedKey) != "true") return;
                trackingStale = true;
            }
            Flush();
        }

        /// <summary>
        /// A session starts now: queued on the device (the oldest goes past the bound, logged
        /// and counted), sent once the install is recorded. The caller sends what is queued.
        /// </summary>
        private void QueueSession(DateTime? startedAt = null)
        {
            var session = new QueuedSession
            {
                SessionId = Guid.NewGuid().ToString("N"),
                StartedAt = Requests.Iso(startedAt ?? setup.Clock.UtcNow),
            };
            var overflow = sessionDelivery.Add(session);
            Write(LogLevel.Debug, "a session starts: " + session.SessionId);
            sessionDrops.Drop(ServiceDropReason.QueueFull, overflow, "the queue held its " + SessionQueue.Capacity + " sessions; the oldest made room");
        }

        /// <summary>
        /// Remote configuration's `session_interval_seconds`, kept for the next launches: the
        /// default when it names none, or one its contract refuses (<see cref="ContractSeconds"/>).
        /// </summary>
        private void UseSessionInterval(JToken seconds)
        {
            var taken = ContractSeconds(seconds);
            var text = taken.HasValue ? taken.Value.ToString(System.Globalization.CultureInfo.InvariantCulture) : null;
            if (text == null) store.Remove(SessionIntervalKey);
            else store.Set(SessionIntervalKey, text);
            sessionTracker.Interval = IntervalOf(text);
        }

        /// <summary>
        /// An interval of remote configuration as its contract gives it, a whole number of seconds
        /// from 1 to 2^53 - 1 (`900.0` is 900); null for any other value, which is then taken as
        /// none named: the default. Never the nearest value allowed, as though it were the owner's
        /// setting: a damaged 0 taken as 1 s would read the configuration every second, and start a
        /// session at every return to the foreground (sdk/conformance/remote-config.json).
        /// </summary>
        private static long? ContractSeconds(JToken value)
        {
            if (value == null) return null;
            if (value.Type == JTokenType.Integer)
            {
                // Past a long, Json.NET holds a BigInteger, which no long parses: far past the contract too.
                long whole;
                var text = Convert.ToString(((JValue)value).Value, System.Globalization.CultureInfo.InvariantCulture);
                if (!long.TryParse(text, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out whole)) return null;
                return whole >= 1 && whole <= MaxContractInteger ? whole : (long?)null;
            }
            if (value.Type != JTokenType.Float) return null;
            // A double holds any JSON number without throwing.
            var seconds = (double)value;
            if (double.IsNaN(seconds) || Math.Floor(seconds) != seconds || seconds < 1 || seconds > MaxContractInteger) return null;
            return (long)seconds;
        }

        private static TimeSpan IntervalOf(string seconds)
        {
            long value;
            if (!long.TryParse(seconds, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out value) || value < 1)
            {
                return SessionTracker.DefaultInterval;
            }
            return TimeSpan.FromSeconds(Math.Min(value, int.MaxValue));
        }

        /// <summary>
        /// Anonymous mode, kept across launches: no advertising id, IDFV or customer user id is
        /// sent. Switched on or off once configured, the service is told the advertising id it
        /// now has (none while anonymous) through the consent route, once the install is recorded.
        /// </summary>
        public void SetAnonymous(bool on)
        {
            var changed = anonymous != on;
            anonymous = on;
            ReadAdvertisingIdUnlessAnonymous();
            // The last reading, made in the mode, holds no advertising id: read again for the update.
            if (changed && !on)
            {
                lock (gate) trackingStale = true;
            }
            if (on) store.Set(AnonymousKey, "true");
            else store.Remove(AnonymousKey);
            // On the disk at once: a launch after a crash must not send what the user withheld.
            SaveNow();
            if (changed && configured && !disabled && !stopped && !deleted) Flush();
        }

        public bool IsAnonymous
        {
            get { return anonymous; }
        }

        /// <summary>
        /// Anonymous mode sends no advertising id, so the device does not even read it (as the
        /// Kotlin SDK does not): an app for children that must not collect it need not.
        /// </summary>
        private void ReadAdvertisingIdUnlessAnonymous()
        {
            var tracking = setup.Device as IDeviceTracking;
            if (tracking != null) tracking.ReadsAdvertisingId = !anonymous;
        }

        /// <summary>
        /// The user's consent, kept across launches: sent on the install, or once the install is
        /// recorded through the consent route whenever it differs from what was last sent.
        /// </summary>
        public void SetConsent(ServiceConsent consent)
        {
            this.consent.Set(consent);
            // Kept first, then marked: a send run that finds the mark reads the consent set.
            Interlocked.Exchange(ref consentChanged, 1);
            // On the disk at once: a launch after a crash must not go on with the consent before.
            SaveNow();
            // Kept, but sent no more once the install's data was deleted.
            if (configured && !disabled && !stopped && !deleted) Flush();
        }

        /// <summary>The consent set with SetConsent (null when none).</summary>
        public ServiceConsent Consent
        {
            get { return consent.App; }
        }

        /// <summary>Every event dropped on this device (all launches together).</summary>
        public long DroppedEventCount
        {
            get { return drops.Count; }
        }

        /// <summary>
        /// The install's attribution parameters, to exactly one of the two callbacks, on the main
        /// thread: a read that fails goes to onError, or without one to onSuccess as
        /// `{service_match_status: failed}`. An install that could not be sent yet (offline on the
        /// first launch, the install route refused) is such a failure, onError hearing why.
        /// `failed` is never kept, so the next read asks the service again.
        /// </summary>
        public void GetAttributionParams(Action<Dictionary<string, object>> onSuccess, Action<string> onError)
        {
            if (onSuccess == null) throw new ArgumentNullException("onSuccess");
            RequireConfigured();
            StartWork(async () =>
            {
                Dictionary<string, object> parameters;
                try
                {
                    parameters = await ReadAttribution();
                }
                catch (Exception error)
                {
                    Write(LogLevel.Warn, "attribution read failed: " + error.Message);
                    if (onError != null)
                    {
                        var message = error.Message;
                        PostCallback("onError", () => onError(message));
                        return;
                    }
                    // The spec: exactly one of the two callbacks fires. The app that gave no
                    // onError hears the read failed as the map says it.
                    parameters = Status("failed");
                }
                PostCallback("onSuccess", () => onSuccess(parameters));
            });
        }

        /// <summary>
        /// An app's callback on the main thread. What it throws is logged there and goes no
        /// further: out of the behaviour's Update it would leave the rest posted for the frame
        /// (listeners, saves) waiting for the next one.
        /// </summary>
        private void PostCallback(string name, Action callback)
        {
            setup.MainThread.Post(() =>
            {
                try
                {
                    callback();
                }
                catch (Exception failure)
                {
                    Write(LogLevel.Error, "the GetAttributionParams " + name + " callback threw: " + failure);
                }
            });
        }

        /// <summary>
        /// Deletes the install's data at the service; then nothing of it stays on the device, and
        /// nothing more is queued or sent for it (events, sessions, consent, attribution reads), in
        /// this launch or a later one, as the Kotlin and iOS SDKs do. Runs on the SDK's scheduler:
        /// awaited with .Wait() on Unity's main thread, a continuation that waited for that thread
        /// would wait for ever.
        /// </summary>
        public Task DeleteUserData()
        {
            return StartWork(DeleteOnWorker);
        }

        private async Task DeleteOnWorker()
        {
            RequireConfigured();
            if (api == null) throw new InvalidOperationException("the SDK is off: no service address");
            await Finished(initialization).ConfigureAwait(false);
            await api.Send("DELETE", "/v1/installs/" + Uri.EscapeDataString(ServiceId), null).ConfigureAwait(false);
            ForgetDeletedInstall("the install's data is deleted");
        }

        /// <summary>
        /// The install's data is deleted at the service: by DeleteUserData, or through the
        /// service's API (the app's backend handling a person's erasure request), which the SDK
        /// learns when the service ignores events or sessions as `install_deleted`. Either way,
        /// the deletion is kept on the device, what waits is dropped, and nothing more is queued
        /// or sent for the install, in this launch or a later one: the service would ignore it all.
        /// </summary>
        /// <param name="why">How the SDK knows, for the log.</param>
        private void ForgetDeletedInstall(string why)
        {
            Action dropped;
            // Deleted, and the queues emptied, in one step under the gate SendEvent queues under
            // and reads the deletion again under: an event sent on another thread as the deletion
            // runs is either queued before it, and dropped by it (told), or not queued at all
            // (said not sent), never kept in the queue of an install that is gone, to wait there
            // untold until the next launch's Configure drops it.
            lock (gate)
            {
                deleted = true;
                store.Set(DeletedKey, "true");
                customerUserId = null;
                // The user's id goes with their data, as the id of events that will never be sent.
                store.Remove(CustomerUserIdKey);
                // What waits is dropped: the service ignores anything of a deleted install.
                dropped = ClearQueued(ServiceDropReason.Deleted, "the install's data was deleted");
            }
            // Once the gate is let go, never inside it, as the app may be called from under that
            // lock (Apple's refusal). An event queued before the deletion and evaluated only now
            // finds it marked, and is forgotten there too (see EvaluateConversion).
            ForgetAwaitingConversion();
            store.Remove(AttributionKey);
            // Told outside the gate: a listener may call the SDK.
            dropped();
            Write(LogLevel.Info, why + ": nothing more is sent for it");
            // On the disk as soon as can be: a launch after a crash must not send under this id
            // again. This runs off the main thread, where PlayerPrefs cannot be touched, so the
            // save waits for the main thread's next frame (or, in the background on iOS, for the
            // end of the time lent); should the app die first, the service's answers tell the
            // next launch of the deletion again.
            SaveNow();
        }

        /// <summary>
        /// The events and sessions queued, emptied now for <paramref name="reason"/>, by a caller
        /// that holds <see cref="gate"/>; but for a batch on its way, which its answer settles:
        /// what the service stores of it is delivered, and what it names is told by its verdict,
        /// not dropped a second time. What is returned tells the drop, for the caller to run
        /// once it let go of the gate.
        /// </summary>
        private Action ClearQueued(ServiceDropReason reason, string why)
        {
            var droppedEvents = delivery.Clear(reason, why);
            var droppedSessions = sessionDelivery.Clear(reason, why);
            return () =>
            {
                drops.Drop(reason, droppedEvents, why);
                sessionDrops.Drop(reason, droppedSessions, why);
            };
        }

        /// <summary>Resolves once initialization, the sending and the attribution read under way are done (for tests).</summary>
        internal async Task Idle()
        {
            Task current;
            do
            {
                await SendingDone();
                lock (gate) current = resolving;
                await Finished(current);
            } while (!ReferenceEquals(current, resolving) || !SendingIsDone());
        }

        private bool SendingIsDone()
        {
            lock (gate) return flushing.IsCompleted && (initialization == null || initialization.IsCompleted);
        }

        /// <summary>Resolves once initialization and the sending under way are done.</summary>
        private async Task SendingDone()
        {
            if (initialization != null) await Finished(initialization);
            Task current;
            do
            {
                lock (gate) current = flushing;
                await Finished(current);
            } while (!ReferenceEquals(current, flushing));
        }

        internal int Queued
        {
            get { return queue.Count; }
        }

        internal int QueuedSessions
        {
            get { return sessions.Count; }
        }

        /// <summary>Every session dropped on this device (all launches together).</summary>
        internal long DroppedSessionCount
        {
            get { return sessionDrops.Count; }
        }

        /// <summary>How long in the background starts a new session at the return (for tests).</summary>
        internal TimeSpan SessionInterval
        {
            get { return sessionTracker.Interval; }
        }

        /// <summary>
        /// Saves the store now (tests: as the save timer would). With PlayerPrefs, now only on the
        /// main thread: called elsewhere, the save is posted to it (<see cref="MainThreadStore"/>).
        /// </summary>
        internal void SaveNow()
        {
            var disk = setup.Store as IDiskStore;
            if (disk == null) return;
            try
            {
                disk.Save();
            }
            catch (Exception error)
            {
                Write(LogLevel.Warn, "the SDK's state was not saved: " + error.Message);
            }
        }

        /// <summary>Saves the store within <see cref="SaveDelay"/> of a change: one save for every change meanwhile.</summary>
        private void RequestSave()
        {
            if (!(setup.Store is IDiskStore)) return;
            lock (saveGate)
            {
                if (saveScheduled) return;
                saveScheduled = true;
            }
            After(SaveDelay, () =>
            {
                lock (saveGate) saveScheduled = false;
                SaveNow();
            });
        }

        private async Task Initialize()
        {
            await ReadConfig();
            ConfigurationApplied();
            await SendQueued();
        }

        /// <summary>
        /// GET /v1/config: on or off as it says. Read at Configure and again every
        /// `refresh_interval_seconds` it names (an hour when it names none) while the app runs,
        /// so that an app switched off, or on again, follows without a restart. A rejected key
        /// ends the reading; offline, the last configuration kept holds until the next one, and
        /// while none was ever read the read is tried again from 2 s, doubling to a minute
        /// (<see cref="configurationKnown"/>).
        /// </summary>
        private async Task ReadConfig()
        {
            if (stopped) return;
            var next = refreshInterval;
            try
            {
                var config = await api.Send("GET", "/v1/config", null, ApiClient.AConfiguration);
                var settings = (JObject)config;
                var enabled = (bool)settings["enabled"];
                refreshInterval = RefreshIntervalOf(settings["refresh_interval_seconds"]);
                next = refreshInterval;
                store.Set(RefreshIntervalKey, ((long)refreshInterval.TotalSeconds).ToString(System.Globalization.CultureInfo.InvariantCulture));
                store.Set(EnabledKey, enabled ? "true" : "false");
                configurationKnown = true;
                configRetryDelay = TimeSpan.Zero;
                UseSessionInterval(settings["session_interval_seconds"]);
                UseSchema(ConversionSchema.Parse(settings["skadnetwork"]), enabled);
                if (enabled)
                {
                    var wasOff = disabled;
                    if (disabled) Write(LogLevel.Info, "the app is switched on again in its remote configuration");
                    // Off at the launch's start only as kept: this launch's session is made now.
                    if (offUntilRead && !deleted) QueueSession(launchedAt);
                    offUntilRead = false;
                    disabled = false;
                    // On again: the listeners hear the kept attribution, as at a start (those not
                    // told yet), and a deferred deep link waiting for one is handed over.
                    Dictionary<string, object> stored = null;
                    Action<Dictionary<string, object>> handlers = null;
                    if (wasOff)
                    {
                        lock (gate)
                        {
                            if (!stopped && !deleted) stored = KeptAttribution();
                            if (stored != null) handlers = HandlersToTellAgain();
                        }
                    }
                    if (stored != null) RaiseAttribution(handlers, stored);
                }
                // On until now, or off as kept and now as read: what waited is dropped, and told.
                // Off since an earlier reading of this launch, it was dropped then.
                else if (!disabled || offUntilRead)
                {
                    SwitchOff("the app is switched off in its remote configuration");
                }
            }
            catch (ServiceHttpException error) when (error.Code == 401)
            {
                // The service rejects a key with 401. A 403 here comes from something in the way
                // (a firewall's block of the phone's address): a failed read, below, which keeps
                // the configuration in force and the queue.
                KeyRejected(error.Code);
                RegisterConversion();
                return;
            }
            catch (Exception error)
            {
                // Offline or the service down: go on with the last configuration kept.
                if (configurationKnown)
                {
                    Write(LogLevel.Warn, "remote configuration not fetched: " + error.Message);
                }
                else
                {
                    // None was ever read: the events wait for one, so it is asked for again as a
                    // send is retried, not after the hour a kept configuration may wait.
                    next = NextConfigRetry();
                    Write(LogLevel.Warn, "remote configuration not fetched: " + error.Message
                        + ": none was ever read, so events wait on the device; read again in " + next.TotalSeconds + " s");
                }
                if (offUntilRead) SwitchOff("the app is switched off in the remote configuration last read");
                // Apple is told of the first launch all the same, as the iOS SDK tells it: a
                // game whose first two days pass with no reading would otherwise never be.
                RegisterConversion();
            }
            int generation;
            lock (gate) generation = ++refreshGeneration;
            var retrying = !configurationKnown;
            // Only the last timer set reads again: a Start while one waits makes no second reader.
            After(next, () =>
            {
                lock (gate) if (generation != refreshGeneration) return;
                RefreshConfig(retrying);
            });
        }

        /// <summary>
        /// The wait before the next read of remote configuration while none is known: the send
        /// retries' backoff (<see cref="SdkSetup.RetryDelay"/>, doubling to
        /// <see cref="MaxRetryDelay"/>), jittered, and never shorter than a Retry-After.
        /// </summary>
        private TimeSpan NextConfigRetry()
        {
            configRetryDelay = configRetryDelay == TimeSpan.Zero
                ? setup.RetryDelay
                : TimeSpan.FromTicks(Math.Min(configRetryDelay.Ticks * 2, MaxRetryDelay.Ticks));
            return WaitBefore(configRetryDelay);
        }

        /// <summary>
        /// Remote configuration's `refresh_interval_seconds`, at most <see cref="MaxRefreshInterval"/>,
        /// so that no number costs the configuration it came with; the default when it names none,
        /// or one its contract refuses (<see cref="ContractSeconds"/>).
        /// </summary>
        private static TimeSpan RefreshIntervalOf(JToken seconds)
        {
            var taken = ContractSeconds(seconds);
            if (!taken.HasValue) return DefaultRefreshInterval;
            return TimeSpan.FromSeconds(Math.Min(taken.Value, MaxRefreshInterval.TotalSeconds));
        }

        /// <summary>
        /// The refresh interval kept by an earlier launch's reading (already within
        /// <see cref="MaxRefreshInterval"/>); the default when none was kept or the value is damaged.
        /// </summary>
        private static TimeSpan KeptRefreshInterval(string seconds)
        {
            long value;
            if (!long.TryParse(seconds, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out value) || value < 1)
            {
                return DefaultRefreshInterval;
            }
            return TimeSpan.FromSeconds(Math.Min(value, (long)MaxRefreshInterval.TotalSeconds));
        }

        /// <summary>
        /// Reads the configuration again in turn with the sending, then sends what waits, unless a
        /// retry waits: what is queued goes with that retry, as in <see cref="Flush"/>.
        /// </summary>
        /// <param name="retrying">A read asked again because none was ever read: a route refused for its address or key stays held.</param>
        private void RefreshConfig(bool retrying = false)
        {
            lock (gate)
            {
                if (stopped) return;
                var before = flushing;
                flushing = StartWork(async () =>
                {
                    await Finished(before);
                    // A route refused for its address or key is tried again with each reading, but
                    // not every few seconds while a first read is retried.
                    if (!retrying) lock (gate) eventRoute.Held = sessionRoute.Held = false;
                    await ReadConfig();
                    // Offline or the service unwell, the retry's delay grows from 2 s to a minute:
                    // a read every few seconds must not send the queue at its own pace meanwhile.
                    bool backingOff;
                    lock (gate) backingOff = retryScheduled;
                    if (!disabled && !stopped && !backingOff) await SendQueued();
                });
            }
        }

        /// <summary>How long until remote configuration is read again (for tests).</summary>
        internal TimeSpan RefreshInterval
        {
            get { return refreshInterval; }
        }

        /// <summary>
        /// The schema of the configuration just read: kept in the store (a launch offline evaluates
        /// with it), then the events that waited for it, then the first launch's registration,
        /// which a configuration that switches the app off makes too (see
        /// <see cref="RegisterConversion"/>). A new version keeps the windows' state (the values
        /// Apple holds cannot go down) and evaluates the events from now on with its rules.
        /// </summary>
        private void UseSchema(ConversionSchema read, bool enabled)
        {
            lock (conversionGate)
            {
                var previous = schema;
                schema = read;
                store.Set(SchemaKey, read == null ? "null" : read.ToJson().ToString(Formatting.None));
                if (read != null && (previous == null || previous.Version != read.Version))
                {
                    Write(LogLevel.Info, "conversion value schema version " + read.Version + ": the events from now on are evaluated with its rules");
                }
            }
            // On, as read: what waited for this reading is evaluated, the flags it clears aside.
            if (enabled) EvaluateConversion(null, true);
            RegisterConversion();
        }

        /// <summary>The events waiting to be evaluated, forgotten, on the device too.</summary>
        private void ForgetAwaitingConversion()
        {
            lock (conversionGate)
            {
                awaitingConversion.Clear();
                store.Remove(AwaitingConversionKey);
            }
        }

        /// <summary>
        /// The events waiting that a Stop or a switch-off dropped since they were queued
        /// (<see cref="queueDrops"/>), forgotten, on the device too; those queued after it wait on.
        /// </summary>
        private void ForgetDropped()
        {
            lock (conversionGate)
            {
                var now = queueDrops;
                if (awaitingConversion.RemoveAll(item => item.QueuedAt < now) == 0) return;
                if (awaitingConversion.Count == 0) store.Remove(AwaitingConversionKey);
                else store.Set(AwaitingConversionKey, AwaitingConversion.ToJson(awaitingConversion));
            }
        }

        /// <summary>
        /// The app's schema evaluated on an event just queued (null: only on those waiting), with
        /// the parameters as they are queued (the app's, the matching ones hashed); the windows'
        /// state kept in the store; Apple asked
        /// for each update this makes. Events wait, in order, while the first open or whether the
        /// app has a schema is unknown (the first launch, before Configure or before its first
        /// GET /v1/config answers). Apple answers later: the event never waits on it.
        /// </summary>
        /// <param name="readOn">A reading that says the app is on is being applied: what waited for it is evaluated, though the launch is still off as kept until it is.</param>
        private void EvaluateConversion(AwaitingConversion taken, bool readOn = false)
        {
            // Each update with the event that made it and its window's values before it.
            var calls = new List<Tuple<string, ConversionCall, ConversionWindowState>>();
            var notes = new List<string>();
            lock (conversionGate)
            {
                if (taken != null)
                {
                    if (awaitingConversion.Count >= MaxAwaitingConversion) awaitingConversion.RemoveAt(0);
                    awaitingConversion.Add(taken);
                    store.Set(AwaitingConversionKey, AwaitingConversion.ToJson(awaitingConversion));
                }
                // A Stop followed by a Start since an event was queued dropped it, though the Stop
                // may not have come to forget it yet: not evaluated with those after the Start. A
                // switch-off as it was queued, likewise: not evaluated once a reading says on.
                ForgetDropped();
                // Nothing is evaluated while stopped or deleted, nor at a launch off as kept (an
                // earlier launch was switched off) before its first reading says on: an event that
                // reading drops as `disabled` gives Apple no value.
                if (stopped || deleted)
                {
                    // Taken as a Stop or a deletion came: dropped with the queue, so forgotten too.
                    ForgetAwaitingConversion();
                    return;
                }
                // Nor once a reading said off, before or after Configure: the reading that says it
                // writes that first, then applies the schema it brings and registers the first
                // launch, and only then switches the SDK off (SwitchOff, which forgets what it
                // drops). In between, an event the game sends, or Configure's own look at what
                // waited, would otherwise be evaluated with that schema and its value given to
                // Apple, the event then dropped as `disabled`. Left waiting, the switch-off
                // forgets it.
                if (!readOn && (disabled || store.Get(EnabledKey) == "false")) return;
                var firstOpen = FirstOpen();
                if (firstOpen == null || store.Get(SchemaKey) == null) return;
                if (schema == null)
                {
                    ForgetAwaitingConversion();
                    return;
                }
                var opened = firstOpen.Value;
                // Apple's update acts on the window the install is in now, whatever the event's.
                var windowNow = ConversionEvaluation.WindowOf(Math.Max(0, (setup.Clock.UtcNow.ToUniversalTime() - opened).TotalHours));
                var state = ConversionState.Parse(store.Get(ConversionKey));
                var changed = false;
                foreach (var item in awaitingConversion)
                {
                    var conversion = ConversionEvent.Of(item.Type, item.Name, item.Parameters, item.Time, opened);
                    // The service refuses it whole, for its revenue: nothing of it may count here.
                    if (conversion.Refused) notes.Add(conversion.Name + ": its revenue is one the service refuses with the event (no finite number or plain decimal, or past a trillion either way): not evaluated for the conversion values");
                    ConversionState next;
                    var call = ConversionEvaluation.Evaluate(schema.Windows, state, conversion, schema.UsdRates, out next);
                    var own = ConversionEvaluation.WindowOf(conversion.HoursAfterInstall);
                    if (own.HasValue && own != windowNow && !ReferenceEquals(next, state))
                    {
                        // An event that waited past its window (the first day's, evaluated on the
                        // fourth) is counted there, but would give the window the install is in now
                        // its own window's values, and a lock rule would lock it: the values Apple
                        // holds for its window, its lock and the registration stay as they were,
                        // and Apple is asked nothing.
                        var kept = state.Windows[own.Value];
                        next.Windows[own.Value].Fine = kept.Fine;
                        next.Windows[own.Value].Coarse = kept.Coarse;
                        next.Windows[own.Value].Locked = kept.Locked;
                        next.Registered = state.Registered;
                        if (call != null) notes.Add(conversion.Name + " is counted in conversion window " + own.Value + ", not the one the install is in now: no conversion value update");
                        call = null;
                    }
                    changed |= !ReferenceEquals(next, state);
                    if (call != null) calls.Add(Tuple.Create(conversion.Name, call, state.Windows[call.Window]));
                    state = next;
                }
                awaitingConversion.Clear();
                // The state and the list emptied in one step: no event is evaluated twice.
                store.Remove(AwaitingConversionKey);
                if (changed) store.Set(ConversionKey, state.ToJson());
                // Apple told under the lock, in the order the values were worked out: Apple keeps
                // the last value it is given (SKAdNetwork 4, AdAttributionKit), and an update
                // worked out on the configuration's thread must not reach it after a higher one
                // the game's thread worked out since. The calls return at once.
                var port = setup.ConversionValues;
                foreach (var made in calls)
                {
                    var call = made.Item2;
                    var held = made.Item3;
                    Write(LogLevel.Info, "conversion value after " + made.Item1 + ": " + call);
                    if (port != null) port.Update(call, message => UpdateRefused(call, held, message));
                }
            }
            foreach (var line in notes) Write(LogLevel.Info, line);
            // On the disk now, not at the next save a second later: after a crash, a state that
            // forgot what Apple holds would give Apple a lower value that replaces it.
            if (calls.Count > 0) SaveNow();
        }

        /// <summary>
        /// Once the launch's reading of the configuration is done, read or not (offline, the
        /// service down): Apple told of the install's first launch, once, in the first window,
        /// unless an update already told it. Apple makes no postback at all for an install that
        /// never made that call, so it is made with a schema or without, and whether or not the
        /// user ever meets a rule: without it the ad networks' SKAdNetwork campaigns would count
        /// none of the app's installs. For the same reason it is made while the service has the
        /// SDK off (its remote configuration, a rejected key): Apple is told, and the service
        /// nothing. The app's own Stop and a deletion of the install's data do keep it back.
        /// </summary>
        private void RegisterConversion()
        {
            lock (conversionGate)
            {
                var firstOpen = FirstOpen();
                if (stopped || deleted || firstOpen == null) return;
                var opened = firstOpen.Value;
                if (ConversionEvaluation.WindowOf(Math.Max(0, (setup.Clock.UtcNow.ToUniversalTime() - opened).TotalHours)) != 0) return;
                var state = ConversionState.Parse(store.Get(ConversionKey));
                if (state.Registered || refusedRegistration) return;
                state.Registered = true;
                store.Set(ConversionKey, state.ToJson());
                // Under the lock, as the updates are: no event's value reaches Apple before the
                // registration's 0, which would then lower it.
                Write(LogLevel.Info, "the install's first launch is registered with SKAdNetwork and AdAttributionKit");
                var port = setup.ConversionValues;
                if (port != null) port.Register(RegistrationRefused);
            }
            SaveNow();
        }

        /// <summary>
        /// Apple refused an update: told as any refusal, and, unless a later update set the
        /// window's values since, they go back to those Apple held before it (its lock too), so
        /// that the window's next event asks for them again. The evaluation makes one call an
        /// event at most: a refusal Apple keeps making costs one call an event, never a loop.
        /// The state is written before Apple answers, so without this the device would take a
        /// refused value for one Apple holds and never ask for it again.
        /// </summary>
        private void UpdateRefused(ConversionCall call, ConversionWindowState held, string message)
        {
            ConversionRefused(message);
            var forgot = false;
            lock (conversionGate)
            {
                var state = ConversionState.Parse(store.Get(ConversionKey));
                var window = state.Windows[call.Window];
                if (window.Fine == call.Fine && window.Coarse == call.Coarse && window.Locked == call.Lock)
                {
                    window.Fine = held.Fine;
                    window.Coarse = held.Coarse;
                    window.Locked = held.Locked;
                    store.Set(ConversionKey, state.ToJson());
                    forgot = true;
                }
            }
            if (!forgot) return;
            Write(LogLevel.Info, "conversion window " + call.Window + " is back to the values Apple held before the refused update: its next event asks for them again");
            SaveNow();
        }

        /// <summary>
        /// Apple refused the registration: told as any refusal, and, unless an update was made
        /// since (which registers too), the install is unregistered on the device, so that the
        /// next launch in the first window registers it again.
        /// </summary>
        private void RegistrationRefused(string message)
        {
            ConversionRefused(message);
            var forgot = false;
            lock (conversionGate)
            {
                refusedRegistration = true;
                var state = ConversionState.Parse(store.Get(ConversionKey));
                if (state.Registered && state.Windows.All(window => !window.Fine.HasValue && !window.Coarse.HasValue))
                {
                    state.Registered = false;
                    store.Set(ConversionKey, state.ToJson());
                    forgot = true;
                }
            }
            if (forgot) SaveNow();
        }

        /// <summary>
        /// Whether an AdAttributionKit re-engagement opened the app with this URL: its query names
        /// <see cref="ReengagementOpenParameter"/> (with the conversion's tag as its value),
        /// whatever the URL's scheme and host.
        /// </summary>
        internal static bool IsReengagementOpen(string url)
        {
            if (Blank(url)) return false;
            return LinkParser.Query(url).ContainsKey(ReengagementOpenParameter);
        }

        /// <summary>
        /// A URL that opened the app (HandleDeepLink, HandleUniversalLink): at an AdAttributionKit
        /// re-engagement open, Apple is told once. Apple sends a re-engagement's postback only if
        /// the app updated a conversion value after the open, and the app's schema describes the
        /// install's windows, not the re-engagement's: so the SDK makes that one update (a fine
        /// value of 0, for the re-engagement alone) and no other. At once when a configuration is
        /// applied; before one is (a cold start's link handled before Configure), once it is.
        /// Never while the SDK is stopped, switched off or after the install's data was deleted.
        /// </summary>
        public void NoteReengagementOpen(string url)
        {
            if (!IsReengagementOpen(url)) return;
            string why = null;
            var now = false;
            lock (gate)
            {
                if (stopped) why = "the SDK is stopped";
                else if (deleted) why = "the install's data was deleted";
                else if (disabled) why = "the SDK is switched off";
                else if (url == lastReengagementOpen) why = "this re-engagement open was told already";
                else
                {
                    lastReengagementOpen = url;
                    if (configurationApplied) now = true;
                    else reengagementWaiting = true;
                }
            }
            if (why != null) Write(LogLevel.Debug, why + ": the AdAttributionKit re-engagement open is not told to Apple");
            else if (!now) Write(LogLevel.Debug, "an AdAttributionKit re-engagement opened the app: told to Apple once a configuration is applied");
            else Reengage(url);
        }

        /// <summary>An http(s) URL with a host: the only kind of link the install's `open_url` takes.</summary>
        internal static bool IsWebLink(string url)
        {
            return !Blank(url) && LinkParser.IsWebLink(url);
        }

        /// <summary>
        /// A link that opened the app (HandleUniversalLink when it returns a link, HandleDeepLink),
        /// kept as the install's `open_url` when it is the first http(s) one and the install is
        /// not sent yet; callable before Configure, as the cold start's link comes then. A custom
        /// scheme (`myapp://…`) is not noted: it is the app's own, and the service reads a click
        /// id only from a link of its link host.
        /// </summary>
        public void NoteOpenUrl(string url)
        {
            if (!IsWebLink(url)) return;
            // Once the install is recorded, no later request carries an open_url.
            if (store.Get(InstallTrackedKey) == "true") return;
            lock (gate)
            {
                if (openUrl != null) return;
                openUrl = url;
            }
            Write(LogLevel.Debug, "the link that opened the app goes with the install as its open_url");
        }

        /// <summary>
        /// The launch's first remote configuration is applied: the re-engagement open that waited
        /// for it is told, unless it switched the SDK off (or a key was rejected), which drops it.
        /// </summary>
        private void ConfigurationApplied()
        {
            string waiting;
            Dictionary<string, object> stored = null;
            Action<Dictionary<string, object>> handlers = null;
            lock (gate)
            {
                configurationApplied = true;
                waiting = reengagementWaiting ? lastReengagementOpen : null;
                reengagementWaiting = false;
                // At every launch the listeners hear the attribution kept on the device, once
                // this launch's configuration says on (as the Kotlin and iOS SDKs): an app
                // switched off since the last launch tells them nothing, and keeps its deferred
                // deep link for a launch that is on. Taken in the same step as the flag is set:
                // a listener added from now on hears it on its own (AttributionListenerAdded).
                if (!disabled && !stopped && !deleted) stored = KeptAttribution();
                if (stored != null) handlers = HandlersToTellAgain();
            }
            if (waiting != null) Reengage(waiting);
            if (stored != null) RaiseAttribution(handlers, stored);
            else KickAttribution();
        }

        /// <summary>
        /// The re-engagement open told to Apple, unless the SDK was stopped, switched off or its
        /// install's data deleted since: then it is dropped untold, and forgotten as the last one
        /// taken, so the same URL handed again once the SDK may tell it makes its update then.
        /// </summary>
        private void Reengage(string url)
        {
            lock (gate)
            {
                if (disabled || stopped || deleted)
                {
                    if (lastReengagementOpen == url) lastReengagementOpen = null;
                    return;
                }
            }
            Write(LogLevel.Info, "an AdAttributionKit re-engagement opened the app: its conversion value is updated (fine value 0, the re-engagement's postbacks alone; iOS 18 and later)");
            var port = setup.ConversionValues;
            if (port != null) port.Reengage(ConversionRefused);
        }

        /// <summary>Apple refused an update or the registration: a warning, and the error listener.</summary>
        private void ConversionRefused(string message)
        {
            var text = "a conversion value update was refused: " + message;
            Write(LogLevel.Warn, text);
            listeners.RaiseError(new ServiceError(ServiceErrorKind.ConversionValue, null, null, 1, text));
        }

        private static JToken ParseOrNull(string text)
        {
            try
            {
                return JsonText.Parse(text);
            }
            catch (JsonException)
            {
                return null;
            }
        }

        /// <summary>An event taken, as the conversion values read it.</summary>
        /// <summary>
        /// An event waiting to be evaluated, with only what the evaluation reads of its parameters:
        /// their numbers, and the revenue's text and currency. Kept on the device as it is, so no
        /// other value (an email the app passed, say) reaches the disk in clear for it.
        /// </summary>
        private sealed class AwaitingConversion
        {
            /// <param name="queuedAt">The <see cref="queueDrops"/> the event was queued at; an earlier launch's are all this one's 0.</param>
            public AwaitingConversion(EventType type, string name, IDictionary<string, object> parameters, DateTime time, int queuedAt = 0)
            {
                Type = type;
                Name = name;
                Parameters = Evaluated(parameters);
                Time = time;
                QueuedAt = queuedAt;
            }

            public EventType Type { get; }
            public string Name { get; }
            public IDictionary<string, object> Parameters { get; }
            public DateTime Time { get; }
            /// <summary>Not kept on the device: the count is this process's.</summary>
            public int QueuedAt { get; }

            private static Dictionary<string, object> Evaluated(IDictionary<string, object> parameters)
            {
                if (parameters == null) return null;
                var kept = new Dictionary<string, object>();
                foreach (var parameter in parameters)
                {
                    double number;
                    if (ConversionEvent.Number(parameter.Value, out number)) kept[parameter.Key] = number;
                    else if ((parameter.Key == "revenue" || parameter.Key == "currency") && parameter.Value is string) kept[parameter.Key] = parameter.Value;
                    // A revenue of another kind (a boolean, a list, a dictionary) has the service
                    // refuse the event: kept as a boolean, which reads the same.
                    else if (parameter.Key == "revenue") kept[parameter.Key] = true;
                }
                return kept;
            }

            public static string ToJson(IEnumerable<AwaitingConversion> waiting)
            {
                var list = new JArray();
                foreach (var item in waiting)
                {
                    var parameters = item.Parameters == null ? null : JObject.FromObject(item.Parameters, JsonText.Serializer);
                    list.Add(new JObject
                    {
                        { "type", item.Type.ToString() },
                        { "name", item.Name },
                        { "time", Requests.Iso(item.Time) },
                        { "parameters", parameters },
                    });
                }
                return list.ToString(Formatting.None);
            }

            /// <summary>What ToJson kept; an item that cannot be read is left out (it is a value, not an event: the event itself is in the queue).</summary>
            public static List<AwaitingConversion> ParseAll(string text)
            {
                var waiting = new List<AwaitingConversion>();
                if (text == null) return waiting;
                JArray list;
                try
                {
                    list = JsonText.Parse(text) as JArray;
                }
                catch (JsonException)
                {
                    return waiting;
                }
                if (list == null) return waiting;
                foreach (var item in list.OfType<JObject>())
                {
                    EventType type;
                    DateTime time;
                    var typeName = item["type"] != null && item["type"].Type == JTokenType.String ? (string)item["type"] : null;
                    var timeText = item["time"] != null && item["time"].Type == JTokenType.String ? (string)item["time"] : null;
                    if (typeName == null || !Enum.TryParse(typeName, out type) || timeText == null
                        || !DateTime.TryParse(timeText, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.RoundtripKind, out time)) continue;
                    var parameters = item["parameters"] as JObject;
                    waiting.Add(new AwaitingConversion(type, item["name"] != null && item["name"].Type == JTokenType.String ? (string)item["name"] : null,
                        parameters == null ? null : parameters.ToObject<Dictionary<string, object>>(JsonText.Serializer), time.ToUniversalTime()));
                }
                return waiting;
            }
        }

        /// <summary>
        /// GET /v1/config answered 401: the key is wrong or revoked, and the SDK is off for the
        /// run. The app is told, not only the log, as Kotlin's InitListener.onError and the Flutter
        /// plugin's onError tell it: a configuration error with the status, once a process (a
        /// Start reads the configuration again and may meet the same answer), before what was
        /// queued is dropped as `disabled`, as a Configure without an address is told.
        /// </summary>
        private void KeyRejected(int code)
        {
            var why = "the SDK key was rejected (" + code + ")";
            bool report;
            lock (gate)
            {
                report = !keyRejectionReported;
                keyRejectionReported = true;
            }
            if (report)
            {
                listeners.RaiseError(new ServiceError(ServiceErrorKind.Configuration, null, code, 1,
                    why + " on GET /v1/config (a wrong or revoked SDK key?): the SDK is off and sends nothing until a launch whose key the service takes"));
            }
            SwitchOff(why);
        }

        private void SwitchOff(string why)
        {
            Action dropped;
            // Off, and the queues emptied, in one step under the gate SendEvent queues under and
            // Start queues its session under: an event is either queued before the switch-off,
            // and dropped by it (told), or not queued at all (said not sent), never kept in the
            // queue of an SDK switched off, to leave once a reading says on.
            lock (gate)
            {
                disabled = true;
                offUntilRead = false;
                queueDrops++;
                // The owner asked for nothing to be sent: what waits is dropped, not kept for later.
                dropped = ClearQueued(ServiceDropReason.Disabled, why);
            }
            // The events that waited are dropped with the queue: none is evaluated, not even one
            // a thread of the app's queued before the gate was let go and comes to evaluate only
            // now (the count tells it, see EvaluateConversion).
            ForgetDropped();
            Write(LogLevel.Error, why + ": the SDK sends nothing");
            // Told outside the gate: a listener may call the SDK.
            dropped();
        }

        /// <summary>
        /// Sends what is queued once initialization and the sending before are done. One send
        /// waiting to start is enough for any number of events queued meanwhile: a burst of
        /// events (or a thousand queued offline) makes no chain of a thousand sends. While a
        /// retry waits (offline, the service unwell), what is queued goes with it, not before.
        /// </summary>
        private void Flush()
        {
            lock (gate)
            {
                if (flushWaiting) return;
                flushWaiting = true;
                var before = flushing;
                flushing = StartWork(async () =>
                {
                    await Finished(before);
                    await Finished(initialization);
                    bool backingOff;
                    lock (gate)
                    {
                        flushWaiting = false;
                        backingOff = retryScheduled;
                    }
                    if (!backingOff) await SendQueued();
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

        /// <summary>
        /// The install first, once; then the consent when it changed since it was last sent; then
        /// the queued sessions, then the queued events, each in order, at most 100 a request. A
        /// request refused as a whole (413, or a 4xx naming no item) is split in halves until the
        /// one item refused alone is known: that one is dropped, every other goes
        /// (<see cref="Delivery{T}"/>).
        /// </summary>
        private async Task SendQueued()
        {
            await sending.WaitAsync();
            try
            {
                if (retired || disabled || stopped || deleted || configurationError != null) return;
                if (store.Get(InstallTrackedKey) != "true")
                {
                    if (WaitsForTracking())
                    {
                        lastSendError = "the install waits for the app's tracking authorization";
                        return;
                    }
                    if (!await TrackInstall()) return;
                }
                // Said only of an install not recorded: one sent again later (a 409) is not told
                // an earlier run's failure.
                lastSendError = null;
                // The install is recorded: the attribution is read for the listeners if none is kept
                // and no reading is under way, so a later launch, a Start and a switch back on take
                // up a match still `failed` or pending.
                KickAttribution();
                // Stopped (an opt-out), switched off, deleted or retired while the install was on its way: nothing more goes.
                if (retired || disabled || stopped || deleted) return;
                // The consent as it is now is checked here: a SetConsent from now on is checked
                // again before the next batch (ConsentBeforeBatch).
                Interlocked.Exchange(ref consentChanged, 0);
                await consent.SendIfChanged(api, ServiceId, TrackingNow());
                if (!SessionsHeld)
                {
                    try
                    {
                        await sessionDelivery.SendAll(api, ServiceId, () => !retired && !disabled && !stopped && !deleted, ConsentBeforeBatch);
                    }
                    catch (ServiceHttpException error) when (error.IsConfiguration)
                    {
                        RouteRefused(sessionRoute, error.Code);
                    }
                }
                // Deleted meanwhile (the sessions' answer said so, or DeleteUserData): the run ends here.
                if (deleted) return;
                // No configuration known yet: the events wait for the first reading (configurationKnown).
                if (!EventsHeld && configurationKnown)
                {
                    try
                    {
                        await delivery.SendAll(api, ServiceId, () => !retired && !disabled && !stopped && !deleted, ConsentBeforeBatch);
                    }
                    catch (ServiceHttpException error) when (error.IsConfiguration)
                    {
                        RouteRefused(eventRoute, error.Code);
                    }
                }
                retryDelay = setup.RetryDelay;
            }
            catch (UnexpectedAnswerException error)
            {
                lastSendError = error.Message;
                Write(LogLevel.Warn, "an unexpected answer, sending again later: " + error.Message);
                ScheduleRetry();
            }
            catch (Exception error)
            {
                // Offline, or the service unwell: everything stays queued, in order, for later.
                lastSendError = error.Message;
                Write(LogLevel.Info, "sending later: " + error.Message);
                ScheduleRetry();
            }
            finally
            {
                sending.Release();
            }
        }

        /// <summary>
        /// Before each batch of a send run: a consent the app set since the run checked it goes
        /// first. The run may last (a slow request, a long queue), and an event the app sends
        /// after SetConsent joins its next batch; without this, that event would reach the
        /// service under the consent before, the update following it (the flush SetConsent asked
        /// for runs after this one).
        /// </summary>
        private async Task ConsentBeforeBatch()
        {
            if (Interlocked.Exchange(ref consentChanged, 0) == 0) return;
            await consent.SendIfChanged(api, ServiceId, TrackingNow());
        }

        /// <summary>
        /// POST /v1/installs; true once it is recorded. An install the service refuses with 401,
        /// 403 or 404 names a wrong address or key: a configuration error, not tried again in this
        /// process. One refused for good otherwise is not sent again as it was: one error in the
        /// log, then the install with only its required fields, so that it is recorded and its
        /// events are taken; should that be refused too, a configuration error as well.
        /// </summary>
        /// <summary>
        /// The install's first open as kept (null before the first Configure). A kept value that
        /// cannot be read (a damaged value) is taken as now, and kept so, with an error: the
        /// install goes, rather than fail at every attempt for ever.
        /// </summary>
        private DateTime? FirstOpen()
        {
            var kept = store.Get(FirstOpenKey);
            if (kept == null) return null;
            DateTime opened;
            if (DateTime.TryParse(kept, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.RoundtripKind, out opened))
            {
                return opened.ToUniversalTime();
            }
            var now = setup.Clock.UtcNow.ToUniversalTime();
            Write(LogLevel.Error, "the first open kept on the device cannot be read (" + kept + "): it is taken as now");
            store.Set(FirstOpenKey, Requests.Iso(now));
            return now;
        }

        private async Task<bool> TrackInstall()
        {
            string userId;
            lock (gate) userId = customerUserId;
            // A clock put right since the first open: not a first open in the future.
            var now = setup.Clock.UtcNow.ToUniversalTime();
            var firstOpen = FirstOpen() ?? now;
            if (firstOpen > now) firstOpen = now;
            var device = Signals();
            // The tracking as it is now at each try, not as this process first read the device:
            // an install sent again (its retries, after a 409) must not give back an advertising
            // id the user withdrew since.
            ReadTrackingInto(device);
            ReadPlatformAdsTokenInto(device);
            if (!installRefused)
            {
                var current = consent.Current();
                var isAnonymous = anonymous;
                try
                {
                    await api.Send("POST", "/v1/installs",
                        Requests.Install(ServiceId, firstOpen, setup.Clock.UtcNow, device, userId, current, isAnonymous), ApiClient.AnObject);
                    consent.SentWithInstall(current, Requests.Tracking(device, isAnonymous));
                    // The tracking this process compares with, unless read since; a change marked
                    // since (a return from the background) still reads it again.
                    lock (gate)
                    {
                        if (trackingSignals == null) trackingSignals = device;
                    }
                    store.Set(InstallTrackedKey, "true");
                    lock (gate) attributionOfNoInstall = false;
                    return true;
                }
                catch (ServiceHttpException error) when (error.IsConfiguration)
                {
                    ConfigurationError(error.Code, "the install");
                    return false;
                }
                catch (ServiceHttpException error) when (error.IsRefusedForGood)
                {
                    installRefused = true;
                    Write(LogLevel.Error, "the service refused the install; it is sent again with its required fields only: " + error.Message);
                }
            }
            try
            {
                await api.Send("POST", "/v1/installs",
                    Requests.BareInstall(ServiceId, firstOpen, setup.Clock.UtcNow, device.Os == "ios" ? "ios" : "android", anonymous), ApiClient.AnObject);
            }
            catch (ServiceHttpException error) when (error.IsRefusedForGood || error.IsConfiguration)
            {
                ConfigurationError(error.Code, "the install with its required fields only");
                return false;
            }
            // No consent went with it: the consent route sends it next.
            consent.NoneSent();
            store.Set(InstallTrackedKey, "true");
            lock (gate) attributionOfNoInstall = false;
            return true;
        }

        /// <summary>
        /// The device's tracking now, for the consent route (<see cref="Requests.Tracking"/>, with
        /// anonymous mode as it is now): read again from the device when it is stale (a start, a
        /// return from the background), through <see cref="IDeviceTracking"/> where the device has
        /// it. A read that throws, with a warning, leaves the last one of the process standing;
        /// with none, null: the tracking is unknown, and an update the consent makes goes without
        /// `device`, which leaves the service's as it is.
        /// </summary>
        private JObject TrackingNow()
        {
            DeviceSignals read = null;
            var stale = false;
            lock (gate)
            {
                if (trackingStale || trackingSignals == null)
                {
                    stale = true;
                    trackingStale = false;
                }
                else read = trackingSignals;
            }
            if (stale)
            {
                try
                {
                    var tracking = setup.Device as IDeviceTracking;
                    read = tracking != null ? tracking.ReadTracking() : setup.Device.Read();
                    lock (gate) trackingSignals = read;
                }
                catch (Exception error)
                {
                    Write(LogLevel.Warn, "the device's tracking was not read: " + error.Message);
                    lock (gate) read = trackingSignals;
                }
            }
            return read == null ? null : Requests.Tracking(read, anonymous);
        }

        /// <summary>
        /// The device's tracking read again into <paramref name="device"/>'s advertising id and
        /// ATT status; left as they were when the platform cannot say now.
        /// </summary>
        private void ReadTrackingInto(DeviceSignals device)
        {
            var tracking = setup.Device as IDeviceTracking;
            if (tracking == null) return;
            try
            {
                var now = tracking.ReadTracking();
                lock (gate)
                {
                    device.AdvertisingId = now.AdvertisingId;
                    device.AttStatus = now.AttStatus;
                }
            }
            catch (Exception error)
            {
                Write(LogLevel.Warn, "the device's tracking was not read: " + error.Message);
            }
        }

        /// <summary>
        /// Apple's AdServices token read again into <paramref name="device"/> at each try of the
        /// install (<see cref="IPlatformAdsToken"/>): an app that enables it after Configure, as
        /// the spec orders the calls, has it on the install's next try, and a retry long after the
        /// first gets a token still good. A read that gives none leaves the one read before. One
        /// that throws (Apple's framework could not make the token now) makes an install with no
        /// token yet wait for its retry, as Apple advises and the iOS SDK does, up to
        /// <see cref="MaxAdsTokenTries"/> failures; then it goes without, with a warning.
        /// </summary>
        private void ReadPlatformAdsTokenInto(DeviceSignals device)
        {
            var source = setup.Device as IPlatformAdsToken;
            if (source == null) return;
            try
            {
                var token = source.ReadPlatformAdsToken();
                if (token != null) device.PlatformAdsToken = token;
            }
            catch (Exception error)
            {
                if (device.PlatformAdsToken == null && ++adsTokenFailures < MaxAdsTokenTries)
                {
                    throw new InvalidOperationException("Apple's AdServices token is not available yet (try " + adsTokenFailures
                        + " of " + MaxAdsTokenTries + "): " + error.Message);
                }
                Write(LogLevel.Warn, "Apple's AdServices token was not read: " + error.Message);
            }
        }

        /// <summary>
        /// The device's signals, read once a process, with the Play install referrer once it
        /// answered for good. While the Play Store cannot answer, a
        /// <see cref="ReferrerUnavailableException"/>: the install waits for its retry (the retry
        /// delay, doubling) and the referrer is asked again then; after
        /// <see cref="MaxReferrerTries"/> such answers the install goes without it, with one warning.
        /// </summary>
        private DeviceSignals Signals()
        {
            if (deviceSignals == null) deviceSignals = setup.Device.Read();
            // A device that names no link (the Unity layer's never does: links come through
            // NoteOpenUrl) takes the one noted, at each try: a link noted after a try that
            // failed still goes with the install.
            if (Blank(deviceSignals.OpenUrl))
            {
                lock (gate) deviceSignals.OpenUrl = openUrl;
            }
            var source = setup.InstallReferrer;
            if (source == null || referrerRead) return deviceSignals;
            try
            {
                deviceSignals.InstallReferrer = source.Read();
            }
            catch (ReferrerUnavailableException error)
            {
                if (++referrerTries < MaxReferrerTries) throw;
                Write(LogLevel.Warn, "the Play install referrer was not available " + referrerTries + " times (" + error.Message
                    + "): the install is sent without it");
                deviceSignals.InstallReferrer = null;
            }
            catch (Exception error)
            {
                Write(LogLevel.Warn, "the Play install referrer was not read (" + error.Message + "): the install is sent without it");
                deviceSignals.InstallReferrer = null;
            }
            referrerRead = true;
            return deviceSignals;
        }

        /// <summary>Once a process: an error in the log and to the error listener; nothing more is sent.</summary>
        private void ConfigurationError(int code, string what)
        {
            lock (gate)
            {
                if (configurationError != null) return;
                configurationError = code;
            }
            var message = "the service refused " + what + " with " + code
                + " (a wrong service address or SDK key?): nothing is sent until the app starts again; "
                + queue.Count + " events stay queued on the device";
            lastSendError = message;
            Write(LogLevel.Error, message);
            listeners.RaiseError(new ServiceError(ServiceErrorKind.Configuration, null, code, 1, message));
        }

        /// <summary>
        /// The events or sessions route refused with 401, 403 or 404 (a wrong address or key, a
        /// service without the route): a configuration error, not the items' fault. Nothing more
        /// goes on that route until remote configuration is read again (every refresh, and Start)
        /// or the app starts again; what is queued stays on the device, within its bound. Said
        /// at error level and to the error listener once a process for each route.
        /// </summary>
        private void RouteRefused(RouteHold route, int code)
        {
            bool report;
            lock (gate)
            {
                route.Held = true;
                report = !route.Reported;
                route.Reported = true;
            }
            var message = "the service refused " + route.Name + " with " + code
                + " (a wrong service address or SDK key?): nothing more is sent there until remote configuration is read again"
                + " or the app starts again; " + route.Queued() + " stay queued on the device";
            if (!report)
            {
                Write(LogLevel.Info, message);
                return;
            }
            Write(LogLevel.Error, message);
            listeners.RaiseError(new ServiceError(ServiceErrorKind.Configuration, null, code, 1, message));
        }

        private bool EventsHeld
        {
            get { lock (gate) return eventRoute.Held; }
        }

        private bool SessionsHeld
        {
            get { lock (gate) return sessionRoute.Held; }
        }

        /// <summary>One delivery route's refusal: held while it stands, and whether it was reported.</summary>
        private sealed class RouteHold
        {
            public RouteHold(string name, Func<string> queued)
            {
                Name = name;
                Queued = queued;
            }

            public string Name { get; }
            /// <summary>What waits on the route, for the log: "3 events".</summary>
            public Func<string> Queued { get; }
            public bool Held;
            public bool Reported;
        }

        private void ScheduleRetry()
        {
            int generation;
            lock (gate)
            {
                // A request that failed after a Stop has nothing left to send (its batch was
                // dropped as the stop's): no retry, and the backoff left as the Stop reset it.
                if (stopped) return;
                if (retryScheduled) return;
                retryScheduled = true;
                generation = ++retryGeneration;
            }
            var delay = WaitBefore(retryDelay);
            retryDelay = TimeSpan.FromTicks(Math.Min(retryDelay.Ticks * 2, MaxRetryDelay.Ticks));
            After(delay, () =>
            {
                lock (gate)
                {
                    // Voided: what it waited to send was sent as the app went to the background.
                    if (generation != retryGeneration) return;
                    retryScheduled = false;
                }
                Flush();
            });
        }

        /// <summary>
        /// A new attribution listener: at once the attribution kept on the device, or the read
        /// that resolves it.
        /// </summary>
        /// <remarks>
        /// The handler joins the listeners here, in one step with reading what is kept, and the
        /// attribution is kept in one step with taking the listeners to tell: a handler added
        /// while an attribution is being kept either is told with the others or hears it here,
        /// never both.
        /// </remarks>
        internal void AttributionListenerAdded(Action<Dictionary<string, object>> handler)
        {
            bool live;
            Dictionary<string, object> kept = null;
            lock (gate)
            {
                listeners.AddAttributionHandler(handler);
                live = configured && configurationApplied && !disabled && !stopped && !deleted;
                if (live) kept = KeptAttribution();
                else if (configured && !deleted) attributionOwed += handler;
            }
            if (!live) return;
            if (kept != null) listeners.RaiseAttributionTo(handler, kept);
            else KickAttribution();
        }

        internal void DeepLinkListenerAdded()
        {
            if (store.Get(AttributionKey) == null) KickAttribution();
            else DeliverDeferredDeepLink();
        }

        /// <summary>
        /// Reads the attribution for the listeners, once the install is recorded and while none is
        /// kept: until it settles, further apart each time (up to a minute), as long as the app
        /// runs; the service's own answer, `failed` or a match still pending, is asked again.
        /// Called at each send and when a listener is added: a reading already under way (a read,
        /// or the wait before the next) is the only one.
        /// </summary>
        private void KickAttribution()
        {
            lock (gate)
            {
                if (readingAttribution || !MayReadAttribution) return;
                readingAttribution = true;
                attributionDelay = setup.RetryDelay;
                resolving = StartWork(ResolveAttribution);
            }
        }

        /// <summary>
        /// The wait after a read that did not settle is over: the next read, or the reading ends
        /// (stopped, switched off, deleted, no listener left), and the next send after a Start or a
        /// switch back on begins it again.
        /// </summary>
        private void ReadAttributionAgain()
        {
            lock (gate)
            {
                if (!MayReadAttribution)
                {
                    readingAttribution = false;
                    return;
                }
                resolving = StartWork(ResolveAttribution);
            }
        }

        /// <summary>Whether the listeners' attribution is to be read now; under <see cref="gate"/>.</summary>
        private bool MayReadAttribution
        {
            get
            {
                return configured && api != null && !disabled && !stopped && !deleted && configurationError == null
                    && !attributionRefused && !attributionOfNoInstall && listeners.WantsAttribution
                    && store.Get(AttributionKey) == null && store.Get(InstallTrackedKey) == "true";
            }
        }

        private async Task ResolveAttribution()
        {
            var settled = false;
            try
            {
                var parameters = await ReadAttribution();
                object status;
                settled = parameters.TryGetValue(MatchStatus, out status) && Settled.Contains(status as string);
            }
            catch (ServiceHttpException error) when (error.IsConfiguration)
            {
                // The service takes the key no more: asked again it would answer the same, and
                // the next launch asks again. It knows no such install: asked again once the
                // install is reported again (an event's Conflict).
                var lost = error.Code == 404;
                Write(LogLevel.Warn, "the attribution is not read again " + (lost ? "until the install is reported again" : "in this process") + ": " + error.Message);
                lock (gate)
                {
                    if (lost) attributionOfNoInstall = true;
                    else attributionRefused = true;
                }
                settled = true;
            }
            catch (Exception error)
            {
                Write(LogLevel.Info, "attribution not read yet: " + error.Message);
            }
            TimeSpan delay;
            lock (gate)
            {
                // Stopped or switched off meanwhile: the reading ends, and begins again as the
                // SDK runs again, not a minute after.
                if (settled || stopped || disabled || deleted)
                {
                    readingAttribution = false;
                    return;
                }
                delay = WaitBefore(attributionDelay);
                attributionDelay = TimeSpan.FromTicks(Math.Min(attributionDelay.Ticks * 2, MaxRetryDelay.Ticks));
            }
            After(delay, ReadAttributionAgain);
        }

        /// <summary>
        /// The wait before the next attempt whose backoff is <paramref name="backoff"/>: jittered,
        /// and never shorter than what the service last asked for with a Retry-After.
        /// </summary>
        private TimeSpan WaitBefore(TimeSpan backoff)
        {
            var wait = setup.Jitter(backoff);
            var asked = api == null ? TimeSpan.Zero : api.AskedToWait;
            if (asked <= wait) return wait;
            Write(LogLevel.Info, "waiting " + asked.TotalSeconds + " s before the next request, as the service asked (Retry-After)");
            return asked;
        }

        private async Task<Dictionary<string, object>> ReadAttribution()
        {
            if (disabled) return Status("not_configured");
            // As the iOS SDK answers: the install's data is gone, and no match will be made for it.
            if (deleted) return Status("skipped");
            var kept = KeptAttribution();
            if (kept != null) return kept;
            // Stopped: no request, not even this one.
            if (stopped) return Status("not_configured");
            await initialization;
            if (disabled || stopped) return Status("not_configured");
            // The install must be at the service before it can be matched.
            await SendingDone();
            if (store.Get(InstallTrackedKey) != "true")
            {
                // A read that fails, as an offline one once the install is recorded: an app that
                // handles "no network" in onError hears it on the first launch too, where a
                // deferred deep link matters most.
                var why = lastSendError;
                throw new InvalidOperationException("no attribution yet: the install is not recorded at the service"
                    + (why == null ? "" : " (" + why + ")"));
            }
            var answer = await api.Send(
                "GET",
                "/v1/installs/" + Uri.EscapeDataString(ServiceId) + "/attribution?wait_seconds=" + setup.AttributionWaitSeconds,
                null) as JObject ?? new JObject();
            var parameters = answer.ToObject<Dictionary<string, object>>(JsonText.Serializer);
            object status;
            if (!parameters.TryGetValue(MatchStatus, out status)) return Status("failed");
            if (Settled.Contains(status as string))
            {
                Action<Dictionary<string, object>> handlers;
                lock (gate)
                {
                    // Deleted while the read was on its way: nothing of the install is kept.
                    if (deleted) return Status("skipped");
                    // Stopped or switched off while it was on its way: not kept, so that it is
                    // asked for again (and the listeners told) once the SDK is on again.
                    if (disabled || stopped) return Status("not_configured");
                    // Two reads at once: the first kept is the one the listeners hear.
                    if (store.Get(AttributionKey) != null) return parameters;
                    store.Set(AttributionKey, answer.ToString(Formatting.None));
                    handlers = AttributionHandlersToTell();
                }
                RaiseAttribution(handlers, parameters);
            }
            return parameters;
        }

        /// <summary>
        /// Under <see cref="gate"/>, in the step that keeps or reads the attribution: the attribution
        /// listeners to tell, once a launch; null when they were told already, or are not to be.
        /// </summary>
        private Action<Dictionary<string, object>> AttributionHandlersToTell()
        {
            if (disabled || stopped || deleted || attributionRaised) return null;
            attributionRaised = true;
            attributionOwed = null;
            return listeners.AttributionHandlers;
        }

        /// <summary>
        /// Under <see cref="gate"/>, as the SDK runs again (started, switched on): every listener
        /// when none was told this launch; else those added while it did not run and still set.
        /// </summary>
        private Action<Dictionary<string, object>> HandlersToTellAgain()
        {
            var owed = attributionOwed;
            var all = AttributionHandlersToTell();
            if (all != null || disabled || stopped || deleted || owed == null) return all;
            attributionOwed = null;
            var set = listeners.AttributionHandlers;
            if (set == null) return null;
            var current = set.GetInvocationList();
            Action<Dictionary<string, object>> still = null;
            foreach (var handler in owed.GetInvocationList())
            {
                if (Array.IndexOf(current, handler) >= 0) still += (Action<Dictionary<string, object>>)handler;
            }
            return still;
        }

        /// <summary>
        /// The attribution listeners taken with <see cref="AttributionHandlersToTell"/>; and the
        /// deferred deep link the attribution kept carries, once an install, when a deep-link
        /// listener is there to have it.
        /// </summary>
        private void RaiseAttribution(Action<Dictionary<string, object>> handlers, Dictionary<string, object> parameters)
        {
            if (handlers != null) listeners.RaiseAttributionTo(handlers, parameters);
            DeliverDeferredDeepLink();
        }

        /// <summary>
        /// The deferred deep link of the attribution kept on the device, once an install, to a
        /// deep-link listener. With none set yet it stays on the device (not parked in memory,
        /// which a process ending would lose), for the first listener set, in this launch or a
        /// later one. Marked delivered on the device only once the listener's call ran on the
        /// main thread (<see cref="DeferredDeepLinkRan"/>): a process killed with the call still
        /// posted offers it again at the next launch. <see cref="deferredHandedOver"/> keeps it
        /// from a second hand-over in this process meanwhile.
        /// </summary>
        private void DeliverDeferredDeepLink()
        {
            if (!configured || !configurationApplied || disabled || stopped || deleted) return;
            var kept = KeptAttribution();
            if (kept == null) return;
            var link = DeferredDeepLink(kept);
            if (link == null) return;
            lock (gate)
            {
                if (deferredHandedOver || store.Get(DeferredKey) == "true") return;
                // Set before the hand-over: a main thread that runs the listener's call at once,
                // on this thread, runs it before TryRaiseDeepLink returns, and a listener that
                // sets another offers the link again from within it.
                deferredHandedOver = true;
                if (listeners.TryRaiseDeepLink(link, DeferredDeepLinkRan)) return;
                deferredHandedOver = false;
            }
            Write(LogLevel.Debug, "deferred deep link " + link.Path + ": kept on the device until a deep-link listener is set");
        }

        /// <summary>
        /// On the main thread, once the deep-link listeners' call with the deferred deep link
        /// returned: the link is marked delivered, under <see cref="gate"/> as the core's other
        /// writes, and saved at once, so that a launch after a crash does not hand it over again.
        /// Marked even if the SDK was stopped, switched off or its install's data deleted since
        /// the hand-over: the app has the link.
        /// </summary>
        private void DeferredDeepLinkRan()
        {
            lock (gate) store.Set(DeferredKey, "true");
            SaveNow();
        }

        /// <summary>The deferred deep link an attribution map gives (listeners.json), or null.</summary>
        internal static ServiceDeepLink DeferredDeepLink(IDictionary<string, object> parameters)
        {
            object path;
            if (!parameters.TryGetValue(DeepLinkPath, out path) || path == null || Convert.ToString(path).Length == 0) return null;
            var custom = parameters.Where(p => !AttributionKeys.Contains(p.Key) && p.Value != null)
                .ToDictionary(p => p.Key, p => Convert.ToString(p.Value, System.Globalization.CultureInfo.InvariantCulture));
            return new ServiceDeepLink(ServiceDeepLinkKind.Deferred, null, Convert.ToString(path), custom, null);
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

        /// <summary>
        /// The store, each change of it followed by a save within a second. A value given to make
        /// later goes to a store that makes it later; another store is given it made now.
        /// </summary>
        private sealed class SavingStore : IKeyValueStore, ILaterStore
        {
            private readonly IKeyValueStore inner;
            private readonly Action changed;

            public SavingStore(IKeyValueStore inner, Action changed)
            {
                this.inner = inner;
                this.changed = changed;
            }

            public string Get(string key)
            {
                return inner.Get(key);
            }

            public void Set(string key, string value)
            {
                inner.Set(key, value);
                changed();
            }

            public void SetLater(string key, Func<string> value)
            {
                var later = inner as ILaterStore;
                if (later != null) later.SetLater(key, value);
                else inner.Set(key, value());
                changed();
            }

            public void Remove(string key)
            {
                inner.Remove(key);
                changed();
            }
        }
    }
}
