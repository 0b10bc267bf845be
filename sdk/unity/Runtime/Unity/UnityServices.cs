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

    /// <summary>The device's signals; read once, off the main thread, when the install is reported.</summary>
    internal sealed class UnityDevice : IDevice
    {
#if UNITY_IOS && !UNITY_EDITOR
        [DllImport("__Internal")]
        private static extern string ServiceSdkAdServicesToken();
#endif
#if UNITY_ANDROID && !UNITY_EDITOR
        private readonly AndroidSignals android = AndroidSignals.Start();
#endif
        private readonly RuntimePlatform platform = Application.platform;
        private readonly string osVersion = SystemInfo.operatingSystem;
        private readonly string deviceModel = SystemInfo.deviceModel;
        private readonly string appVersion = Application.version;
        private readonly string deviceId = SystemInfo.deviceUniqueIdentifier;

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
                Locale = CultureInfo.CurrentCulture.Name,
                Timezone = TimeZoneInfo.Local.Id,
                Idfv = ios ? deviceId : null,
                PlatformAdsToken = ios && PlatformAds.Enabled ? AdServicesToken() : null,
            };
#if UNITY_ANDROID && !UNITY_EDITOR
            signals.InstallReferrer = android.Referrer();
            signals.AdvertisingId = AndroidSignals.AdvertisingId();
#endif
            return signals;
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
