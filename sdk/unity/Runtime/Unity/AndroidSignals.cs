#if UNITY_ANDROID && !UNITY_EDITOR
using System;
using System.Threading;
using UnityEngine;

namespace Service.Unity
{
    /// <summary>
    /// Google Play's install referrer for the core. The first read takes the answer of the
    /// connection started at load (so that it is usually there when the install goes); each later
    /// one, after the Play Store could not answer, asks again on a connection of its own.
    /// </summary>
    internal sealed class PlayInstallReferrer : IInstallReferrerSource
    {
        // Made with the setup, at load, on the main thread; null without the library.
        private AndroidSignals first = AndroidSignals.Start();

        /// <summary>Off the main thread, when the install is about to be sent.</summary>
        public InstallReferrer Read()
        {
            var connection = Interlocked.Exchange(ref first, null) ?? AndroidSignals.Java.Run(AndroidSignals.Start);
            // No Play install referrer library in the build: final, the install goes without it.
            return connection == null ? null : connection.Referrer();
        }
    }

    /// <summary>
    /// What only Android's own APIs know: Google Play's install referrer (the link host put the
    /// tap's click id there) and the advertising id. One instance is one connection to the
    /// Play Store's referrer service, whose listener it is: the first answer counts, and comes on
    /// Android's UI thread; the reader, on the SDK's thread, waits for it
    /// <see cref="ReferrerWait"/> at most.
    /// </summary>
    [UnityEngine.Scripting.Preserve]
    internal sealed class AndroidSignals : AndroidJavaProxy
    {
        // InstallReferrerClient.InstallReferrerResponse.
        private const int Ok = 0;
        private const int ServiceUnavailable = 1;
        private const int ServiceDisconnected = -1;
        /// <summary>
        /// How long a read waits for the Play Store's answer: as long as the Kotlin SDK's
        /// (PlayInstallReferrer.WAIT_SECONDS; Tools~/check-package.mjs compares the two). A read
        /// with no answer in time is one of the install's three, after which the install goes
        /// without the referrer and the click id it carries; a longer wait only delays the install
        /// (and what waits for it), on the SDK's thread, never the app's.
        /// </summary>
        private static readonly TimeSpan ReferrerWait = TimeSpan.FromSeconds(10);

        /// <summary>
        /// Where the SDK's own calls into Java run, but for the main thread's: one thread,
        /// attached to the Java VM for as long as the app runs (a thread of the pool, attached,
        /// would end undetached, which ART aborts the app for).
        /// </summary>
        internal static readonly KeptThread Java = new KeptThread("ServiceSdk.Java", () => AndroidJNI.AttachCurrentThread());
        private readonly ManualResetEventSlim answered = new ManualResetEventSlim();
        private readonly object gate = new object();
        private AndroidJavaObject client;
        private bool ended;
        private InstallReferrer referrer;
        /// <summary>Why the Play Store could not answer now; null once it answered for good (a referrer, or none to give).</summary>
        private string unavailable;

        private AndroidSignals() : base("com.android.installreferrer.api.InstallReferrerStateListener") { }

        /// <summary>
        /// Starts a connection to the referrer service: on the main thread, or on <see cref="Java"/>.
        /// Null without the Play install referrer library in the build (its dependency never
        /// resolved, or stripped by R8 without the README's keep rules): Unity looks the listener's
        /// interface up as the proxy is made, which throws then, and the install goes without the
        /// referrer rather than the SDK without its platform.
        /// </summary>
        public static AndroidSignals Start()
        {
            AndroidSignals signals;
            try
            {
                signals = new AndroidSignals();
            }
            catch (Exception)
            {
                return null;
            }
            try
            {
                using (var player = new AndroidJavaClass("com.unity3d.player.UnityPlayer"))
                using (var activity = player.GetStatic<AndroidJavaObject>("currentActivity"))
                using (var clients = new AndroidJavaClass("com.android.installreferrer.api.InstallReferrerClient"))
                using (var builder = clients.CallStatic<AndroidJavaObject>("newBuilder", activity))
                {
                    signals.client = builder.Call<AndroidJavaObject>("build");
                    signals.client.Call("startConnection", signals);
                }
            }
            catch (Exception)
            {
                // No Play install referrer library in the build: final, the install goes without it.
                signals.Answer(null, null);
            }
            return signals;
        }

