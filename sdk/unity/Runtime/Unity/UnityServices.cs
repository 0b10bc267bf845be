using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.InteropServices;
using UnityEngine;

namespace Service.Unity
{
    /// <summary>
    /// PlayerPrefs as the SDK's store writes them (<see cref="MainThreadStore"/>, which holds the
    /// rules of when): on the main thread only.
    /// </summary>
    internal sealed class UnityPrefs : IPrefs
    {
        public string Read(string key)
        {
            return PlayerPrefs.HasKey(key) ? PlayerPrefs.GetString(key) : null;
        }

        public void Write(string key, string value)
        {
            PlayerPrefs.SetString(key, value);
        }

        public void Delete(string key)
        {
            PlayerPrefs.DeleteKey(key);
        }

        public void Flush()
        {
            PlayerPrefs.Save();
        }
    }

    /// <summary>
    /// The IAB TCF values the app's consent platform (CMP) stored where the TCF says: on Android
    /// the app's default SharedPreferences (`&lt;package&gt;_preferences`, as
    /// PreferenceManager.getDefaultSharedPreferences names it), on iOS NSUserDefaults'
    /// standard defaults. PlayerPrefs holds neither. Read off the main thread.
    /// </summary>
    internal sealed class TcfSource : ITcfSource
    {
#if UNITY_IOS && !UNITY_EDITOR
        // Runtime/Plugins/iOS/ServiceSdkDevice.m.
        [DllImport("__Internal")]
        private static extern string ServiceSdkTcfString();

        [DllImport("__Internal")]
        private static extern int ServiceSdkTcfGdprApplies();
#endif

        public TcfValues Read()
        {
#if UNITY_ANDROID && !UNITY_EDITOR
            return AndroidSignals.Tcf();
#elif UNITY_IOS && !UNITY_EDITOR
            var applies = ServiceSdkTcfGdprApplies();
            return new TcfValues
            {
                TcString = ServiceSdkTcfString(),
                GdprApplies = applies == 0 || applies == 1 ? applies : (int?)null,
            };
#else
            return null;
#endif
        }
    }

    /// <summary>
    /// The device's signals; made on the main thread, read off it when the install is reported,
    /// and the tracking alone again at each start and return to the foreground once it is. The
    /// core fits each to what the service takes or leaves it out.
    /// </summary>
    internal sealed class UnityDevice : IDevice, IDeviceTracking, IPlatformAdsToken
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

        [DllImport("__Internal")]
        private static extern string ServiceSdkVendorId();

        [DllImport("__Internal")]
        private static extern string ServiceSdkTimeZone();
#endif
        private readonly RuntimePlatform platform = Application.platform;
        // "Android OS 14 / API-34 (…)" says "14", "iOS 17.4" says "17.4".
        private readonly string osVersion = Fields.OsVersion(SystemInfo.operatingSystem);
        private readonly string deviceModel = DeviceModel();
        private readonly string appVersion = Application.version;
        // Read here, on the main thread, as UIKit's values are.
        private readonly string vendorId = VendorId();
        private readonly string locale = DeviceLocale();
        private readonly string timeZone = DeviceTimeZone();

        public DeviceSignals Read()
        {
            var ios = platform == RuntimePlatform.IPhonePlayer;
            // For the install, Play services that cannot answer give no id: it goes without one.
            var tracking = TrackingNow(false);
            return new DeviceSignals
            {
                Os = tracking.Os,
                OsVersion = osVersion,
                DeviceModel = deviceModel,
                AppVersion = appVersion,
                Locale = locale,
                // An IANA name on Android and iOS; a Windows id in a Windows player or Editor.
                Timezone = timeZone,
                Idfv = ios ? vendorId : null,
                // Apple's AdServices token is read at each try of the install (ReadPlatformAdsToken).
                AdvertisingId = tracking.AdvertisingId,
                AttStatus = tracking.AttStatus,
            };
        }

