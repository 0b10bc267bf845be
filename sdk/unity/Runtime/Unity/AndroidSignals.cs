#if UNITY_ANDROID && !UNITY_EDITOR
using System;
using System.Threading;
using UnityEngine;

namespace Service.Unity
{
    /// <summary>
    /// What only Android's own APIs know: Google Play's install referrer (the link host put the
    /// tap's click id there) and the advertising id. The referrer client starts at load and
    /// answers on its own thread; the install waits for it a few seconds at most.
    /// </summary>
    internal sealed class AndroidSignals : AndroidJavaProxy
    {
        private const int Ok = 0;
        private static readonly TimeSpan ReferrerWait = TimeSpan.FromSeconds(5);
        private readonly ManualResetEventSlim answered = new ManualResetEventSlim();
        private AndroidJavaObject client;
        private InstallReferrer referrer;

        private AndroidSignals() : base("com.android.installreferrer.api.InstallReferrerStateListener") { }

        /// <summary>Starts the referrer client; call on the main thread.</summary>
        public static AndroidSignals Start()
        {
            var signals = new AndroidSignals();
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
                // No Play install referrer library in the build: the install goes without it.
                signals.answered.Set();
            }
            return signals;
        }

        public InstallReferrer Referrer()
        {
            answered.Wait(ReferrerWait);
            return referrer;
        }

        /// <summary>The advertising id, or null without consent or Play services; off the main thread.</summary>
        public static string AdvertisingId()
        {
            AndroidJNI.AttachCurrentThread();
            try
            {
                using (var player = new AndroidJavaClass("com.unity3d.player.UnityPlayer"))
                using (var activity = player.GetStatic<AndroidJavaObject>("currentActivity"))
                using (var ids = new AndroidJavaClass("com.google.android.gms.ads.identifier.AdvertisingIdClient"))
                using (var info = ids.CallStatic<AndroidJavaObject>("getAdvertisingIdInfo", activity))
                {
                    return info.Call<bool>("isLimitAdTrackingEnabled") ? null : info.Call<string>("getId");
                }
            }
            catch (Exception)
            {
                return null;
            }
        }

        /// <summary>The device's language as a BCP 47 tag (java.util.Locale), or null; on the main thread.</summary>
        public static string Locale()
        {
            try
            {
                using (var locales = new AndroidJavaClass("java.util.Locale"))
                using (var current = locales.CallStatic<AndroidJavaObject>("getDefault"))
                {
                    return current.Call<string>("toLanguageTag");
                }
            }
            catch (Exception)
            {
                return null;
            }
        }

        /// <summary>
        /// IABTCF_TCString and IABTCF_gdprApplies from the app's default SharedPreferences
        /// (`&lt;package&gt;_preferences`), where a TCF consent platform stores them; off the main thread.
        /// </summary>
        public static TcfValues Tcf()
        {
            AndroidJNI.AttachCurrentThread();
            try
            {
                using (var player = new AndroidJavaClass("com.unity3d.player.UnityPlayer"))
                using (var activity = player.GetStatic<AndroidJavaObject>("currentActivity"))
                using (var preferences = activity.Call<AndroidJavaObject>(
                    "getSharedPreferences", activity.Call<string>("getPackageName") + "_preferences", 0))
                {
                    // No null through JNI: "" and -1 stand for "not stored".
                    var tcString = preferences.Call<bool>("contains", "IABTCF_TCString")
                        ? preferences.Call<string>("getString", "IABTCF_TCString", "")
                        : "";
                    var applies = -1;
                    try
                    {
                        applies = preferences.Call<int>("getInt", "IABTCF_gdprApplies", -1);
                    }
                    catch (Exception)
                    {
                        // Some consent platforms store it as a string.
                        int parsed;
                        if (int.TryParse(preferences.Call<string>("getString", "IABTCF_gdprApplies", ""), out parsed)) applies = parsed;
                    }
                    return new TcfValues
                    {
                        TcString = tcString.Length == 0 ? null : tcString,
                        GdprApplies = applies == 0 || applies == 1 ? applies : (int?)null,
                    };
                }
            }
            catch (Exception)
            {
                return null;
            }
        }

        // InstallReferrerStateListener, called by the Play Store's service connection.
        private void onInstallReferrerSetupFinished(int responseCode)
        {
            try
            {
                if (responseCode != Ok) return;
                using (var details = client.Call<AndroidJavaObject>("getInstallReferrer"))
                {
                    referrer = new InstallReferrer
                    {
                        Referrer = details.Call<string>("getInstallReferrer"),
                        ClickTimestampSeconds = details.Call<long>("getReferrerClickTimestampSeconds"),
                        InstallBeginTimestampSeconds = details.Call<long>("getInstallBeginTimestampSeconds"),
                        ReferrerClickTimestampServerSeconds = details.Call<long>("getReferrerClickTimestampServerSeconds"),
                        InstallBeginTimestampServerSeconds = details.Call<long>("getInstallBeginTimestampServerSeconds"),
                        InstallVersion = details.Call<string>("getInstallVersion"),
                    };
                }
            }
            catch (Exception)
            {
                referrer = null;
            }
            finally
            {
                client.Call("endConnection");
                answered.Set();
            }
        }

        private void onInstallReferrerServiceDisconnected()
        {
            answered.Set();
        }
    }
}
#endif
