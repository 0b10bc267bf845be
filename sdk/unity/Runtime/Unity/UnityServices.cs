using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.InteropServices;
using UnityEngine;

namespace Service.Unity
{
    /// <summary>
    /// PlayerPrefs may only be touched on the main thread, and the SDK writes from its own: reads
    /// come from a copy made at load, writes go to the copy and, on the main thread, to PlayerPrefs.
    /// </summary>
    internal sealed class PlayerPrefsStore : IKeyValueStore
    {
        private static readonly string[] Keys =
        {
            "service_sdk.service_id", "service_sdk.first_open", "service_sdk.install_tracked",
            "service_sdk.enabled", "service_sdk.attribution", "service_sdk.event_queue",
            "service_sdk.customer_user_id",
        };

        private readonly Dictionary<string, string> values = new Dictionary<string, string>();
        private readonly IMainThread mainThread;

        public PlayerPrefsStore(IMainThread mainThread)
        {
            this.mainThread = mainThread;
            foreach (var key in Keys)
            {
                if (PlayerPrefs.HasKey(key)) values[key] = PlayerPrefs.GetString(key);
            }
        }

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
            mainThread.Post(() => PlayerPrefs.SetString(key, value));
        }

        public void Remove(string key)
        {
            lock (values) values.Remove(key);
            mainThread.Post(() => PlayerPrefs.DeleteKey(key));
        }
    }

    /// <summary>
    /// The device's signals; made on the main thread, read off it when the install is reported.
    /// The core fits each to what the service takes or leaves it out.
    /// </summary>
    internal sealed class UnityDevice : IDevice
    {
#if UNITY_IOS && !UNITY_EDITOR
        // Runtime/Plugins/iOS/ServiceSdkDevice.m; each answer is a malloc'd copy the marshaller frees.
        [DllImport("__Internal")]
        private static extern string ServiceSdkAdServicesToken();

        [DllImport("__Internal")]
        private static extern string ServiceSdkTrackingStatus();

        [DllImport("__Internal")]
        private static extern string ServiceSdkAdvertisingId();

        [DllImport("__Internal")]
        private static extern string ServiceSdkLocale();
#endif
#if UNITY_ANDROID && !UNITY_EDITOR
        private readonly AndroidSignals android = AndroidSignals.Start();
#endif
        private readonly RuntimePlatform platform = Application.platform;
        // "Android OS 14 / API-34 (…)" says "14", "iOS 17.4" says "17.4".
        private readonly string osVersion = Fields.OsVersion(SystemInfo.operatingSystem);
        private readonly string deviceModel = SystemInfo.deviceModel;
        private readonly string appVersion = Application.version;
        private readonly string deviceId = SystemInfo.deviceUniqueIdentifier;
        private readonly string locale = DeviceLocale();

        public DeviceSignals Read()
        {
            var ios = platform == RuntimePlatform.IPhonePlayer;
            var signals = new DeviceSignals
            {
                // The service takes installs from Android and iOS; the Editor reports as Android.
                Os = ios ? "ios" : "android",
                OsVersion = osVersion,
                DeviceModel = deviceModel,
                AppVersion = appVersion,
                Locale = locale,
                // An IANA name on Android and iOS; a Windows id in a Windows player or Editor.
                Timezone = TimeZoneInfo.Local.Id,
                Idfv = ios ? deviceId : null,
                PlatformAdsToken = ios && PlatformAds.Enabled ? AdServicesToken() : null,
            };
#if UNITY_ANDROID && !UNITY_EDITOR
            signals.InstallReferrer = android.Referrer();
            signals.AdvertisingId = AndroidSignals.AdvertisingId();
#endif
#if UNITY_IOS && !UNITY_EDITOR
            signals.AttStatus = ServiceSdkTrackingStatus();
            // The IDFA only once the user allowed tracking (ATT), as the spec asks.
            if (signals.AttStatus == "authorized") signals.AdvertisingId = ServiceSdkAdvertisingId();
#endif
            return signals;
        }

        /// <summary>
        /// The device's language as a BCP 47 tag, from the OS: Mono's current culture is often
        /// the invariant one (an empty name) on a phone.
        /// </summary>
        private static string DeviceLocale()
        {
#if UNITY_IOS && !UNITY_EDITOR
            return ServiceSdkLocale();
#elif UNITY_ANDROID && !UNITY_EDITOR
            return AndroidSignals.Locale();
#else
            return CultureInfo.CurrentCulture.Name;
#endif
        }

        private static string AdServicesToken()
        {
#if UNITY_IOS && !UNITY_EDITOR
            return ServiceSdkAdServicesToken();
#else
            return null;
#endif
        }
    }

    internal sealed class UnityLog : ILog
    {
        public void Write(LogLevel level, string message)
        {
            var line = "[ServiceSdk] " + message;
            if (level == LogLevel.Error) Debug.LogError(line);
            else if (level == LogLevel.Warn) Debug.LogWarning(line);
            else Debug.Log(line);
        }
    }

    internal sealed class SystemClock : IClock
    {
        public DateTime UtcNow
        {
            get { return DateTime.UtcNow; }
        }
    }
}