        /// <summary>
        /// Apple's AdServices token, on iOS once the app called EnablePlatformAdsAttribution: read
        /// as each try of the install goes, so that a call made after Configure reaches a retried
        /// install, and the token sent is a fresh one (each is good for 24 hours).
        /// </summary>
        public string ReadPlatformAdsToken() =>
            platform == RuntimePlatform.IPhonePlayer && PlatformAds.Enabled ? AdServicesToken() : null;

        /// <summary>
        /// The OS, the advertising id and the ATT status alone, as they are now: the user may
        /// turn on limit ad tracking, delete the id or change ATT in Settings at any time.
        /// </summary>
        public DeviceSignals ReadTracking() => TrackingNow(true);

#if (UNITY_ANDROID || UNITY_IOS) && !UNITY_EDITOR
        private volatile bool readsAdvertisingId = true;

        public bool ReadsAdvertisingId
        {
            set { readsAdvertisingId = value; }
        }
#else
        // The Editor and the other players have no advertising id to read, or not.
        public bool ReadsAdvertisingId
        {
            set { }
        }
#endif

        /// <summary>
        /// The tracking as it is now. Strict: Play services that cannot answer throw, which
        /// says nothing of the id, so the caller keeps the tracking it had rather than telling
        /// the service the user withdrew it; otherwise they give none.
        /// </summary>
        private DeviceSignals TrackingNow(bool strict)
        {
            var signals = new DeviceSignals
            {
                // The service takes installs from Android and iOS; the Editor reports as Android.
                Os = platform == RuntimePlatform.IPhonePlayer ? "ios" : "android",
            };
#if UNITY_ANDROID && !UNITY_EDITOR
            // The Play install referrer comes apart (PlayInstallReferrer): the install may wait for it.
            if (readsAdvertisingId)
            {
                signals.AdvertisingId = strict
                    ? AndroidSignals.AdvertisingIdAsNow()
                    : AndroidSignals.AdvertisingId();
            }
#endif
#if UNITY_IOS && !UNITY_EDITOR
            signals.AttStatus = ServiceSdkTrackingStatus();
            // The IDFA only once the user allowed tracking (ATT), as the spec asks.
            if (readsAdvertisingId && signals.AttStatus == "authorized") signals.AdvertisingId = ServiceSdkAdvertisingId();
#endif
            return signals;
        }

        /// <summary>
        /// What tells this install of the app from another one a backup restored PlayerPrefs to
        /// (<see cref="SdkSetup.InstallFingerprint"/>); on the main thread, at load. Android: the
        /// package's first install time, which an update keeps and a reinstall or a new phone
        /// changes. iOS: the IDFV, which a restore to another iPhone changes. A reinstall on the
        /// same iPhone keeps the IDFV while another app of the same vendor stays installed: the
        /// data is kept then, which is right, as it is the same device. Elsewhere (the Editor, a
        /// desktop, WebGL) null: no check.
        /// </summary>
        public static string InstallFingerprint()
        {
#if UNITY_ANDROID && !UNITY_EDITOR
            var installedAt = AndroidSignals.FirstInstallTime();
            return installedAt == null ? null : installedAt.Value.ToString(CultureInfo.InvariantCulture);
#elif UNITY_IOS && !UNITY_EDITOR
            // Not there yet, no check: see VendorId.
            return VendorId();
#else
            return null;
#endif
        }

