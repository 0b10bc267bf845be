using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// The listeners as the SDK runs again, started after a stop or switched on after a launch
    /// switched off (listeners.json, docs/sdks.md): they hear the kept attribution, and a
    /// deferred deep link waiting on the device is handed over.
    /// </summary>
    [TestFixture]
    public class ListenersRunningAgainTests
    {
        private sealed class Launch
        {
            public readonly SdkCore Core;
            public readonly QueuedMainThread Main = new QueuedMainThread();
            public readonly ManualTimers Timers = new ManualTimers();

            public Launch(ScriptedBackend backend, IKeyValueStore store)
            {
                Core = new SdkCore(Setups.For("http://service.test", backend, store, scheduler: Timers, mainThread: Main));
            }

            public Launch Configured()
            {
                Core.Configure("sdk_key", 1, null);
                Core.Idle().Wait();
                Main.Drain();
                return this;
            }
        }

        private const string Matched = "{\"service_match_status\":\"matched\",\"media_source\":\"facebook_ads\",\"deep_link_path\":\"/levels/7\"}";

        private static ScriptedBackend Backend(Func<bool> enabled)
        {
            return new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("GET /v1/config")
                    ? Tuple.Create(200, (JToken)new JObject { { "enabled", enabled() } })
                    : key.Contains("/attribution") ? Tuple.Create(200, (JToken)JObject.Parse(Matched)) : ScriptedBackend.Usual(key, body),
            };
        }

        /// <summary>
        /// A listener set while stopped hears nothing then, and the kept attribution once Start()
        /// runs, though the launch told its other listeners before the Stop.
        /// </summary>
        [Test]
        public void AnAttributionListenerSetWhileStoppedHearsTheKeptMapOnceStarted()
        {
            var store = new MemoryStore();
            var backend = Backend(() => true);
            var first = new Launch(backend, store);
            var firstHeard = new List<Dictionary<string, object>>();
            first.Core.Listeners.AddAttribution(firstHeard.Add);
            first.Configured();
            Assert.AreEqual(1, firstHeard.Count, "the attribution is resolved and kept");

            // The next launch: the kept map told at Configure, then the user opts out and in again.
            var launch = new Launch(backend, store);
            var told = new List<Dictionary<string, object>>();
            launch.Core.Listeners.AddAttribution(told.Add);
            launch.Configured();
            Assert.AreEqual(1, told.Count, "told at the start");

            launch.Core.Stop();
            var late = new List<Dictionary<string, object>>();
            launch.Core.Listeners.AddAttribution(late.Add);
            launch.Main.Drain();
            Assert.IsEmpty(late, "never while stopped");

            launch.Core.Start();
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(1, late.Count, "a listener set while stopped hears the kept attribution once Start() runs");
        }

        /// <summary>
        /// At a launch after one the app was switched off in, the SDK is off until its first
        /// reading; when that reading says on, the listeners set before Configure hear the kept
        /// attribution, and the deferred deep link waiting on the device is handed over.
        /// </summary>
        [Test]
        public void ALaunchSwitchedOnAgainByItsFirstReadingTellsTheKeptAttributionAndTheWaitingDeferredLink()
        {
            var store = new MemoryStore();
            var on = true;
            var backend = Backend(() => Volatile.Read(ref on));
            // Launch 1: attribution listener only; the deferred link waits on the device.
            var first = new Launch(backend, store);
            var firstHeard = new List<Dictionary<string, object>>();
            first.Core.Listeners.AddAttribution(firstHeard.Add);
            first.Configured();
            Assert.AreEqual(1, firstHeard.Count);

            // Launch 2: the owner switched the app off.
            Volatile.Write(ref on, false);
            var second = new Launch(backend, store).Configured();
            Assert.IsTrue(second.Core.IsSdkDisabled);

            // Launch 3: switched on again; listeners set before Configure, as the README says.
            Volatile.Write(ref on, true);
            var third = new Launch(backend, store);
            var heard = new Heard(third.Core.Listeners);
            third.Configured();
            Assert.IsFalse(third.Core.IsSdkDisabled, "on, as the reading says");
            // Both at once, so that the failure shows each.
            Assert.AreEqual("1 attribution, 1 deferred deep link",
                heard.Attributions.Count + " attribution, " + heard.DeepLinks.Count + " deferred deep link",
                "the kept attribution at this start, and the deferred deep link that waited on the device");
        }
    }
}
