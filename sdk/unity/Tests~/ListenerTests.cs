using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>Every case of sdk/conformance/listeners.json, and the listeners' rules, against the SDK's own code.</summary>
    [TestFixture]
    public class ListenerTests
    {
        [Test]
        public void EachAttributionListenerGetsAMapOfItsOwn()
        {
            var listeners = new SdkListeners();
            var main = new QueuedMainThread();
            listeners.Use(main, new ListLog());
            var seen = new List<int>();
            Action<Dictionary<string, object>> clears = map => map.Clear();
            Action<Dictionary<string, object>> counts = map => seen.Add(map.Count);
            var attribution = new Dictionary<string, object> { { "media_source", "net_int" }, { "is_first_launch", true } };
            listeners.RaiseAttributionTo(clears + counts, attribution);
            main.Drain();
            CollectionAssert.AreEqual(new[] { 2 }, seen, "what one listener does to its map, the next does not see");
            Assert.AreEqual(2, attribution.Count, "nor the SDK");
        }

        private static IEnumerable<TestCaseData> Cases(string list)
        {
            return Repo.Vectors("listeners.json")[list].Cast<JObject>()
                .Select(vector => new TestCaseData(vector).SetName("listeners.json " + list + ": " + (string)vector["name"]));
        }

        public static IEnumerable<TestCaseData> Deferred()
        {
            return Cases("deferred");
        }

        public static IEnumerable<TestCaseData> Direct()
        {
            return Cases("direct");
        }

        /// <summary>A launch whose backend answers the attribution route with this map.</summary>
        private sealed class Launch
        {
            public readonly SdkCore Core;
            public readonly SdkSetup Setup;
            public readonly Heard Heard;
            public readonly QueuedMainThread Main = new QueuedMainThread();
            public readonly ManualTimers Timers = new ManualTimers();

            public Launch(ScriptedBackend backend, IKeyValueStore store, bool listen = true)
            {
                Setup = Setups.For("http://service.test", backend, store, scheduler: Timers, mainThread: Main);
                Core = new SdkCore(Setup);
                if (listen) Heard = new Heard(Core.Listeners);
            }

            public Launch Configured()
            {
                Core.Configure("sdk_key", 1, null);
                Core.Idle().Wait();
                return this;
            }
        }

        private static ScriptedBackend AnsweringAttribution(Func<JToken> attribution)
        {
            return new ScriptedBackend
            {
                Answer = (key, body) => key.Contains("/attribution")
                    ? Tuple.Create(200, attribution())
                    : ScriptedBackend.Usual(key, body),
            };
        }

        private static void AssertDeepLink(JToken expected, ServiceDeepLink actual)
        {
            Assert.AreEqual((string)expected["kind"], actual.Kind.ToString().ToLowerInvariant());
            Assert.AreEqual((string)expected["deeplinkId"], actual.DeeplinkId);
            Assert.AreEqual((string)expected["path"], actual.Path);
            CollectionAssert.AreEquivalent(((JObject)expected["params"]).Properties().ToDictionary(p => p.Name, p => (string)p.Value), actual.Params);
            Assert.AreEqual((string)expected["url"], actual.Url);
        }

        [Test]
        public void AnErrorNamesItsKindReasonAndStatusAsTheWireDoes()
        {
            var refused = new ServiceError(ServiceErrorKind.Configuration, null, 401, 1, "the key");
            Assert.IsNull(refused.ReasonName, "no reason, no name");
            Assert.AreEqual("ServiceError(configuration, 401, count 1: the key)", refused.ToString());
            var dropped = new ServiceError(ServiceErrorKind.EventsDropped, ServiceDropReason.QueueFull, null, 3, "full");
            Assert.AreEqual("ServiceError(events_dropped, queue_full, count 3: full)", dropped.ToString());
        }

        [Test]
        public void ADeferredDeepLinksParametersLeaveOutThoseWithNoValue()
        {
            var link = SdkCore.DeferredDeepLink(new Dictionary<string, object>
            {
                { "service_match_status", "matched" }, { "deep_link_path", "/x" }, { "promo", "WINTER" }, { "none", null },
            });
            CollectionAssert.AreEquivalent(new Dictionary<string, string> { { "deep_link_path", "/x" }, { "promo", "WINTER" } }, link.Params);
        }

        [TestCaseSource("Deferred")]
        public void TheDeferredDeepLinkIsTheVectors(JObject vector)
        {
            var link = SdkCore.DeferredDeepLink(vector["attribution"].ToObject<Dictionary<string, object>>());
            if (vector["deepLink"].Type == JTokenType.Null) Assert.IsNull(link);
            else AssertDeepLink(vector["deepLink"], link);
        }

        [TestCaseSource("Deferred")]
        public void TheListenersHearTheAttributionAndItsDeferredDeepLinkOnce(JObject vector)
        {
            var store = new MemoryStore();
            var backend = AnsweringAttribution(() => vector["attribution"]);
            var first = new Launch(backend, store).Configured();
            Assert.IsEmpty(first.Heard.Attributions, "not before the main thread runs");
            first.Main.Drain();
            Assert.AreEqual(1, first.Heard.Attributions.Count);
            CollectionAssert.AreEquivalent(vector["attribution"].ToObject<Dictionary<string, object>>(), first.Heard.Attributions[0]);
            if (vector["deepLink"].Type == JTokenType.Null)
            {
                Assert.IsEmpty(first.Heard.DeepLinks);
            }
            else
            {
                Assert.AreEqual(1, first.Heard.DeepLinks.Count);
                AssertDeepLink(vector["deepLink"], first.Heard.DeepLinks[0]);
            }

            // The next start: the stored map again, without asking; never the deferred link again.
            var reads = backend.To("GET /v1/installs").Count;
            var second = new Launch(backend, store).Configured();
            second.Main.Drain();
            Assert.AreEqual(1, second.Heard.Attributions.Count);
            CollectionAssert.AreEquivalent(vector["attribution"].ToObject<Dictionary<string, object>>(), second.Heard.Attributions[0]);
            Assert.IsEmpty(second.Heard.DeepLinks);
            Assert.AreEqual(reads, backend.To("GET /v1/installs").Count);
        }

        [Test]
        public void AnAttributionReadAnswered404IsReadAgainOnceTheInstallIsReportedAgain()
        {
            // The service lost the install: its attribution is unknown, and the next event's
            // answer asks for the install again.
            var reads = 0;
            var conflict = true;
            var backend = new ScriptedBackend
            {
                Answer = (key, body) =>
                {
                    if (key.Contains("/attribution"))
                    {
                        return ++reads == 1
                            ? Tuple.Create(404, (JToken)JObject.Parse("{\"error\":\"Not Found\",\"detail\":\"no such install\"}"))
                            : Tuple.Create(200, (JToken)JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"));
                    }
                    if (key.StartsWith("POST /v1/events") && conflict)
                    {
                        conflict = false;
                        var rejected = new JObject
                        {
                            { "index", 0 }, { "event_id", body["events"][0]["event_id"] }, { "error", "Conflict" },
                            { "detail", "install not recorded yet" }, { "retryable", true },
                        };
                        return Tuple.Create(202, (JToken)new JObject
                        {
                            { "accepted", 0 }, { "ignored", new JArray() }, { "rejected", new JArray(rejected) },
                        });
                    }
                    return ScriptedBackend.Usual(key, body);
                },
            };
            var launch = new Launch(backend, new MemoryStore()).Configured();
            launch.Main.Drain();
            Assert.AreEqual(1, reads);
            Assert.IsEmpty(launch.Heard.Attributions);
            Assert.IsEmpty(launch.Timers.Delays.Where(d => d <= TimeSpan.FromMinutes(1)), "not read again before the install is reported again");
            launch.Core.SendEvent(EventType.LOGIN, null, null);
            launch.Core.Idle().Wait();
            launch.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.IsFalse(conflict, "the event was answered Conflict");
            Assert.AreEqual(2, backend.To("POST /v1/installs").Count);
            Assert.AreEqual(2, reads);
            Assert.AreEqual(1, launch.Heard.Attributions.Count);
            Assert.AreEqual("organic", launch.Heard.Attributions[0][SdkCore.MatchStatus]);
        }

        [Test]
        public void FailedIsNotHeardAndTheAttributionIsAskedAgainUntilResolved()
        {
            var reads = 0;
            var backend = AnsweringAttribution(() => ++reads == 1
                ? JObject.Parse("{\"service_match_status\":\"failed\"}")
                : JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"));
            var launch = new Launch(backend, new MemoryStore()).Configured();
            launch.Main.Drain();
            Assert.IsEmpty(launch.Heard.Attributions, "failed is not resolved");
            Assert.AreEqual(1, launch.Timers.FireUpTo(TimeSpan.FromMinutes(1)));
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(1, launch.Heard.Attributions.Count);
            Assert.AreEqual("organic", launch.Heard.Attributions[0][SdkCore.MatchStatus]);
        }

        [Test]
        public void TheAttributionIsAskedAgainUntilItSettlesFurtherApartEachTime()
        {
            // More reads than a launch would make were they counted: the match settles late.
            var reads = 0;
            var backend = AnsweringAttribution(() => ++reads <= 8
                ? JObject.Parse("{\"service_match_status\":\"failed\"}")
                : JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"));
            var launch = new Launch(backend, new MemoryStore()).Configured();
            var delays = new List<TimeSpan>();
            for (var round = 0; round < 20 && launch.Heard.Attributions.Count == 0; round++)
            {
                delays.AddRange(launch.Timers.Delays.Where(d => d <= TimeSpan.FromMinutes(1)));
                launch.Timers.FireUpTo(TimeSpan.FromMinutes(1));
                launch.Core.Idle().Wait();
                launch.Main.Drain();
            }
            Assert.AreEqual(1, launch.Heard.Attributions.Count, "heard once it settled");
            Assert.AreEqual("organic", launch.Heard.Attributions[0][SdkCore.MatchStatus]);
            Assert.AreEqual(9, reads);
            Assert.AreEqual(8, delays.Count, "one wait after each read that did not settle");
            for (var i = 1; i < delays.Count; i++) Assert.AreEqual(delays[i - 1].Ticks * 2, delays[i].Ticks, "each wait twice the one before");
            Assert.IsEmpty(launch.Timers.Delays.Where(d => d <= TimeSpan.FromMinutes(1)), "settled: not asked again");
        }

        [Test]
        public void TheWaitBetweenReadsIsHeldAtTheLongest()
        {
            var reads = 0;
            var backend = AnsweringAttribution(() => ++reads <= 12
                ? JObject.Parse("{\"service_match_status\":\"failed\"}")
                : JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"));
            var launch = new Launch(backend, new MemoryStore()).Configured();
            var delays = new List<TimeSpan>();
            for (var round = 0; round < 20 && launch.Heard.Attributions.Count == 0; round++)
            {
                delays.AddRange(launch.Timers.Delays.Where(d => d <= SdkCore.MaxRetryDelay));
                launch.Timers.FireUpTo(SdkCore.MaxRetryDelay);
                launch.Core.Idle().Wait();
                launch.Main.Drain();
            }
            Assert.AreEqual(1, launch.Heard.Attributions.Count, "heard once it settled");
            Assert.AreEqual(13, reads);
            CollectionAssert.AreEqual(new[] { SdkCore.MaxRetryDelay, SdkCore.MaxRetryDelay }, delays.Skip(10).ToArray());
            // Each read asks the service to hold its answer for a while when it has none yet.
            StringAssert.EndsWith("/attribution?wait_seconds=5", backend.To("GET /v1/installs/").First().Key);
        }

        [Test]
        public void AListenerAddedWhileSwitchedOffHearsTheKeptMapOnlyOnceOnAgain()
        {
            var on = true;
            var backend = SwitchedAndAttributed(() => Volatile.Read(ref on), MatchedWithPath);
            var launch = new Launch(backend, new MemoryStore()).Configured();
            launch.Main.Drain();
            Assert.AreEqual(1, launch.Heard.Attributions.Count, "kept");

            Volatile.Write(ref on, false);
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            var heard = new List<Dictionary<string, object>>();
            launch.Core.Listeners.AddAttribution(heard.Add);
            launch.Main.Drain();
            Assert.IsEmpty(heard, "switched off");
            Assert.AreEqual("not_configured", DeletionTests.Read(launch.Core, launch.Main)[SdkCore.MatchStatus], "the kept map is not read while off");

            Volatile.Write(ref on, true);
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(1, heard.Count);
        }

        [Test]
        public void ADeepLinkListenerAloneSetOnceTheInstallIsRecordedReadsTheAttributionForItsLink()
        {
            var backend = SwitchedAndAttributed(() => true, MatchedWithPath);
            var launch = new Launch(backend, new MemoryStore(), listen: false).Configured();
            Assert.AreEqual(0, Reads(backend), "no listener: no read");
            var links = new List<ServiceDeepLink>();
            launch.Core.Listeners.AddDeepLink(links.Add);
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(1, Reads(backend));
            Assert.AreEqual("/levels/7", links.Single().Path);
        }

        [Test]
        public void ADeferredDeepLinkKeptIsNotHandedOverWhileStopped()
        {
            var store = new MemoryStore();
            var backend = SwitchedAndAttributed(() => true, MatchedWithPath);
            // Kept with no deep-link listener to have it.
            var first = new Launch(backend, store, listen: false);
            first.Core.Listeners.AddAttribution(map => { });
            first.Configured().Main.Drain();

            var next = new Launch(backend, store, listen: false).Configured();
            next.Core.Stop();
            var links = new List<ServiceDeepLink>();
            next.Core.Listeners.AddDeepLink(links.Add);
            next.Main.Drain();
            Assert.IsEmpty(links, "stopped");
            next.Core.Start();
            next.Core.Idle().Wait();
            next.Main.Drain();
            Assert.AreEqual(1, links.Count, "handed over once started");
        }

        private static int Reads(ScriptedBackend backend)
        {
            return backend.To("GET /v1/installs").Count;
        }

        private static JObject Status(string status)
        {
            return new JObject { { SdkCore.MatchStatus, status } };
        }

        [Test]
        public void AMatchStillFailedWhenALaunchEndsIsReadAgainAtTheNextWithOneReaderAtATime()
        {
            var store = new MemoryStore();
            var status = "failed";
            var backend = AnsweringAttribution(() => Status(Volatile.Read(ref status)));
            var first = new Launch(backend, store).Configured();
            first.Main.Drain();
            Assert.IsEmpty(first.Heard.Attributions);
            Assert.AreEqual(1, Reads(backend));
            // Each send looks for a reading to begin: one already waits, so none begins beside it.
            first.Core.SendEvent(EventType.LOGIN, null, null);
            first.Core.Idle().Wait();
            Assert.AreEqual(1, Reads(backend), "no second reader");
            Assert.AreEqual(1, first.Timers.Delays.Count(d => d <= TimeSpan.FromMinutes(1)), "one wait before the next read");

            // The process ends before that read; at the next launch the match has settled.
            Volatile.Write(ref status, "organic");
            var second = new Launch(backend, store).Configured();
            second.Main.Drain();
            Assert.AreEqual(1, second.Heard.Attributions.Count, "read again at the next launch");
            Assert.AreEqual("organic", second.Heard.Attributions[0][SdkCore.MatchStatus]);
            Assert.AreEqual(2, Reads(backend));
        }

        [Test]
        public void TheReadingEndedByAStopBeginsAgainAtStart()
        {
            var status = "failed";
            var backend = AnsweringAttribution(() => Status(Volatile.Read(ref status)));
            var launch = new Launch(backend, new MemoryStore()).Configured();
            launch.Core.Stop();
            Assert.AreEqual(1, launch.Timers.FireUpTo(TimeSpan.FromMinutes(1)), "the wait ends while stopped");
            launch.Core.Idle().Wait();
            Assert.AreEqual(1, Reads(backend), "no read while stopped");

            Volatile.Write(ref status, "organic");
            launch.Core.Start();
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(1, launch.Heard.Attributions.Count, "read again once started");
            Assert.AreEqual("organic", launch.Heard.Attributions[0][SdkCore.MatchStatus]);
            Assert.AreEqual(2, Reads(backend));
        }

        [Test]
        public void AnAttributionThatArrivesWhileStoppedIsNotKeptAndIsAskedForAgainAtStart()
        {
            var asked = new ManualResetEventSlim();
            var answer = new ManualResetEventSlim();
            var backend = AnsweringAttribution(() =>
            {
                asked.Set();
                Assert.IsTrue(answer.Wait(TimeSpan.FromSeconds(30)), "answered");
                return Status("organic");
            });
            var store = new MemoryStore();
            var launch = new Launch(backend, store);
            launch.Core.Configure("sdk_key", 1, null);
            Assert.IsTrue(asked.Wait(TimeSpan.FromSeconds(30)), "the attribution is asked for");
            // The user opts out while the answer is on its way.
            launch.Core.Stop();
            answer.Set();
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.IsEmpty(launch.Heard.Attributions, "not told while stopped");
            Assert.IsNull(store.Get("service_sdk.attribution"), "not kept while stopped");

            launch.Core.Start();
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(2, Reads(backend), "asked for again once started");
            Assert.AreEqual(1, launch.Heard.Attributions.Count);
            Assert.AreEqual("organic", launch.Heard.Attributions[0][SdkCore.MatchStatus]);
        }

        [Test]
        public void TheReadingEndedByASwitchOffBeginsAgainWhenTheAppIsSwitchedOn()
        {
            var on = true;
            var status = "failed";
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("GET /v1/config")
                    ? Tuple.Create(200, (JToken)new JObject { { "enabled", Volatile.Read(ref on) } })
                    : key.Contains("/attribution") ? Tuple.Create(200, (JToken)Status(Volatile.Read(ref status))) : ScriptedBackend.Usual(key, body),
            };
            var launch = new Launch(backend, new MemoryStore()).Configured();
            Volatile.Write(ref on, false);
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            Assert.IsTrue(launch.Core.IsSdkDisabled);
            Assert.AreEqual(1, launch.Timers.FireUpTo(TimeSpan.FromMinutes(1)), "the wait ends while switched off");
            launch.Core.Idle().Wait();
            Assert.AreEqual(1, Reads(backend), "no read while switched off");

            Volatile.Write(ref on, true);
            Volatile.Write(ref status, "organic");
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(1, launch.Heard.Attributions.Count, "read again once switched on");
            Assert.AreEqual("organic", launch.Heard.Attributions[0][SdkCore.MatchStatus]);
            Assert.AreEqual(2, Reads(backend));
        }

        [Test]
        public void ADeferredDeepLinkWithNoListenerYetStaysOnTheDeviceUntilOneIsSet()
        {
            var store = new MemoryStore();
            var backend = AnsweringAttribution(() => JObject.Parse("{\"service_match_status\":\"matched\",\"media_source\":\"facebook_ads\",\"deep_link_path\":\"/levels/7\"}"));
            // The first launch listens to the attribution only, and ends before a deep-link listener is set.
            var first = new Launch(backend, store, listen: false);
            var attributions = new List<Dictionary<string, object>>();
            first.Core.Listeners.AddAttribution(attributions.Add);
            first.Configured().Main.Drain();
            Assert.AreEqual(1, attributions.Count);

            var second = new Launch(backend, store).Configured();
            second.Main.Drain();
            Assert.AreEqual(1, second.Heard.DeepLinks.Count, "the link kept on the device reaches the first listener");
            Assert.AreEqual(ServiceDeepLinkKind.Deferred, second.Heard.DeepLinks[0].Kind);
            Assert.AreEqual("/levels/7", second.Heard.DeepLinks[0].Path);

            var third = new Launch(backend, store).Configured();
            third.Main.Drain();
            Assert.IsEmpty(third.Heard.DeepLinks, "once an install");
        }

        private const string DeferredDeliveredKey = "service_sdk.deferred_deep_link";

        /// <summary>
        /// A first launch matched with a deferred deep link and a deep-link listener set (the
        /// launch's own, or <paramref name="listener"/>), whose main thread is busy: the link is
        /// handed over, the listener's call posted and not run yet, and nothing marked delivered.
        /// </summary>
        private static Launch DeferredLinkHandedToABusyMainThread(
            ScriptedBackend backend, MemoryStore store, Action<ServiceDeepLink> listener = null)
        {
            var launch = new Launch(backend, store, listen: listener == null);
            if (listener != null) launch.Core.Listeners.AddDeepLink(listener);
            launch.Configured();
            Assert.AreEqual(1, Reads(backend), "the attribution, and its link, were read");
            if (launch.Heard != null) Assert.IsEmpty(launch.Heard.DeepLinks, "the main thread has not run the call");
            Assert.IsNull(store.Get(DeferredDeliveredKey), "marked delivered before the listener ran");
            return launch;
        }

        [Test]
        public void ADeferredDeepLinkIsMarkedDeliveredOnlyOnceTheListenersCallRan()
        {
            var store = new MemoryStore();
            var backend = SwitchedAndAttributed(() => true, MatchedWithPath);
            var first = DeferredLinkHandedToABusyMainThread(backend, store);
            first.Main.Drain();
            Assert.AreEqual("/levels/7", first.Heard.DeepLinks.Single().Path);
            Assert.AreEqual("true", store.Get(DeferredDeliveredKey), "marked once the listener had it");

            var next = new Launch(backend, store).Configured();
            next.Main.Drain();
            Assert.AreEqual(1, next.Heard.Attributions.Count);
            Assert.IsEmpty(next.Heard.DeepLinks, "once an install");
        }

        [Test]
        public void ADeferredDeepLinkWhoseListenersCallHadNotRunWhenTheProcessEndedIsOfferedAgainAtTheNextLaunch()
        {
            var store = new MemoryStore();
            var backend = SwitchedAndAttributed(() => true, MatchedWithPath);
            // The process is killed with the listener's call still posted: that launch's main
            // thread never runs it.
            DeferredLinkHandedToABusyMainThread(backend, store);

            var next = new Launch(backend, store).Configured();
            next.Main.Drain();
            var link = next.Heard.DeepLinks.Single();
            Assert.AreEqual(ServiceDeepLinkKind.Deferred, link.Kind);
            Assert.AreEqual("/levels/7", link.Path);
            Assert.AreEqual(1, Reads(backend), "from the attribution kept on the device");
            Assert.AreEqual("true", store.Get(DeferredDeliveredKey));
        }

        [Test]
        public void ADeferredDeepLinkWhoseListenersCallWaitsIsNotHandedOverAgainByTheOffersMeanwhile()
        {
            var on = true;
            var store = new MemoryStore();
            var backend = SwitchedAndAttributed(() => Volatile.Read(ref on), MatchedWithPath);
            var launch = DeferredLinkHandedToABusyMainThread(backend, store);
            // Every offer of the link while the call waits: a listener set again, the app
            // switched off and on again by refreshes, a stop and a start.
            var second = new List<ServiceDeepLink>();
            launch.Core.Listeners.AddDeepLink(second.Add);
            launch.Core.Idle().Wait();
            Volatile.Write(ref on, false);
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            Assert.IsTrue(launch.Core.IsSdkDisabled);
            Volatile.Write(ref on, true);
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            Assert.IsFalse(launch.Core.IsSdkDisabled);
            launch.Core.Stop();
            launch.Core.Start();
            launch.Core.Idle().Wait();
            Assert.IsNull(store.Get(DeferredDeliveredKey), "the call has not run yet");

            launch.Main.Drain();
            Assert.AreEqual(1, launch.Heard.DeepLinks.Count, "handed over once");
            Assert.IsEmpty(second, "a listener set after the hand-over does not have it again");
            Assert.AreEqual("true", store.Get(DeferredDeliveredKey));
        }

        [Test]
        public void ADeferredDeepLinkWhoseListenerThrowsIsMarkedDelivered()
        {
            var store = new MemoryStore();
            var backend = SwitchedAndAttributed(() => true, MatchedWithPath);
            var heard = new List<ServiceDeepLink>();
            var first = DeferredLinkHandedToABusyMainThread(backend, store, link =>
            {
                heard.Add(link);
                throw new InvalidOperationException("the app's listener fails");
            });
            first.Main.Drain();
            Assert.AreEqual(1, heard.Count);
            Assert.AreEqual(1, ((ListLog)first.Setup.Log).At(LogLevel.Error, "a ServiceSDK listener threw").Count);
            Assert.AreEqual("true", store.Get(DeferredDeliveredKey), "the listener had the link");

            var next = new Launch(backend, store).Configured();
            next.Main.Drain();
            Assert.IsEmpty(next.Heard.DeepLinks, "not handed over again");
        }

        [Test]
        public void ADeferredDeepLinkHandedOverBeforeAStopIsMarkedDeliveredOnceItsCallRuns()
        {
            var store = new MemoryStore();
            var backend = SwitchedAndAttributed(() => true, MatchedWithPath);
            var first = DeferredLinkHandedToABusyMainThread(backend, store);
            first.Core.Stop();
            first.Main.Drain();
            Assert.AreEqual(1, first.Heard.DeepLinks.Count, "posted before the stop");
            Assert.AreEqual("true", store.Get(DeferredDeliveredKey), "the app had it, stopped or not");

            var next = new Launch(backend, store).Configured();
            next.Core.Start();
            next.Core.Idle().Wait();
            next.Main.Drain();
            Assert.IsEmpty(next.Heard.DeepLinks);
        }

        [Test]
        public void ALaunchTheConfigurationSwitchesOffTellsNoKeptAttributionAndKeepsTheDeferredLink()
        {
            var store = new MemoryStore();
            var on = true;
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("GET /v1/config")
                    ? Tuple.Create(200, (JToken)new JObject { { "enabled", Volatile.Read(ref on) } })
                    : key.Contains("/attribution")
                        ? Tuple.Create(200, (JToken)JObject.Parse("{\"service_match_status\":\"matched\",\"media_source\":\"facebook_ads\",\"deep_link_path\":\"/levels/7\"}"))
                        : ScriptedBackend.Usual(key, body),
            };
            // The first launch keeps the match, with no deep-link listener to take its link.
            var first = new Launch(backend, store, listen: false);
            var attributions = new List<Dictionary<string, object>>();
            first.Core.Listeners.AddAttribution(attributions.Add);
            first.Configured().Main.Drain();
            Assert.AreEqual(1, attributions.Count);

            // Switched off since: the next launch, which still keeps "on", hears nothing.
            Volatile.Write(ref on, false);
            var off = new Launch(backend, store).Configured();
            off.Main.Drain();
            Assert.IsTrue(off.Core.IsSdkDisabled);
            Assert.IsEmpty(off.Heard.Attributions, "no attribution while the configuration says off");
            Assert.IsEmpty(off.Heard.DeepLinks, "no deferred link while the configuration says off");

            Volatile.Write(ref on, true);
            var again = new Launch(backend, store).Configured();
            again.Main.Drain();
            Assert.AreEqual(1, again.Heard.Attributions.Count);
            Assert.AreEqual(1, again.Heard.DeepLinks.Count, "the link waited for a launch that is on");
            Assert.AreEqual("/levels/7", again.Heard.DeepLinks[0].Path);
        }

        [Test]
        public void AListenerAddedLaterHearsTheStoredMapAtOnce()
        {
            var store = new MemoryStore();
            var backend = AnsweringAttribution(() => JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"));
            new Launch(backend, store).Configured();
            var reads = backend.To("GET /v1/installs").Count;

            var later = new Launch(backend, store, listen: false).Configured();
            later.Main.Drain();
            var heard = new List<Dictionary<string, object>>();
            later.Core.Listeners.AddAttribution(heard.Add);
            Assert.IsEmpty(heard);
            later.Main.Drain();
            Assert.AreEqual(1, heard.Count);
            Assert.AreEqual("organic", heard[0][SdkCore.MatchStatus]);
            Assert.AreEqual(reads, backend.To("GET /v1/installs").Count, "the stored map, not a new read");
        }

        [Test]
        public void AListenerAddedBeforeTheAttributionIsResolvedHearsItWhenItIs()
        {
            var backend = AnsweringAttribution(() => JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"));
            var launch = new Launch(backend, new MemoryStore(), listen: false).Configured();
            Assert.IsEmpty(backend.To("GET /v1/installs"), "no listener, no read");
            var heard = new List<Dictionary<string, object>>();
            launch.Core.Listeners.AddAttribution(heard.Add);
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(1, heard.Count);
        }

        [Test]
        public void NotHeardWhileStoppedNorAfterDeletion()
        {
            var store = new MemoryStore();
            var backend = AnsweringAttribution(() => JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"));
            var first = new Launch(backend, store).Configured();
            first.Core.Stop();

            var stopped = new Launch(backend, store).Configured();
            stopped.Main.Drain();
            Assert.IsEmpty(stopped.Heard.Attributions);
            stopped.Core.Start();
            stopped.Core.Idle().Wait();
            stopped.Main.Drain();
            Assert.AreEqual(1, stopped.Heard.Attributions.Count, "heard once started");

            stopped.Core.DeleteUserData().Wait();
            var reads = backend.To("GET /v1/installs").Count;
            stopped.Core.Listeners.AddAttribution(map => Assert.Fail("heard after deletion"));
            stopped.Core.Idle().Wait();
            stopped.Main.Drain();
            Assert.AreEqual(reads, backend.To("GET /v1/installs").Count);
        }

        [Test]
        public void TheAttributionReadByGetAttributionParamsIsHeardToo()
        {
            var backend = AnsweringAttribution(() => JObject.Parse("{\"service_match_status\":\"matched\",\"media_source\":\"facebook_ads\",\"deep_link_path\":\"/levels/7\"}"));
            var launch = new Launch(backend, new MemoryStore(), listen: false);
            var links = new List<ServiceDeepLink>();
            launch.Core.Configure("sdk_key", 1, null);
            launch.Core.Idle().Wait();
            string status = null;
            launch.Core.GetAttributionParams(p => status = (string)p[SdkCore.MatchStatus], null);
            launch.Core.Idle().Wait();
            Patience.Until(() => status != null, "GetAttributionParams did not answer", () => launch.Main.Drain());
            Assert.AreEqual("matched", status);
            // A deep-link listener added afterwards still hears the deferred link, once.
            launch.Core.Listeners.AddDeepLink(links.Add);
            launch.Main.Drain();
            Assert.AreEqual(1, links.Count);
            Assert.AreEqual(ServiceDeepLinkKind.Deferred, links[0].Kind);
            Assert.AreEqual("/levels/7", links[0].Path);
        }

        [TestCaseSource("Direct")]
        public void ADirectDeepLinkIsTheVectors(JObject vector)
        {
            var main = new QueuedMainThread();
            ServiceSDK.UsePlatform(Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }, mainThread: main));
            var heard = new List<ServiceDeepLink>();
            Action<ServiceDeepLink> listener = heard.Add;
            ServiceSDK.DeepLinkReceived += listener;
            try
            {
                var url = (string)vector["url"];
                if ((string)vector["entry"] == "handleDeepLink") ServiceSDK.HandleDeepLink(url);
                else ServiceSDK.HandleUniversalLink(url);
                Assert.IsEmpty(heard, "not before the main thread runs");
                main.Drain();
                if (vector["deepLink"].Type == JTokenType.Null)
                {
                    Assert.IsEmpty(heard);
                    return;
                }
                Assert.AreEqual(1, heard.Count);
                AssertDeepLink(vector["deepLink"], heard[0]);
                // Every link HandleDeepLink takes, it reads as the listener hears it.
                AssertDeepLink(vector["deepLink"], ServiceSDK.HandleDeepLink(url));
            }
            finally
            {
                ServiceSDK.DeepLinkReceived -= listener;
            }
        }

        private static ServiceDeepLink Link(ServiceDeepLinkKind kind, string path)
        {
            return new ServiceDeepLink(kind, null, path, new Dictionary<string, string>(), "myapp://open?deep_link_path=" + path);
        }

        [Test]
        public void DeepLinksWaitForAMainThreadAsForAListenerAndEachIsDeliveredOnce()
        {
            var listeners = new SdkListeners();
            var heard = new List<string>();
            // The app listens before the platform gives a main thread; a link comes meanwhile.
            Assert.IsFalse(listeners.TryRaiseDeepLink(Link(ServiceDeepLinkKind.Direct, "/a")), "not taken with nowhere to run");
            listeners.AddDeepLink(link => heard.Add(link.Path));
            Assert.IsFalse(listeners.TryRaiseDeepLink(Link(ServiceDeepLinkKind.Direct, "/a")), "a listener alone is not enough");
            listeners.RaiseDeepLink(Link(ServiceDeepLinkKind.Direct, "/b"));
            // A second listener set still before the main thread: nothing is lost to it either.
            listeners.AddDeepLink(link => heard.Add("second " + link.Path));
            // A platform without a main thread changes nothing.
            listeners.Use(null, new ListLog());
            var main = new QueuedMainThread();
            listeners.Use(main, new ListLog());
            main.Drain();
            CollectionAssert.AreEqual(new[] { "/b", "second /b" }, heard);
            // The platform set again: nothing that was delivered comes a second time.
            listeners.Use(main, new ListLog());
            listeners.AddDeepLink(link => heard.Add("third " + link.Path));
            main.Drain();
            CollectionAssert.AreEqual(new[] { "/b", "second /b" }, heard);
            // A null listener is none: a link waits for a real one.
            var alone = new SdkListeners();
            alone.Use(main, new ListLog());
            alone.RaiseDeepLink(Link(ServiceDeepLinkKind.Direct, "/c"));
            alone.AddDeepLink(null);
            alone.AddDeepLink(link => heard.Add("late " + link.Path));
            main.Drain();
            CollectionAssert.AreEqual(new[] { "/b", "second /b", "late /c" }, heard);
            // Cleared, the handlers and the links waiting for one are forgotten together.
            var cleared = new SdkListeners();
            cleared.Use(main, new ListLog());
            cleared.RaiseDeepLink(Link(ServiceDeepLinkKind.Direct, "/d"));
            cleared.Clear();
            cleared.AddDeepLink(link => heard.Add("after clear " + link.Path));
            main.Drain();
            CollectionAssert.AreEqual(new[] { "/b", "second /b", "late /c" }, heard);
        }

        [Test]
        public void AWaitingDeferredLinkIsNeverDroppedForTheDirectLinksBound()
        {
            var listeners = new SdkListeners();
            listeners.RaiseDeepLink(Link(ServiceDeepLinkKind.Deferred, "/deferred"));
            for (var i = 0; i < SdkListeners.MaxPendingDirectLinks; i++) listeners.RaiseDeepLink(Link(ServiceDeepLinkKind.Direct, "/" + i));
            listeners.RaiseDeepLink(Link(ServiceDeepLinkKind.Deferred, "/deferred again"));
            var heard = new List<string>();
            var main = new QueuedMainThread();
            listeners.Use(main, new ListLog());
            listeners.AddDeepLink(link => heard.Add(link.Path));
            main.Drain();
            Assert.AreEqual(SdkListeners.MaxPendingDirectLinks + 2, heard.Count, string.Join(", ", heard));
            Assert.AreEqual("/deferred", heard[0]);
        }

        [Test]
        public void ADirectLinkBeforeAnyListenerIsDeliveredWhenOneIsSet()
        {
            var main = new QueuedMainThread();
            ServiceSDK.UsePlatform(Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }, mainThread: main));
            ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=%2Fshop");
            main.Drain();
            var heard = new List<ServiceDeepLink>();
            Action<ServiceDeepLink> listener = heard.Add;
            ServiceSDK.DeepLinkReceived += listener;
            try
            {
                main.Drain();
                Assert.AreEqual(1, heard.Count);
                Assert.AreEqual("/shop", heard[0].Path);
                Assert.IsNull(heard[0].DeeplinkId);
            }
            finally
            {
                ServiceSDK.DeepLinkReceived -= listener;
            }
        }

        [TestCase("https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=", "Kx3v9QpZ2aQ")]
        [TestCase("myapp://open?deep_link_path=", null)]
        public void AnEmptyDeepLinkPathOfADirectLinkIsNoPathButStaysAParameter(string url, string deeplinkId)
        {
            var main = new QueuedMainThread();
            ServiceSDK.UsePlatform(Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }, mainThread: main));
            var heard = new List<ServiceDeepLink>();
            Action<ServiceDeepLink> listener = heard.Add;
            ServiceSDK.DeepLinkReceived += listener;
            try
            {
                var returned = ServiceSDK.HandleDeepLink(url);
                if (deeplinkId != null) ServiceSDK.HandleUniversalLink(url);
                main.Drain();
                Assert.AreEqual(deeplinkId == null ? 1 : 2, heard.Count);
                foreach (var link in heard.Concat(new[] { returned }))
                {
                    Assert.IsNull(link.Path, "an empty path leads nowhere, as a deferred link's empty path");
                    Assert.AreEqual(deeplinkId, link.DeeplinkId);
                    CollectionAssert.AreEquivalent(new Dictionary<string, string> { { "deep_link_path", "" } }, link.Params);
                }
            }
            finally
            {
                ServiceSDK.DeepLinkReceived -= listener;
            }
        }

        [Test]
        public void TheMostRecentDirectLinksBeforeAnyListenerAreDeliveredInOrderTheOldestDropped()
        {
            var kept = (int)Repo.Vectors("listeners.json")["maxPendingDirectLinks"];
            Assert.AreEqual(kept, SdkListeners.MaxPendingDirectLinks);
            var main = new QueuedMainThread();
            ServiceSDK.UsePlatform(Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }, mainThread: main));
            // A link that cold-started the app, then one tapped before any listener: both arrive.
            ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=%2Fcold");
            ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=%2Fsecond");
            var heard = new List<ServiceDeepLink>();
            Action<ServiceDeepLink> listener = heard.Add;
            ServiceSDK.DeepLinkReceived += listener;
            try
            {
                main.Drain();
                CollectionAssert.AreEqual(new[] { "/cold", "/second" }, heard.Select(link => link.Path).ToArray());
            }
            finally
            {
                ServiceSDK.DeepLinkReceived -= listener;
            }

            heard.Clear();
            var paths = Enumerable.Range(0, kept + 3).Select(i => "/levels/" + i).ToArray();
            foreach (var path in paths) ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=" + Uri.EscapeDataString(path));
            main.Drain();
            Assert.IsEmpty(heard, "no listener yet");
            ServiceSDK.DeepLinkReceived += listener;
            try
            {
                main.Drain();
                CollectionAssert.AreEqual(paths.Skip(3).ToArray(), heard.Select(link => link.Path).ToArray());
            }
            finally
            {
                ServiceSDK.DeepLinkReceived -= listener;
            }
        }

        // Android's values, as its Intent class has them.
        private const string ActionView = "android.intent.action.VIEW";
        private const int NewTask = 0x10000000;
        private const int BroughtToFront = 0x00400000;
        private const int LaunchedFromHistory = 0x00100000;

        [Test]
        public void TheLaunchLinkIsNoneForAnIntentTheRecentAppsRelaunchedOrOfAnotherActionThanView()
        {
            const string url = "myapp://open?deep_link_path=%2Flevels%2F7";
            // A tap: the link, whatever else the intent's flags say.
            Assert.AreEqual(url, DeepLinks.LaunchLink(url, new LaunchIntent { Action = ActionView }));
            Assert.AreEqual(url, DeepLinks.LaunchLink(url, new LaunchIntent { Action = ActionView, Flags = NewTask | BroughtToFront }));
            // The recent apps starting the task that link made again, after its process ended: the
            // same intent, flagged.
            Assert.IsNull(DeepLinks.LaunchLink(url, new LaunchIntent { Action = ActionView, Flags = LaunchedFromHistory }));
            Assert.IsNull(DeepLinks.LaunchLink(url, new LaunchIntent { Action = ActionView, Flags = NewTask | LaunchedFromHistory }));
            // Another action (the launcher's, an app's own) or none: no tap.
            Assert.IsNull(DeepLinks.LaunchLink(url, new LaunchIntent { Action = "android.intent.action.MAIN" }));
            Assert.IsNull(DeepLinks.LaunchLink(url, new LaunchIntent { Action = "android.intent.action.SEND" }));
            Assert.IsNull(DeepLinks.LaunchLink(url, new LaunchIntent { Action = null }));
            Assert.IsNull(DeepLinks.LaunchLink(url, new LaunchIntent { Action = "android.intent.action.view" }), "Android compares actions with their case");
            // No intent to read (iOS, or Java that could not say): the link as Unity gives it.
            Assert.AreEqual(url, DeepLinks.LaunchLink(url, null));
            // No link (Unity's absoluteURL is empty then): none.
            Assert.IsNull(DeepLinks.LaunchLink("", new LaunchIntent { Action = ActionView }));
            Assert.IsNull(DeepLinks.LaunchLink(null, null));
            Assert.IsNull(DeepLinks.LaunchLink("  ", null));
        }

        /// <summary>What the README has an app do as it starts: the launch link, if any, to HandleDeepLink.</summary>
        private static void HandOverTheLaunchLink()
        {
            if (ServiceSDK.LaunchUrl != null) ServiceSDK.HandleDeepLink(ServiceSDK.LaunchUrl);
        }

        /// <summary>A launch of the facade whose engine gave this link and, on Android, this intent.</summary>
        private static List<ServiceDeepLink> LaunchedWith(string absoluteUrl, LaunchIntent intent)
        {
            var main = new QueuedMainThread();
            var setup = Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }, mainThread: main);
            setup.LaunchUrl = absoluteUrl;
            setup.LaunchIntent = intent;
            ServiceSDK.UsePlatform(setup);
            var heard = new List<ServiceDeepLink>();
            Action<ServiceDeepLink> listener = heard.Add;
            ServiceSDK.DeepLinkReceived += listener;
            try
            {
                HandOverTheLaunchLink();
                main.Drain();
            }
            finally
            {
                ServiceSDK.DeepLinkReceived -= listener;
                ServiceSDK.UsePlatform(null);
            }
            return heard;
        }

        [Test]
        public void TheLinkThatOpenedTheAppIsDeliveredOnceNotAgainWhenTheRecentAppsRelaunchIt()
        {
            const string url = "https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7";
            // The tap's launch: Android's VIEW intent with the link.
            var tapped = LaunchedWith(url, new LaunchIntent { Action = ActionView, Flags = NewTask });
            Assert.AreEqual(1, tapped.Count);
            Assert.AreEqual(ServiceDeepLinkKind.Direct, tapped[0].Kind);
            Assert.AreEqual("/levels/7", tapped[0].Path);

            // The process ended; the user reopens the app from the recent apps. Android starts the
            // activity with the intent that first made the task, flagged, and Unity's absoluteURL
            // holds its link again: the app hands nothing over, so nothing is delivered.
            Assert.IsEmpty(LaunchedWith(url, new LaunchIntent { Action = ActionView, Flags = NewTask | LaunchedFromHistory }));
            // The launcher's intent, or iOS, which has no intent: as before.
            Assert.IsEmpty(LaunchedWith("", new LaunchIntent { Action = "android.intent.action.MAIN", Flags = NewTask }));
            Assert.AreEqual(new[] { "/levels/7" }, LaunchedWith(url, null).Select(link => link.Path).ToArray());
            // No platform: no link.
            ServiceSDK.UsePlatform(null);
            Assert.IsNull(ServiceSDK.LaunchUrl);
        }

        [Test]
        public void TheFacadesListenersAreCSharpEventsWithTheDocumentedTypes()
        {
            Assert.AreEqual(typeof(Action<Dictionary<string, object>>), typeof(ServiceSDK).GetEvent("AttributionReceived").EventHandlerType);
            Assert.AreEqual(typeof(Action<ServiceDeepLink>), typeof(ServiceSDK).GetEvent("DeepLinkReceived").EventHandlerType);
            Assert.AreEqual(typeof(Action<ServiceError>), typeof(ServiceSDK).GetEvent("ErrorOccurred").EventHandlerType);
            Assert.AreEqual(typeof(long), typeof(ServiceSDK).GetMethod("GetDroppedEventCount").ReturnType);
            Assert.IsNotNull(typeof(ServiceSDK).GetMethod("SetConsent", new[] { typeof(ServiceConsent) }));
            Assert.IsNotNull(typeof(ServiceSDK).GetMethod("HandleDeepLink", new[] { typeof(string) }));
            var launchUrl = typeof(ServiceSDK).GetProperty("LaunchUrl");
            Assert.AreEqual(typeof(string), launchUrl.PropertyType);
            Assert.IsNull(launchUrl.SetMethod, "read-only: the engine gives it");
            Assert.IsNotNull(typeof(ServiceSDK).GetMethod("SetAnonymous", new[] { typeof(bool) }));
            foreach (var name in new[] { "Stop", "Start", "IsStopped", "IsAnonymous" }) Assert.IsNotNull(typeof(ServiceSDK).GetMethod(name, Type.EmptyTypes), name);
        }

        [Test]
        public void TheFacadeKeepsStoppedAnonymousAndConsentAcrossLaunches()
        {
            var store = new MemoryStore();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            ServiceSDK.UsePlatform(Setups.For("http://service.test", backend, store));
            ServiceSDK.Stop();
            ServiceSDK.SetAnonymous(true);
            ServiceSDK.SetConsent(new ServiceConsent(true, false, null));
            ServiceSDK.UsePlatform(Setups.For("http://service.test", backend, store));
            Assert.IsTrue(ServiceSDK.IsStopped());
            Assert.IsTrue(ServiceSDK.IsAnonymous());
            Assert.AreEqual(false, ServiceSDK.Core.Consent.AdUserData);
            Assert.AreEqual(0, ServiceSDK.GetDroppedEventCount());
            ServiceSDK.Start();
            ServiceSDK.SetAnonymous(false);
            Assert.IsFalse(ServiceSDK.IsStopped());
            Assert.IsFalse(ServiceSDK.IsAnonymous());
        }

        /// <summary>A store that runs a test's action right after a key is written, on the writer's thread.</summary>
        private sealed class WatchedStore : IKeyValueStore
        {
            private readonly MemoryStore inner = new MemoryStore();
            public volatile Action<string> Written;

            public string Get(string key)
            {
                return inner.Get(key);
            }

            public void Set(string key, string value)
            {
                inner.Set(key, value);
                var written = Written;
                if (written != null) written(key);
            }

            public void Remove(string key)
            {
                inner.Remove(key);
            }
        }

        [Test]
        public void AHandlerAddedWhileTheAttributionIsBeingKeptHearsItOnce()
        {
            var backend = AnsweringAttribution(() => JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"));
            var store = new WatchedStore();
            var core = new SdkCore(Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: new InlineMainThread()));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            var heard = 0;
            Thread adder = null;
            store.Written = key =>
            {
                if (key != "service_sdk.attribution" || adder != null) return;
                // Another thread adds a handler now, between the attribution kept and the
                // listeners told; this one goes on once that thread is done, or waits for the
                // core (which lets it in only once the listeners to tell are taken).
                adder = new Thread(() => core.Listeners.AddAttribution(map => Interlocked.Increment(ref heard)));
                adder.Start();
                while (adder.IsAlive && (adder.ThreadState & ThreadState.WaitSleepJoin) == 0) Thread.Yield();
            };
            var read = new System.Threading.Tasks.TaskCompletionSource<bool>();
            core.GetAttributionParams(p => read.TrySetResult(true), e => read.TrySetException(new Exception(e)));
            Assert.IsTrue(read.Task.Wait(Patience.Bound), "no answer");
            Assert.IsNotNull(adder, "the attribution was not kept");
            Assert.IsTrue(adder.Join(Patience.Bound));
            Assert.AreEqual(1, heard);
        }

        /// <summary>A backend answering the attribution route with this map, and the configuration route on or off as asked.</summary>
        private static ScriptedBackend SwitchedAndAttributed(Func<bool> enabled, string attribution)
        {
            return new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("GET /v1/config")
                    ? Tuple.Create(200, (JToken)new JObject { { "enabled", enabled() } })
                    : key.Contains("/attribution") ? Tuple.Create(200, (JToken)JObject.Parse(attribution)) : ScriptedBackend.Usual(key, body),
            };
        }

        private const string MatchedWithPath = "{\"service_match_status\":\"matched\",\"media_source\":\"facebook_ads\",\"deep_link_path\":\"/levels/7\"}";

        /// <summary>
        /// A listener set while stopped hears nothing then, and the kept attribution once Start()
        /// runs, though the launch told its other listeners before the Stop.
        /// </summary>
        [Test]
        public void AnAttributionListenerSetWhileStoppedHearsTheKeptMapOnceStarted()
        {
            var store = new MemoryStore();
            var backend = SwitchedAndAttributed(() => true, MatchedWithPath);
            var first = new Launch(backend, store).Configured();
            first.Main.Drain();
            Assert.AreEqual(1, first.Heard.Attributions.Count, "the attribution is resolved and kept");

            // The next launch: the kept map told at Configure, then the user opts out and in again.
            var launch = new Launch(backend, store).Configured();
            launch.Main.Drain();
            Assert.AreEqual(1, launch.Heard.Attributions.Count, "told at the start");

            launch.Core.Stop();
            var late = new List<Dictionary<string, object>>();
            launch.Core.Listeners.AddAttribution(late.Add);
            launch.Main.Drain();
            Assert.IsEmpty(late, "never while stopped");

            launch.Core.Start();
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual(1, late.Count, "a listener set while stopped hears the kept attribution once Start() runs");
            Assert.AreEqual(1, launch.Heard.Attributions.Count, "the others, told already, are not told again");
        }

        /// <summary>
        /// Listeners set while remote configuration has the SDK switched off hear nothing then;
        /// when a refresh switches it on again in the same launch, they hear the kept attribution
        /// and the deferred deep link waiting on the device, once.
        /// </summary>
        [Test]
        public void ListenersSetWhileSwitchedOffHearTheKeptAttributionAndItsDeferredLinkOnceARefreshSwitchesItOn()
        {
            var on = true;
            var backend = SwitchedAndAttributed(() => Volatile.Read(ref on), MatchedWithPath);
            var launch = new Launch(backend, new MemoryStore(), listen: false).Configured();
            launch.Core.Idle().Wait();
            launch.Main.Drain();

            Volatile.Write(ref on, false);
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            Assert.IsTrue(launch.Core.IsSdkDisabled);
            var attributions = new List<Dictionary<string, object>>();
            var links = new List<ServiceDeepLink>();
            launch.Core.Listeners.AddAttribution(attributions.Add);
            launch.Core.Listeners.AddDeepLink(links.Add);
            launch.Main.Drain();
            Assert.AreEqual(0, attributions.Count + links.Count, "nothing while switched off");

            Volatile.Write(ref on, true);
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual("1 attribution, 1 deferred deep link", attributions.Count + " attribution, " + links.Count + " deferred deep link");

            // A refresh that finds it on already tells nothing again.
            Assert.AreEqual(1, launch.Timers.Fire(SdkCore.DefaultRefreshInterval));
            launch.Core.Idle().Wait();
            launch.Main.Drain();
            Assert.AreEqual("1 attribution, 1 deferred deep link", attributions.Count + " attribution, " + links.Count + " deferred deep link");
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
            var backend = SwitchedAndAttributed(() => Volatile.Read(ref on), MatchedWithPath);
            // Launch 1: an attribution listener only; the deferred link waits on the device.
            var first = new Launch(backend, store, listen: false);
            var firstHeard = new List<Dictionary<string, object>>();
            first.Core.Listeners.AddAttribution(firstHeard.Add);
            first.Configured().Main.Drain();
            Assert.AreEqual(1, firstHeard.Count);

            // Launch 2, with no listener: the owner switched the app off.
            Volatile.Write(ref on, false);
            var second = new Launch(backend, store, listen: false).Configured();
            Assert.IsTrue(second.Core.IsSdkDisabled);

            // Launch 3: switched on again; listeners set before Configure, as the README says.
            Volatile.Write(ref on, true);
            var third = new Launch(backend, store).Configured();
            third.Main.Drain();
            Assert.IsFalse(third.Core.IsSdkDisabled, "on, as the reading says");
            // Both at once, so that the failure shows each.
            Assert.AreEqual("1 attribution, 1 deferred deep link",
                third.Heard.Attributions.Count + " attribution, " + third.Heard.DeepLinks.Count + " deferred deep link",
                "the kept attribution at this start, and the deferred deep link that waited on the device");
        }
    }
}
