using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>The rules that need answers the service gives rarely, against a scripted backend.</summary>
    [TestFixture]
    public class CoreTests
    {
        private static Tuple<int, JToken> Answer(int status, string json)
        {
            return Tuple.Create(status, json == null ? null : JToken.Parse(json));
        }

        [Test]
        public void FailedIsAskedAgainOnTheNextReadAndNeverKept()
        {
            var reads = 0;
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.Contains("/attribution")
                    ? Interlocked.Increment(ref reads) == 1
                        ? Answer(200, "{\"service_match_status\":\"failed\"}")
                        : Answer(200, "{\"service_match_status\":\"matched\",\"deep_link_path\":\"/x\"}")
                    : ScriptedBackend.Usual(key, body),
            };
            var setup = Setups.For("http://service.test", backend);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, null);
            Assert.AreEqual("failed", Read(core)[SdkCore.MatchStatus]);
            Assert.IsNull(setup.Store.Get("service_sdk.attribution"));
            Assert.AreEqual("matched", Read(core)[SdkCore.MatchStatus]);
            Assert.AreEqual(2, reads);
        }

        [Test]
        public void ExactlyOneCallbackFiresOnTheMainThreadOnError()
        {
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.Contains("/attribution") ? Answer(500, "{}") : ScriptedBackend.Usual(key, body),
            };
            var setup = Setups.For("http://service.test", backend);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, null);
            var successes = 0;
            var errors = new TaskCompletionSource<string>();
            core.GetAttributionParams(p => Interlocked.Increment(ref successes), e => errors.TrySetResult(e));
            Assert.IsTrue(errors.Task.Wait(Patience.Bound));
            Thread.Sleep(100);
            Assert.AreEqual(0, successes);
            StringAssert.Contains("500", errors.Task.Result);
            Assert.AreEqual(1, ((InlineMainThread)setup.MainThread).Posted);
        }

        [Test]
        public void WithoutOnErrorAFailedReadReachesOnSuccessAsFailed()
        {
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.Contains("/attribution") ? Answer(500, "{}") : ScriptedBackend.Usual(key, body),
            };
            var setup = Setups.For("http://service.test", backend);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, null);
            var heard = new TaskCompletionSource<Dictionary<string, object>>();
            core.GetAttributionParams(p => heard.TrySetResult(p), null);
            Assert.IsTrue(heard.Task.Wait(Patience.Bound), "exactly one callback fires, and onSuccess is the one given");
            CollectionAssert.AreEquivalent(new Dictionary<string, object> { { SdkCore.MatchStatus, "failed" } }, heard.Task.Result);
            Assert.AreEqual(1, ((InlineMainThread)setup.MainThread).Posted);
        }

        /// <summary>
        /// On a first launch whose install cannot be sent (offline: 0; the install route refused),
        /// the read fails as any other: onError hears why, not onSuccess a `failed` map.
        /// </summary>
        [TestCase(0, "network unreachable")]
        [TestCase(404, "with 404")]
        [TestCase(401, "with 401")]
        public void AReadOnAFirstLaunchWhoseInstallCannotBeSentGoesToOnErrorSayingWhy(int status, string why)
        {
            var rig = new Rig();
            if (status == 0) rig.Backend.Offline = true;
            else rig.Other = (key, body) => key.StartsWith("POST /v1/installs") ? Answer(status, "{\"error\":\"refused\"}") : ScriptedBackend.Usual(key, body);
            rig.Configure();
            Dictionary<string, object> success = null;
            string error = null;
            var called = CallbackOfARead(rig, (p, e) => { success = p; error = e; }, true);
            Assert.AreEqual(1, called, "exactly one callback fires");
            Assert.IsNull(success, "onSuccess was called: " + (success == null ? "" : string.Join(",", success.Select(p => p.Key + "=" + p.Value))));
            StringAssert.Contains("the install is not recorded", error);
            StringAssert.Contains(why, error);
        }

        [Test]
        public void WithoutOnErrorAReadOnAFirstLaunchOfflineReachesOnSuccessAsFailed()
        {
            var rig = new Rig();
            rig.Backend.Offline = true;
            rig.Configure();
            Dictionary<string, object> success = null;
            var called = CallbackOfARead(rig, (p, e) => success = p, false);
            Assert.AreEqual(1, called);
            CollectionAssert.AreEquivalent(new Dictionary<string, object> { { SdkCore.MatchStatus, "failed" } }, success);
        }

        /// <summary>GetAttributionParams, with or without onError, its callback run in the frames that follow; how many callbacks ran.</summary>
        private static int CallbackOfARead(Rig rig, Action<Dictionary<string, object>, string> heard, bool withOnError)
        {
            var called = 0;
            Action<string> onError = e => { Interlocked.Increment(ref called); heard(null, e); };
            rig.Core.GetAttributionParams(p => { Interlocked.Increment(ref called); heard(p, null); }, withOnError ? onError : null);
            // Frames until the callback ran, however long the machine takes to get there.
            Patience.Until(() => Volatile.Read(ref called) > 0, "no callback ran", () => rig.Main.Drain());
            // A second callback would come from the same work, right after the first: a while, then a frame.
            Thread.Sleep(50);
            rig.Main.Drain();
            return called;
        }

        [Test]
        public void ACallbackThatThrowsIsLoggedAndTheRestOfTheFrameStillRuns()
        {
            var answers = 0;
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.Contains("/attribution")
                    ? Interlocked.Increment(ref answers) == 1 ? Answer(200, "{\"service_match_status\":\"organic\"}") : Answer(500, "{}")
                    : ScriptedBackend.Usual(key, body),
            };
            var main = new QueuedMainThread();
            var setup = Setups.For("http://service.test", backend, mainThread: main);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            core.GetAttributionParams(p => { throw new InvalidOperationException("app bug in onSuccess"); }, null);
            RunTheFrameOfTheCallback(main);
            // The settled answer was kept: without it the next read asks the service, which fails.
            setup.Store.Remove("service_sdk.attribution");
            core.GetAttributionParams(p => { }, e => { throw new InvalidOperationException("app bug in onError"); });
            RunTheFrameOfTheCallback(main);
            var log = (ListLog)setup.Log;
            Assert.AreEqual(1, log.At(LogLevel.Error, "app bug in onSuccess").Count);
            Assert.AreEqual(1, log.At(LogLevel.Error, "app bug in onError").Count);
        }

        /// <summary>
        /// Frames of the main thread, each with work posted after whatever the SDK posted, until
        /// one runs the SDK's callback: that frame neither throws nor leaves the work behind.
        /// </summary>
        private static void RunTheFrameOfTheCallback(QueuedMainThread main)
        {
            var deadline = DateTime.UtcNow + Patience.Bound;
            while (true)
            {
                Assert.Less(DateTime.UtcNow, deadline, "no callback was posted");
                Thread.Sleep(10);
                var after = false;
                main.Post(() => after = true);
                var ran = 0;
                Assert.DoesNotThrow(() => ran = main.Drain(), "a callback's exception stays out of the main thread's loop");
                Assert.IsTrue(after, "the work posted with the callback ran in the same frame");
                if (ran > 1) return;
            }
        }

        [Test]
        public void ADisabledSdkAnswersNotConfigured()
        {
            var backend = new ScriptedBackend { Answer = (key, body) => Answer(401, "{\"error\":\"Unauthorized\",\"detail\":\"x\"}") };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.IsTrue(core.IsSdkDisabled);
            Assert.AreEqual("not_configured", Read(core)[SdkCore.MatchStatus]);
        }

        [Test]
        public void EventsBeforeTheConfigurationArrivesAreSentAfterTheInstallInOrder()
        {
            var release = new ManualResetEventSlim();
            var backend = new ScriptedBackend
            {
                Answer = (key, body) =>
                {
                    if (key.StartsWith("GET /v1/config")) release.Wait(Patience.Bound);
                    return ScriptedBackend.Usual(key, body);
                },
            };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            core.Configure("sdk_key", 1, null);
            core.SendEvent(EventType.LOGIN, null, null);
            core.SendEvent(EventType.SHARE, null, null);
            release.Set();
            core.Idle().Wait();
            var order = backend.Requests.Select(r => r.Key).Where(k => !k.StartsWith("GET")).ToList();
            Assert.AreEqual("POST /v1/installs", order.First());
            var sent = backend.Requests.Where(r => r.Key.StartsWith("POST /v1/events")).SelectMany(r => r.Value["events"])
                .Select(e => (string)e["event_type"]).ToList();
            CollectionAssert.AreEqual(new[] { "LOGIN", "SHARE" }, sent);
        }

        [Test]
        public void ARetryableRefusalStaysQueuedAndOneRefusedForGoodLeavesWithOneError()
        {
            var posts = 0;
            var release = new ManualResetEventSlim();
            var backend = new ScriptedBackend
            {
                Answer = (key, body) =>
                {
                    // Both events are queued before the configuration arrives: one batch.
                    if (key.StartsWith("GET /v1/config")) release.Wait(Patience.Bound);
                    if (!key.StartsWith("POST /v1/events")) return ScriptedBackend.Usual(key, body);
                    var events = (JArray)body["events"];
                    if (Interlocked.Increment(ref posts) > 1) return ScriptedBackend.Usual(key, body);
                    return Tuple.Create(202, (JToken)new JObject
                    {
                        { "accepted", 0 },
                        {
                            "rejected", new JArray(
                                new JObject
                                {
                                    { "index", 0 }, { "event_id", events[0]["event_id"] }, { "error", "Conflict" }, { "retryable", true },
                                    { "detail", "install not recorded yet" },
                                },
                                new JObject
                                {
                                    { "index", 1 }, { "event_id", events[1]["event_id"] }, { "error", "Unprocessable Entity" }, { "retryable", false },
                                    { "detail", "event_name: too long" },
                                })
                        },
                    });
                },
            };
            var timers = new ManualTimers();
            var setup = Setups.For("http://service.test", backend, scheduler: timers);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, null);
            core.SendEvent(EventType.LOGIN, null, null);
            core.SendEvent(EventType.SHARE, null, null);
            release.Set();
            core.Idle().Wait();
            Assert.AreEqual(1, core.Queued, "the retryable one waits for the retry");
            Assert.AreEqual(1, timers.Fire(setup.RetryDelay));
            core.Idle().Wait();
            Assert.AreEqual(0, core.Queued);
            Assert.AreEqual(1, ((ListLog)setup.Log).At(LogLevel.Warn, "refused 1 of 2 events for good").Count);
            var sent = backend.Requests.Where(r => r.Key.StartsWith("POST")).Select(r => r.Key).ToList();
            // The launch's session goes before the events; the service had no install for the kept
            // event: the install is reported again first.
            CollectionAssert.AreEqual(
                new[] { "POST /v1/installs", "POST /v1/sessions", "POST /v1/events", "POST /v1/installs", "POST /v1/events" }, sent);
            var last = backend.Requests.Last(r => r.Key.StartsWith("POST /v1/events")).Value["events"];
            Assert.AreEqual(1, last.Count(), "only the retryable one was sent again");
            Assert.AreEqual("LOGIN", (string)last[0]["event_type"]);
        }

        [Test]
        public void ABatchRefusedAsAWholeIsDroppedAndTheNextEventsGoOn()
        {
            var posts = 0;
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("POST /v1/events") && Interlocked.Increment(ref posts) == 1
                    ? Answer(422, "{\"error\":\"Unprocessable Entity\",\"detail\":\"x\"}")
                    : ScriptedBackend.Usual(key, body),
            };
            var setup = Setups.For("http://service.test", backend);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Assert.AreEqual(0, core.Queued);
            // Alone in its request, the event refused is known: dropped with a warning and counted.
            Assert.AreEqual(1, ((ListLog)setup.Log).At(LogLevel.Warn, "1 event dropped (refused)").Count);
            Assert.AreEqual(1, core.DroppedEventCount);
            core.SendEvent(EventType.SHARE, null, null);
            core.Idle().Wait();
            var sent = backend.Requests.Where(r => r.Key.StartsWith("POST /v1/events")).ToList();
            Assert.AreEqual("SHARE", (string)sent.Last().Value["events"][0]["event_type"]);
            Assert.AreEqual(2, sent.Count, "the refused batch was not sent again");
        }

        [Test]
        public void WithoutAServiceAddressTheSdkStaysOff()
        {
            var core = new SdkCore(Setups.For(null, new ScriptedBackend { Answer = ScriptedBackend.Usual }));
            core.Configure("sdk_key", 1, null);
            Assert.IsTrue(core.IsSdkDisabled);
        }

        private static Dictionary<string, object> Read(SdkCore core)
        {
            var answer = new TaskCompletionSource<Dictionary<string, object>>();
            core.GetAttributionParams(p => answer.TrySetResult(p), e => answer.TrySetException(new Exception(e)));
            Assert.IsTrue(answer.Task.Wait(Patience.Bound));
            return answer.Task.Result;
        }
    }

    /// <summary>The static facade: the spec's names, its argument rules, and log-and-rethrow.</summary>
    [TestFixture]
    public class ServiceSdkTests
    {
        private ListLog log;

        [SetUp]
        public void FreshSdk()
        {
            var setup = Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual });
            log = (ListLog)setup.Log;
            ServiceSDK.UsePlatform(setup);
        }

        [Test]
        public void LinksParseBeforeConfigure()
        {
            var link = ServiceSDK.HandleUniversalLink("https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7");
            Assert.AreEqual("Kx3v9QpZ2aQ", link.DeeplinkId);
            Assert.AreEqual("/levels/7", link.QueryParams["deep_link_path"]);
            Assert.IsTrue(ServiceSDK.IsSdkDisabled());
            Assert.IsNull(ServiceSDK.GetServiceId());
        }

        [Test]
        public void GetAttributionParamsNeedsOnSuccess()
        {
            ServiceSDK.Configure("sdk_key");
            Assert.Throws<ArgumentNullException>(() => ServiceSDK.GetAttributionParams(null));
        }

        [Test]
        public void ASecondConfigureChangesNothingItsKeyAndCustomerUserIdIncluded()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            Assert.Throws<ArgumentException>(() => core.Configure("", 1, null));
            Assert.Throws<ArgumentException>(() => core.Configure(null, 1, null));
            Assert.IsFalse(core.IsConfigured);
            core.Configure("sdk_key", 1, "first");
            core.Idle().Wait();
            core.Configure("other_key", 1, "second");
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            var events = backend.Requests.Where(r => r.Key.StartsWith("POST /v1/events")).SelectMany(r => r.Value["events"]).ToList();
            Assert.AreEqual("first", (string)events.Single()["customer_user_id"]);
            Assert.AreEqual(1, backend.Requests.Count(r => r.Key.StartsWith("POST /v1/sessions")), "one session");
            Assert.IsTrue(backend.Headers.All(h => h.Item1 == "sdk_key"));
        }

        [Test]
        public void EveryRequestNamesTheSdkAndItsVersionInItsUserAgentAndCarriesTheKey()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            core.Configure("sdk_key", 1, null);
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Assert.GreaterOrEqual(backend.UserAgents.Count, 2);
            CollectionAssert.AreEqual(
                Enumerable.Repeat("ServiceSDK-Unity/" + Requests.SdkVersion, backend.UserAgents.Count),
                backend.UserAgents);
            // The bare key; a body is JSON, in UTF-8 (GET /v1/config has none).
            lock (backend.Requests)
            {
                Assert.IsTrue(backend.Headers.All(h => h.Item1 == "sdk_key"), string.Join(", ", backend.Headers));
                Assert.IsTrue(backend.Headers.Any(h => h.Item2 == null), "no body, no Content-Type");
                var typed = backend.Headers.Where(h => h.Item2 != null).ToList();
                Assert.IsNotEmpty(typed);
                Assert.IsTrue(typed.All(h => h.Item2 == "application/json"), string.Join(", ", typed));
            }
        }

        [Test]
        public void AFailureIsLoggedThenRethrown()
        {
            ServiceSDK.Configure("sdk_key");
            Assert.Throws<ArgumentException>(() => ServiceSDK.SendEvent(EventType.CUSTOM, null, null));
            Assert.IsTrue(log.Lines.Any(line => line.Contains("ServiceSDK.SendEvent failed")));
        }

        [Test]
        public void ConfigureTakesTheBaseUrlSetAfterAnEarlierCallMadeTheSdk()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            ServiceSDK.UsePlatform(Setups.For(null, backend));
            try
            {
                ServiceSDK.SetConsent(new ServiceConsent(adUserData: true));
                ServiceSDK.BaseUrl = "http://service.test";
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.Core.Idle().Wait();
                Assert.IsFalse(ServiceSDK.IsSdkDisabled());
                Assert.AreEqual(1, backend.To("POST /v1/installs").Count);
            }
            finally
            {
                ServiceSDK.BaseUrl = null;
            }
        }

        [Test]
        public void DeleteUserDataThatFailsIsLoggedAndItsTaskFaults()
        {
            var off = new SdkCore(Setups.For("", new ScriptedBackend { Answer = ScriptedBackend.Usual }));
            off.Configure("sdk_key", 1, null);
            var noAddress = Assert.Throws<AggregateException>(() => off.DeleteUserData().Wait(Patience.Bound)).InnerException;
            Assert.IsInstanceOf<InvalidOperationException>(noAddress);
            StringAssert.Contains("no service address", noAddress.Message);

            var failing = ServiceSDK.DeleteUserData();
            Assert.IsInstanceOf<InvalidOperationException>(Assert.Throws<AggregateException>(() => failing.Wait(Patience.Bound)).InnerException);
            Assert.AreEqual(1, log.At(LogLevel.Error, "ServiceSDK.DeleteUserData failed: call ServiceSDK.Configure first").Count);

            var setup = Setups.For("http://service.test", new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("DELETE")
                    ? Tuple.Create(500, (JToken)new JObject { { "error", "Internal Server Error" }, { "detail", "scripted" } })
                    : ScriptedBackend.Usual(key, body),
            });
            ServiceSDK.UsePlatform(setup);
            ServiceSDK.Configure("sdk_key");
            failing = ServiceSDK.DeleteUserData();
            var error = Assert.Throws<AggregateException>(() => failing.Wait(Patience.Bound)).InnerException;
            Assert.AreEqual(500, ((ServiceHttpException)error).Code);
            Assert.AreEqual(1, ((ListLog)setup.Log).At(LogLevel.Error, "ServiceSDK.DeleteUserData failed").Count);
        }

        [Test]
        public void CallsBeforeConfigureFailButAnEventIsQueued()
        {
            Assert.Throws<InvalidOperationException>(() => ServiceSDK.SetCustomerUserId("user"));
            Assert.Throws<InvalidOperationException>(() => ServiceSDK.GetAttributionParams(p => { }));
            // delivery.json: events sent before configure are delivered once it runs.
            ServiceSDK.SendEvent(EventType.LOGIN);
            Assert.AreEqual(1, ServiceSDK.Core.Queued);
        }

        [Test]
        public void TheLinkResultIsReadOnly()
        {
            var link = ServiceSDK.HandleUniversalLink("https://go.example.com/abc?x=1");
            link.QueryParams["x"] = "changed";
            Assert.AreEqual("1", link.QueryParams["x"]);
            Assert.IsTrue(typeof(ServiceLinkResult).IsSealed);
            Assert.IsTrue(typeof(ServiceLinkResult).GetProperties().All(p => !p.CanWrite));
        }
    }
}
