using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// Delivery, configuration errors, consent and anonymous mode against the real embedded
    /// service (started by test.sh): one fresh app per test, what arrived read back from the
    /// export and from the service's answers.
    /// </summary>
    [TestFixture]
    public class EndToEndDeliveryTests
    {
        private TestApp app;
        private CuttableNetwork network;

        [SetUp]
        public void NewApp()
        {
            app = Service.NewApp();
            network = new CuttableNetwork();
        }

        private SdkSetup Setup(IKeyValueStore store = null, ManualTimers timers = null, IClock clock = null, IDevice device = null, ITcfSource tcf = null)
        {
            return Setups.For(Service.Url, network, store, device, clock, timers ?? new ManualTimers(), tcf: tcf);
        }

        /// <summary>Lets the retries run (a delay up to a minute) until none waits.</summary>
        private static void Retry(SdkCore core, ManualTimers timers)
        {
            core.Idle().Wait();
            for (var round = 0; round < 20 && timers.FireUpTo(TimeSpan.FromMinutes(1)) > 0; round++) core.Idle().Wait();
        }

        private static JObject[] Rows(JArray rows, string serviceId)
        {
            return rows.Cast<JObject>().Where(r => (string)r["service_id"] == serviceId).ToArray();
        }

        private static int Count(JArray rows, string serviceId, string eventName)
        {
            return Rows(rows, serviceId).Count(e => (string)e["event_name"] == eventName);
        }

        [Test]
        public void AnInstallAnswered404RaisesErrorOccurredOnceAndWaitsForTheNextStart()
        {
            var store = new MemoryStore();
            var timers = new ManualTimers();
            // A wrong base path: the service has no such route.
            var wrong = Setup(store, timers);
            wrong.BaseUrl = Service.Url + "/wrong-base";
            var core = new SdkCore(wrong);
            var heard = Heard.ErrorsOf(core.Listeners);
            core.Configure(app.SdkKey, 1, null);
            for (var level = 1; level <= 3; level++)
            {
                core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "level", level } });
            }
            core.Idle().Wait();
            Assert.AreEqual(1, network.To("POST /wrong-base/v1/installs").Count);
            Assert.AreEqual(404, network.To("POST /wrong-base/v1/installs")[0].Item2);
            Assert.AreEqual(1, heard.Errors.Count);
            Assert.AreEqual(ServiceErrorKind.Configuration, heard.Errors[0].Kind);
            Assert.AreEqual(404, heard.Errors[0].Code);
            Assert.AreEqual(1, ((ListLog)wrong.Log).At(LogLevel.Error, "with 404").Count);

            // Not tried again in this process: every timer fired, another event sent.
            timers.FireUpTo(TimeSpan.FromHours(2));
            core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "level", 4 } });
            core.Idle().Wait();
            Assert.AreEqual(1, network.To("POST /wrong-base/v1/installs").Count, "no second install in this process");
            Assert.IsEmpty(network.To("POST /wrong-base/v1/events"));
            Assert.AreEqual(4, core.Queued, "kept on the device");
            Assert.AreEqual(1, heard.Errors.Count, "reported once");

            // The next start, at the right address: the install and the four events.
            var next = new SdkCore(Setup(store));
            next.Configure(app.SdkKey, 1, null);
            next.Idle().Wait();
            Assert.AreEqual(0, next.Queued);
            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, next.ServiceId, "service_level_start") >= 4
                && Count(r, next.ServiceId, "service_install") >= 1);
            Assert.AreEqual(4, Count(rows, next.ServiceId, "service_level_start"));
            Assert.AreEqual(1, Count(rows, next.ServiceId, "service_install"));
        }

        [Test]
        public void AStopWhileABatchIsOnItsWayReportsDroppedOnlyTheEventsThatNeverLeft()
        {
            var timers = new ManualTimers();
            var core = new SdkCore(Setup(timers: timers));
            var heard = Heard.ErrorsOf(core.Listeners);
            core.Configure(app.SdkKey, 1, null);
            core.Idle().Wait();
            // 120 events queued offline go 100 a request: the user opts out as the first leaves.
            network.Off = true;
            for (var level = 1; level <= 120; level++)
            {
                core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "level", level } });
            }
            core.Idle().Wait();
            network.Off = false;
            var stops = 0;
            network.Leaving = request =>
            {
                if (request == "POST /v1/events" && Interlocked.Exchange(ref stops, 1) == 0) core.Stop();
            };
            Retry(core, timers);

            var sent = network.To("POST /v1/events");
            Assert.AreEqual(1, sent.Count, "nothing leaves after the stop");
            Assert.AreEqual(202, sent[0].Item2, sent[0].Item3);
            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, core.ServiceId, "service_level_start") >= 100);
            Assert.AreEqual(100, Count(rows, core.ServiceId, "service_level_start"), "the batch on its way was stored");
            CollectionAssert.AreEqual(new long[] { 20 }, heard.Dropped(ServiceDropReason.Stopped).Select(e => e.Count),
                "only the events that never left are dropped");
            Assert.AreEqual(20, core.DroppedEventCount);
            Assert.AreEqual(0, core.Queued);
        }

        [Test]
        public void ConsentReachesTheServiceOnTheInstallAndThroughItsRoute()
        {
            var tcf = new FixedTcf { Values = new TcfValues { TcString = "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA", GdprApplies = 1 } };
            var core = new SdkCore(Setup(tcf: tcf));
            core.SetConsent(new ServiceConsent(null, true, true));
            core.Configure(app.SdkKey, 1, null);
            core.Idle().Wait();
            var install = network.To("POST /v1/installs").Single();
            Assert.AreEqual(202, install.Item2, install.Item3);

            // The user changes their mind: the consent route, once the install is recorded.
            core.SetConsent(new ServiceConsent(null, false, false));
            core.Idle().Wait();
            var updates = network.To("POST /v1/installs/" + core.ServiceId + "/consent");
            Assert.AreEqual(1, updates.Count);
            Assert.AreEqual(202, updates[0].Item2, updates[0].Item3);
            // The service answers with the consent it stored.
            var stored = (JObject)JObject.Parse(updates[0].Item3)["consent"];
            var four = new JObject(stored.Properties().Where(p => p.Name != "updated_at"));
            Assert.IsTrue(JToken.DeepEquals(JObject.Parse(
                "{\"gdpr_applies\":true,\"ad_user_data\":false,\"ad_personalization\":false,\"tcf_string\":\"CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA\"}"), four),
                "stored: " + stored);

            // The same consent again: nothing to send.
            core.SetConsent(new ServiceConsent(null, false, false));
            core.Idle().Wait();
            Assert.AreEqual(1, network.To("POST /v1/installs/" + core.ServiceId + "/consent").Count);
        }

        [Test]
        public void AnAdvertisingIdGoneAtALaterStartReachesTheServiceAndItsLaterEventsExportWithNone()
        {
            const string advertisingId = "38400000-8cf0-11bd-b23e-10b96e40000d";
            var store = new MemoryStore();
            var device = new FixedDevice();
            device.Signals.AdvertisingId = advertisingId;
            var first = new SdkCore(Setup(store, device: device));
            first.Configure(app.SdkKey, 1, null);
            first.SendEvent(EventType.LOGIN, null, null);
            first.Idle().Wait();
            var install = network.To("POST /v1/installs").Single();
            Assert.AreEqual(202, install.Item2, install.Item3);
            Assert.IsEmpty(network.To("POST /v1/installs/" + first.ServiceId + "/consent"), "the install told the id it had");

            // Limit ad tracking turned on (or the id deleted) before the next start.
            var next = new SdkCore(Setup(store, device: new FixedDevice()));
            next.Configure(app.SdkKey, 1, null);
            next.Idle().Wait();
            var updates = network.To("POST /v1/installs/" + next.ServiceId + "/consent");
            Assert.AreEqual(1, updates.Count);
            Assert.AreEqual(202, updates[0].Item2, updates[0].Item3);
            var sent = network.BodiesTo("POST /v1/installs/" + next.ServiceId + "/consent").Single();
            Assert.IsTrue(JToken.DeepEquals(JObject.Parse("{\"maid\":null,\"att_status\":null}"), sent["device"]), sent.ToString());
            next.SendEvent(EventType.SHARE, null, null);
            next.Idle().Wait();

            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, next.ServiceId, "service_login") == 1
                && Count(r, next.ServiceId, "service_share") == 1);
            var byName = Rows(rows, next.ServiceId).ToDictionary(r => (string)r["event_name"]);
            // The event before the start kept the id the install reported; the one after has none.
            Assert.AreEqual(advertisingId, (string)byName["service_login"]["maid"], byName["service_login"].ToString());
            Assert.IsNull((string)byName["service_share"]["maid"], byName["service_share"].ToString());
        }

        [Test]
        public void EventsQueuedBeforeConfigureArrive()
        {
            var core = new SdkCore(Setup());
            core.SendEvent(EventType.TUTORIAL_COMPLETE, null, null);
            core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "level", 1 } });
            core.SendEvent(EventType.CUSTOM, "Boss Defeated", null);
            Assert.AreEqual(0, network.Sent, "nothing leaves before Configure");
            core.Configure(app.SdkKey, 1, null);
            core.Idle().Wait();
            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, core.ServiceId, "service_boss_defeated") == 1
                && Count(r, core.ServiceId, "service_tutorial_complete") == 1 && Count(r, core.ServiceId, "service_level_start") == 1);
            Assert.AreEqual(1, Count(rows, core.ServiceId, "service_tutorial_complete"));
            Assert.AreEqual(1, Count(rows, core.ServiceId, "service_level_start"));
            Assert.AreEqual(1, Count(rows, core.ServiceId, "service_boss_defeated"));
        }

        [Test]
        public void ACrashKeepsTheQueueAndSendsNoSecondInstall()
        {
            var disk = new DiskStore();
            var timers = new ManualTimers();
            var first = new SdkCore(Setup(disk, timers));
            first.Configure(app.SdkKey, 1, null);
            first.Idle().Wait();
            network.Off = true;
            for (var level = 1; level <= 3; level++)
            {
                first.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "level", level } });
            }
            first.Idle().Wait();
            Assert.AreEqual(3, first.Queued);
            // A second passes (the save timer), then the process dies: no pause, no quit.
            Assert.AreEqual(1, timers.Fire(SdkCore.SaveDelay));
            var afterCrash = disk.AfterCrash();

            network.Off = false;
            var second = new SdkCore(Setup(afterCrash));
            second.Configure(app.SdkKey, 1, null);
            second.Idle().Wait();
            Assert.AreEqual(first.ServiceId, second.ServiceId);
            Assert.AreEqual(0, second.Queued);
            Assert.AreEqual(1, network.To("POST /v1/installs").Count, "no second install");
            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, second.ServiceId, "service_level_start") >= 3
                && Count(r, second.ServiceId, "service_install") >= 1);
            Assert.AreEqual(3, Count(rows, second.ServiceId, "service_level_start"));
            Assert.AreEqual(1, Count(rows, second.ServiceId, "service_install"));
        }

        [Test]
        public void AnEventFromADeviceClock30HoursAheadIsAccepted()
        {
            var clock = new SettableClock { Offset = TimeSpan.FromHours(30) };
            var core = new SdkCore(Setup(clock: clock));
            core.Configure(app.SdkKey, 1, null);
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Assert.AreEqual(0, core.Queued);
            var events = network.To("POST /v1/events");
            Assert.AreEqual(202, events.Last().Item2);
            Assert.AreEqual(1, (int)JObject.Parse(events.Last().Item3)["accepted"], events.Last().Item3);
            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, core.ServiceId, "service_login") == 1);
            Assert.AreEqual(1, Count(rows, core.ServiceId, "service_login"));
        }

        [Test]
        public void AnEventMadeWhileTheClockWasTwoDaysAheadAndSentOnceItIsRightAgainIsStoredAtItsSend()
        {
            var clock = new SettableClock { Offset = TimeSpan.FromHours(48) };
            var timers = new ManualTimers();
            var core = new SdkCore(Setup(timers: timers, clock: clock));
            core.Configure(app.SdkKey, 1, null);
            core.Idle().Wait();
            // Made offline with the clock two days ahead; the clock is put right before it leaves.
            network.Off = true;
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Assert.AreEqual(1, core.Queued);
            clock.Offset = TimeSpan.Zero;
            network.Off = false;
            Retry(core, timers);
            Assert.AreEqual(0, core.Queued);
            var sent = network.BodiesTo("POST /v1/events").Last();
            Assert.AreEqual((string)sent["sent_at"], (string)sent["events"][0]["event_time"], sent.ToString());
            var answer = network.To("POST /v1/events").Last();
            Assert.AreEqual(1, (int)JObject.Parse(answer.Item3)["accepted"], answer.Item3);
            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, core.ServiceId, "service_login") == 1);
            Assert.AreEqual(1, Count(rows, core.ServiceId, "service_login"));
        }

        [Test]
        public void AnonymousModeSendsNoAdvertisingIdNorCustomerUserId()
        {
            var device = new FixedDevice();
            device.Signals.AdvertisingId = "38400000-8cf0-11bd-b23e-10b96e40000d";
            var core = new SdkCore(Setup(device: device));
            core.SetAnonymous(true);
            core.Configure(app.SdkKey, 1, "user-" + app.AppId);
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            // The event goes marked anonymous, and the service takes it so.
            var login = network.BodiesTo("POST /v1/events").SelectMany(b => b["events"]).Single();
            Assert.AreEqual(true, (bool?)login["anonymous"], login.ToString());
            var answer = network.To("POST /v1/events").Single();
            Assert.AreEqual(202, answer.Item2, answer.Item3);
            Assert.AreEqual(1, (int)JObject.Parse(answer.Item3)["accepted"], answer.Item3);
            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, core.ServiceId, "service_login") == 1
                && Count(r, core.ServiceId, "service_install") == 1);
            Assert.AreEqual(2, Rows(rows, core.ServiceId).Length, "the install and the login");
            foreach (var row in Rows(rows, core.ServiceId))
            {
                Assert.IsNull((string)row["maid"], row.ToString());
                Assert.IsNull((string)row["customer_user_id"], row.ToString());
            }
        }

        [Test]
        public void AnEventMarkedAnonymousNamesNoDeviceThoughItsInstallDid()
        {
            const string advertisingId = "38400000-8cf0-11bd-b23e-10b96e40000d";
            var device = new FixedDevice();
            device.Signals.AdvertisingId = advertisingId;
            var timers = new ManualTimers();
            var userId = "user-" + app.AppId;
            var core = new SdkCore(Setup(timers: timers, device: device));
            core.Configure(app.SdkKey, 1, userId);
            core.Idle().Wait();
            // SHARE taken while anonymous, sent once the mode is off.
            network.Off = true;
            core.SetAnonymous(true);
            core.SendEvent(EventType.SHARE, null, null);
            core.Idle().Wait();
            core.SetAnonymous(false);
            network.Off = false;
            // SEARCH taken and sent outside the mode, with SHARE.
            core.SendEvent(EventType.SEARCH, null, null);
            Retry(core, timers);
            Assert.AreEqual(0, core.Queued);
            // VIEW_ITEM taken outside the mode, sent once it is on.
            network.Off = true;
            core.SendEvent(EventType.VIEW_ITEM, null, null);
            core.Idle().Wait();
            core.SetAnonymous(true);
            network.Off = false;
            Retry(core, timers);
            Assert.AreEqual(0, core.Queued);

            var sent = network.BodiesTo("POST /v1/events").SelectMany(b => b["events"]).ToDictionary(e => (string)e["event_type"]);
            Assert.AreEqual(true, (bool?)sent["SHARE"]["anonymous"], sent["SHARE"].ToString());
            Assert.IsNull(((JObject)sent["SEARCH"]).Property("anonymous"), sent["SEARCH"].ToString());
            Assert.AreEqual(true, (bool?)sent["VIEW_ITEM"]["anonymous"], sent["VIEW_ITEM"].ToString());
            foreach (var answer in network.To("POST /v1/events"))
            {
                Assert.AreEqual(202, answer.Item2, answer.Item3);
                Assert.AreEqual(0, ((JArray)JObject.Parse(answer.Item3)["rejected"]).Count, answer.Item3);
            }
            var rows = Service.ExportUntil(app.ServerKey, r => Count(r, core.ServiceId, "service_install") == 1
                && Count(r, core.ServiceId, "service_share") == 1 && Count(r, core.ServiceId, "service_search") == 1
                && Count(r, core.ServiceId, "service_view_item") == 1);
            var byName = Rows(rows, core.ServiceId).ToDictionary(r => (string)r["event_name"]);
            // The install and the event outside the mode name the device and the user; the two
            // marked anonymous neither, though their install was reported with both.
            foreach (var name in new[] { "service_install", "service_search" })
            {
                Assert.AreEqual(advertisingId, (string)byName[name]["maid"], byName[name].ToString());
                Assert.AreEqual(userId, (string)byName[name]["customer_user_id"], byName[name].ToString());
            }
            foreach (var name in new[] { "service_share", "service_view_item" })
            {
                Assert.IsNull((string)byName[name]["maid"], byName[name].ToString());
                Assert.IsNull((string)byName[name]["customer_user_id"], byName[name].ToString());
            }
        }
    }
}