        /// <summary>
        /// The referrer once the Play Store answered, null when it has none to give (a final
        /// answer: FEATURE_NOT_SUPPORTED, DEVELOPER_ERROR, PERMISSION_ERROR); a
        /// <see cref="ReferrerUnavailableException"/> when it could not answer now
        /// (SERVICE_UNAVAILABLE, disconnected, no answer within <see cref="ReferrerWait"/>), for
        /// the core to ask again.
        /// </summary>
        public InstallReferrer Referrer()
        {
            if (!answered.Wait(ReferrerWait)) Answer(null, "the Play Store did not answer in " + ReferrerWait.TotalSeconds + " s");
            Java.Run(EndConnection);
            lock (gate)
            {
                if (unavailable != null) throw new ReferrerUnavailableException("the Play install referrer is not available yet: " + unavailable);
                return referrer;
            }
        }

        /// <summary>The first answer counts: a disconnection after the setup finished changes nothing.</summary>
        private void Answer(InstallReferrer given, string notNow)
        {
            lock (gate)
            {
                if (answered.IsSet) return;
                referrer = given;
                unavailable = notNow;
                answered.Set();
            }
        }

        private void EndConnection()
        {
            lock (gate)
            {
                if (ended || client == null) return;
                ended = true;
            }
            try
            {
                client.Call("endConnection");
            }
            catch (Exception)
            {
                // The connection is gone already.
            }
        }

        /// <summary>The advertising id, or null without consent or Play services; off the main thread.</summary>
        public static string AdvertisingId()
        {
            try
            {
                return AdvertisingIdAsNow();
            }
            catch (Exception)
            {
                return null;
            }
        }

        /// <summary>
        /// The advertising id as Play services (or a Fire device) give it now: null with limit ad tracking on; throws
        /// when they cannot answer, which says nothing of the id (not that the user withdrew it),
        /// so the tracking the service holds is left as it is. Off the main thread (read on
        /// <see cref="Java"/>).
        /// </summary>
        public static string AdvertisingIdAsNow()
        {
            return Java.Run(() =>
            {
                using (var player = new AndroidJavaClass("com.unity3d.player.UnityPlayer"))
                using (var activity = player.GetStatic<AndroidJavaObject>("currentActivity"))
                {
                    string fireId;
                    if (FireAdvertisingId(activity, out fireId)) return fireId;
                    return PlayAdvertisingId(activity);
                }
            });
        }

        /// <summary>
        /// A Fire device's own advertising id (Amazon's `advertising_id` and `limit_ad_tracking`
        /// secure settings; Fire OS has no Play services), as the Kotlin SDK reads it: false on
        /// another maker's device, or a Fire OS too old to keep one, which asks Play services.
        /// </summary>
        private static bool FireAdvertisingId(AndroidJavaObject activity, out string id)
        {
            id = null;
            using (var build = new AndroidJavaClass("android.os.Build"))
            {
                if (!string.Equals(build.GetStatic<string>("MANUFACTURER"), "Amazon", StringComparison.OrdinalIgnoreCase)) return false;
            }
            using (var resolver = activity.Call<AndroidJavaObject>("getContentResolver"))
            using (var secure = new AndroidJavaClass("android.provider.Settings$Secure"))
            {
                var kept = secure.CallStatic<string>("getString", resolver, "advertising_id");
                var limited = secure.CallStatic<int>("getInt", resolver, "limit_ad_tracking", 0) != 0;
                if (kept == null && !limited) return false;
                id = limited ? null : kept;
                return true;
            }
        }

        private static string PlayAdvertisingId(AndroidJavaObject activity)
        {
            using (var ids = new AndroidJavaClass("com.google.android.gms.ads.identifier.AdvertisingIdClient"))
            using (var info = ids.CallStatic<AndroidJavaObject>("getAdvertisingIdInfo", activity))
            {
                return info.Call<bool>("isLimitAdTrackingEnabled") ? null : info.Call<string>("getId");
            }
        }

