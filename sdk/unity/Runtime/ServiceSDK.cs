using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace Service.Unity
{
    /// <summary>
    /// The attribution service's SDK for Unity. Calls are synchronous unless stated; each logs
    /// and rethrows what fails. Configure comes first; before it, HandleUniversalLink,
    /// HandleDeepLink, the listeners, Stop/Start, SetAnonymous and SetConsent work, and an event
    /// sent is queued until Configure runs. Listeners run on the main thread.
    /// </summary>
    public static class ServiceSDK
    {
        private static readonly object Gate = new object();
        /// <summary>The app's handlers; a new play session in the Editor starts with a new set (<see cref="ForgetPlaySession"/>).</summary>
        private static SdkListeners Listeners = new SdkListeners();
        private static SdkSetup setup;
        private static SdkCore core;
        private static string baseUrl;

        /// <summary>
        /// The service's address, e.g. https://api.example.com; set it before Configure, which
        /// takes it as it is then (a call before Configure does not fix it). The public API names
        /// no address, so the app sets it: without it, or with one that is no absolute http or
        /// https URL, Configure leaves the SDK off.
        /// </summary>
        public static string BaseUrl
        {
            get { return baseUrl; }
            set { baseUrl = value; }
        }

        public static void Configure(string apiKey, int logLevel = 1, string customerUserId = null)
        {
            // The address as the app set it by now: a call before Configure (SetConsent, Stop,
            // SendEvent...) made the core, before the app may have set it.
            Guard("Configure", () => Core.Configure(apiKey, logLevel, customerUserId, baseUrl));
        }

        /// <summary>
        /// iOS: call before Configure, after asking for App Tracking Transparency, so that the first
        /// install waits up to <paramref name="timeoutSeconds"/> (1 to 360) for the user's answer
        /// and carries the IDFA when tracking is allowed. Nothing waits on Android, or once the
        /// install is recorded. Throws ArgumentOutOfRangeException for a timeout outside 1 to 360.
        /// </summary>
        public static void WaitForTrackingAuthorization(int timeoutSeconds)
        {
            Guard("WaitForTrackingAuthorization", () => Core.WaitForTrackingAuthorization(timeoutSeconds));
        }

        public static void SetCustomerUserId(string customerUserId)
        {
            Guard("SetCustomerUserId", () => Core.SetCustomerUserId(customerUserId));
        }

        public static void SendEvent(EventType eventType, string eventName = null, Dictionary<string, object> parameters = null)
        {
            Guard("SendEvent", () => Core.SendEvent(eventType, eventName, parameters));
        }

        public static string GetServiceId()
        {
            return Guard("GetServiceId", () => Core.ServiceId);
        }

        public static bool IsSdkDisabled()
        {
            return Guard("IsSdkDisabled", () => Core.IsSdkDisabled);
        }

        public static void GetAttributionParams(Action<Dictionary<string, object>> onSuccess, Action<string> onError = null)
        {
            Guard("GetAttributionParams", () => Core.GetAttributionParams(onSuccess, onError));
        }

        /// <summary>
        /// Parses a link of the service (callable before Configure). A recognised link also goes
        /// to <see cref="DeepLinkReceived"/> as a direct deep link, and the first one before the
        /// install is sent goes with the install as its `open_url`. On iOS, a URL an
        /// AdAttributionKit re-engagement opened the app with (its query names
        /// `AdAttributionKitReengagementOpen`), of any host, allowed or not, makes the one
        /// conversion value update Apple needs to send the re-engagement's postback.
        /// </summary>
        public static ServiceLinkResult HandleUniversalLink(string url, string[] allowedHosts = null)
        {
            return Guard("HandleUniversalLink", () =>
            {
                var link = LinkParser.Parse(url, allowedHosts);
                // Whatever the host: a re-engagement opens the app with any of its universal
                // links, often on the app's own domain rather than the link host.
                NoteReengagementOpen(url);
                if (link == null) return null;
                NoteOpenUrl(url);
                Listeners.RaiseDeepLink(DeepLinks.Direct(link));
                return link;
            });
        }

        /// <summary>
        /// A link that opened the app, from any scheme (the app's own `myapp://…` or `myapp:…` too), to
        /// <see cref="DeepLinkReceived"/> as a direct deep link; also returned. Callable before
        /// Configure. The first http(s) one before the install is sent goes with the install as
        /// its `open_url`. Text that is no URL gives null and nothing is delivered. On iOS, an
        /// AdAttributionKit re-engagement open makes its update, as with HandleUniversalLink.
        /// </summary>
        public static ServiceDeepLink HandleDeepLink(string url)
        {
            return Guard("HandleDeepLink", () =>
            {
                NoteReengagementOpen(url);
                var link = DeepLinks.Parse(url);
                if (link == null) return null;
                // An http(s) link alone: a custom scheme is the app's own, with no click id.
                NoteOpenUrl(url);
                Listeners.RaiseDeepLink(link);
                return link;
            });
        }

        /// <summary>
        /// The link the app was opened with at this launch (Unity's Application.absoluteURL as the
        /// app loaded), for the app to hand to HandleDeepLink or HandleUniversalLink as it starts;
        /// later ones come through Application.deepLinkActivated. Null when there is none, and on
        /// Android when the activity's intent is no tapped link's: one the recent apps relaunched
        /// after the process ended (FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY), which carries again the
        /// link of the launch that first made the task, handed over then, or one of another
        /// action than VIEW.
        /// </summary>
        public static string LaunchUrl
        {
            get
            {
                SdkSetup current;
                lock (Gate) current = setup;
                return current == null ? null : DeepLinks.LaunchLink(current.LaunchUrl, current.LaunchIntent);
            }
        }

        /// <summary>
        /// The install's attribution once it is resolved (`matched`, `matched_no_params`,
        /// `organic` or `skipped`), with `service_match_status`; at every later start again with the map kept on the device; a
        /// handler added later hears the kept map at once. On the main thread. Never while the
        /// SDK is stopped or switched off, nor after DeleteUserData.
        /// </summary>
        public static event Action<Dictionary<string, object>> AttributionReceived
        {
            add { Listeners.AddAttribution(value); }
            remove { Listeners.RemoveAttribution(value); }
        }

        /// <summary>
        /// Deep links, on the main thread: direct ones (HandleUniversalLink, HandleDeepLink) and the
        /// deferred one that brought the install, once an install. One that comes before any
        /// handler waits for the first.
        /// </summary>
        public static event Action<ServiceDeepLink> DeepLinkReceived
        {
            add { Listeners.AddDeepLink(value); }
            remove { Listeners.RemoveDeepLink(value); }
        }

        /// <summary>Configuration errors and dropped events, on the main thread.</summary>
        public static event Action<ServiceError> ErrorOccurred
        {
            add { Listeners.AddError(value); }
            remove { Listeners.RemoveError(value); }
        }

        /// <summary>Every event dropped on this device, across launches (each drop also went to ErrorOccurred).</summary>
        public static long GetDroppedEventCount()
        {
            return Guard("GetDroppedEventCount", () => Core.DroppedEventCount);
        }

        /// <summary>
        /// Stops the SDK, kept across launches: what is queued is dropped, nothing more is queued,
        /// and no request at all is made until <see cref="Start"/>.
        /// </summary>
        public static void Stop()
        {
            Guard("Stop", () => Core.Stop());
        }

        /// <summary>Starts the SDK again after <see cref="Stop"/>.</summary>
        public static void Start()
        {
            Guard("Start", () => Core.Start());
        }

        public static bool IsStopped()
        {
            return Guard("IsStopped", () => Core.IsStopped);
        }

        /// <summary>Anonymous mode, kept across launches: no advertising id, IDFV or customer user id leaves the device.</summary>
        public static void SetAnonymous(bool anonymous)
        {
            Guard("SetAnonymous", () => Core.SetAnonymous(anonymous));
        }

        public static bool IsAnonymous()
        {
            return Guard("IsAnonymous", () => Core.IsAnonymous);
        }

        /// <summary>
        /// The user's consent, kept across launches; sent with the install, and again whenever it
        /// changes once the install is recorded. The TCF values the app's consent platform stored
        /// on the device go with it. Null forgets what was set.
        /// </summary>
        public static void SetConsent(ServiceConsent consent)
        {
            Guard("SetConsent", () => Core.SetConsent(consent));
        }

        /// <summary>
        /// iOS only: the install then carries Apple's AdServices token, read at each of its tries.
        /// Best called before Configure, so that the first try carries it; after Configure, the
        /// install's next try does (an install already recorded goes without it). A no-op elsewhere.
        /// </summary>
        public static void EnablePlatformAdsAttribution()
        {
            Guard("EnablePlatformAdsAttribution", () => PlatformAds.Enable());
        }

        /// <summary>Completes once the service deleted the install's data; a failure is logged, and the task faults with it.</summary>
        public static Task DeleteUserData()
        {
            return Guard("DeleteUserData", () => Logged("DeleteUserData", Core.DeleteUserData()));
        }

        /// <summary>
        /// The platform the SDK runs on: the Unity layer sets it at load; tests and non-Unity
        /// hosts set their own. A new setup starts a new, unconfigured SDK.
        /// </summary>
        public static void UsePlatform(SdkSetup platform)
        {
            lock (Gate)
            {
                setup = platform;
                core = null;
                Listeners.ForgetPending();
                Listeners.Attach(null);
                Listeners.Use(platform == null ? null : platform.MainThread, platform == null ? null : platform.Log);
            }
        }

        /// <summary>
        /// In the Editor with domain reload off (Enter Play Mode options), statics outlive a play
        /// session: the Unity layer calls this as the next one starts, so that the last session's
        /// handlers (of objects destroyed since) are not called again beside the new session's,
        /// nor its SDK or BaseUrl used. The last session's SDK is retired: what it had scheduled
        /// (a retry, a reading) does nothing, and what it would still tell goes to its own,
        /// emptied, set of handlers, never to the new session's. A player's process starts with
        /// none of them.
        /// </summary>
        internal static void ForgetPlaySession()
        {
            lock (Gate)
            {
                if (core != null) core.Retire();
                setup = null;
                core = null;
                baseUrl = null;
                Listeners.Clear();
                Listeners = new SdkListeners();
            }
        }

        /// <summary>
        /// The app went to the background (the Unity layer's pause): what waits is sent at once.
        /// Sessions are tracked from these two calls; an SDK not made yet has nothing to track
        /// or send (the Configure to come is a session of its own), so neither makes one (the app
        /// may not have set BaseUrl yet).
        /// </summary>
        internal static void EnteredBackground()
        {
            var current = Existing;
            if (current != null) Guard("EnteredBackground", () => current.EnteredBackground());
        }

        /// <summary>The app is back in the foreground (the Unity layer's resume): a session after long enough away.</summary>
        internal static void EnteredForeground()
        {
            var current = Existing;
            if (current != null) Guard("EnteredForeground", () => current.EnteredForeground());
        }

        /// <summary>
        /// A link that opened the app, to the core's re-engagement rule (Runtime/Core/SdkCore.cs).
        /// Only a re-engagement open reaches the core; with no platform set there is no Apple to
        /// tell, and the link is still parsed and delivered.
        /// </summary>
        private static void NoteReengagementOpen(string url)
        {
            if (!SdkCore.IsReengagementOpen(url)) return;
            SdkCore current;
            lock (Gate) current = setup == null ? null : Core;
            if (current != null) current.NoteReengagementOpen(url);
        }

        /// <summary>
        /// A link that opened the app, to the core, which keeps the first http(s) one as the
        /// install's `open_url` (Runtime/Core/SdkCore.cs); any other is dropped here, before an
        /// SDK is made for it. From HandleUniversalLink and HandleDeepLink, and from the
        /// Unity layer, which hands over the link Unity opened the app with. What fails here is
        /// logged, never thrown: the link is still parsed and delivered, and Unity's own calls
        /// (deepLinkActivated) must not meet an SDK's failure.
        /// </summary>
        internal static void NoteOpenUrl(string url)
        {
            if (!SdkCore.IsWebLink(url)) return;
            try
            {
                SdkCore current;
                lock (Gate) current = setup == null ? null : Core;
                if (current != null) current.NoteOpenUrl(url);
            }
            catch (Exception error)
            {
                Failed("NoteOpenUrl", error);
            }
        }

        private static SdkCore Existing
        {
            get { lock (Gate) return core; }
        }

        internal static SdkCore Core
        {
            get
            {
                lock (Gate)
                {
                    if (core != null) return core;
                    if (setup == null) throw new InvalidOperationException("no platform: call ServiceSDK.UsePlatform first");
                    core = new SdkCore(setup, Listeners);
                    return core;
                }
            }
        }

        private static void Guard(string member, Action action)
        {
            Guard<object>(member, () =>
            {
                action();
                return null;
            });
        }

        private static T Guard<T>(string member, Func<T> call)
        {
            try
            {
                return call();
            }
            catch (Exception error)
            {
                Failed(member, error);
                throw;
            }
        }

        /// <summary>
        /// An asynchronous call's failure, which <see cref="Guard{T}"/> never sees (it is in the
        /// task, not thrown), logged as a synchronous one is; the caller's task still faults with it.
        /// Not resumed on the caller's thread: an app that waits for the task with .Wait() on
        /// Unity's main thread would otherwise hold the very thread the rest needs.
        /// </summary>
        private static async Task Logged(string member, Task call)
        {
            try
            {
                await call.ConfigureAwait(false);
            }
            catch (Exception error)
            {
                Failed(member, error);
                throw;
            }
        }

        private static void Failed(string member, Exception error)
        {
            var log = setup == null ? null : setup.Log;
            if (log != null) log.Write(LogLevel.Error, "ServiceSDK." + member + " failed: " + error.Message);
        }
    }
}
