// In a file of its own name, as Unity wants of a MonoBehaviour.
using System;
using System.Collections.Generic;
using UnityEngine;

namespace Service.Unity
{
    /// <summary>
    /// The Unity layer: at load it gives <see cref="ServiceSDK"/> the engine's seams (PlayerPrefs,
    /// the device, Debug.Log, the main thread) and keeps one object alive across scenes, which
    /// tells the core when the app leaves the foreground and comes back. It holds no rule of its
    /// own. Unity calls its messages by name, which code stripping cannot see: they are kept.
    /// </summary>
    [UnityEngine.Scripting.Preserve]
    public sealed class ServiceSdkBehaviour : MonoBehaviour, IMainThread
    {
        private readonly Queue<Action> pending = new Queue<Action>();
        private MainThreadStore store;
#if UNITY_WEBGL && !UNITY_EDITOR
        private MainThreadScheduler scheduler;
#endif

#if UNITY_EDITOR
        /// <summary>The behaviour of the play session under way, whose quit handler the next session removes.</summary>
        private static ServiceSdkBehaviour installed;

        /// <summary>
        /// A play session starts in the Editor: with domain reload off (Enter Play Mode options)
        /// the last one's statics are still there, its handlers and its quit handler among them.
        /// </summary>
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        [UnityEngine.Scripting.Preserve]
        private static void ForgetLastPlaySession()
        {
            // Destroyed by now, so Unity's == calls it null; its C# object and handler remain.
            if (!ReferenceEquals(installed, null)) Application.quitting -= installed.Leave;
            installed = null;
            ServiceSDK.ForgetPlaySession();
        }
#endif

        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.BeforeSceneLoad)]
        [UnityEngine.Scripting.Preserve]
        private static void Install()
        {
            var host = new GameObject("ServiceSDK");
            DontDestroyOnLoad(host);
            var behaviour = host.AddComponent<ServiceSdkBehaviour>();
            behaviour.store = new MainThreadStore(
                new UnityPrefs(), behaviour, SdkCore.StoreKeys, message => new UnityLog().Write(LogLevel.Warn, message));
            // Raised on a quit however it comes, whatever the order of the behaviours' OnApplicationQuit.
            Application.quitting += behaviour.Leave;
#if UNITY_EDITOR
            installed = behaviour;
#endif
            var setup = new SdkSetup
            {
                Store = behaviour.store,
                Tcf = new TcfSource(),
                // Made here, on the main thread: it reads what only the main thread may.
                Device = new UnityDevice(),
                Log = new UnityLog(),
                MainThread = behaviour,
                Clock = new SystemClock(),
                // Read now, before the core reads any key, to forget what a backup brought from another install.
                InstallFingerprint = UnityDevice.InstallFingerprint(),
                // The link the app was opened with, which the app reads through ServiceSDK.LaunchUrl.
                LaunchUrl = Application.absoluteURL,
            };
#if UNITY_ANDROID && !UNITY_EDITOR
            // The Play install referrer: its first connection to the Play Store starts now, on the main thread.
            setup.InstallReferrer = new PlayInstallReferrer();
            // The intent that started the activity, whose data Unity gives in absoluteURL: a
            // relaunch from the recent apps gives the activity the intent that first made the
            // task again, link included, which LaunchUrl then withholds.
            setup.LaunchIntent = AndroidSignals.ActivityIntent();
#endif
#if UNITY_IOS && !UNITY_EDITOR
            // The conversion values the core evaluates go to SKAdNetwork and AdAttributionKit.
            setup.ConversionValues = new IosConversionValues();
            // What is queued as the app goes to the background is sent in time iOS lends for it,
            // and what the send changed is saved before that time is given back.
            setup.BackgroundTime = new IosBackgroundTime(behaviour.store.SaveOnMainThread);
#endif
#if UNITY_WEBGL && !UNITY_EDITOR
            behaviour.scheduler = new MainThreadScheduler();
            setup.Scheduler = behaviour.scheduler;
            setup.Transport = new UnityWebRequestTransport();
#endif
#if !UNITY_EDITOR && !UNITY_ANDROID && !UNITY_IOS
            // The service takes installs from Android and iOS: a desktop's, a browser's or a
            // console's would read as an Android phone's (and a browser's requests are refused by
            // its cross-origin rules). The Editor sends, for trying an integration out.
            setup.Unsupported = "this player (" + Application.platform + ") is neither Android nor iOS, the platforms the service takes installs from";
#endif
            ServiceSDK.UsePlatform(setup);
#if (UNITY_ANDROID || UNITY_IOS) && !UNITY_EDITOR
            // The link that opened the app, for the install's open_url, whether or not the app
            // hands it to HandleUniversalLink or HandleDeepLink: Unity gives a cold start's link
            // in absoluteURL alone, and raises deepLinkActivated for those that come later (an
            // iOS Universal Link may come just after load). The core keeps the first http(s) one
            // before the install is sent. Not on WebGL, whose absoluteURL is the page's address.
            // Taken here even from an intent the recent apps relaunched, which LaunchUrl withholds
            // from the app: it is the link that first opened the task, whose click an install not
            // yet sent should carry, and noting it delivers nothing.
            ServiceSDK.NoteOpenUrl(Application.absoluteURL);
            Application.deepLinkActivated += ServiceSDK.NoteOpenUrl;
#endif
        }

        public void Post(Action action)
        {
            lock (pending) pending.Enqueue(action);
        }

        [UnityEngine.Scripting.Preserve]
        private void Update()
        {
#if UNITY_WEBGL && !UNITY_EDITOR
            scheduler.Tick();
#endif
            while (true)
            {
                Action next;
                lock (pending)
                {
                    if (pending.Count == 0) return;
                    next = pending.Dequeue();
                }
                next();
            }
        }

        /// <remarks>
        /// The app's own OnApplicationPause may run before or after this one: what it changed
        /// before is saved here, what it changes after is saved as it changes (the store is
        /// <see cref="MainThreadStore.Leaving"/> until the app is back).
        /// </remarks>
        [UnityEngine.Scripting.Preserve]
        private void OnApplicationPause(bool paused)
        {
            store.Leaving = paused;
            if (paused) store.SaveOnMainThread();
#if (UNITY_ANDROID || UNITY_IOS) && !UNITY_EDITOR
            // On a phone the app leaves the foreground when it pauses; its focus goes for less
            // (the on-screen keyboard, a system prompt), which is no time away.
            Away(paused);
#endif
        }

        [UnityEngine.Scripting.Preserve]
        private void OnApplicationFocus(bool focused)
        {
            // The focus goes first when a phone's app leaves (and a desktop one may be closed
            // from its task bar unfocused): one save then costs little and may be the last.
            if (!focused) store.SaveOnMainThread();
#if !((UNITY_ANDROID || UNITY_IOS) && !UNITY_EDITOR)
            // On a desktop, in a browser tab, in the Editor: away while another window has the focus.
            Away(!focused);
#endif
        }

        /// <summary>Sessions and the send as the app goes: the core decides, from these; the behaviour only forwards.</summary>
        private static void Away(bool away)
        {
            if (away) ServiceSDK.EnteredBackground();
            else ServiceSDK.EnteredForeground();
        }

        [UnityEngine.Scripting.Preserve]
        private void OnApplicationQuit()
        {
            Leave();
        }

        /// <summary>The app quits: what changed is saved, and any change made on the main thread from now on as it is made.</summary>
        private void Leave()
        {
            store.Leaving = true;
            store.SaveOnMainThread();
        }
    }
}