        /// <summary>
        /// When this install of the app was made, in Unix milliseconds (PackageInfo.firstInstallTime,
        /// which an update keeps and a reinstall or a new phone changes); null when Android does
        /// not say. On the main thread.
        /// </summary>
        public static long? FirstInstallTime()
        {
            try
            {
                using (var player = new AndroidJavaClass("com.unity3d.player.UnityPlayer"))
                using (var activity = player.GetStatic<AndroidJavaObject>("currentActivity"))
                using (var packages = activity.Call<AndroidJavaObject>("getPackageManager"))
                using (var info = packages.Call<AndroidJavaObject>("getPackageInfo", activity.Call<string>("getPackageName"), 0))
                {
                    var installedAt = info.Get<long>("firstInstallTime");
                    return installedAt > 0 ? installedAt : (long?)null;
                }
            }
            catch (Exception)
            {
                return null;
            }
        }

        /// <summary>
        /// The action and flags of the intent the app's activity was started with
        /// (Activity.getIntent()), or null when Java cannot say; on the main thread, at load,
        /// before a later link (onNewIntent) may replace it.
        /// </summary>
        public static LaunchIntent ActivityIntent()
        {
            try
            {
                using (var player = new AndroidJavaClass("com.unity3d.player.UnityPlayer"))
                using (var activity = player.GetStatic<AndroidJavaObject>("currentActivity"))
                using (var intent = activity.Call<AndroidJavaObject>("getIntent"))
                {
                    if (intent == null) return null;
                    return new LaunchIntent { Action = intent.Call<string>("getAction"), Flags = intent.Call<int>("getFlags") };
                }
            }
            catch (Exception)
            {
                return null;
            }
        }

        /// <summary>The device's model as Android names it (Build.MODEL, "Pixel 8"), or null; on the main thread.</summary>
        public static string Model()
        {
            return OrNull(() =>
            {
                using (var build = new AndroidJavaClass("android.os.Build"))
                {
                    return build.GetStatic<string>("MODEL");
                }
            });
        }

        /// <summary>The device's time zone as an IANA name (java.util.TimeZone), or null; on the main thread.</summary>
        public static string TimeZone()
        {
            return DefaultOf("java.util.TimeZone", "getID");
        }

        /// <summary>The device's language as a BCP 47 tag (java.util.Locale), or null; on the main thread.</summary>
        public static string Locale()
        {
            return DefaultOf("java.util.Locale", "toLanguageTag");
        }

        /// <summary>What <paramref name="name"/> of the class's getDefault() says, or null.</summary>
        private static string DefaultOf(string type, string name)
        {
            return OrNull(() =>
            {
                using (var types = new AndroidJavaClass(type))
                using (var current = types.CallStatic<AndroidJavaObject>("getDefault"))
                {
                    return current.Call<string>(name);
                }
            });
        }

        /// <summary>What <paramref name="read"/> gives, or null when Java throws (an API the device does not have).</summary>
        private static string OrNull(Func<string> read)
        {
            try
            {
                return read();
            }
            catch (Exception)
            {
                return null;
            }
        }

        /// <summary>
        /// IABTCF_TCString and IABTCF_gdprApplies from the app's default SharedPreferences
        /// (`&lt;package&gt;_preferences`), where a TCF consent platform stores them; off the main
        /// thread (read on <see cref="Java"/>).
        /// </summary>
        public static TcfValues Tcf()
        {
            return Java.Run<TcfValues>(TcfAsStored);
        }