        /// <summary>
        /// The IDFV from iOS itself, or null while iOS has none (before the first unlock after a
        /// restart) and off iOS. Not SystemInfo.deviceUniqueIdentifier: Unity gives the IDFA when
        /// there is no IDFV, which would go as the install's `idfv` (the advertising id without
        /// ATT's consent) and, as the install's fingerprint, look like another install and forget
        /// a live install's data.
        /// </summary>
        private static string VendorId()
        {
#if UNITY_IOS && !UNITY_EDITOR
            return Fields.DeviceIdentifier(ServiceSdkVendorId());
#else
            return null;
#endif
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

        /// <summary>
        /// Apple's AdServices token, or null where there is none (before iOS 14.3, off iOS);
        /// throws when the framework could not make one now, for the core to read it again at
        /// the install's retry.
        /// </summary>
        private static string AdServicesToken()
        {
#if UNITY_IOS && !UNITY_EDITOR
            var token = ServiceSdkAdServicesToken();
            if (token == "") throw new InvalidOperationException("Apple's AdServices framework could not make a token now");
            return token;
#else
            return null;
#endif
        }

        /// <summary>
        /// The device's model as the Kotlin and iOS SDKs send it: Android's Build.MODEL
        /// ("Pixel 8"; Unity's SystemInfo.deviceModel puts the maker first there, "Google Pixel 8"),
        /// iOS's machine name ("iPhone15,2", which SystemInfo.deviceModel gives).
        /// </summary>
        private static string DeviceModel()
        {
#if UNITY_ANDROID && !UNITY_EDITOR
            return AndroidSignals.Model() ?? SystemInfo.deviceModel;
#else
            return SystemInfo.deviceModel;
#endif
        }

        /// <summary>
        /// The device's time zone, an IANA name, from the OS: Mono's TimeZoneInfo.Local on a phone
        /// is a zone of its own named "Local", which names no zone.
        /// </summary>
        private static string DeviceTimeZone()
        {
#if UNITY_IOS && !UNITY_EDITOR
            return ServiceSdkTimeZone();
#elif UNITY_ANDROID && !UNITY_EDITOR
            return AndroidSignals.TimeZone();
#else
            return TimeZoneInfo.Local.Id;
#endif
        }
    }

    /// <summary>
    /// The conversion values to Apple through the iOS plugin (Runtime/Plugins/iOS/ServiceSdkConversionValues.swift):
    /// SKAdNetwork, and AdAttributionKit from iOS 17.4. Each call returns at once; Apple's refusal
    /// comes back later, on a thread of its own, through a static callback (IL2CPP calls back
    /// only static methods), which hands it to the core's last handler. The re-engagement's
    /// update (iOS 18) has a callback and a handler of its own, so that its refusal reaches the
    /// core as the re-engagement's, whatever install update was made after it.
    /// </summary>
    internal sealed class IosConversionValues : IConversionValues
    {
        private delegate void Refused(string message);

#if UNITY_IOS && !UNITY_EDITOR
        [DllImport("__Internal")]
        private static extern void ServiceSdkRegisterConversion(Refused refused);

        [DllImport("__Internal")]
        private static extern void ServiceSdkUpdateConversionValue(int window, int fine, int coarse, int lockWindow, Refused refused);

        [DllImport("__Internal")]
        private static extern void ServiceSdkReengageConversion(Refused refused);

        private static readonly Refused OnRefused = Report;
        private static readonly Refused OnReengagementRefused = ReportReengagement;
#endif
        private static Action<string> failures;
        private static Action<string> reengagementFailures;

        public void Register(Action<string> failed)
        {
            failures = failed;
#if UNITY_IOS && !UNITY_EDITOR
            ServiceSdkRegisterConversion(OnRefused);
#endif
        }

        public void Update(ConversionCall call, Action<string> failed)
        {
            failures = failed;
#if UNITY_IOS && !UNITY_EDITOR
            // Ints across the boundary: a C# bool is marshalled as 4 bytes, a Swift Bool is 1.
            ServiceSdkUpdateConversionValue(call.Window, call.Fine ?? -1, (int)call.Coarse, call.Lock ? 1 : 0, OnRefused);
#endif
        }

        public void Reengage(Action<string> failed)
        {
            reengagementFailures = failed;
#if UNITY_IOS && !UNITY_EDITOR
            ServiceSdkReengageConversion(OnReengagementRefused);
#endif
        }

        [AOT.MonoPInvokeCallback(typeof(Refused))]
        private static void Report(string message)
        {
            var report = failures;
            if (report != null) report(message);
        }

        [AOT.MonoPInvokeCallback(typeof(Refused))]
        private static void ReportReengagement(string message)
        {
            var report = reengagementFailures;
            if (report != null) report(message);
        }
    }

