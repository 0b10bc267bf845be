using System;
using System.Linq;
using System.Threading;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// The device's tracking (advertising id, ATT status) the install reported, read again at each
    /// start and each return from the background once the install is recorded, and sent with the
    /// consent through its route when it differs, against a scripted backend.
    /// </summary>
    [TestFixture]
    public class TrackingTests
    {
        private const string Gaid = "38400000-8cf0-11bd-b23e-10b96e40000d";
        private const string Idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC";

        /// <summary>A device whose tracking a test changes, read as the Unity layer reads it: alone, through <see cref="IDeviceTracking"/>.</summary>
        private sealed class TrackedDevice : IDevice, IDeviceTracking
        {
            public string Os = "android";
            public string AdvertisingId = Gaid;
            public string AttStatus;
            /// <summary>Reading the tracking throws (Play services gone, say).</summary>
            public volatile bool Broken;
            public int Reads;
            public int TrackingReads;

            public DeviceSignals Read()
            {
                Interlocked.Increment(ref Reads);
                var signals = Tracking();
                signals.OsVersion = "14";
                signals.DeviceModel = "Pixel 8";
                signals.Idfv = Os == "ios" ? "6F9619FF-8B86-D011-B42D-00CF4FC964FF" : null;
                return signals;
            }

            public DeviceSignals ReadTracking()
            {
                Interlocked.Increment(ref TrackingReads);
                if (Broken) throw new InvalidOperationException("Play services are not there");
                return Tracking();
            }

            /// <summary>As the Unity layer: no advertising id read while the core says not to.</summary>
            public volatile bool ReadsId = true;
            /// <summary>How many reads gave the advertising id (read it from Play services).</summary>
            public int IdReads;

            public bool ReadsAdvertisingId
            {
                set { ReadsId = value; }
            }

            private DeviceSignals Tracking()
            {
                if (ReadsId) Interlocked.Increment(ref IdReads);
                lock (this) return new DeviceSignals { Os = Os, AdvertisingId = ReadsId ? AdvertisingId : null, AttStatus = AttStatus };
            }
        }

        private MemoryStore store;
        private ScriptedBackend backend;

        /// <summary>A new device's store and a backend of its own for each test: NUnit runs them all on one instance.</summary>
        [SetUp]
        public void NewDevice()
        {
            store = new MemoryStore();
            backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
        }

        /// <summary>One launch of the app on the store: configured, and done with what it sends.</summary>
        private SdkCore Launch(IDevice device)
        {
            var core = new SdkCore(Setups.For("http://service.test", backend, store, device));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            return core;
        }

        private JObject[] Updates()
        {
            lock (backend.Requests) return backend.Requests.Where(r => r.Key.EndsWith("/consent")).Select(r => (JObject)r.Value).ToArray();
        }

        /// <summary>The `device` expected, its nulls JSON's null, as the backend parses them.</summary>
        private static JObject Device(string maid, string attStatus)
        {
            Func<string, JValue> text = value => value == null ? JValue.CreateNull() : new JValue(value);
            return new JObject { { "maid", text(maid) }, { "att_status", text(attStatus) } };
        }

        private static void AssertDevice(JObject expected, JToken actual)
        {
            Assert.IsTrue(JToken.DeepEquals(expected, actual), "device: " + actual);
        }

        [Test]
        public void TheSameTrackingAtALaterStartOrReturnSendsNoUpdate()
        {
            var device = new TrackedDevice();
            Launch(device);
            Assert.AreEqual(Gaid, (string)backend.Requests.Single(r => r.Key == "POST /v1/installs").Value["maid"]);
            var readsAtInstall = device.TrackingReads;

            var next = Launch(device);
            next.EnteredBackground();
            next.EnteredForeground();
            next.Idle().Wait();
            CollectionAssert.IsEmpty(Updates());
            Assert.AreEqual(readsAtInstall + 2, device.TrackingReads, "read at the start and at the return");
            Assert.AreEqual(1, device.Reads, "the device read whole only for the install");
        }

        [Test]
        public void AnAdvertisingIdGoneAtALaterStartIsSentOnceWithNoMaid()
        {
            var device = new TrackedDevice();
            Launch(device);
            // Limit ad tracking turned on, or the id deleted, while the app was not running.
            device.AdvertisingId = null;
            var next = Launch(device);
            var update = Updates().Single();
            AssertDevice(Device(null, null), update["device"]);
            Assert.IsTrue(JToken.DeepEquals(
                JObject.Parse("{\"gdpr_applies\":null,\"ad_user_data\":null,\"ad_personalization\":null,\"tcf_string\":null}"), update["consent"]),
                "the consent as it stands, none known: " + update["consent"]);
            Assert.AreEqual(1, backend.Requests.Count(r => r.Key == "POST /v1/installs"), "the install is not reported again");
            Assert.AreEqual("{\"maid\":null,\"att_status\":null}", store.Get(ConsentState.TrackingSentKey), "kept as told");

            next.SendEvent(EventType.SHARE, null, null);
            next.Idle().Wait();
            Launch(device);
            Assert.AreEqual(1, Updates().Length, "told once");
        }

        [Test]
        public void AttDeniedAtALaterStartIsSentWithNoIdfa()
        {
            var device = new TrackedDevice { Os = "ios", AdvertisingId = Idfa, AttStatus = "authorized" };
            Launch(device);
            var install = backend.Requests.Single(r => r.Key == "POST /v1/installs").Value;
            Assert.AreEqual(Idfa, (string)install["maid"]);
            Assert.AreEqual("authorized", (string)install["att_status"]);
            // Tracking turned off in iOS's Settings; iOS gives the all-zero id then.
            device.AttStatus = "denied";
            device.AdvertisingId = "00000000-0000-0000-0000-000000000000";
            Launch(device);
            AssertDevice(Device(null, "denied"), Updates().Single()["device"]);
        }

        [Test]
        public void TrackingChangedWhileAwayIsSentAtTheReturnToTheForeground()
        {
            var device = new TrackedDevice { Os = "ios", AdvertisingId = null, AttStatus = "not_determined" };
            var core = Launch(device);
            core.EnteredBackground();
            // The user allowed tracking in Settings meanwhile.
            device.AttStatus = "authorized";
            device.AdvertisingId = Idfa;
            core.Idle().Wait();
            CollectionAssert.IsEmpty(Updates(), "not read while away");
            core.EnteredForeground();
            core.Idle().Wait();
            AssertDevice(Device(Idfa, "authorized"), Updates().Single()["device"]);
            // A resume with no time away before it (Unity tells of one at launch) reads nothing again.
            var reads = device.TrackingReads;
            core.EnteredForeground();
            core.Idle().Wait();
            Assert.AreEqual(reads, device.TrackingReads);
        }

        [Test]
        public void TheTrackingIsReadOnceAStartNotOnceASend()
        {
            var device = new TrackedDevice();
            Launch(device);
            var next = Launch(device);
            var reads = device.TrackingReads;
            for (var n = 0; n < 3; n++)
            {
                next.SendEvent(EventType.SHARE, null, null);
                next.Idle().Wait();
            }
            Assert.AreEqual(3, backend.Requests.Count(r => r.Key == "POST /v1/events"));
            Assert.AreEqual(reads, device.TrackingReads);
        }

        [Test]
        public void TrackingChangedWhileStoppedIsSentAtStart()
        {
            var device = new TrackedDevice { Os = "ios", AdvertisingId = null, AttStatus = "not_determined" };
            var core = Launch(device);
            core.Stop();
            device.AttStatus = "authorized";
            device.AdvertisingId = Idfa;
            core.Start();
            core.Idle().Wait();
            AssertDevice(Device(Idfa, "authorized"), Updates().Single()["device"]);
        }

        [Test]
        public void AnonymousModeOnAfterTheInstallSendsMaidNullAndOffAgainTheId()
        {
            var device = new TrackedDevice();
            var core = Launch(device);
            var reads = device.TrackingReads;
            core.SetAnonymous(true);
            core.Idle().Wait();
            AssertDevice(Device(null, null), Updates().Single()["device"]);
            Assert.AreEqual(reads, device.TrackingReads, "on, nothing of the device is read again: the id is left out");
            core.SetAnonymous(true);
            core.Idle().Wait();
            Assert.AreEqual(1, Updates().Length, "unchanged: nothing sent");
            core.SetAnonymous(false);
            core.Idle().Wait();
            Assert.AreEqual(2, Updates().Length);
            AssertDevice(Device(Gaid, null), Updates()[1]["device"]);
        }

        [Test]
        public void AnonymousFromTheFirstLaunchReadsNoAdvertisingIdUntilTheModeIsOff()
        {
            var device = new TrackedDevice();
            var core = new SdkCore(Setups.For("http://service.test", backend, store, device));
            core.SetAnonymous(true);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            core.EnteredBackground();
            core.EnteredForeground();
            core.Idle().Wait();
            Assert.AreEqual(0, device.IdReads, "not even read");
            var install = backend.Requests.Single(r => r.Key == "POST /v1/installs").Value;
            Assert.AreEqual(JTokenType.Null, install["maid"].Type);
            // A next launch in the mode, as the store keeps it: still none read. Its timers held,
            // so that it does nothing more once done with its start.
            var next = new TrackedDevice();
            var nextLaunch = new SdkCore(Setups.For("http://service.test", backend, store, next, scheduler: new ManualTimers()));
            nextLaunch.Configure("sdk_key", 1, null);
            nextLaunch.Idle().Wait();
            Assert.AreEqual(0, next.IdReads);

            core.SetAnonymous(false);
            core.Idle().Wait();
            Assert.Greater(device.IdReads, 0);
            AssertDevice(Device(Gaid, null), Updates().Last()["device"]);
        }

        [Test]
        public void NothingOfTheTrackingGoesBeforeTheInstallIsRecorded()
        {
            var device = new TrackedDevice();
            var timers = new ManualTimers();
            backend.Answer = (key, body) => key == "POST /v1/installs"
                ? Tuple.Create(503, (JToken)new JObject())
                : ScriptedBackend.Usual(key, body);
            var core = new SdkCore(Setups.For("http://service.test", backend, store, device, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            device.AdvertisingId = null;
            core.SetAnonymous(true);
            core.EnteredBackground();
            core.EnteredForeground();
            core.Idle().Wait();
            timers.FireUpTo(TimeSpan.FromMinutes(1));
            core.Idle().Wait();
            CollectionAssert.IsEmpty(Updates(), "no consent route before the install");
            Assert.AreEqual(backend.Requests.Count(r => r.Key == "POST /v1/installs"), device.TrackingReads,
                "read for the install's tries alone");

            backend.Answer = ScriptedBackend.Usual;
            timers.FireUpTo(TimeSpan.FromMinutes(1));
            core.Idle().Wait();
            var install = backend.Requests.Last(r => r.Key == "POST /v1/installs").Value;
            Assert.AreEqual(JTokenType.Null, install["maid"].Type, "the install reports the tracking as it stands when it goes");
            Assert.IsNotNull(store.Get("service_sdk.install_tracked"));
            CollectionAssert.IsEmpty(Updates(), "nothing left to update");
        }

        [Test]
        public void ATrackingUpdateAnswered409SendsTheInstallAgainWithTheTrackingNow()
        {
            var device = new TrackedDevice();
            Launch(device);
            var conflicts = 0;
            backend.Answer = (key, body) => key.EndsWith("/consent") && Interlocked.Increment(ref conflicts) == 1
                ? Tuple.Create(409, (JToken)JObject.Parse("{\"error\":\"Conflict\",\"detail\":\"no install\"}"))
                : ScriptedBackend.Usual(key, body);
            device.AdvertisingId = null;
            var timers = new ManualTimers();
            var next = new SdkCore(Setups.For("http://service.test", backend, store, device, scheduler: timers));
            next.Configure("sdk_key", 1, null);
            next.Idle().Wait();
            timers.FireUpTo(TimeSpan.FromMinutes(1));
            next.Idle().Wait();
            Assert.AreEqual(1, Updates().Length);
            var installs = backend.Requests.Where(r => r.Key == "POST /v1/installs").Select(r => r.Value).ToList();
            Assert.AreEqual(2, installs.Count, "the install sent again");
            Assert.AreEqual(JTokenType.Null, installs[1]["maid"].Type, "with the tracking now");
            Assert.AreEqual(1, Updates().Length, "the install carried it: not sent again");
        }

        [Test]
        public void AnInstallSentAgainInTheSameProcessCarriesTheTrackingNowNotItsFirstRead()
        {
            var device = new TrackedDevice { Os = "ios", AdvertisingId = Idfa, AttStatus = "authorized" };
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", backend, store, device, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.AreEqual(Idfa, (string)backend.Requests.Single(r => r.Key == "POST /v1/installs").Value["maid"]);
            var conflicts = 0;
            backend.Answer = (key, body) => key.EndsWith("/consent") && Interlocked.Increment(ref conflicts) == 1
                ? Tuple.Create(409, (JToken)JObject.Parse("{\"error\":\"Conflict\",\"detail\":\"no install\"}"))
                : ScriptedBackend.Usual(key, body);
            // Tracking turned off in Settings while the app runs, then the service turns out to
            // hold no install: the install goes again in this process, without the id.
            device.AttStatus = "denied";
            device.AdvertisingId = null;
            core.SetConsent(new ServiceConsent(true, true, false));
            core.Idle().Wait();
            timers.FireUpTo(TimeSpan.FromMinutes(1));
            core.Idle().Wait();
            var installs = backend.Requests.Where(r => r.Key == "POST /v1/installs").Select(r => r.Value).ToList();
            Assert.AreEqual(2, installs.Count, "the install sent again");
            Assert.AreEqual(JTokenType.Null, installs[1]["maid"].Type, "with the tracking as it is now");
            Assert.AreEqual("denied", (string)installs[1]["att_status"]);
            Assert.AreEqual(1, device.Reads, "the device read whole once a process");
        }

        [Test]
        public void ATrackingTheDeviceCannotSayLeavesTheServicesAsItIs()
        {
            var device = new TrackedDevice();
            Launch(device);
            device.Broken = true;
            var next = Launch(device);
            CollectionAssert.IsEmpty(Updates(), "unknown is no change");
            next.SetConsent(new ServiceConsent(true, false, false));
            next.Idle().Wait();
            var update = Updates().Single();
            Assert.IsNull(update.Property("device"), "no device: the service keeps what it has");
            Assert.AreEqual(false, (bool?)update["consent"]["ad_user_data"]);
        }

        [Test]
        public void ATrackingUpdateRefusedForGoodIsNotSentAgainUntilTheTrackingChangesAgain()
        {
            backend.Answer = (key, body) => key.EndsWith("/consent")
                ? Tuple.Create(422, (JToken)new JObject { { "error", "Unprocessable Entity" }, { "detail", "device: refused" } })
                : ScriptedBackend.Usual(key, body);
            var device = new TrackedDevice();
            Launch(device);
            device.AdvertisingId = null;
            Launch(device);
            Assert.AreEqual(1, Updates().Length, "the advertising id gone, refused");
            Launch(device);
            Assert.AreEqual(1, Updates().Length, "refused again if sent again as it was");
            device.AdvertisingId = Gaid;
            Launch(device);
            Assert.AreEqual(2, Updates().Length);
            AssertDevice(Device(Gaid, null), Updates()[1]["device"]);
        }

        [Test]
        public void AnInstallRecordedWithoutItsTrackingKeptTellsTheTrackingOnce()
        {
            var device = new TrackedDevice();
            Launch(device);
            // As an app stopped between the two writes leaves the device: the install recorded, its tracking not kept.
            store.Remove(ConsentState.TrackingSentKey);
            Launch(device);
            AssertDevice(Device(Gaid, null), Updates().Single()["device"]);
            Launch(device);
            Assert.AreEqual(1, Updates().Length);
        }
    }
}