        /// <remarks>
        /// A failed read (no current activity yet, a JNI error) throws rather than answer "nothing
        /// stored": the core then keeps the values it read last, where a null would send the
        /// service a consent with no TC string and replace the user's stored choice.
        /// </remarks>
        private static TcfValues TcfAsStored()
        {
            using (var player = new AndroidJavaClass("com.unity3d.player.UnityPlayer"))
            using (var activity = player.GetStatic<AndroidJavaObject>("currentActivity"))
            {
                if (activity == null) throw new InvalidOperationException("no current activity to read the app's preferences from");
                using (var preferences = activity.Call<AndroidJavaObject>(
                    "getSharedPreferences", activity.Call<string>("getPackageName") + "_preferences", 0))
                {
                    // No null through JNI: "" and -1 stand for "not stored".
                    var tcString = preferences.Call<bool>("contains", "IABTCF_TCString")
                        ? preferences.Call<string>("getString", "IABTCF_TCString", "")
                        : "";
                    var applies = GdprApplies(preferences);
                    return new TcfValues
                    {
                        TcString = tcString.Length == 0 ? null : tcString,
                        GdprApplies = applies == 0 || applies == 1 ? applies : (int?)null,
                    };
                }
            }
        }

        /// <summary>
        /// IABTCF_gdprApplies as stored: an int as the TCF asks, or a string, a boolean or a long
        /// as some consent platforms store it (each getter of the wrong type throws a
        /// ClassCastException); -1 when absent or none of these. Read alone, so that the TC string
        /// is kept whatever this value's type.
        /// </summary>
        private static int GdprApplies(AndroidJavaObject preferences)
        {
            try
            {
                return preferences.Call<int>("getInt", "IABTCF_gdprApplies", -1);
            }
            catch (Exception)
            {
            }
            try
            {
                int parsed;
                return int.TryParse(preferences.Call<string>("getString", "IABTCF_gdprApplies", "").Trim(), out parsed) ? parsed : -1;
            }
            catch (Exception)
            {
            }
            try
            {
                return preferences.Call<bool>("getBoolean", "IABTCF_gdprApplies", false) ? 1 : 0;
            }
            catch (Exception)
            {
            }
            try
            {
                var stored = preferences.Call<long>("getLong", "IABTCF_gdprApplies", -1L);
                return stored == 0 || stored == 1 ? (int)stored : -1;
            }
            catch (Exception)
            {
                return -1;
            }
        }

        // InstallReferrerStateListener, called by the Play Store's service connection. Unity's
        // AndroidJavaProxy finds these two by name, through reflection, which code stripping
        // (always on with IL2CPP) cannot see: without [Preserve] they go, and the referrer never
        // answers.
        [UnityEngine.Scripting.Preserve]
        private void onInstallReferrerSetupFinished(int responseCode)
        {
            if (responseCode == Ok)
            {
                try
                {
                    using (var details = client.Call<AndroidJavaObject>("getInstallReferrer"))
                    {
                        Answer(new InstallReferrer
                        {
                            Referrer = details.Call<string>("getInstallReferrer"),
                            ClickTimestampSeconds = details.Call<long>("getReferrerClickTimestampSeconds"),
                            InstallBeginTimestampSeconds = details.Call<long>("getInstallBeginTimestampSeconds"),
                            ReferrerClickTimestampServerSeconds = details.Call<long>("getReferrerClickTimestampServerSeconds"),
                            InstallBeginTimestampServerSeconds = details.Call<long>("getInstallBeginTimestampServerSeconds"),
                            InstallVersion = details.Call<string>("getInstallVersion"),
                        }, null);
                    }
                }
                catch (Exception error)
                {
                    // A RemoteException: the Play Store's process went away while it was read.
                    Answer(null, "the referrer could not be read: " + error.Message);
                }
            }
            else if (responseCode == ServiceUnavailable || responseCode == ServiceDisconnected)
            {
                Answer(null, "the Play Store answered " + (responseCode == ServiceUnavailable ? "SERVICE_UNAVAILABLE" : "SERVICE_DISCONNECTED") + " (" + responseCode + ")");
            }
            else
            {
                // FEATURE_NOT_SUPPORTED, DEVELOPER_ERROR, PERMISSION_ERROR: no referrer to give, for good.
                Answer(null, null);
            }
            EndConnection();
        }

        [UnityEngine.Scripting.Preserve]
        private void onInstallReferrerServiceDisconnected()
        {
            Answer(null, "the Play Store disconnected");
        }
    }
}
#endif
