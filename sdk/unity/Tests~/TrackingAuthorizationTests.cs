using System;
using System.Linq;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// WaitForTrackingAuthorization: on iOS the first install waits for the app's App Tracking
    /// Transparency answer, up to the time given, so that it carries the IDFA when the user allows
    /// tracking; against a scripted backend, with the clock and the timers in the test's hands.
    /// </summary>
    [TestFixture]
    public class TrackingAuthorizationTests
    {
        private const string Idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC";
        private static readonly TimeSpan Check = SdkCore.TrackingCheckInterval;

        /// <summary>A device whose tracking the test changes, read alone as the Unity layer reads it.</summary>
        private sealed class Phone : IDevice, IDeviceTracking
        {
            public string Os = "ios";
            public string AttStatus = "not_determined";
            public string AdvertisingId;

            public DeviceSignals Read()
            {
                var signals = ReadTracking();
                signals.OsVersion = "18.1";
                signals.DeviceModel = "iPhone16,2";
                return signals;
            }

            public DeviceSignals ReadTracking()
            {
                lock (this) return new DeviceSignals { Os = Os, AdvertisingId = AdvertisingId, AttStatus = AttStatus };
            }

            public bool ReadsAdvertisingId
            {
                set { }
            }

            /// <summary>The user answered the app's prompt.</summary>
            public void Answer(string status, string idfa)
            {
                lock (this)
                {
                    AttStatus = status;
                    AdvertisingId = idfa;
                }
            }
        }

        private MemoryStore store;
        private ScriptedBackend backend;
        private ManualTimers timers;
        private SettableClock clock;
        private ListLog log;

        [SetUp]
        public void NewDevice()
        {
            store = new MemoryStore();
            backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            timers = new ManualTimers();
            clock = new SettableClock { Held = new DateTime(2026, 12, 2, 9, 0, 0, DateTimeKind.Utc) };
        }

        /// <summary>An SDK on the device, not configured yet.</summary>
        private SdkCore Sdk(Phone phone)
        {
            var setup = Setups.For("http://service.test", backend, store, phone, clock, timers);
            log = (ListLog)setup.Log;
            return new SdkCore(setup);
        }

        /// <summary>
        /// An SDK on the device told to wait up to <paramref name="seconds"/> for the ATT answer,
        /// configured, and done with what it sends meanwhile.
        /// </summary>
        private SdkCore Waiting(Phone phone, int seconds = 60)
        {
            var sdk = Sdk(phone);
            sdk.WaitForTrackingAuthorization(seconds);
            sdk.Configure("sdk_key", 1, null);
            sdk.Idle().Wait();
            return sdk;
        }

        /// <summary>An SDK on the device, configured with no wait, and done with what it sends.</summary>
        private void Launched(Phone phone)
        {
            var sdk = Sdk(phone);
            sdk.Configure("sdk_key", 1, null);
            sdk.Idle().Wait();
        }

        private JToken[] Installs()
        {
            lock (backend.Requests) return backend.Requests.Where(r => r.Key == "POST /v1/installs").Select(r => r.Value).ToArray();
        }

        private string[] Sent()
        {
            lock (backend.Requests) return backend.Requests.Select(r => r.Key).Where(k => !k.StartsWith("GET /v1/config")).ToArray();
        }

        /// <summary>The next read of the ATT status, a second on.</summary>
        private void NextCheck(SdkCore sdk)
        {
            clock.Held += Check;
            Assert.AreEqual(1, timers.Fire(Check), "one read of the status scheduled, a second on");
            sdk.Idle().Wait();
        }

        [Test]
        public void TheInstallWaitsWhileTheStatusIsNotDeterminedAndGoesWithTheIdfaOnceAllowed()
        {
            var phone = new Phone();
            var sdk = Sdk(phone);
            sdk.WaitForTrackingAuthorization(60);
            sdk.Configure("sdk_key", 1, null);
            sdk.SendEvent(EventType.LOGIN, null, null);
            sdk.Idle().Wait();
            CollectionAssert.IsEmpty(Sent(), "nothing goes before the install, and the install waits");
            Assert.AreEqual(1, log.At(LogLevel.Info, "the install waits for the app's tracking authorization, up to 60 s").Count);

            NextCheck(sdk);
            CollectionAssert.IsEmpty(Sent(), "still not determined: still waiting");

            phone.Answer("authorized", Idfa);
            NextCheck(sdk);
            var install = Installs().Single();
            Assert.AreEqual(Idfa, (string)install["maid"]);
            Assert.AreEqual("authorized", (string)install["att_status"]);
            CollectionAssert.AreEqual(new[] { "POST /v1/installs", "POST /v1/sessions", "POST /v1/events" }, Sent(),
                "the session and the event went behind it, in order");
            Assert.AreEqual(1, log.At(LogLevel.Info, "the app's tracking authorization is authorized: the install goes").Count);
            CollectionAssert.IsEmpty(timers.Delays.Where(d => d == Check), "no further read of the status");
        }

        [Test]
        public void ADenialSendsTheInstallAtTheNextReadWithNoIdfa()
        {
            var phone = new Phone();
            var sdk = Waiting(phone);
            CollectionAssert.IsEmpty(Installs());

            phone.Answer("denied", null);
            NextCheck(sdk);
            var install = Installs().Single();
            Assert.AreEqual(JTokenType.Null, install["maid"].Type);
            Assert.AreEqual("denied", (string)install["att_status"]);
        }

        [Test]
        public void WithNoAnswerTheInstallGoesOnceTheTimeIsUp()
        {
            var phone = new Phone();
            var sdk = Waiting(phone, 3);
            NextCheck(sdk);
            NextCheck(sdk);
            CollectionAssert.IsEmpty(Installs(), "2 s of 3: still waiting");

            NextCheck(sdk);
            var install = Installs().Single();
            Assert.AreEqual("not_determined", (string)install["att_status"]);
            Assert.AreEqual(JTokenType.Null, install["maid"].Type);
            Assert.AreEqual(1, log.At(LogLevel.Info, "no tracking authorization came in 3 s: the install goes without it").Count);
        }

        [Test]
        public void AnInstallThatFailsOnceTheWaitIsOverIsSentAgainWithoutWaitingAgain()
        {
            var phone = new Phone();
            var sdk = Waiting(phone, 1);
            backend.Offline = true;
            NextCheck(sdk);
            CollectionAssert.IsEmpty(Installs(), "offline");

            backend.Offline = false;
            Assert.AreEqual(1, timers.Fire(TimeSpan.FromMilliseconds(100)), "the retry");
            sdk.Idle().Wait();
            Assert.AreEqual(1, Installs().Length);
            Assert.AreEqual(1, log.At(LogLevel.Info, "no tracking authorization came in 1 s").Count, "the wait ended once");
            CollectionAssert.IsEmpty(timers.Delays.Where(d => d == Check), "no further read of the status");
        }

        [Test]
        public void TheLastReadComesWhenTheTimeIsUpNotASecondLater()
        {
            var phone = new Phone();
            var sdk = Waiting(phone, 2);
            // The app took its time over the first send: 1.5 s of the 2 gone at the next read.
            clock.Held += TimeSpan.FromMilliseconds(1500);
            Assert.AreEqual(1, timers.Fire(Check));
            sdk.Idle().Wait();
            var last = TimeSpan.FromMilliseconds(500);
            CollectionAssert.AreEqual(new[] { last }, timers.Delays.Where(d => d <= Check), "the read after is when the time is up");
            clock.Held += last;
            Assert.AreEqual(1, timers.Fire(last));
            sdk.Idle().Wait();
            Assert.AreEqual(1, Installs().Length);
        }

        [Test]
        public void AClockSetBackDuringTheWaitEndsIt()
        {
            var phone = new Phone();
            var sdk = Waiting(phone);
            CollectionAssert.IsEmpty(Installs());
            // The user put the clock a day back: the wait must not grow by a day.
            clock.Held -= TimeSpan.FromDays(1);
            Assert.AreEqual(1, timers.Fire(Check));
            sdk.Idle().Wait();
            Assert.AreEqual("not_determined", (string)Installs().Single()["att_status"]);
            Assert.AreEqual(1, log.At(LogLevel.Info, "the device's clock went back during the wait").Count);
        }

        [Test]
        public void AnInstallRecordedEarlierIsNotHeldWhenTheServiceAsksForItAgain()
        {
            var phone = new Phone { AttStatus = "denied" };
            Launched(phone);
            Assert.AreEqual(1, Installs().Length);

            // A later launch that waits, whose status reads not determined again (the app's
            // permissions reset), and whose consent update (its tracking changed) the service
            // answers with a 409, as it does for an install it does not hold: the install goes
            // again at once.
            phone.Answer("not_determined", null);
            backend.Answer = (key, body) => key.EndsWith("/consent") && Installs().Length == 1
                ? Tuple.Create(409, (JToken)new JObject { { "error", "Conflict" }, { "detail", "no such install" } })
                : ScriptedBackend.Usual(key, body);
            var next = Sdk(phone);
            next.WaitForTrackingAuthorization(60);
            next.Configure("sdk_key", 1, null);
            next.SendEvent(EventType.LOGIN, null, null);
            next.Idle().Wait();
            // The install goes again at the send's retry.
            Assert.AreEqual(1, timers.Fire(TimeSpan.FromMilliseconds(100)));
            next.Idle().Wait();
            Assert.AreEqual(2, Installs().Length, "reported again without waiting");
            CollectionAssert.IsEmpty(timers.Delays.Where(d => d == Check));
        }

        [Test]
        public void AStatusAlreadyDeterminedAtConfigureWaitsForNothing()
        {
            Waiting(new Phone { AttStatus = "authorized", AdvertisingId = Idfa });
            Assert.AreEqual(Idfa, (string)Installs().Single()["maid"]);
            CollectionAssert.IsEmpty(log.At(LogLevel.Info, "tracking authorization"), "no wait began: none is said");
        }

        [Test]
        public void NothingWaitsOnAndroid()
        {
            Waiting(new Phone { Os = "android", AttStatus = null });
            Assert.AreEqual(1, Installs().Length);
            CollectionAssert.IsEmpty(timers.Delays.Where(d => d == Check));
        }

        [Test]
        public void WithoutTheCallTheInstallGoesAtOnceUndetermined()
        {
            Launched(new Phone());
            Assert.AreEqual("not_determined", (string)Installs().Single()["att_status"]);
        }

        [Test]
        public void AnInstallAlreadyRecordedNeverWaits()
        {
            var phone = new Phone { AttStatus = "denied" };
            Launched(phone);
            Assert.AreEqual(1, Installs().Length);

            // A later launch, the status reset to not determined (the user reset the app's
            // permissions in Settings): its session goes at once.
            phone.Answer("not_determined", null);
            Waiting(phone);
            Assert.AreEqual(1, Installs().Length);
            Assert.AreEqual(2, Sent().Count(k => k == "POST /v1/sessions"));
            CollectionAssert.IsEmpty(timers.Delays.Where(d => d == Check));
        }

        [Test]
        public void ALaunchEndedWhileWaitingWaitsAgainAtTheNextConfigure()
        {
            var phone = new Phone();
            Waiting(phone);
            CollectionAssert.IsEmpty(Installs());

            // Killed before an answer; the next launch asks again, and this time the user answers.
            timers = new ManualTimers();
            var next = Waiting(phone);
            CollectionAssert.IsEmpty(Installs(), "the install still waits");
            phone.Answer("authorized", Idfa);
            NextCheck(next);
            Assert.AreEqual(Idfa, (string)Installs().Single()["maid"]);
        }

        [Test]
        public void ATimeoutOutsideOneTo360SecondsIsRefused()
        {
            var sdk = Sdk(new Phone());
            Assert.Throws<ArgumentOutOfRangeException>(() => sdk.WaitForTrackingAuthorization(0));
            Assert.Throws<ArgumentOutOfRangeException>(() => sdk.WaitForTrackingAuthorization(361));
            Assert.Throws<ArgumentOutOfRangeException>(() => sdk.WaitForTrackingAuthorization(-5));
            sdk.WaitForTrackingAuthorization(360);
            sdk.WaitForTrackingAuthorization(1);
        }

        [Test]
        public void ACallAfterConfigureChangesNothingAndSaysSo()
        {
            var sdk = Sdk(new Phone());
            sdk.Configure("sdk_key", 1, null);
            sdk.WaitForTrackingAuthorization(60);
            sdk.Idle().Wait();
            Assert.AreEqual(1, Installs().Length);
            Assert.AreEqual(1, log.At(LogLevel.Warn, "WaitForTrackingAuthorization after Configure changes nothing").Count);
        }

        [Test]
        public void AgainstTheServiceTheInstallThatWaitedIsExportedWithTheIdfaAllowed()
        {
            var app = Service.NewApp("ios");
            var phone = new Phone();
            clock.Held = null;
            var sdk = new SdkCore(Setups.For(Service.Url, new CuttableNetwork(), store, phone, clock, timers));
            sdk.WaitForTrackingAuthorization(60);
            sdk.Configure(app.SdkKey, 1, null);
            sdk.SendEvent(EventType.LOGIN, null, null);
            sdk.Idle().Wait();
            Assert.AreEqual(0, Service.Export(app.ServerKey, 0).Count, "nothing reached the service while the install waits");

            phone.Answer("authorized", Idfa);
            Assert.AreEqual(1, timers.Fire(Check));
            sdk.Idle().Wait();
            Func<JArray, string, JObject> row = (rows, name) => rows.Cast<JObject>().SingleOrDefault(r => (string)r["event_name"] == name);
            var exported = Service.ExportUntil(app.ServerKey, r => row(r, "service_login") != null);
            var install = row(exported, "service_install");
            Assert.AreEqual(sdk.ServiceId, (string)install["service_id"]);
            Assert.AreEqual(Idfa, (string)install["maid"]);
            Assert.AreEqual(Idfa, (string)row(exported, "service_login")["maid"], "the event behind it too");
        }

        [Test]
        public void TheStaticApiPassesTheCallToTheCore()
        {
            var phone = new Phone();
            var setup = Setups.For("http://service.test", backend, store, phone, clock, timers);
            ServiceSDK.UsePlatform(setup);
            try
            {
                Assert.Throws<ArgumentOutOfRangeException>(() => ServiceSDK.WaitForTrackingAuthorization(400));
                ServiceSDK.WaitForTrackingAuthorization(30);
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.Core.Idle().Wait();
                CollectionAssert.IsEmpty(Installs(), "waiting, as the core was told");
            }
            finally
            {
                ServiceSDK.UsePlatform(null);
            }
        }
    }
}
