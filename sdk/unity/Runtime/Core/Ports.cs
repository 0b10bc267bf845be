using System;

namespace Service.Unity
{
    /// <summary>Small string store kept across launches: PlayerPrefs in Unity.</summary>
    public interface IKeyValueStore
    {
        string Get(string key);
        void Set(string key, string value);
        void Remove(string key);
    }

    /// <summary>
    /// A store whose writes reach the disk only when saved, as PlayerPrefs' do: the core saves
    /// it within a second of each change, and at once when the install's id is made.
    /// </summary>
    public interface IDiskStore : IKeyValueStore
    {
        void Save();
    }

    /// <summary>
    /// A store that takes a value it makes when it needs it, at its save or at a
    /// <see cref="IKeyValueStore.Get"/>, rather than at each change: a queue of a thousand events
    /// is then written out once a save, not once a SendEvent. The value is the key's until a later
    /// Set, SetLater or Remove of it. The store may call <c>value</c> on any thread, never while it
    /// holds a lock of its own: the value takes its owner's lock, which the owner may hold while
    /// it calls the store.
    /// </summary>
    internal interface ILaterStore
    {
        void SetLater(string key, Func<string> value);
    }

    /// <summary>
    /// The IAB TCF values the app's consent platform stored on the device, where the platform
    /// keeps them (Android: the default SharedPreferences; iOS: NSUserDefaults); read at each
    /// start, off the main thread. A read that fails throws (the values read last then stand);
    /// null or empty values are "none stored", which the service is told.
    /// </summary>
    public interface ITcfSource
    {
        TcfValues Read();
    }

    /// <summary>What the device says about itself on the first launch; null where unknown.</summary>
    public sealed class DeviceSignals
    {
        /// <summary>"android" or "ios": the platforms whose installs the service takes.</summary>
        public string Os { get; set; }
        public string OsVersion { get; set; }
        public string DeviceModel { get; set; }
        public string AppVersion { get; set; }
        public string Locale { get; set; }
        public string Timezone { get; set; }
        public string AdvertisingId { get; set; }
        public string Idfv { get; set; }
        public string AttStatus { get; set; }
        public string PlatformAdsToken { get; set; }
        public InstallReferrer InstallReferrer { get; set; }
        /// <summary>The link that opened the app on its first launch, if any.</summary>
        public string OpenUrl { get; set; }
    }

    /// <summary>What Google Play's install referrer API gave, timestamps in Unix seconds.</summary>
    public sealed class InstallReferrer
    {
        public string Referrer { get; set; }
        public long? ClickTimestampSeconds { get; set; }
        public long? InstallBeginTimestampSeconds { get; set; }
        public long? ReferrerClickTimestampServerSeconds { get; set; }
        public long? InstallBeginTimestampServerSeconds { get; set; }
        public string InstallVersion { get; set; }
    }

    /// <summary>
    /// The Android intent the app's activity was started with, as much of it as says whether the
    /// launch link was tapped for this launch (<see cref="SdkSetup.LaunchIntent"/>).
    /// </summary>
    public sealed class LaunchIntent
    {
        /// <summary>Intent.getAction(): `android.intent.action.VIEW` for a tapped link; null for none.</summary>
        public string Action { get; set; }
        /// <summary>Intent.getFlags().</summary>
        public int Flags { get; set; }
    }

    /// <summary>The device's own signals, read once when the SDK starts.</summary>
    public interface IDevice
    {
        DeviceSignals Read();
    }

    /// <summary>
    /// An <see cref="IDevice"/> that reads the device's tracking alone: its <c>Os</c>,
    /// <c>AdvertisingId</c> and <c>AttStatus</c>, the rest left null. The core reads it again at
    /// each start and each return to the foreground once the install is recorded, so it skips
    /// what <see cref="IDevice.Read"/> costs beyond it (Apple's AdServices token); a device
    /// without it is read whole instead. Off the main thread.
    /// </summary>
    internal interface IDeviceTracking
    {
        DeviceSignals ReadTracking();

        /// <summary>
        /// Whether the advertising id is read at all, by this read and by <see cref="IDevice.Read"/>:
        /// not in anonymous mode, which sends none (the core sets it whenever the mode changes).
        /// </summary>
        bool ReadsAdvertisingId { set; }
    }

    /// <summary>
    /// An <see cref="IDevice"/> that reads Apple's AdServices token apart: the core reads it at
    /// each try of the install, off the main thread, not once with the device. The app may ask
    /// for it (EnablePlatformAdsAttribution) after Configure, once a try went without it, and a
    /// token is good for 24 hours, which an install retried offline may outlast. Null when there
    /// is none to give (not iOS, not asked for, AdServices without one).
    /// </summary>
    internal interface IPlatformAdsToken
    {
        string ReadPlatformAdsToken();
    }

    /// <summary>
    /// Google Play's install referrer (Android), read off the main thread each time the install
    /// is about to be sent until it answers for good. Null when there is none to give (not
    /// installed from Play, no Play Store, the library missing, an answer that is final); a
    /// <see cref="ReferrerUnavailableException"/> when the Play Store cannot answer now.
    /// </summary>
    public interface IInstallReferrerSource
    {
        InstallReferrer Read();
    }

    /// <summary>The Play Store could not answer now (unavailable, disconnected, too slow): asked again at the install's next try.</summary>
    public sealed class ReferrerUnavailableException : Exception
    {
        public ReferrerUnavailableException(string message) : base(message) { }
    }

    public enum LogLevel
    {
        Debug = 0,
        Info = 1,
        Warn = 2,
        Error = 3,
    }

    public interface ILog
    {
        void Write(LogLevel level, string message);
    }

    /// <summary>Runs app callbacks where the app expects them: Unity's main thread.</summary>
    public interface IMainThread
    {
        void Post(Action action);
    }

    public interface IClock
    {
        DateTime UtcNow { get; }
    }

    /// <summary>
    /// Where the conversion values the app's schema makes go: SKAdNetwork and AdAttributionKit
    /// through the iOS plugin. Each call returns at once, whatever Apple does with it (event
    /// delivery never waits on it); <c>failed</c> runs later, on any thread, with Apple's error
    /// when it refused.
    /// </summary>
    internal interface IConversionValues
    {
        /// <summary>The install's first launch told to Apple (its postback needs it), with no value yet.</summary>
        void Register(Action<string> failed);

        /// <summary>One update the evaluation made.</summary>
        void Update(ConversionCall call, Action<string> failed);

        /// <summary>
        /// An AdAttributionKit re-engagement opened the app: one update of fine value 0 for the
        /// re-engagement's conversions alone (iOS 18 and later; nothing below, or in an app built
        /// with Xcode before 16).
        /// </summary>
        void Reengage(Action<string> failed);
    }

    /// <summary>
    /// Time the OS lends an app that went to the background to finish what it started: iOS's
    /// background tasks (UIApplication beginBackgroundTask and endBackgroundTask). Without it iOS
    /// suspends the app within seconds, mid-request.
    /// </summary>
    internal interface IBackgroundTime
    {
        /// <summary>
        /// Asks for time, on the main thread as the app goes to the background. Returns what gives
        /// it back (from any thread; a second call does nothing), or null when none was lent. The
        /// platform saves the store before the time is given back, and when the OS takes it back:
        /// the core's own save, made off the main thread, may wait for the app's return.
        /// <paramref name="expired"/> runs when the OS takes the time back first, which ends it.
        /// </summary>
        Action Begin(Action expired);
    }
}
