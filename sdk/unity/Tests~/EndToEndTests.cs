using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// The SDK against the real embedded service (started by test.sh), over HTTP, with no mock of
    /// it: one fresh app per test, and what the SDK did read back from the export.
    /// </summary>
    [TestFixture]
    public class EndToEndTests
    {
        private TestApp app;
        private CuttableNetwork network;

        [SetUp]
        public void NewApp()
        {
            app = Service.NewApp();
            network = new CuttableNetwork();
        }

        private SdkCore Launch(IKeyValueStore store = null, IDevice device = null, string apiKey = null, string customerUserId = null)
        {
            var core = new SdkCore(Setups.For(Service.Url, network, store, device));
            core.Configure(apiKey ?? app.SdkKey, 1, customerUserId);
            return core;
        }

        /// <summary>A launch whose clock and timers the test holds; its log is the setup's.</summary>
        private SdkCore Launch(SdkSetup setup, string customerUserId = null)
        {
            var core = new SdkCore(setup);
            core.Configure(app.SdkKey, 1, customerUserId);
            return core;
        }

        private static bool Has(JArray rows, string serviceId, string eventName)
        {
            return Rows(rows, serviceId).Any(e => (string)e["event_name"] == eventName);
        }

        private static JObject[] Rows(JArray rows, string serviceId)
        {
            return rows.Cast<JObject>().Where(r => (string)r["service_id"] == serviceId).ToArray();
        }

        private static Dictionary<string, object> Attribution(SdkCore core)
        {
            var answer = new TaskCompletionSource<Dictionary<string, object>>();
            core.GetAttributionParams(p => answer.TrySetResult(p), e => answer.TrySetException(new Exception(e)));
            Assert.IsTrue(answer.Task.Wait(TimeSpan.FromSeconds(30)), "no attribution callback");
            return answer.Task.Result;
        }

        [Test]
        public void ConfigureTracksTheInstallOnceAcrossLaunches()
        {
            var store = new MemoryStore();
            var first = Launch(store);
            first.Idle().Wait();
            Assert.IsFalse(first.IsSdkDisabled);
            var rows = Service.ExportUntil(app.ServerKey, r => Rows(r, first.ServiceId).Any(e => (string)e["event_name"] == "service_install"));
            Assert.AreEqual(1, Rows(rows, first.ServiceId).Count(e => (string)e["event_name"] == "service_install"));

            var sentBefore = network.Answers.Count;
            var second = Launch(store);
            second.Idle().Wait();
            Assert.AreEqual(first.ServiceId, second.ServiceId);
            // The next launch fetches its configuration and reports its session, no install.
            CollectionAssert.AreEqual(
                new[] { "GET /v1/config", "POST /v1/sessions" }, network.Answers.Skip(sentBefore).Select(a => a.Item1).ToList());
        }

        /// <summary>The answers of POST /v1/sessions so far: each its status and how many it accepted.</summary>
        private List<Tuple<int, int>> SessionAnswers()
        {
            return network.To("POST /v1/sessions")
                .Select(a => Tuple.Create(a.Item2, a.Item2 == 202 ? (int)JObject.Parse(a.Item3)["accepted"] : -1)).ToList();
        }

        [Test]
        public void SessionsReachTheServiceAtEachLaunchAndAfterHalfAnHourAway()
        {
            var store = new MemoryStore();
            var clock = new SettableClock();
            var core = Launch(Setups.For(Service.Url, network, store, clock: clock));
            core.Idle().Wait();
            // The launch's session, after the install: accepted, so the service knew the install.
            CollectionAssert.AreEqual(new[] { Tuple.Create(202, 1) }, SessionAnswers());
            var posts = network.Answers.Select(a => a.Item1).Where(k => k.StartsWith("POST")).ToList();
            CollectionAssert.AreEqual(new[] { "POST /v1/installs", "POST /v1/sessions" }, posts);

            // Ten minutes away continues the session; thirty-one start one.
            core.EnteredBackground();
            clock.Offset = TimeSpan.FromMinutes(10);
            core.EnteredForeground();
            core.Idle().Wait();
            Assert.AreEqual(1, SessionAnswers().Count, "a return within the interval sends nothing");
            core.EnteredBackground();
            clock.Offset = TimeSpan.FromMinutes(41);
            core.EnteredForeground();
            core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { Tuple.Create(202, 1), Tuple.Create(202, 1) }, SessionAnswers());
            // The interval is the service's remote configuration's.
            Assert.AreEqual(TimeSpan.FromSeconds(1800), core.SessionInterval);

            // The next launch of the same install is a session too.
            var next = Launch(Setups.For(Service.Url, network, store, clock: clock));
            next.Idle().Wait();
            Assert.AreEqual(core.ServiceId, next.ServiceId);
            CollectionAssert.AreEqual(new[] { Tuple.Create(202, 1), Tuple.Create(202, 1), Tuple.Create(202, 1) }, SessionAnswers());
            Assert.AreEqual(0, next.QueuedSessions);
            Assert.AreEqual(0, next.DroppedSessionCount);
        }

        [Test]
        public void ARejectedKeyDisablesTheSdk()
        {
            var core = Launch(apiKey: "sdk_0000000000000000_rejectedrejectedrejectedrejectedrejec");
            core.Idle().Wait();
            Assert.IsTrue(core.IsSdkDisabled);
            var sentBefore = network.Sent;
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Assert.AreEqual(sentBefore, network.Sent);
        }

        [Test]
        public void ADisabledAppSwitchesTheSdkOffAndItSendsNothing()
        {
            Service.Cli("apps", "config", "--app-id", app.AppId, "--disable");
            var core = Launch();
            core.Idle().Wait();
            Assert.IsTrue(core.IsSdkDisabled);
            var sentBefore = network.Sent;
            core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 1 }, { "currency", "USD" } });
            core.Idle().Wait();
            Assert.AreEqual(sentBefore, network.Sent);
            Service.Cli("apps", "config", "--app-id", app.AppId, "--enable");
            Assert.IsEmpty(Service.Export(app.ServerKey, 0));
        }

        [Test]
        public void ARepeatConfigureChangesNothingItsCustomerUserIdIncluded()
        {
            var core = Launch(customerUserId: "first-user");
            core.Configure(app.SdkKey, 0, "second-user");
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            var rows = Service.ExportUntil(app.ServerKey, r => Rows(r, core.ServiceId).Any(e => (string)e["event_name"] == "service_login"));
            var login = Rows(rows, core.ServiceId).Single(e => (string)e["event_name"] == "service_login");
            Assert.AreEqual("first-user", (string)login["customer_user_id"]);
        }

        [Test]
        public void EventsOfEveryTypeReachTheExportRevenueInUsdToo()
        {
            var core = Launch();
            foreach (EventType type in Enum.GetValues(typeof(EventType)))
            {
                if (type == EventType.INSTALL) continue;
                var parameters = type == EventType.PURCHASE
                    ? new Dictionary<string, object> { { "revenue", 9.99 }, { "currency", "USD" } }
                    : null;
                core.SendEvent(type, type == EventType.CUSTOM ? "Boss Defeated" : null, parameters);
            }
            core.Idle().Wait();
            var rows = Service.ExportUntil(app.ServerKey, r => Rows(r, core.ServiceId).Length >= 18);
            var names = Rows(rows, core.ServiceId).Select(e => (string)e["event_name"]).ToList();
            foreach (EventType type in Enum.GetValues(typeof(EventType)))
            {
                if (type == EventType.CUSTOM) continue;
                CollectionAssert.Contains(names, "service_" + type.ToString().ToLowerInvariant());
            }
            CollectionAssert.Contains(names, "service_boss_defeated");
            var purchase = Rows(rows, core.ServiceId).Single(e => (string)e["event_name"] == "service_purchase");
            Assert.AreEqual(9.99, (double)purchase["revenue"], 1e-9);
            Assert.AreEqual("USD", (string)purchase["currency"]);
            Assert.AreEqual(9.99, (double)purchase["revenue_usd"], 1e-9);
        }

        [Test]
        public void MatchingParametersCrossTheNetworkHashedAndTheServiceTakesTheEvent()
        {
            var core = Launch();
            core.SendEvent(EventType.SIGN_UP, null, new Dictionary<string, object>
            {
                { "email", " Jane.Doe@Example.COM " },
                { "phone_number", "+1 (555) 010-9999" },
                { "date_of_birth", "1990-02-31" },
                { "method", "email" },
            });
            core.Idle().Wait();
            var rows = Service.ExportUntil(app.ServerKey, r => Has(r, core.ServiceId, "service_sign_up"));
            Assert.AreEqual(1, Rows(rows, core.ServiceId).Count(e => (string)e["event_name"] == "service_sign_up"));
            var sent = network.BodiesTo("POST /v1/events").SelectMany(body => body["events"]).Single();
            // The hashes of pii.json, which the service's own test holds to the service's; the
            // date that is no date left out on the device.
            var hashed = JObject.FromObject(new Dictionary<string, object>
            {
                { "email", "sha256:86e0b9e56c17cc4d12387e1949b85053fbe73bc3ce5a1188713a9d300cc6133d" },
                { "phone_number", "sha256:91a02cd9e0fdea8309e2361e0c1d2eb133b283c1cc08d5562185d25a613783af" },
                { "method", "email" },
            });
            Assert.IsTrue(JToken.DeepEquals(hashed, sent["parameters"]), "sent: " + sent["parameters"]);
            foreach (var body in network.Bodies) StringAssert.DoesNotContain("Jane.Doe", body.Value ?? "");
            var stored = Service.StoredParameters(app.AppId, (string)sent["event_id"])["stored"];
            Assert.IsTrue(JToken.DeepEquals(hashed, stored), "stored: " + stored);
        }

        [Test]
        public void ACustomerUserIdAppliesFromTheNextEventAndJoinsServerEvents()
        {
            var core = Launch();
            core.SendEvent(EventType.TUTORIAL_COMPLETE, null, null);
            core.SetCustomerUserId("user-8812-" + app.AppId);
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Service.ExportUntil(app.ServerKey, r => Rows(r, core.ServiceId).Any(e => (string)e["event_name"] == "service_login"));
            Service.ServerEvent(app.ServerKey, "user-8812-" + app.AppId, "SUBSCRIBE");
            var rows = Service.ExportUntil(app.ServerKey, r => Rows(r, core.ServiceId).Any(e => (string)e["event_name"] == "service_subscribe"));
            var mine = Rows(rows, core.ServiceId);
            Assert.IsNull((string)mine.Single(e => (string)e["event_name"] == "service_tutorial_complete")["customer_user_id"]);
            Assert.AreEqual("user-8812-" + app.AppId, (string)mine.Single(e => (string)e["event_name"] == "service_login")["customer_user_id"]);
            // The server's event joined the install that last used the id.
            Assert.AreEqual(1, mine.Count(e => (string)e["event_name"] == "service_subscribe"));
        }

        [Test]
        public void AttributionIsMatchedWithTheLinksDeepLinkAfterATapAndOrganicWithout()
        {
            var referrer = Service.Tap(Service.NewLink(app.AppId, "/levels/7"));
            var tapped = new FixedDevice();
            tapped.Signals.InstallReferrer = new InstallReferrer { Referrer = referrer };
            var store = new MemoryStore();
            var matched = Attribution(Launch(store, tapped));
            Assert.AreEqual("matched", matched[SdkCore.MatchStatus]);
            Assert.AreEqual("/levels/7", matched["deep_link_path"]);
            Assert.AreEqual("facebook_ads", matched["media_source"]);
            Assert.AreEqual("WINTER", matched["promo"]);

            var organic = Attribution(Launch());
            Assert.AreEqual("organic", organic[SdkCore.MatchStatus]);

            // A settled answer is kept: the next launch reads it without asking.
            var sentBefore = network.Answers.Count;
            var again = Launch(store, tapped);
            again.Idle().Wait();
            Assert.AreEqual("matched", Attribution(again)[SdkCore.MatchStatus]);
            CollectionAssert.AreEqual(
                new[] { "GET /v1/config", "POST /v1/sessions" }, network.Answers.Skip(sentBefore).Select(a => a.Item1).ToList(),
                "the configuration fetched and the launch's session sent; no attribution read");
        }

        [Test]
        public void AReadWhileOfflineFailsAndIsAskedAgainUntilItResolvesOnceBackOnline()
        {
            network.Off = true;
            var timers = new ManualTimers();
            var core = Launch(Setups.For(Service.Url, network, scheduler: timers));
            core.Idle().Wait();
            // Offline, the install never reached the service: the read fails, and says why.
            var offline = new TaskCompletionSource<string>();
            core.GetAttributionParams(p => offline.TrySetResult("onSuccess"), e => offline.TrySetResult(e));
            Assert.IsTrue(offline.Task.Wait(TimeSpan.FromSeconds(30)), "no attribution callback");
            StringAssert.Contains("the install is not recorded", offline.Task.Result);

            network.Off = false;
            // The retry that was waiting sends the install now; the configuration, none of which
            // was read, is asked for again at the same first step.
            Assert.AreEqual(2, timers.Fire(Setups.For(null, null).RetryDelay));
            core.Idle().Wait();
            Dictionary<string, object> answer = null;
            // Each read waits on the service for the match; a read may still find it pending.
            for (var read = 0; read < 5; read++)
            {
                answer = Attribution(core);
                if ((string)answer[SdkCore.MatchStatus] != "failed") break;
            }
            Assert.AreEqual("organic", answer[SdkCore.MatchStatus]);
        }

        [Test]
        public void DeleteUserDataRemovesTheInstallFromTheExportAndForgetsItsAttribution()
        {
            var store = new MemoryStore();
            var core = Launch(store);
            core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "level", 1 } });
            Assert.AreEqual("organic", Attribution(core)[SdkCore.MatchStatus]);
            Service.ExportUntil(app.ServerKey, r => Rows(r, core.ServiceId).Length >= 2);
            Assert.IsNotNull(store.Get("service_sdk.attribution"));

            core.DeleteUserData().Wait();
            Assert.IsNull(store.Get("service_sdk.attribution"));
            var rows = Service.ExportUntil(app.ServerKey, r => Rows(r, core.ServiceId).Length == 0);
            Assert.IsEmpty(Rows(rows, core.ServiceId));
        }

        [Test]
        public void EventsSentOfflineAndThroughServerErrorsArriveLaterInOrderAndOnce()
        {
            var timers = new ManualTimers();
            // Each event a second after the one before, by the device's clock.
            var clock = new SettableClock();
            var core = Launch(Setups.For(Service.Url, network, clock: clock, scheduler: timers));
            core.Idle().Wait();
            network.Off = true;
            for (var level = 1; level <= 3; level++)
            {
                clock.Offset = TimeSpan.FromSeconds(level);
                core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "level", level } });
            }
            core.Idle().Wait();
            Assert.AreEqual(3, core.Queued, "kept on the device while offline");

            network.Off = false;
            network.FailNext = 2;
            clock.Offset = TimeSpan.FromSeconds(4);
            core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "level", 4 } });
            core.Idle().Wait();
            // Each retry the test fires meets one 503, until the service answers.
            var retries = 0;
            while (core.Queued > 0 && retries < 5)
            {
                retries += timers.FireUpTo(TimeSpan.FromMinutes(1));
                core.Idle().Wait();
            }
            Assert.AreEqual(0, core.Queued);
            // The event sent meanwhile waited for the retry: each retry met one 503, the third was answered.
            Assert.AreEqual(3, retries, "the retries met the two 503s; the next one was answered");

            var rows = Service.ExportUntil(app.ServerKey, r => Rows(r, core.ServiceId).Count(e => (string)e["event_name"] == "service_level_start") >= 4);
            var times = Rows(rows, core.ServiceId).Where(e => (string)e["event_name"] == "service_level_start")
                .Select(e => (string)e["event_time"]).ToList();
            Assert.AreEqual(4, times.Count, "each event once");
            CollectionAssert.AllItemsAreUnique(times);
            CollectionAssert.IsOrdered(times);
        }

        [Test]
        public void AnInstallRefusedForGoodIsDroppedWithOneErrorAndTheNextEventArrives()
        {
            // A middlebox mangles the install on its way: the service refuses it for good.
            network.ManglePath = "/v1/installs";
            network.Mangle = body => body["device_model"] = new string('m', 300);
            var timers = new ManualTimers();
            var setup = Setups.For(Service.Url, network, scheduler: timers);
            var core = Launch(setup);
            core.Idle().Wait();
            var log = (ListLog)setup.Log;
            Assert.AreEqual(1, log.At(LogLevel.Error, "refused the install").Count, string.Join("\n", log.Lines));
            StringAssert.Contains("device_model", log.At(LogLevel.Error, "refused the install")[0]);

            // The next event is delivered, after the install it needs.
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Assert.AreEqual(0, core.Queued);
            var rows = Service.ExportUntil(app.ServerKey, r => Has(r, core.ServiceId, "service_login"));
            Assert.IsTrue(Has(rows, core.ServiceId, "service_login"));
            Assert.AreEqual(1, log.At(LogLevel.Error, "refused the install").Count, "one error, not one a try");
        }

        [Test]
        public void A413LosesTheOneEventTooLargeNotTheHundredOfItsBatch()
        {
            var timers = new ManualTimers();
            var setup = Setups.For(Service.Url, network, scheduler: timers);
            var core = new SdkCore(setup);
            var errors = Heard.ErrorsOf(core.Listeners);
            core.Configure(app.SdkKey, 1, null);
            core.Idle().Wait();
            // Offline, 100 events gather into one batch; #37 alone is over the service's 1 MiB body limit.
            network.Off = true;
            for (var i = 0; i < 100; i++)
            {
                var parameters = new Dictionary<string, object> { { "level", i } };
                if (i == 37) parameters["note"] = new string('x', 1100 * 1024);
                core.SendEvent(EventType.LEVEL_START, null, parameters);
            }
            core.Idle().Wait();
            Assert.AreEqual(100, core.Queued);

            network.Off = false;
            core.SendEvent(EventType.LEVEL_COMPLETE, null, new Dictionary<string, object> { { "level", 1 } });
            // The retry that waited since the network went off sends them all.
            for (var retry = 0; retry < 5 && core.Queued > 0; retry++)
            {
                timers.FireUpTo(TimeSpan.FromMinutes(1));
                core.Idle().Wait();
            }
            Assert.AreEqual(0, core.Queued);
            Assert.AreEqual(1, core.DroppedEventCount);
            var log = (ListLog)setup.Log;
            var dropped = log.At(LogLevel.Warn, "1 event dropped (refused)");
            Assert.AreEqual(1, dropped.Count, string.Join("\n", log.Lines));
            StringAssert.Contains("413", dropped[0]);
            Assert.AreEqual(1, errors.Dropped(ServiceDropReason.Refused).Count);
            Assert.AreEqual(1, errors.Dropped(ServiceDropReason.Refused)[0].Count);
            var rows = Service.ExportUntil(app.ServerKey, r => Has(r, core.ServiceId, "service_level_complete")
                && Rows(r, core.ServiceId).Count(e => (string)e["event_name"] == "service_level_start") >= 99);
            var levels = Rows(rows, core.ServiceId).Where(e => (string)e["event_name"] == "service_level_start").ToList();
            Assert.AreEqual(99, levels.Count, "every event but the one refused, each once");
            Assert.IsTrue(Has(rows, core.ServiceId, "service_level_complete"));
        }

        [Test]
        public void AnEventRefusedForGoodIsDroppedWithOneErrorAndTheNextEventArrives()
        {
            var setup = Setups.For(Service.Url, network, scheduler: new ManualTimers());
            var core = Launch(setup);
            // The service takes custom names of at most 100 characters.
            core.SendEvent(EventType.CUSTOM, new string('n', 101), null);
            core.Idle().Wait();
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Assert.AreEqual(0, core.Queued);
            var errors = ((ListLog)setup.Log).At(LogLevel.Warn, "refused 1 of 1 events for good");
            Assert.AreEqual(1, errors.Count);
            StringAssert.Contains("event_name", errors[0]);
            var rows = Service.ExportUntil(app.ServerKey, r => Has(r, core.ServiceId, "service_login"));
            Assert.IsTrue(Has(rows, core.ServiceId, "service_login"));
        }

        [Test]
        public void SignalsTheServiceWouldRefuseAreLeftOutAndTheInstallIsRecorded()
        {
            var device = new FixedDevice();
            device.Signals.Locale = "";
            device.Signals.Timezone = "W. Europe Standard Time";
            device.Signals.OsVersion = "Android OS 14 / API-34 (UP1A.231005.007/10754064) " + new string('x', 40);
            var setup = Setups.For(Service.Url, network, device: device, scheduler: new ManualTimers());
            var core = Launch(setup, new string('u', 257));
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            var log = (ListLog)setup.Log;
            Assert.AreEqual(1, log.At(LogLevel.Error, "257 characters").Count);
            Assert.IsEmpty(log.At(LogLevel.Error, "refused"), string.Join("\n", log.Lines));
            var rows = Service.ExportUntil(app.ServerKey, r => Has(r, core.ServiceId, "service_login"));
            Assert.IsNull((string)Rows(rows, core.ServiceId).First(e => (string)e["event_name"] == "service_login")["customer_user_id"]);
        }

        [Test]
        public void TheCustomerUserIdIsKeptAcrossLaunches()
        {
            var store = new MemoryStore();
            var first = Launch(store);
            first.SetCustomerUserId("kept-" + app.AppId);
            first.Idle().Wait();

            var second = Launch(store);
            second.SendEvent(EventType.LOGIN, null, null);
            second.Idle().Wait();
            var rows = Service.ExportUntil(app.ServerKey, r => Has(r, second.ServiceId, "service_login"));
            var login = Rows(rows, second.ServiceId).Single(e => (string)e["event_name"] == "service_login");
            Assert.AreEqual("kept-" + app.AppId, (string)login["customer_user_id"]);
        }

        [Test]
        public void RemoteConfigurationIsReadAgainWhileTheAppRuns()
        {
            var timers = new ManualTimers();
            var core = Launch(Setups.For(Service.Url, network, scheduler: timers));
            core.Idle().Wait();
            Assert.IsFalse(core.IsSdkDisabled);
            // The service names its interval; the SDK waits that long before each read.
            var interval = core.RefreshInterval;
            CollectionAssert.Contains(timers.Delays, interval);

            Service.Cli("apps", "config", "--app-id", app.AppId, "--disable");
            Assert.AreEqual(1, timers.Fire(interval));
            core.Idle().Wait();
            Assert.IsTrue(core.IsSdkDisabled, "switched off without a restart");
            var sentBefore = network.Sent;
            core.SendEvent(EventType.SHARE, null, null);
            core.Idle().Wait();
            Assert.AreEqual(sentBefore, network.Sent, "nothing sent while off");

            Service.Cli("apps", "config", "--app-id", app.AppId, "--enable");
            Assert.AreEqual(1, timers.Fire(interval));
            core.Idle().Wait();
            Assert.IsFalse(core.IsSdkDisabled, "switched on again without a restart");
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            var rows = Service.ExportUntil(app.ServerKey, r => Has(r, core.ServiceId, "service_login"));
            Assert.IsTrue(Has(rows, core.ServiceId, "service_login"));
            Assert.IsFalse(Has(rows, core.ServiceId, "service_share"));
        }
    }
}