    /// <summary>
    /// Time iOS lends an app that went to the background (UIApplication's beginBackgroundTask
    /// and endBackgroundTask, in Runtime/Plugins/iOS/ServiceSdkDevice.m), for the send the core
    /// makes then: without it iOS suspends the app within seconds, mid-request. iOS tells on the
    /// main thread when it takes the time back first (the plugin then ends the task), through a
    /// static callback (IL2CPP calls back only static methods), which finds the task's handler here.
    /// Before the time is given back, and when iOS takes it back, what the send changed (queue
    /// removals, the install recorded, drop counts, a deletion learned) is saved to PlayerPrefs
    /// on the main thread: off it the store only posts its save to the behaviour's queue, which
    /// does not run while the app is paused, and a suspended app may be ended without a word.
    /// The plugin reaches the main thread through the main dispatch queue, which does run then.
    /// </summary>
    internal sealed class IosBackgroundTime : IBackgroundTime
    {
        private delegate void Expired(long task);

        private delegate void OnMainQueue(long task);

#if UNITY_IOS && !UNITY_EDITOR
        [DllImport("__Internal")]
        private static extern long ServiceSdkBeginBackgroundTask(Expired expired);

        [DllImport("__Internal")]
        private static extern void ServiceSdkEndBackgroundTaskOnMainQueue(long task, OnMainQueue before);

        private static readonly Expired OnExpired = TakenBack;
        private static readonly OnMainQueue BeforeEnd = SaveBeforeEnd;
#endif
        /// <summary>The handler of each task not ended yet, by the task's number.</summary>
        private static readonly Dictionary<long, Action> Open = new Dictionary<long, Action>();

        /// <summary>Saves the SDK's state to PlayerPrefs and the disk; on the main thread only.</summary>
        private static Action save;

        public IosBackgroundTime(Action saveOnMainThread)
        {
            save = saveOnMainThread;
        }

        public Action Begin(Action expired)
        {
#if UNITY_IOS && !UNITY_EDITOR
            long task;
            lock (Open)
            {
                task = ServiceSdkBeginBackgroundTask(OnExpired);
                // 0 is UIBackgroundTaskInvalid: iOS lent no time.
                if (task == 0) return null;
                Open[task] = expired;
            }
            return () =>
            {
                lock (Open)
                {
                    if (!Open.Remove(task)) return;
                }
                // Saved on the main thread, then given back there; should iOS take the time back
                // first, TakenBack saves instead, and at worst an item sent is sent again.
                ServiceSdkEndBackgroundTaskOnMainQueue(task, BeforeEnd);
            };
#else
            return null;
#endif
        }

        /// <summary>On the main thread, from the plugin, just before the time is given back.</summary>
        [AOT.MonoPInvokeCallback(typeof(OnMainQueue))]
        private static void SaveBeforeEnd(long task)
        {
            Save();
        }

        /// <summary>On the main thread (iOS runs the expiration handler there), before the plugin ends the task.</summary>
        [AOT.MonoPInvokeCallback(typeof(Expired))]
        private static void TakenBack(long task)
        {
            // What the send changed so far, whether or not it was done: it was given back, its
            // save may still wait on the main queue, behind this handler.
            Save();
            Action expired;
            lock (Open)
            {
                if (!Open.TryGetValue(task, out expired)) return;
                Open.Remove(task);
            }
            // Nothing may be thrown back into the plugin.
            try
            {
                expired();
            }
            catch (Exception error)
            {
                Debug.LogError("[ServiceSdk] the handler of the background time taken back threw: " + error);
            }
        }

        /// <summary>Nothing may be thrown back into the plugin.</summary>
        private static void Save()
        {
            var saving = save;
            if (saving == null) return;
            try
            {
                saving();
            }
            catch (Exception error)
            {
                Debug.LogError("[ServiceSdk] the SDK's state was not saved in the background: " + error);
            }
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
