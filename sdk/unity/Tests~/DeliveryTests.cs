using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// An SDK with a scripted backend, its own timers, clock and main thread: events are
    /// numbered by a parameter `n` in the order SendEvent took them, as delivery.json counts them.
    /// </summary>
    /// <summary>
    /// The first request whose key starts (and ends) as given, held until <see cref="Answer"/> is
    /// set: <see cref="OnItsWay"/> says it left. The rig's other requests go as before.
    /// </summary>
    internal sealed class Held
    {
        public readonly ManualResetEventSlim OnItsWay = new ManualResetEventSlim();
        public readonly ManualResetEventSlim Answer = new ManualResetEventSlim();
        private int waiting = 1;

        public static Held First(Rig rig, string startsWith, string endsWith = "")
        {
            var held = new Held();
            var usual = rig.Backend.Answer;
            rig.Backend.Answer = (key, body) =>
            {
                if (key.StartsWith(startsWith) && key.EndsWith(endsWith) && Interlocked.Exchange(ref held.waiting, 0) == 1)
                {
                    held.OnItsWay.Set();
                    held.Answer.Wait(Patience.Bound);
                }
                return usual(key, body);
            };
            return held;
        }
    }

    internal sealed class Rig
    {
        public readonly ScriptedBackend Backend = new ScriptedBackend();
        public readonly ManualTimers Timers = new ManualTimers();
        public readonly QueuedMainThread Main = new QueuedMainThread();
        public readonly SettableClock Clock = new SettableClock();
        /// <summary>What the consent platform stored on the device (nothing unless a test sets it).</summary>
        public readonly FixedTcf Tcf = new FixedTcf();
        public readonly IKeyValueStore Store;
        /// <summary>The answer to POST /v1/events, from the numbers of its events; null: every one accepted.</summary>
        public Func<List<int>, JToken, Tuple<int, JToken>> Events;
        /// <summary>The answer to every other request.</summary>
        public Func<string, JToken, Tuple<int, JToken>> Other = ScriptedBackend.Usual;
        /// <summary>The numbers of the events the backend accepted, in the order it did.</summary>
        public readonly List<int> Accepted = new List<int>();
        public TimeSpan RetryDelay = TimeSpan.FromMilliseconds(100);
        public SdkSetup Setup;
        public SdkCore Core;
        public Heard Heard;
        /// <summary>What the platform says of this install of the app at the next <see cref="Launch"/> (null: nothing).</summary>
        public string InstallFingerprint;
        /// <summary>The app has no consent platform: no TCF values to read at the next <see cref="Launch"/>.</summary>
        public bool NoConsentPlatform;

        public Rig(IKeyValueStore store = null, string installFingerprint = null)
        {
            Store = store ?? new MemoryStore();
            InstallFingerprint = installFingerprint;
            Backend.Answer = (key, body) =>
            {
                if (!key.StartsWith("POST /v1/events")) return Other(key, body);
                var numbers = body["events"].Select(e => (int)e["parameters"]["n"]).ToList();
                var answer = Events == null ? ScriptedBackend.Usual(key, body) : Events(numbers, body);
                if (answer.Item1 == 202)
                {
                    var rejected = new HashSet<int>((answer.Item2["rejected"] as JArray ?? new JArray()).Select(r => (int)r["index"]));
                    lock (Accepted) Accepted.AddRange(numbers.Where((n, i) => !rejected.Contains(i)));
                }
                return answer;
            };
            Launch();
        }

        public ListLog Log
        {
            get { return (ListLog)Setup.Log; }
        }

        /// <summary>A new process on the same store.</summary>
        public SdkCore Launch()
        {
            Setup = Setups.For("http://service.test", Backend, Store, clock: Clock, scheduler: Timers, mainThread: Main, tcf: NoConsentPlatform ? null : Tcf);
            Setup.RetryDelay = RetryDelay;
            Setup.InstallFingerprint = InstallFingerprint;
            Core = new SdkCore(Setup);
            Heard = Heard.ErrorsOf(Core.Listeners);
            return Core;
        }

        public void Configure()
        {
            Core.Configure("sdk_key", 1, null);
            Core.Idle().Wait();
        }

        public void Send(int n)
        {
            Core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "n", n } });
        }

        /// <summary>Events `from` to `from + count - 1`, queued while the device is offline.</summary>
        public void QueueOffline(int count, int from = 0)
        {
            Backend.Offline = true;
            for (var n = from; n < from + count; n++) Send(n);
            Core.Idle().Wait();
            Backend.Offline = false;
        }

        /// <summary>Lets the retries run (not the hourly configuration read) until none waits, then a frame on the main thread.</summary>
        public void Settle()
        {
            Core.Idle().Wait();
            for (var round = 0; round < 50; round++)
            {
                if (Timers.FireUpTo(TimeSpan.FromMinutes(1)) == 0) break;
                Core.Idle().Wait();
            }
            Main.Drain();
        }

        public List<int> AcceptedNow
        {
            get { lock (Accepted) return Accepted.ToList(); }
        }
    }

    /// <summary>Every scenario of sdk/conformance/delivery.json, against the core with a scripted backend.</summary>
    [TestFixture]
    public class DeliveryTests
    {
        private static readonly string[] Covered =
        {
            Split413, Split422, RejectedByName, IgnoredByReason, QueueFull, Expired, NotTheContract, NotTheServices4xx, SentAt, Install404, Install401, Install422,
            StoppedNothing, StoppingDrops, BeforeConfigure,
        };

        private const string Split413 = "a batch refused as a whole with 413 is split until the one event refused alone is known";
        private const string Split422 = "a 4xx naming no event (400, 422) splits the batch as a 413 does";
        private const string RejectedByName = "an event rejected by name in a 202 is dropped alone; one rejected as retryable is kept";
        private const string IgnoredByReason = "events the service ignores are reported by the reason it gives";
        private const string QueueFull = "a full queue drops its oldest event, with a warning and a count";
        private const string Expired = "an event older than the backend keeps is dropped before it is sent";
        private const string NotTheContract = "a 2xx whose body is not the contract's is retried like a 5xx";
        private const string NotTheServices4xx = "a 4xx whose body is not the service's is retried like a 5xx, never a refusal";
        private const string SentAt = "every events request carries sent_at, the device clock when it left";
        private const string Install404 = "an install refused with 404 is a configuration error, not a stall";
        private const string Install401 = "an install refused with 401 or 403 keeps its events queued";
        private const string Install422 = "an install refused with another 4xx is sent bare once, then reported";
        private const string StoppedNothing = "stopped means no request at all, and it survives a restart";
        private const string StoppingDrops = "stopping drops what was queued, with the reason stopped";
        private const string BeforeConfigure = "events sent before configure are delivered once it runs";

        private static JObject Scenario(string name)
        {
            var scenario = Repo.Vectors("delivery.json")["scenarios"].Cast<JObject>().SingleOrDefault(s => (string)s["name"] == name);
            Assert.IsNotNull(scenario, "delivery.json has no scenario \"" + name + "\"");
            return scenario;
        }

        private static Tuple<int, JToken> Error(int status)
        {
            return Tuple.Create(status, (JToken)new JObject { { "error", "Refused" }, { "detail", "scripted " + status } });
        }

        /// <summary>A time the SDK sent (Json.NET reads an ISO string as a date).</summary>
        private static DateTime Time(JToken value)
        {
            return value.Type == JTokenType.Date
                ? ((DateTime)value).ToUniversalTime()
                : DateTime.Parse((string)value, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind).ToUniversalTime();
        }

        [Test]
        public void EveryScenarioOfDeliveryJsonHasItsTest()
        {
            var names = Repo.Vectors("delivery.json")["scenarios"].Select(s => (string)s["name"]).ToList();
            CollectionAssert.AreEquivalent(names, Covered);
        }

        [Test]
        public void TheLimitsAreTheVectors()
        {
            var limits = Repo.Vectors("delivery.json")["limits"];
            Assert.AreEqual((int)limits["maxQueuedEvents"], EventQueue.Capacity);
            Assert.AreEqual((int)limits["maxEventAgeDays"], (int)Delivery.MaxAge.TotalDays);
            Assert.AreEqual((int)limits["firstRetryDelaySeconds"], (int)new SdkSetup().RetryDelay.TotalSeconds);
            var reasons = ((JObject)Repo.Vectors("delivery.json")["dropReasons"]).Properties().Select(p => p.Name).ToList();
            CollectionAssert.AreEquivalent(reasons, Enum.GetValues(typeof(ServiceDropReason)).Cast<ServiceDropReason>().Select(ServiceError.WireName));
        }

        [Test]
        public void AnEventStoredNotQuiteAsSentIsDeliveredAndTheServicesWarningLogged()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)JObject.Parse(
                "{\"accepted\":1,\"ignored\":[],\"rejected\":[],\"warnings\":[{\"index\":0,\"event_id\":"
                + body["events"][0]["event_id"].ToString(Newtonsoft.Json.Formatting.None)
                + ",\"detail\":\"parameters.currency: XYZ is no currency code; the revenue is not recorded\"}]}"));
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            Assert.IsEmpty(rig.Heard.Errors);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "event stored with a change: #0").Count(line => line.Contains("XYZ is no currency code")));
        }

        [Test]
        public void AnEventTakenWhileAnonymousNeverCarriesTheCustomerUserIdOnceAnonymousModeIsOff()
        {
            var rig = new Rig();
            rig.Core.Configure("sdk_key", 1, "user-8812");
            rig.Settle();
            // The next launch, before Configure: #0 taken while anonymous, #1 once it is off.
            rig.Launch();
            rig.Core.SetAnonymous(true);
            rig.Send(0);
            Assert.IsFalse(rig.Store.Get(EventQueue.Key).Contains("user-8812"), "kept on the device without the id");
            rig.Core.SetAnonymous(false);
            rig.Send(1);
            rig.Configure();
            rig.Settle();
            // Configured, offline: #2 taken while anonymous, sent once it is off.
            rig.Backend.Offline = true;
            rig.Core.SetAnonymous(true);
            rig.Send(2);
            rig.Core.Idle().Wait();
            Assert.IsFalse(rig.Store.Get(EventQueue.Key).Contains("user-8812"), "kept on the device without the id");
            rig.Core.SetAnonymous(false);
            rig.Backend.Offline = false;
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0, 1, 2 }, rig.AcceptedNow);
            var sent = rig.Backend.To("POST /v1/events").SelectMany(r => r.Value["events"])
                .GroupBy(e => (int)e["parameters"]["n"]).ToDictionary(g => g.Key, g => (string)g.First()["customer_user_id"]);
            Assert.IsNull(sent[0]);
            Assert.AreEqual("user-8812", sent[1]);
            Assert.IsNull(sent[2]);
            // #0 and #2 say they were taken anonymous; #1 has no such key.
            var events = SentEvents(rig);
            Assert.AreEqual(true, (bool?)events[0]["anonymous"]);
            Assert.IsNull(events[1].Property("anonymous"), events[1].ToString());
            Assert.AreEqual(true, (bool?)events[2]["anonymous"]);
        }

        /// <summary>Each event the backend was sent, by its number, as it first went.</summary>
        private static Dictionary<int, JObject> SentEvents(Rig rig)
        {
            return rig.Backend.To("POST /v1/events").SelectMany(r => r.Value["events"]).Cast<JObject>()
                .GroupBy(e => (int)e["parameters"]["n"]).ToDictionary(g => g.Key, g => g.First());
        }

        [Test]
        public void AnEventTakenWhileAnonymousIsSentMarkedAnonymousInALaterLaunchWithTheModeOff()
        {
            var rig = new Rig();
            rig.Core.Configure("sdk_key", 1, "user-8812");
            rig.Settle();
            rig.Backend.Offline = true;
            rig.Core.SetAnonymous(true);
            rig.Send(0);
            rig.Core.Idle().Wait();
            rig.Core.SetAnonymous(false);
            var queued = rig.Store.Get(EventQueue.Key);
            StringAssert.Contains("\"Anonymous\":true", queued, "the mark is kept on the device");
            StringAssert.DoesNotContain("user-8812", queued);

            // The next launch, online, anonymous mode off: the event read back from the device
            // still goes marked, without the id. (A rig of its own: the first process's retry
            // stays on the first rig's timers.)
            var next = new Rig(rig.Store);
            Assert.IsFalse(next.Core.IsAnonymous);
            next.Configure();
            next.Settle();
            CollectionAssert.AreEqual(new[] { 0 }, next.AcceptedNow);
            var sent = SentEvents(next)[0];
            Assert.AreEqual(true, (bool?)sent["anonymous"], sent.ToString());
            Assert.AreEqual(JTokenType.Null, sent["customer_user_id"].Type, sent.ToString());
        }

        [Test]
        public void AnEventTakenOutsideAnonymousModeThatLeavesInItIsSentMarkedAnonymous()
        {
            var rig = new Rig();
            rig.Core.Configure("sdk_key", 1, "user-8812");
            rig.Settle();
            rig.QueueOffline(1);
            var queued = rig.Store.Get(EventQueue.Key);
            StringAssert.Contains("user-8812", queued, "queued with the id");
            StringAssert.DoesNotContain("Anonymous", queued, "an event taken outside the mode is kept unmarked");
            rig.Core.SetAnonymous(true);
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            var sent = SentEvents(rig)[0];
            Assert.AreEqual(true, (bool?)sent["anonymous"], sent.ToString());
            Assert.AreEqual(JTokenType.Null, sent["customer_user_id"].Type, sent.ToString());
        }

        [Test]
        public void AnEventTakenAndSentOutsideAnonymousModeHasNoAnonymousKey()
        {
            var rig = new Rig();
            rig.Core.Configure("sdk_key", 1, "user-8812");
            rig.Settle();
            rig.Send(0);
            rig.Settle();
            // Also once the mode was on and off again before it.
            rig.Core.SetAnonymous(true);
            rig.Core.SetAnonymous(false);
            rig.Send(1);
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);
            foreach (var sent in SentEvents(rig).Values)
            {
                Assert.IsNull(sent.Property("anonymous"), sent.ToString());
                Assert.AreEqual("user-8812", (string)sent["customer_user_id"]);
            }
        }

        [Test]
        public void ConfigureWithoutAServiceAddressSwitchesTheSdkOffAndTellsTheApp()
        {
            var rig = new Rig();
            rig.Send(0);
            rig.Send(1);
            // This launch's Configure finds no address: neither the platform's nor the app's.
            rig.Setup.BaseUrl = null;
            rig.Core.Configure("sdk_key", 1, null, null);
            rig.Settle();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            Assert.AreEqual(
                new[] { "configuration  1", "events_dropped disabled 2" },
                rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + e.Code + " " + e.Count).ToArray(),
                "a configuration error with no HTTP status, then what was queued dropped as a switch-off drops it");
            StringAssert.Contains("ServiceSDK.BaseUrl", rig.Heard.Errors[0].Message);
            Assert.AreEqual(0, rig.Core.Queued);
            Assert.AreEqual(2, rig.Core.DroppedEventCount);
            Assert.AreEqual(1, rig.Log.Lines.Count(l => l.StartsWith("Error ") && l.Contains("no service address")));
            Assert.IsEmpty(rig.Backend.Requests, "no request at all");
        }

        /// <summary>
        /// An address the SDK cannot send to (the scheme forgotten, another scheme) would fail
        /// every request before it left the device, as if offline, retried for ever: it is a
        /// missing address. http stays allowed (every other test of this rig sends to one).
        /// </summary>
        [TestCase("attribution.example.com")]
        [TestCase("ftp://attribution.example.com")]
        [TestCase("/v1")]
        [TestCase("https://service.test ")]
        public void ConfigureWithAnAddressThatIsNoHttpOrHttpsUrlSwitchesTheSdkOffAndTellsTheApp(string address)
        {
            var rig = new Rig();
            rig.Send(0);
            rig.Setup.BaseUrl = null;
            rig.Core.Configure("sdk_key", 1, null, address);
            rig.Send(1);
            rig.Settle();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            Assert.AreEqual(
                new[] { "configuration  1", "events_dropped disabled 1" },
                rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + e.Code + " " + e.Count).ToArray(),
                "a configuration error with no HTTP status, then what was queued dropped, as without an address");
            StringAssert.Contains("ServiceSDK.BaseUrl = \"" + address + "\"", rig.Heard.Errors[0].Message);
            Assert.AreEqual(1, rig.Log.Lines.Count(l => l.StartsWith("Error ") && l.Contains("ServiceSDK.BaseUrl = \"" + address + "\"")),
                "the log names the setting and its value");
            Assert.AreEqual(0, rig.Core.Queued);
            Assert.IsFalse(rig.Log.Lines.Any(l => l.Contains("sending later") || l.Contains("not fetched")), "never taken for offline");
            Assert.IsEmpty(rig.Backend.Requests, "no request at all");
        }

        /// <summary>
        /// An event SendEvent keeps nothing of is no drop (nothing reported, nothing counted), but
        /// never goes without a word at the app's level: the first of each reason is said at
        /// INFO, the later ones at DEBUG, as the Kotlin SDK says them.
        /// </summary>
        [TestCase("the SDK is stopped")]
        [TestCase("the SDK is switched off")]
        [TestCase("the install's data was deleted")]
        public void AnEventNotSentWhileStoppedSwitchedOffOrDeletedIsSaidAtInfoOncePerReasonThenAtDebug(string why)
        {
            var rig = new Rig();
            if (why.Contains("switched off"))
            {
                rig.Other = (key, body) => key.StartsWith("GET /v1/config")
                    ? Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":false}"))
                    : ScriptedBackend.Usual(key, body);
            }
            // DEBUG, to read the later lines too.
            rig.Core.Configure("sdk_key", 0, null);
            rig.Settle();
            if (why.Contains("stopped")) rig.Core.Stop();
            if (why.Contains("deleted")) rig.Core.DeleteUserData().Wait();
            rig.Settle();
            var errors = rig.Heard.Errors.Count;
            var dropped = rig.Core.DroppedEventCount;

            rig.Core.SendEvent(EventType.LOGIN, null, null);
            rig.Send(1);
            rig.Send(2);
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued);
            CollectionAssert.AreEqual(
                new[]
                {
                    "Info " + why + ": LOGIN is not sent, nor any event while it is",
                    "Debug " + why + ": LEVEL_START is not sent",
                    "Debug " + why + ": LEVEL_START is not sent",
                },
                rig.Log.Lines.Where(l => l.Contains(" is not sent")).ToArray());
            Assert.AreEqual(errors, rig.Heard.Errors.Count, "no drop is reported");
            Assert.AreEqual(dropped, rig.Core.DroppedEventCount, "nor counted");
        }

        [Test]
        public void AManualInstallEventIsNotSentAndTheLogSaysWhy()
        {
            var rig = new Rig();
            rig.Core.Configure("sdk_key", 0, null);
            rig.Settle();
            rig.Core.SendEvent(EventType.INSTALL, null, null);
            rig.Settle();
            Assert.AreEqual(0, rig.Core.Queued);
            Assert.IsEmpty(rig.Backend.To("POST /v1/events"));
            Assert.AreEqual(1, rig.Log.At(LogLevel.Debug, "INSTALL is not sent: the SDK reports the install itself").Count);
        }

        [Test]
        public void ConfigureOnAPlatformTheServiceTakesNoInstallFromSwitchesTheSdkOffAndTellsTheApp()
        {
            var rig = new Rig();
            rig.Send(0);
            // A desktop or WebGL player: its install would read as an Android phone's.
            rig.Setup.Unsupported = "this player (WindowsPlayer) is neither Android nor iOS";
            rig.Core.Configure("sdk_key", 1, null, null);
            rig.Settle();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            Assert.AreEqual(
                new[] { "configuration  1", "events_dropped disabled 1" },
                rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + e.Code + " " + e.Count).ToArray());
            StringAssert.Contains("neither Android nor iOS", rig.Heard.Errors[0].Message);
            rig.Send(1);
            rig.Settle();
            Assert.IsEmpty(rig.Backend.Requests, "no request at all");
        }

        /// <summary>delivery.json's `retryable4xx`: the 4xx that ask for the same request later.</summary>
        private static List<int> Retryable4xx()
        {
            return Repo.Vectors("delivery.json")["retryable4xx"].Select(s => (int)s).ToList();
        }

        [Test]
        public void Every4xxButTheRetryableOnesOfTheVectorsIsARefusalAndThoseAre408425And429()
        {
            CollectionAssert.AreEqual(new[] { 408, 425, 429 }, Retryable4xx());
            for (var code = 400; code <= 499; code++)
            {
                Assert.AreEqual(Retryable4xx().Contains(code), new ServiceHttpException(code, "x").IsRetryable, "HTTP " + code);
            }
        }

        [TestCase(408)]
        [TestCase(425)]
        [TestCase(429)]
        public void AnInstallAndABatchAnsweredWithARetryable4xxAreSentAgainWholeAndNothingIsDropped(int status)
        {
            CollectionAssert.Contains(Retryable4xx(), status);
            var rig = new Rig();
            var installs = 0;
            var batches = 0;
            rig.Other = (key, body) => key == "POST /v1/installs" && installs++ == 0 ? Error(status) : ScriptedBackend.Usual(key, body);
            rig.Events = (numbers, body) => batches++ == 0 ? Error(status) : ScriptedBackend.Usual("POST /v1/events", body);
            rig.Send(0);
            rig.Send(1);
            rig.Send(2);
            rig.Configure();
            rig.Settle();

            var sentInstalls = rig.Backend.To("POST /v1/installs").Select(r => (JObject)r.Value).ToList();
            Assert.AreEqual(2, sentInstalls.Count);
            Assert.IsTrue(sentInstalls.All(i => i["device_model"] != null), "the install is sent whole again, never bare");
            CollectionAssert.AreEqual(new[] { 3, 3 }, rig.Backend.To("POST /v1/events").Select(r => r.Value["events"].Count()).ToArray(),
                "the batch answered so, then the same three at once: never halved");
            CollectionAssert.AreEqual(new[] { 0, 1, 2 }, rig.AcceptedNow);
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
            Assert.IsEmpty(rig.Heard.Errors);
        }

        /// <summary>A batch refused whenever it holds one of these events: split until that one is alone.</summary>
        private static void SplitsUntilTheRefusedEventIsAlone(string name)
        {
            var scenario = Scenario(name);
            var queued = (int)scenario["given"]["queued"];
            var status = (int)scenario["backend"]["events"]["status"];
            var refused = scenario["backend"]["events"]["whenRequestHolds"].Select(i => (int)i).ToList();
            var rig = new Rig();
            var requests = new List<List<int>>();
            rig.Events = (numbers, body) =>
            {
                Assert.LessOrEqual(numbers.Count, 100, "at most 100 events a request");
                lock (requests) requests.Add(numbers);
                return numbers.Any(refused.Contains) ? Error(status) : ScriptedBackend.Usual("POST /v1/events", body);
            };
            rig.Configure();
            rig.QueueOffline(queued);
            rig.Settle();

            var expected = Enumerable.Range(0, queued).Where(n => !refused.Contains(n)).ToList();
            CollectionAssert.AreEqual(expected, rig.AcceptedNow, "every event but the refused one, in order, each accepted once");
            // Halves: no request but one of a single event holds all that is left of one refused
            // as a whole, as it would be refused again.
            var left = new HashSet<int>();
            foreach (var numbers in requests)
            {
                Assert.IsFalse(numbers.Count > 1 && left.Count > 0 && left.IsSubsetOf(numbers), "#" + numbers.First() + " to #" + numbers.Last() + " sent again whole");
                if (numbers.Any(refused.Contains)) left = new HashSet<int>(numbers);
                else left.ExceptWith(numbers);
            }
            // Found alone, the refused one ends the search: the next request is whole again.
            var alone = requests.FindIndex(numbers => numbers.SequenceEqual(refused));
            Assert.GreaterOrEqual(alone, 0, "the refused one sent alone");
            var after = scenario["expect"]["requestAfterTheDrop"].Select(i => (int)i).ToList();
            var next = requests[alone + 1];
            CollectionAssert.AreEqual(new[] { after[0], after[1] }, new[] { next.First(), next.Last() });
            Assert.AreEqual(after[1] - after[0] + 1, next.Count);
            Assert.AreEqual(0, rig.Core.Queued);
            AssertDropped(rig, scenario);
            var warning = rig.Log.At(LogLevel.Warn, "1 event dropped (refused)");
            Assert.AreEqual(1, warning.Count);
            StringAssert.Contains(status.ToString(CultureInfo.InvariantCulture), warning[0]);
        }

        [Test]
        public void AStopWhileTheInstallIsOnItsWaySendsNoConsentUpdateAfterIt()
        {
            var rig = new Rig();
            rig.Other = (key, body) =>
            {
                if (key.StartsWith("POST /v1/installs") && !key.EndsWith("/consent"))
                {
                    // The user opts out while the install is sent: a new consent, and a stop.
                    rig.Core.SetConsent(new ServiceConsent(adUserData: false));
                    rig.Core.Stop();
                }
                return ScriptedBackend.Usual(key, body);
            };
            rig.Configure();
            rig.Settle();
            Assert.AreEqual(1, rig.Backend.Requests.Count(r => r.Key.StartsWith("POST /v1/installs") && !r.Key.EndsWith("/consent")));
            Assert.AreEqual(0, rig.Backend.Requests.Count(r => r.Key.EndsWith("/consent")), "nothing after the stop");
        }

        [Test]
        public void AConsentUpdateRefusedWith404IsReportedOnceAndHoldsBackNoEvent()
        {
            // A service without the consent route: the update is refused, the events still go.
            var rig = new Rig();
            rig.Other = (key, body) => key.EndsWith("/consent") ? Error(404) : ScriptedBackend.Usual(key, body);
            rig.Configure();
            rig.Core.SetConsent(new ServiceConsent(adUserData: false));
            rig.Send(0);
            rig.Settle();
            rig.Core.SetConsent(new ServiceConsent(adUserData: true));
            rig.Send(1);
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);
            Assert.AreEqual(1, rig.Backend.Requests.Count(r => r.Key.EndsWith("/consent")), "not sent again in this process");
            Assert.AreEqual(1, rig.Heard.Errors.Count);
            Assert.AreEqual(ServiceErrorKind.Configuration, rig.Heard.Errors[0].Kind);
            Assert.AreEqual(404, rig.Heard.Errors[0].Code);
        }

        [Test]
        public void AnEventSentAfterSetConsentWhileAnEventsRequestIsOnItsWayLeavesAfterTheConsentUpdate()
        {
            // The user withdraws consent while an events request is on its way: the event the app
            // sends next joins the same send run, which must tell the service the consent first.
            var rig = new Rig();
            rig.Configure();
            var events = Held.First(rig, "POST /v1/events");
            rig.Send(0);
            Assert.IsTrue(events.OnItsWay.Wait(Patience.Bound), "event 0 is on its way");
            rig.Core.SetConsent(new ServiceConsent(gdprApplies: true, adUserData: false, adPersonalization: false));
            rig.Send(1);
            events.Answer.Set();
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);
            var posts = rig.Backend.Requests.Where(r => r.Key.StartsWith("POST"))
                .Select(r => r.Key.EndsWith("/consent") ? "consent"
                    : r.Key.StartsWith("POST /v1/events") ? "events " + string.Join(",", r.Value["events"].Select(e => (int)e["parameters"]["n"]))
                    : r.Key)
                .ToList();
            CollectionAssert.AreEqual(
                new[] { "POST /v1/installs", "POST /v1/sessions", "events 0", "consent", "events 1" }, posts,
                "the consent update goes before the event sent after it");
            var update = rig.Backend.Requests.Single(r => r.Key.EndsWith("/consent")).Value;
            Assert.AreEqual(false, (bool?)update["consent"]["ad_user_data"]);
        }

        /// <summary>
        /// Event 0 on its way, a consent withdrawn and event 1 sent meanwhile; then, while the consent
        /// update that goes before event 1's batch is on its way, <paramref name="meanwhile"/> (a stop).
        /// </summary>
        private static Rig WhileTheConsentUpdateBeforeABatchIsOnItsWay(Action<Rig> meanwhile)
        {
            var rig = new Rig();
            rig.Configure();
            var events = Held.First(rig, "POST /v1/events");
            var consent = Held.First(rig, "POST /v1/installs/", "/consent");
            rig.Send(0);
            Assert.IsTrue(events.OnItsWay.Wait(Patience.Bound), "event 0 is on its way");
            rig.Core.SetConsent(new ServiceConsent(gdprApplies: true, adUserData: false, adPersonalization: false));
            rig.Send(1);
            events.Answer.Set();
            Assert.IsTrue(consent.OnItsWay.Wait(Patience.Bound), "the consent update is on its way");
            meanwhile(rig);
            consent.Answer.Set();
            rig.Settle();
            return rig;
        }

        [Test]
        public void AStopMadeWhileTheConsentUpdateBeforeABatchIsOnItsWaySendsNothingOfThatBatch()
        {
            // The user withdraws consent, then opts out, while the update goes: the batch taken
            // before the update was dropped by the stop, and does not leave after it.
            var rig = WhileTheConsentUpdateBeforeABatchIsOnItsWay(r => r.Core.Stop());

            var posts = rig.Backend.Requests.Where(r => r.Key.StartsWith("POST"))
                .Select(r => r.Key.EndsWith("/consent") ? "consent"
                    : r.Key.StartsWith("POST /v1/events") ? "events " + string.Join(",", r.Value["events"].Select(e => (int)e["parameters"]["n"]))
                    : r.Key)
                .ToList();
            CollectionAssert.AreEqual(new[] { "POST /v1/installs", "POST /v1/sessions", "events 0", "consent" }, posts,
                "nothing of the batch the stop dropped leaves after it");
        }

        [Test]
        public void AStopAndAStartMadeWhileTheConsentUpdateBeforeABatchIsOnItsWayNeverSendTheBatchTheStopDropped()
        {
            // The user opts out and in again, as a consent screen's switch does, while the update
            // goes: the batch taken before it was dropped by the stop, and never leaves.
            var rig = WhileTheConsentUpdateBeforeABatchIsOnItsWay(r =>
            {
                r.Core.Stop();
                r.Core.Start();
            });

            Assert.IsFalse(rig.Backend.Requests.Any(r => r.Key.StartsWith("POST /v1/events") && r.Value["events"].Any(e => (int)e["parameters"]["n"] == 1)),
                "event 1, dropped by the stop, is never sent");
            CollectionAssert.AreEqual(new long[] { 1 }, rig.Heard.Dropped(ServiceDropReason.Stopped).Select(e => e.Count));
            Assert.AreEqual(0, rig.Core.Queued);
        }

        [Test]
        public void AConsentUpdateAnswered409SendsTheInstallAgainHoldingTheConsentThenTheEvents()
        {
            // The service holds no install of this id (lost since it was recorded): every consent update is a 409.
            var rig = new Rig();
            rig.Other = (key, body) => key.EndsWith("/consent") ? Error(409) : ScriptedBackend.Usual(key, body);
            rig.Configure();
            rig.Core.SetConsent(new ServiceConsent(adUserData: false));
            rig.Send(0);
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow, "the event is not held behind the update");
            var posts = rig.Backend.Requests.Where(r => r.Key.StartsWith("POST")).Select(r => r.Key.EndsWith("/consent") ? "consent" : r.Key).ToList();
            CollectionAssert.AreEqual(
                new[] { "POST /v1/installs", "POST /v1/sessions", "consent", "POST /v1/installs", "POST /v1/events" }, posts);
            var again = rig.Backend.To("POST /v1/installs").Last().Value;
            Assert.AreEqual(false, (bool?)again["consent"]["ad_user_data"], "the install sent again holds the consent now");
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "has no install").Count);
            Assert.IsEmpty(rig.Heard.Errors);
        }

        [TestCase(401)]
        [TestCase(403)]
        [TestCase(404)]
        public void AnEventsRouteRefusedWith401403Or404IsAConfigurationErrorThatKeepsTheEvents(int status)
        {
            var rig = new Rig();
            var refuse = true;
            rig.Events = (numbers, body) => refuse ? Error(status) : ScriptedBackend.Usual("POST /v1/events", body);
            rig.Configure();
            for (var n = 0; n < 3; n++) rig.Send(n);
            rig.Settle();

            Assert.AreEqual(new[] { "configuration " + status + " 1" }, rig.Heard.Errors.Select(e => e.KindName + " " + e.Code + " " + e.Count).ToArray());
            Assert.AreEqual(1, rig.Log.Lines.Count(l => l.StartsWith("Error ")), "one error-level line: " + string.Join("\n", rig.Log.Lines));
            Assert.AreEqual(3, rig.Core.Queued, "kept on the device, not dropped");
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
            Assert.IsFalse(rig.Core.IsSdkDisabled, "the events route does not switch the SDK off");
            // Nothing more on the route until remote configuration is read again: not on a retry, nor for a new event.
            rig.Send(3);
            rig.Settle();
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Count);
            Assert.AreEqual(1, rig.Heard.Errors.Count, "reported once");

            // The next reading of remote configuration tries the route again: refused again, it
            // is said at INFO, not told again.
            rig.Timers.FireUpTo(TimeSpan.FromHours(1));
            rig.Settle();
            Assert.AreEqual(2, rig.Backend.To("POST /v1/events").Count);
            Assert.AreEqual(1, rig.Heard.Errors.Count, "told once a process");
            Assert.AreEqual(1, rig.Log.At(LogLevel.Info, "the service refused POST /v1/events with " + status).Count);

            refuse = false;
            rig.Timers.FireUpTo(TimeSpan.FromHours(1));
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0, 1, 2, 3 }, rig.AcceptedNow);
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
        }

        [Test]
        public void ASessionsRouteRefusedWith404IsAConfigurationErrorThatHoldsBackNoEvent()
        {
            var rig = new Rig();
            rig.Other = (key, body) => key.StartsWith("POST /v1/sessions") ? Error(404) : ScriptedBackend.Usual(key, body);
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            rig.Send(1);
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow, "events meet their own answer");
            Assert.AreEqual(1, rig.Core.QueuedSessions, "the launch's session stays queued");
            Assert.AreEqual(1, rig.Backend.To("POST /v1/sessions").Count, "not sent again in this process until remote configuration is read again");
            Assert.AreEqual(new[] { "configuration 404 1" }, rig.Heard.Errors.Select(e => e.KindName + " " + e.Code + " " + e.Count).ToArray());
            Assert.AreEqual(0, rig.Core.DroppedEventCount);

            // The next reading of remote configuration tries the route again.
            rig.Other = ScriptedBackend.Usual;
            rig.Timers.FireUpTo(TimeSpan.FromHours(1));
            rig.Settle();
            Assert.AreEqual(0, rig.Core.QueuedSessions);
            Assert.AreEqual(2, rig.Backend.To("POST /v1/sessions").Count);
        }

        [Test]
        public void TheTcfValuesAreReadAgainAtEverySend()
        {
            var rig = new Rig();
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            Assert.IsEmpty(rig.Backend.To("POST /v1/installs/").Where(r => r.Key.EndsWith("/consent")));

            // The user answers the consent platform while the app runs.
            rig.Tcf.Values = new TcfValues { TcString = "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA", GdprApplies = 1 };
            rig.Send(1);
            rig.Settle();
            var updates = rig.Backend.To("POST /v1/installs/").Where(r => r.Key.EndsWith("/consent")).ToList();
            Assert.AreEqual(1, updates.Count);
            Assert.AreEqual("CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA", (string)updates[0].Value["consent"]["tcf_string"]);
            Assert.AreEqual(true, (bool)updates[0].Value["consent"]["gdpr_applies"]);
        }

        [Test]
        public void TheTcfValuesLastReadStandWhileTheConsentPlatformsCannotBeRead()
        {
            var rig = new Rig();
            rig.Tcf.Values = new TcfValues { TcString = "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA", GdprApplies = 1 };
            rig.Configure();
            rig.Tcf.Unreadable = true;
            rig.Core.SetConsent(new ServiceConsent(adUserData: false));
            rig.Send(0);
            rig.Settle();

            var update = rig.Backend.Requests.Single(r => r.Key.EndsWith("/consent")).Value;
            Assert.AreEqual("CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA", (string)update["consent"]["tcf_string"]);
            Assert.AreEqual(true, (bool?)update["consent"]["gdpr_applies"]);
            Assert.AreEqual(false, (bool?)update["consent"]["ad_user_data"]);
            StringAssert.Contains("IABTCF_gdprApplies is not a number", rig.Log.At(LogLevel.Warn, "the consent platform's TCF values were not read").First());
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
        }

        [Test]
        public void AnAppWithoutAConsentPlatformSaysNothingOfOne()
        {
            var rig = new Rig { NoConsentPlatform = true };
            rig.Launch();
            rig.Configure();
            rig.Core.SetConsent(new ServiceConsent(adUserData: false));
            rig.Send(0);
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            Assert.AreEqual(1, rig.Backend.Requests.Count(r => r.Key.EndsWith("/consent")));
            Assert.IsEmpty(rig.Log.At(LogLevel.Warn, ""), "no warning: " + string.Join("\n", rig.Log.Lines));
        }

        [Test]
        public void AConsentUpdateRefusedForGoodIsNotSentAgainUntilTheConsentChangesAgain()
        {
            var rig = new Rig();
            rig.Other = (key, body) => key.EndsWith("/consent") ? Error(422) : ScriptedBackend.Usual(key, body);
            rig.Configure();
            rig.Core.SetConsent(new ServiceConsent(adUserData: false));
            rig.Send(0);
            rig.Settle();
            rig.Send(1);
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow, "no event waits on it");
            Assert.AreEqual(1, rig.Backend.Requests.Count(r => r.Key.EndsWith("/consent")), "refused again if sent again as it was");
            Assert.AreEqual(1, rig.Log.At(LogLevel.Error, "the service refused the consent update for good").Count);
            rig.Core.SetConsent(new ServiceConsent(adUserData: true));
            rig.Send(2);
            rig.Settle();
            Assert.AreEqual(2, rig.Backend.Requests.Count(r => r.Key.EndsWith("/consent")), "a new consent goes");
        }

        [Test]
        public void TheConsentAnInstallCarriedGoesByItsRouteOnceTheInstallSentAgainGoesBare()
        {
            var rig = new Rig();
            var installs = 0;
            rig.Other = (key, body) => key == "POST /v1/installs" && ++installs == 2 ? Error(422) : ScriptedBackend.Usual(key, body);
            var answered = 0;
            rig.Events = (numbers, body) => answered++ > 0 ? ScriptedBackend.Usual("POST /v1/events", body) : Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", 0 }, { "ignored", new JArray() },
                {
                    "rejected", new JArray(new JObject
                    {
                        { "index", 0 }, { "event_id", body["events"][0]["event_id"] }, { "error", "Conflict" }, { "retryable", true },
                        { "detail", "no install of this id" },
                    })
                },
            });
            rig.Core.SetConsent(new ServiceConsent(adUserData: false));
            rig.Configure();
            rig.Send(0);
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            var sent = rig.Backend.Requests.Where(r => r.Key == "POST /v1/installs").Select(r => r.Value).ToList();
            Assert.AreEqual(3, sent.Count, "recorded, sent again whole and refused, then bare");
            Assert.AreEqual(false, (bool?)sent[0]["consent"]["ad_user_data"]);
            Assert.IsNull(sent[2]["consent"]);
            var update = rig.Backend.Requests.Single(r => r.Key.EndsWith("/consent")).Value;
            Assert.AreEqual(false, (bool?)update["consent"]["ad_user_data"], "the consent the bare install lacks");
        }

        [Test]
        public void AnInstallGoneBareWithNoConsentNorTrackingToTellIsFollowedByNoConsentUpdate()
        {
            var rig = new Rig();
            var installs = 0;
            rig.Other = (key, body) => key == "POST /v1/installs" && ++installs == 1 ? Error(422) : ScriptedBackend.Usual(key, body);
            rig.Configure();
            rig.Send(0);
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            Assert.AreEqual(2, installs, "refused whole, then recorded bare");
            Assert.IsEmpty(rig.Backend.Requests.Where(r => r.Key.EndsWith("/consent")), "nothing the service lacks");
        }

        [TestCase(4096, true)]
        [TestCase(4097, false)]
        public void ATcfStringLongerThanTheServiceTakesIsLeftOutWithAWarning(int length, bool sent)
        {
            var rig = new Rig();
            var tcString = new string('C', length);
            rig.Tcf.Values = new TcfValues { TcString = tcString, GdprApplies = 1 };
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            rig.Send(1);
            rig.Settle();

            var consent = rig.Backend.To("POST /v1/installs").Single().Value["consent"];
            Assert.AreEqual(true, (bool)consent["gdpr_applies"], "the rest of the consent goes");
            Assert.AreEqual(sent ? tcString : null, (string)consent["tcf_string"]);
            Assert.AreEqual(sent ? 0 : 1, rig.Log.At(LogLevel.Warn, "TCF string").Count, "one warning for the string: " + string.Join("\n", rig.Log.Lines));
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);
        }

        /// <summary>`expect.errors` heard by the error listener, and the count kept on the device.</summary>
        private static void AssertDropped(Rig rig, JObject scenario)
        {
            var errors = (JArray)scenario["expect"]["errors"];
            CollectionAssert.AreEqual(
                errors.Select(e => (string)e["kind"] + " " + (string)e["reason"] + " " + (int)e["count"]).ToList(),
                rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + " " + e.Count).ToList());
            Assert.AreEqual(errors.Sum(e => (int)e["count"]), rig.Core.DroppedEventCount);
        }

        [Test]
        public void A413BatchIsSplitUntilTheOneRefusedEventIsKnown()
        {
            SplitsUntilTheRefusedEventIsAlone(Split413);
        }

        [Test]
        public void A422BatchIsSplitAsA413Is()
        {
            SplitsUntilTheRefusedEventIsAlone(Split422);
        }

        [Test]
        public void AnEventRejectedByNameIsDroppedAloneAndOneRetryableIsKept()
        {
            var scenario = Scenario(RejectedByName);
            var rig = new Rig();
            var attempts = 0;
            rig.Events = (numbers, body) =>
            {
                if (++attempts > 1) return ScriptedBackend.Usual("POST /v1/events", body);
                var events = (JArray)body["events"];
                var rejected = scenario["backend"]["events"]["rejected"].Select(r => new JObject
                {
                    { "index", r["index"] },
                    { "event_id", events[(int)r["index"]]["event_id"] },
                    { "error", (bool)r["retryable"] ? "Conflict" : "Unprocessable Entity" },
                    { "retryable", r["retryable"] },
                    { "detail", (bool)r["retryable"] ? "install not recorded yet" : "event_name: too long" },
                });
                return Tuple.Create(202, (JToken)new JObject
                {
                    { "accepted", numbers.Count - rejected.Count() }, { "ignored", new JArray() }, { "rejected", new JArray(rejected) },
                });
            };
            rig.Configure();
            rig.QueueOffline((int)scenario["given"]["queued"]);
            rig.Core.Idle().Wait();
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow, "#0 at once");
            Assert.AreEqual(1, rig.Core.Queued, "#2 kept for a later attempt");
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0, 2 }, rig.AcceptedNow, "#2 on a later attempt");
            AssertDropped(rig, scenario);
        }

        [TestCase("Conflict", 2)]
        [TestCase("Service Unavailable", 1)]
        [TestCase(null, 1)]
        public void OnlyARetryableConflictSendsTheInstallAgainBeforeTheEvent(string error, int installs)
        {
            var rig = new Rig();
            var attempts = 0;
            rig.Events = (numbers, body) =>
            {
                if (++attempts > 1) return ScriptedBackend.Usual("POST /v1/events", body);
                var refusal = new JObject
                {
                    { "index", 0 }, { "event_id", body["events"][0]["event_id"] }, { "retryable", true }, { "detail", "later" },
                };
                if (error != null) refusal["error"] = error;
                return Tuple.Create(202, (JToken)new JObject
                {
                    { "accepted", 0 }, { "ignored", new JArray() }, { "rejected", new JArray(refusal) },
                });
            };
            rig.Configure();
            Assert.AreEqual(1, rig.Backend.To("POST /v1/installs").Count);
            rig.Send(0);
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Core.Queued, "kept for a later attempt");

            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow, "sent again later");
            Assert.AreEqual(installs, rig.Backend.To("POST /v1/installs").Count,
                error == "Conflict" ? "the install reported again first" : "the install, recorded, not sent again");
        }

        [Test]
        public void EventsTheServiceIgnoresAreReportedByTheReasonItGives()
        {
            // The service's own reasons: the install's data deleted, the app switched off.
            var scenario = Scenario(IgnoredByReason);
            var reasons = scenario["backend"]["events"]["ignored"].ToDictionary(i => (int)i["index"], i => (string)i["reason"]);
            var rig = new Rig();
            rig.Events = (numbers, body) =>
            {
                var events = (JArray)body["events"];
                var ignored = numbers.Select((n, position) => new { n, position }).Where(x => reasons.ContainsKey(x.n))
                    .Select(x => new JObject
                    {
                        { "index", x.position }, { "event_id", events[x.position]["event_id"] }, { "reason", reasons[x.n] }, { "detail", "in words" },
                    });
                return Tuple.Create(202, (JToken)new JObject
                {
                    { "accepted", numbers.Count - reasons.Count }, { "ignored", new JArray(ignored) }, { "rejected", new JArray() },
                });
            };
            rig.Configure();
            rig.QueueOffline((int)scenario["given"]["queued"]);
            rig.Settle();

            Assert.AreEqual((int)scenario["expect"]["queued"], rig.Core.Queued, "not sent again");
            AssertDropped(rig, scenario);
        }

        [Test]
        public void AFullQueueDropsItsOldestEventWithAWarningAndACount()
        {
            var scenario = Scenario(QueueFull);
            var rig = new Rig();
            rig.Configure();
            var queued = (int)scenario["given"]["queued"];
            rig.QueueOffline(queued);
            Assert.AreEqual(queued, rig.Core.Queued);
            Assert.IsEmpty(rig.Heard.Errors);
            rig.QueueOffline(5, queued);
            rig.Main.Drain();

            Assert.AreEqual((int)scenario["expect"]["queued"], rig.Core.Queued);
            Assert.AreEqual((long)scenario["expect"]["droppedEventCount"], rig.Core.DroppedEventCount);
            Assert.AreEqual(5, rig.Heard.Dropped(ServiceDropReason.QueueFull).Sum(e => e.Count), "queue_full, 5 in all");
            Assert.AreEqual(5, rig.Log.At(LogLevel.Warn, "dropped (queue_full)").Count);
            // The oldest went: #5 to #1004 are delivered, in order.
            rig.Settle();
            CollectionAssert.AreEqual(Enumerable.Range(5, queued).ToList(), rig.AcceptedNow);
            // Kept on the device: the next launch reads the same count.
            Assert.AreEqual(5, rig.Launch().DroppedEventCount);
        }

        /// <summary>
        /// A full queue whose first batch is on its way when one more event comes: the bound
        /// takes the oldest, which is in that batch. <paramref name="answer"/> answers the batch.
        /// </summary>
        private static Rig FullWhileTheFirstBatchIsOnItsWay(Func<List<int>, JToken, Tuple<int, JToken>> answer)
        {
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline(EventQueue.Capacity);
            var first = 0;
            rig.Events = (numbers, body) => Interlocked.Exchange(ref first, 1) == 0 ? answer(numbers, body) : ScriptedBackend.Usual("POST /v1/events", body);
            var events = Held.First(rig, "POST /v1/events");
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            Assert.IsTrue(events.OnItsWay.Wait(Patience.Bound), "the batch is on its way");
            rig.Send(EventQueue.Capacity);
            events.Answer.Set();
            rig.Settle();
            return rig;
        }

        [Test]
        public void AnEventTheBoundTakesWhileOnItsWayThatTheServiceStoresIsDeliveredNotReportedDropped()
        {
            var rig = FullWhileTheFirstBatchIsOnItsWay((numbers, body) => ScriptedBackend.Usual("POST /v1/events", body));

            CollectionAssert.AreEqual(Enumerable.Range(0, EventQueue.Capacity + 1).ToList(), rig.AcceptedNow, "every event delivered, once");
            Assert.IsEmpty(rig.Heard.Dropped(ServiceDropReason.QueueFull), "no drop told of an event the service stored");
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
        }

        [Test]
        public void AnEventTheBoundTakesWhileOnItsWayIsReportedOnceWhenItsAnswerRefusesItOrFails()
        {
            // Refused by name: the refusal alone is told, not the bound's drop too.
            var refused = FullWhileTheFirstBatchIsOnItsWay((numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", numbers.Count - 1 },
                { "rejected", new JArray(new JObject { { "index", 0 }, { "error", "Unprocessable" }, { "retryable", false }, { "detail", "scripted" } }) },
            }));
            CollectionAssert.AreEqual(new[] { "refused 1" }, refused.Heard.Errors.Select(e => e.ReasonName + " " + e.Count));
            Assert.AreEqual(1, refused.Core.DroppedEventCount);

            // The request failed: the event is off the queue, so not sent again, and the bound's drop is told then.
            var failed = FullWhileTheFirstBatchIsOnItsWay((numbers, body) => Error(503));
            CollectionAssert.AreEqual(Enumerable.Range(1, EventQueue.Capacity).ToList(), failed.AcceptedNow);
            CollectionAssert.AreEqual(new[] { "queue_full 1" }, failed.Heard.Errors.Select(e => e.ReasonName + " " + e.Count));
            Assert.AreEqual(1, failed.Core.DroppedEventCount);
        }

        [Test]
        public void AnEventTheBoundTakesWhileTheConsentUpdateBeforeItsBatchIsOnItsWayIsToldOnceAndNeverSent()
        {
            // The batch is taken, then the consent update goes first, a round trip: the event the
            // bound takes meanwhile is told dropped at once, so it must not leave with the batch.
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline(EventQueue.Capacity);
            var events = Held.First(rig, "POST /v1/events");
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            Assert.IsTrue(events.OnItsWay.Wait(Patience.Bound), "events 0 to 99 are on their way");
            // Set while they are: the next batch (100 to 199) is taken, then the update goes.
            rig.Core.SetConsent(new ServiceConsent(adUserData: true));
            var consent = Held.First(rig, "POST /v1/installs", "/consent");
            events.Answer.Set();
            Assert.IsTrue(consent.OnItsWay.Wait(Patience.Bound), "the consent update is on its way, the next batch taken");
            // 900 queued and 101 more: the bound takes the oldest, event 100.
            for (var n = EventQueue.Capacity; n <= EventQueue.Capacity + 100; n++) rig.Send(n);
            consent.Answer.Set();
            rig.Settle();

            var expected = Enumerable.Range(0, EventQueue.Capacity + 101).Where(n => n != 100).ToList();
            CollectionAssert.AreEqual(expected, rig.AcceptedNow, "event 100 never sent");
            CollectionAssert.AreEqual(new[] { "queue_full 1" }, rig.Heard.Errors.Select(e => e.ReasonName + " " + e.Count));
            Assert.AreEqual(1, rig.Core.DroppedEventCount);
        }

        [Test]
        public void AnEventRefusedAloneThatTheBoundTookWhileOnItsWayIsToldOnce()
        {
            // Event 0 is refused in every batch that holds it, down to its own request; the
            // bound takes it while that request is on its way: the refusal is its one report.
            var rig = new Rig();
            var alone = new ManualResetEventSlim();
            var answer = new ManualResetEventSlim();
            var held = 0;
            rig.Events = (numbers, body) =>
            {
                if (!numbers.Contains(0)) return ScriptedBackend.Usual("POST /v1/events", body);
                if (numbers.Count == 1 && Interlocked.Exchange(ref held, 1) == 0)
                {
                    alone.Set();
                    answer.Wait(Patience.Bound);
                }
                return Error(422);
            };
            rig.Configure();
            rig.QueueOffline(EventQueue.Capacity);
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            Assert.IsTrue(alone.Wait(Patience.Bound), "event 0 is on its way alone");
            rig.Send(EventQueue.Capacity);
            answer.Set();
            rig.Settle();

            CollectionAssert.AreEqual(new[] { "refused 1" }, rig.Heard.Errors.Select(e => e.ReasonName + " " + e.Count));
            Assert.AreEqual(1, rig.Core.DroppedEventCount);
            CollectionAssert.AreEqual(Enumerable.Range(1, EventQueue.Capacity).ToList(), rig.AcceptedNow);
        }

        [Test]
        public void AnEventOlderThanTheBackendKeepsIsDroppedBeforeItIsSent()
        {
            var scenario = Scenario(Expired);
            var rig = new Rig();
            rig.Configure();
            rig.Clock.Offset = -TimeSpan.FromDays((int)scenario["given"]["firstEventAgeDays"]);
            rig.QueueOffline(1);
            rig.Clock.Offset = TimeSpan.Zero;
            rig.QueueOffline(1, 1);
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 1 }, rig.AcceptedNow, "#1 only");
            AssertDropped(rig, scenario);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "dropped (expired)").Count);
        }

        [Test]
        public void AVerdictsDetailThatIsNoStringIsShownAsTheJsonItIs()
        {
            var answer = JsonText.ParseObject("{\"accepted\":0,\"rejected\":[{\"index\":0,\"error\":\"Unprocessable\",\"detail\":{\"field\":\"level\"},\"retryable\":false},"
                + "{\"index\":1,\"error\":\"Unprocessable\",\"detail\":7,\"retryable\":false}]}");
            var verdict = BatchVerdict.Parse(answer, 2);
            CollectionAssert.AreEqual(new[] { "{\"field\":\"level\"}", "7" }, verdict.Refused.Select(r => r.Value).ToArray());
        }

        [Test]
        public void AQueueOfExpiredEventsAloneSendsNoRequest()
        {
            var rig = new Rig();
            rig.Configure();
            rig.Clock.Offset = -TimeSpan.FromDays(31);
            rig.QueueOffline(2);
            rig.Clock.Offset = TimeSpan.Zero;
            rig.Settle();
            Assert.IsEmpty(rig.Backend.To("POST /v1/events"), "nothing left to send once they are dropped");
            Assert.AreEqual(2, rig.Core.DroppedEventCount);
            Assert.AreEqual(0, rig.Core.Queued);
        }

        [Test]
        public void A2xxWhoseBodyIsNotTheContractsIsRetriedLikeA5xx()
        {
            NotTheServicesAnswerIsRetriedLikeA5xx(NotTheContract);
        }

        [Test]
        public void A4xxWhoseBodyIsNotTheServicesIsRetriedLikeA5xxNeverARefusal()
        {
            NotTheServicesAnswerIsRetriedLikeA5xx(NotTheServices4xx);
        }

        private void NotTheServicesAnswerIsRetriedLikeA5xx(string name)
        {
            var scenario = Scenario(name);
            var rig = new Rig { RetryDelay = new SdkSetup().RetryDelay };
            rig.Launch();
            var times = (int)scenario["backend"]["events"]["times"];
            rig.Backend.RawAnswer = (key, body) => key.StartsWith("POST /v1/events") && times-- > 0
                ? Tuple.Create((int)scenario["backend"]["events"]["status"], (string)scenario["backend"]["events"]["body"])
                : null;
            rig.Configure();
            rig.QueueOffline((int)scenario["given"]["queued"]);
            rig.Core.Idle().Wait();
            // The retry that waited since the device went offline meets the HTML: a warning, the events kept.
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            rig.Core.Idle().Wait();
            Assert.IsEmpty(rig.AcceptedNow);
            Assert.AreEqual(2, rig.Core.Queued);
            var warnings = rig.Log.At(LogLevel.Warn, "unexpected answer");
            Assert.AreEqual(1, warnings.Count, string.Join("\n", rig.Log.Lines));
            StringAssert.Contains((string)scenario["backend"]["events"]["body"], warnings[0]);
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
            Assert.IsEmpty(rig.Heard.Errors);
        }

        [Test]
        public void A2xxNotTheContractsWaitsTheFirstRetryDelay()
        {
            var rig = new Rig { RetryDelay = new SdkSetup().RetryDelay };
            rig.Launch();
            var times = 1;
            rig.Backend.RawAnswer = (key, body) => key.StartsWith("POST /v1/events") && times-- > 0 ? Tuple.Create(200, "<html>ok</html>") : null;
            rig.Configure();
            rig.Send(0);
            rig.Send(1);
            rig.Core.Idle().Wait();
            Assert.AreEqual(2, rig.Core.Queued);
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromSeconds(2), "retried after the first retry delay, 2 s");
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(2)));
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow, "on the second attempt");
        }

        [Test]
        public void AStopAndAStartBeginTheBackoffAgain()
        {
            var rig = new Rig();
            // The service down for events and sessions: the session a Start makes fails too.
            rig.Events = (numbers, body) => Error(503);
            rig.Other = (key, body) => key.StartsWith("POST /v1/sessions") ? Error(503) : ScriptedBackend.Usual(key, body);
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            // The backoff doubles at each failure: 100 ms, 200 ms, then 400 ms.
            foreach (var waited in new[] { 100, 200 })
            {
                Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromMilliseconds(waited)));
                rig.Core.Idle().Wait();
            }
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromMilliseconds(400));
            var posts = rig.Backend.To("POST /v1/sessions").Count;

            rig.Core.Stop();
            rig.Core.Start();
            rig.Send(1);
            rig.Core.Idle().Wait();
            // Tried at once (the session a Start makes goes first), and its failure waits the
            // first step again.
            Assert.AreEqual(posts + 1, rig.Backend.To("POST /v1/sessions").Count);
            CollectionAssert.Contains(rig.Timers.Delays, rig.RetryDelay);
            CollectionAssert.DoesNotContain(rig.Timers.Delays, TimeSpan.FromMilliseconds(800));
        }

        [Test]
        public void AReadOfTheConfigurationWhileARetryWaitsLeavesTheQueueToTheRetry()
        {
            // A refresh interval shorter than the retry's delay, which doubles from 2 s up to a
            // minute: each read of the configuration sending the queue too would hammer a
            // failing service at the refresh's pace.
            var rig = new Rig { RetryDelay = new SdkSetup().RetryDelay };
            rig.Launch();
            rig.Other = (key, body) => key.StartsWith("GET /v1/config")
                ? Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":true,\"refresh_interval_seconds\":1}"))
                : ScriptedBackend.Usual(key, body);
            var failing = true;
            rig.Events = (numbers, body) => Volatile.Read(ref failing) ? Error(503) : ScriptedBackend.Usual("POST /v1/events", body);
            rig.Configure();
            Assert.AreEqual(TimeSpan.FromSeconds(1), rig.Core.RefreshInterval);
            rig.Send(0);
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Count);
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromSeconds(2), "the retry waits 2 s");

            for (var read = 0; read < 3; read++)
            {
                Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(1)), "the configuration is read again");
                rig.Core.Idle().Wait();
            }
            Assert.AreEqual(4, rig.Backend.To("GET /v1/config").Count);
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Count, "the reads sent nothing: the queue waits for its retry");

            // The retry, at its delay, sends what waited; the next one would wait 4 s.
            Volatile.Write(ref failing, false);
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(2)));
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            Assert.AreEqual(2, rig.Backend.To("POST /v1/events").Count);
        }

        [Test]
        public void EveryEventsRequestCarriesSentAtTheDeviceClockWhenItLeft()
        {
            var scenario = Scenario(SentAt);
            var rig = new Rig();
            rig.Clock.Offset = TimeSpan.FromHours((int)scenario["given"]["clockAheadHours"]);
            rig.Configure();
            var before = rig.Clock.UtcNow.AddMilliseconds(-1);
            rig.Send(0);
            rig.Settle();
            var after = rig.Clock.UtcNow.AddMilliseconds(1);
            var request = rig.Backend.To("POST /v1/events").Single().Value;
            var sentAt = Time(request["sent_at"]);
            Assert.That(sentAt, Is.InRange(before, after),
                "the device clock, 30 hours ahead: " + request["sent_at"] + " not within " + before.ToString("o") + " and " + after.ToString("o"));
            Assert.Greater(sentAt, DateTime.UtcNow.AddHours(29));
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
        }

        [Test]
        public void SentAtIsSetAgainOnEachAttempt()
        {
            var rig = new Rig();
            var attempts = 0;
            rig.Events = (numbers, body) => ++attempts == 1 ? Error(503) : ScriptedBackend.Usual("POST /v1/events", body);
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            rig.Clock.Offset = TimeSpan.FromMinutes(5);
            rig.Settle();
            var sent = rig.Backend.To("POST /v1/events").Select(r => Time(r.Value["sent_at"])).ToList();
            Assert.AreEqual(2, sent.Count);
            Assert.GreaterOrEqual((sent[1] - sent[0]).TotalMinutes, 4.9);
        }

        [Test]
        public void AnInstallRefusedWith404IsAConfigurationErrorNotAStall()
        {
            var scenario = Scenario(Install404);
            var rig = new Rig();
            var refuse = true;
            rig.Other = (key, body) => refuse && key == "POST /v1/installs" ? Error(404) : ScriptedBackend.Usual(key, body);
            rig.Core.Configure("sdk_key", 1, null);
            for (var n = 0; n < (int)scenario["given"]["queued"]; n++) rig.Send(n);
            rig.Settle();

            Assert.AreEqual(1, rig.Heard.Errors.Count);
            var error = rig.Heard.Errors[0];
            Assert.AreEqual(ServiceErrorKind.Configuration, error.Kind);
            Assert.AreEqual("configuration", error.KindName);
            Assert.AreEqual((int)scenario["expect"]["errors"][0]["code"], error.Code);
            Assert.AreEqual((int)scenario["expect"]["errors"][0]["count"], error.Count);
            Assert.IsNull(error.Reason);
            Assert.AreEqual(1, rig.Log.Lines.Count(l => l.StartsWith("Error ")), "one error-level line: " + string.Join("\n", rig.Log.Lines));
            Assert.AreEqual((int)scenario["expect"]["queued"], rig.Core.Queued);
            // Nothing more in this process: not on a retry, nor for a new event.
            rig.Timers.FireUpTo(TimeSpan.FromHours(2));
            rig.Send(3);
            rig.Settle();
            Assert.AreEqual(1, rig.Backend.To("POST /v1/installs").Count);
            Assert.IsEmpty(rig.Backend.To("POST /v1/events"));
            Assert.AreEqual(1, rig.Heard.Errors.Count, "reported once");
            Assert.AreEqual(0, rig.Core.DroppedEventCount, "nothing dropped");

            // The next start, with the backend answering 202: the install and the events.
            refuse = false;
            rig.Launch();
            rig.Configure();
            rig.Settle();
            Assert.AreEqual(2, rig.Backend.To("POST /v1/installs").Count);
            CollectionAssert.AreEqual(new[] { 0, 1, 2, 3 }, rig.AcceptedNow);
        }

        [TestCase(401)]
        [TestCase(403)]
        public void AnInstallRefusedWith401Or403KeepsItsEventsQueued(int status)
        {
            var scenario = Scenario(Install401);
            Assert.AreEqual(401, (int)scenario["backend"]["install"]["status"]);
            var rig = new Rig();
            rig.Other = (key, body) => key == "POST /v1/installs" ? Error(status) : ScriptedBackend.Usual(key, body);
            rig.Core.Configure("sdk_key", 1, null);
            for (var n = 0; n < (int)scenario["given"]["queued"]; n++) rig.Send(n);
            rig.Settle();
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            rig.Settle();
            Assert.AreEqual(1, rig.Heard.Errors.Count);
            Assert.AreEqual(ServiceErrorKind.Configuration, rig.Heard.Errors[0].Kind);
            Assert.AreEqual(status, rig.Heard.Errors[0].Code);
            Assert.AreEqual((int)scenario["expect"]["queued"], rig.Core.Queued, "kept, not cleared");
            Assert.IsFalse(rig.Core.IsSdkDisabled, "a refused install does not switch the SDK off");
            Assert.AreEqual(1, rig.Backend.To("POST /v1/installs").Count, "not tried again until the next start");
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
        }

        [Test]
        public void AnInstallRefusedWithAnother4xxIsSentBareOnceThenReported()
        {
            var scenario = Scenario(Install422);
            var rig = new Rig();
            rig.Other = (key, body) => key == "POST /v1/installs" ? Error((int)scenario["backend"]["install"]["status"]) : ScriptedBackend.Usual(key, body);
            rig.Core.Configure("sdk_key", 1, null);
            rig.Send(0);
            rig.Settle();
            var installs = rig.Backend.To("POST /v1/installs").Select(r => (JObject)r.Value).ToList();
            Assert.AreEqual(2, installs.Count, "the full body, then once with its required fields only");
            Assert.IsNotNull(installs[0]["device_model"]);
            CollectionAssert.AreEquivalent(
                new[] { "service_id", "os", "sdk_platform", "sdk_version", "first_open_time", "sent_at" },
                installs[1].Properties().Select(p => p.Name));
            Assert.AreEqual(
                new[] { "configuration 422 1" },
                rig.Heard.Errors.Select(e => e.KindName + " " + e.Code + " " + e.Count).ToArray());
            Assert.AreEqual((int)scenario["expect"]["queued"], rig.Core.Queued);
        }

        [Test]
        public void StoppedMeansNoRequestAtAllAndItSurvivesARestart()
        {
            Scenario(StoppedNothing);
            var rig = new Rig();
            rig.Core.Stop();
            rig.Send(0);
            Assert.AreEqual(0, rig.Core.Queued);
            // A restart: a new process on the same device.
            rig.Launch();
            Assert.IsTrue(rig.Core.IsStopped, "kept across launches");
            rig.Configure();
            rig.Send(1);
            rig.Settle();
            Assert.IsEmpty(rig.Backend.Requests, "no request at all, not even GET /v1/config");
            Assert.AreEqual(0, rig.Core.Queued);
            Assert.IsTrue(rig.Core.IsStopped);

            rig.Core.Start();
            Assert.IsFalse(rig.Core.IsStopped);
            rig.Send(2);
            rig.Settle();
            var posts = rig.Backend.Requests.Where(r => r.Key.StartsWith("POST")).Select(r => r.Key).ToList();
            CollectionAssert.AreEqual(
                new[] { "POST /v1/installs", "POST /v1/sessions", "POST /v1/events" }, posts,
                "the install never sent, then the session of the start, then the events after it");
            CollectionAssert.AreEqual(new[] { 2 }, rig.AcceptedNow);
            Assert.IsFalse(rig.Launch().IsStopped, "started is kept too");
        }

        [Test]
        public void StoppingDropsWhatWasQueuedWithTheReasonStopped()
        {
            var scenario = Scenario(StoppingDrops);
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline((int)scenario["given"]["queued"]);
            var before = rig.Backend.Requests.Count;
            rig.Core.Stop();
            rig.Settle();
            Assert.AreEqual((int)scenario["expect"]["queued"], rig.Core.Queued);
            AssertDropped(rig, scenario);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "4 events dropped (stopped)").Count);
            Assert.AreEqual(before, rig.Backend.Requests.Count, "the retry that waited sends nothing");
        }

        /// <summary>
        /// The app's log, which runs <paramref name="then"/> once, on the thread writing it, when
        /// a line says <paramref name="saying"/>: a point inside a call at which another thread's
        /// calls come, every run alike.
        /// </summary>
        internal sealed class LineHook : ILog
        {
            private readonly ILog inner;
            private readonly string saying;
            private Action then;

            public LineHook(ILog inner, string saying, Action then)
            {
                this.inner = inner;
                this.saying = saying;
                this.then = then;
            }

            public void Write(LogLevel level, string message)
            {
                inner.Write(level, message);
                if (!message.Contains(saying)) return;
                var once = Interlocked.Exchange(ref then, null);
                if (once != null) once();
            }
        }

        [Test]
        public void WhatAnotherThreadSendsAfterAStartThatFollowsAStopStillUnderWayIsNotTheStopsToDrop()
        {
            // Two events wait (offline). The main thread stops the SDK; a thread of the game's
            // starts it again and sends an event while that Stop is still under way (it says it in
            // the log): the stop drops the two, and the event sent after the Start is delivered,
            // as is the Start's session, neither told dropped as `stopped`.
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline(2);
            var sessionsBefore = rig.Backend.To("POST /v1/sessions").Count;
            rig.Setup.Log = new LineHook(rig.Setup.Log, "the SDK is stopped", () =>
            {
                var other = new Thread(() =>
                {
                    rig.Core.Start();
                    rig.Send(9);
                });
                other.Start();
                Assert.IsTrue(other.Join(Patience.Bound), "the other thread's Start and SendEvent returned");
            });
            rig.Core.Stop();
            Assert.IsFalse(rig.Core.IsStopped);
            rig.Settle();

            CollectionAssert.AreEqual(new long[] { 2 }, rig.Heard.Dropped(ServiceDropReason.Stopped).Select(e => e.Count),
                "the two queued before the stop, and not the one sent after the start");
            CollectionAssert.AreEqual(new[] { 9 }, rig.AcceptedNow);
            Assert.AreEqual(2, rig.Core.DroppedEventCount);
            Assert.AreEqual(0, rig.Core.DroppedSessionCount, "the start's session is not the stop's either");
            Assert.AreEqual(sessionsBefore + 1, rig.Backend.To("POST /v1/sessions").Count);
            Assert.AreEqual(0, rig.Core.Queued);
            Assert.AreEqual(0, rig.Core.QueuedSessions);
        }

        [Test]
        public void AStopWhileABatchIsOnItsWayDropsTheRestButNotWhatTheServiceAccepts()
        {
            // 150 events queued offline go 100 a request: the user opts out while the first batch
            // is on its way, and the service stores it.
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline(150);
            var stops = 0;
            rig.Events = (numbers, body) =>
            {
                if (Interlocked.Exchange(ref stops, 1) == 0) rig.Core.Stop();
                return ScriptedBackend.Usual("POST /v1/events", body);
            };
            rig.Settle();

            CollectionAssert.AreEqual(Enumerable.Range(0, 100).ToList(), rig.AcceptedNow);
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Count, "nothing leaves after the stop");
            CollectionAssert.AreEqual(new long[] { 50 }, rig.Heard.Dropped(ServiceDropReason.Stopped).Select(e => e.Count),
                "only the events that never left");
            Assert.AreEqual(50, rig.Core.DroppedEventCount);
            Assert.AreEqual(0, rig.Core.Queued);
            // Nothing of it is on the device for a later launch either.
            rig.Launch();
            Assert.AreEqual(0, rig.Core.Queued);
        }

        /// <summary>A rig whose <paramref name="queued"/> events' first batch fails after the app stopped the SDK while it was on its way.</summary>
        private static Rig StoppedWhileAFailingBatchWasOnItsWay(int queued)
        {
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline(queued);
            var stops = 0;
            rig.Events = (numbers, body) =>
            {
                if (Interlocked.Exchange(ref stops, 1) == 0) rig.Core.Stop();
                return Error(503);
            };
            rig.Settle();
            return rig;
        }

        [Test]
        public void AStopWhileABatchIsOnItsWayThatFailsDropsItOnceItsAnswerIsIn()
        {
            var rig = StoppedWhileAFailingBatchWasOnItsWay(150);

            Assert.IsEmpty(rig.AcceptedNow);
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Count, "not sent again after the stop");
            // The 50 that never left as the stop came, then the 100 of the batch once its answer failed.
            CollectionAssert.AreEqual(new long[] { 50, 100 }, rig.Heard.Dropped(ServiceDropReason.Stopped).Select(e => e.Count));
            Assert.AreEqual(150, rig.Core.DroppedEventCount);
            Assert.AreEqual(0, rig.Core.Queued);
            rig.Launch();
            Assert.AreEqual(0, rig.Core.Queued);
        }

        [Test]
        public void ABatchThatFailsAfterAStopLeavesTheBackoffAsTheStopResetIt()
        {
            var rig = StoppedWhileAFailingBatchWasOnItsWay(3);
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Count);
            // After a Start, the first failure waits the first step, not one doubled by a request
            // that failed after the Stop, whose batch was dropped with it.
            rig.Core.Start();
            rig.Send(9);
            rig.Core.Idle().Wait();
            Assert.AreEqual(2, rig.Backend.To("POST /v1/events").Count, "tried at once");
            CollectionAssert.Contains(rig.Timers.Delays, rig.RetryDelay);
            CollectionAssert.DoesNotContain(rig.Timers.Delays, TimeSpan.FromMilliseconds(200));
        }

        /// <summary>
        /// A launch that queues three events, has them on their way, and is stopped
        /// (<paramref name="whileStopped"/> runs then); the app is killed before their answer, so
        /// the store the next launch finds holds the stop, and that batch left to an answer that
        /// never came.
        /// </summary>
        private static DiskStore StoppedWithABatchOnItsWayThenKilled(Action<Rig> whileStopped = null)
        {
            var disk = new DiskStore();
            var rig = new Rig(disk);
            rig.Configure();
            rig.QueueOffline(3);
            var events = Held.First(rig, "POST /v1/events");
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            Assert.IsTrue(events.OnItsWay.Wait(Patience.Bound), "the batch is on its way");
            rig.Core.Stop();
            if (whileStopped != null) whileStopped(rig);
            var store = disk.AfterCrash();
            events.Answer.Set();
            rig.Core.Idle().Wait();
            return store;
        }

        [Test]
        public void ABatchLeftOnItsWayByAStopInAProcessThatEndedIsDroppedAtTheNextLaunchNeverSent()
        {
            // The user opts out while a batch is on its way, and the app is killed before its answer:
            // the stop is on the disk, and so is that batch, left to an answer that never came.
            var next = new Rig(StoppedWithABatchOnItsWayThenKilled(rig =>
            {
                rig.Main.Drain();
                Assert.IsEmpty(rig.Heard.Dropped(ServiceDropReason.Stopped), "nothing dropped before the answer");
            }));

            next.Configure();
            next.Main.Drain();
            CollectionAssert.AreEqual(new long[] { 3 }, next.Heard.Dropped(ServiceDropReason.Stopped).Select(e => e.Count));
            Assert.AreEqual(0, next.Core.Queued);
            next.Core.Start();
            next.Settle();
            Assert.IsEmpty(next.Backend.To("POST /v1/events"), "nothing of the stop's queue leaves after a start");
        }

        [Test]
        public void ABatchLeftOnItsWayByAStopInAProcessThatEndedIsDroppedThoughAStartFollowsConfigureAtOnce()
        {
            // As above, but the next launch also finds an event it cannot read back, whose loss
            // Configure tells the error listener once it let go of its lock: a thread of the
            // game's starts the SDK then, before Configure is done. The batch is the stop's all
            // the same: dropped as `stopped`, never sent; the Start's session goes.
            var store = StoppedWithABatchOnItsWayThenKilled();
            var queued = store.Get(EventQueue.Key);
            store.Set(EventQueue.Key, queued.Substring(0, queued.Length - 1) + ",{\"EventType\":\"LOGIN\"}]");

            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            // Listeners called at once, on the thread that tells them: Configure's.
            var setup = Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: new InlineMainThread());
            var listeners = new SdkListeners();
            var heard = Heard.ErrorsOf(listeners);
            SdkCore core = null;
            var started = 0;
            var startReturned = false;
            listeners.AddError(error =>
            {
                if (error.Kind != ServiceErrorKind.EventsDropped || error.Reason != null || Interlocked.Exchange(ref started, 1) == 1) return;
                var other = new Thread(() => core.Start());
                other.Start();
                startReturned = other.Join(Patience.Bound);
            });
            core = new SdkCore(setup, listeners);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();

            Assert.IsTrue(startReturned, "the other thread's Start returned while Configure told the loss");
            Assert.IsFalse(core.IsStopped);
            CollectionAssert.AreEqual(new long[] { 3 }, heard.Dropped(ServiceDropReason.Stopped).Select(e => e.Count),
                "the stop's batch, and nothing of the Start's");
            Assert.IsEmpty(backend.To("POST /v1/events"), "nothing of the stop's queue leaves after a start");
            Assert.AreEqual(0, core.Queued);
            Assert.AreEqual(1, backend.To("POST /v1/sessions").Count, "the Start's session goes");
            Assert.AreEqual(0, core.QueuedSessions);
        }

        [Test]
        public void EventsSentBeforeConfigureAreDeliveredOnceItRuns()
        {
            Scenario(BeforeConfigure);
            var rig = new Rig();
            rig.Send(0);
            rig.Send(1);
            rig.Send(2);
            Assert.IsEmpty(rig.Backend.Requests, "nothing before configure");
            rig.Configure();
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0, 1, 2 }, rig.AcceptedNow);
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
            Assert.AreEqual("POST /v1/installs", rig.Backend.Requests.First(r => r.Key.StartsWith("POST")).Key);
        }

        // The other drop reasons, beside the scenarios.

        [Test]
        public void AnAppSwitchedOffDropsItsQueueWithTheReasonDisabled()
        {
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline(3);
            rig.Other = (key, body) => key.StartsWith("GET /v1/config")
                ? Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":false}"))
                : ScriptedBackend.Usual(key, body);
            rig.Timers.Fire(SdkCore.DefaultRefreshInterval);
            rig.Settle();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            Assert.AreEqual(0, rig.Core.Queued);
            CollectionAssert.AreEqual(new[] { "events_dropped disabled 3" }, rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + " " + e.Count));
            Assert.AreEqual(3, rig.Core.DroppedEventCount);
        }

        /// <summary>
        /// A launch after one the app was switched off in: events sent before this launch's first
        /// reading of the configuration wait for it, held here until they are sent.
        /// </summary>
        private static Rig OffAtTheLastLaunch(Func<Tuple<int, JToken>> config, out ManualResetEventSlim read)
        {
            var store = new MemoryStore();
            store.Set("service_sdk.enabled", "false");
            var rig = new Rig(store);
            var gate = new ManualResetEventSlim(false);
            read = gate;
            rig.Other = (key, body) =>
            {
                if (!key.StartsWith("GET /v1/config")) return ScriptedBackend.Usual(key, body);
                gate.Wait(TimeSpan.FromSeconds(30));
                return config();
            };
            rig.Core.Configure("sdk_key", 1, null);
            rig.Send(0);
            rig.Send(1);
            return rig;
        }

        [Test]
        public void EventsSentBeforeTheFirstReadingOfALaunchAfterASwitchOffAreSentWhenItSaysOn()
        {
            ManualResetEventSlim read;
            var rig = OffAtTheLastLaunch(() => Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":true}")), out read);
            read.Set();
            rig.Settle();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow, "taken while the launch had read nothing yet");
            Assert.IsEmpty(rig.Heard.Errors);
            Assert.AreEqual(1, rig.Backend.To("POST /v1/sessions").Count, "the launch's session, made once it is on");
        }

        [Test]
        public void EventsSentBeforeTheFirstReadingOfALaunchAfterASwitchOffAreDroppedAsDisabledWhenItSaysOffOrCannotBeRead()
        {
            foreach (var offline in new[] { false, true })
            {
                ManualResetEventSlim read;
                var rig = OffAtTheLastLaunch(
                    () => offline ? Error(503) : Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":false}")),
                    out read);
                read.Set();
                rig.Settle();
                Assert.IsTrue(rig.Core.IsSdkDisabled, offline ? "as the configuration kept says" : "as this launch's says");
                CollectionAssert.AreEqual(
                    new[] { "events_dropped disabled 2" },
                    rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + " " + e.Count),
                    "reported, never lost without a word");
                Assert.IsEmpty(rig.Backend.To("POST /v1/events"));
                // Once off, an event is not taken at all, as before.
                rig.Send(2);
                rig.Settle();
                Assert.AreEqual(0, rig.Core.Queued);
            }
        }

        [Test]
        public void AnSdkStoppedBeforeItsFirstReadingAfterASwitchOffTakesNoEventOnceTheReadingAtStartSaysOff()
        {
            // Off at the last launch; stopped after Configure, before its first reading began,
            // which then reads nothing: the reading at Start is the launch's first.
            var store = new MemoryStore();
            store.Set("service_sdk.enabled", "false");
            var rig = new Rig(store);
            rig.Other = (key, body) => key.StartsWith("GET /v1/config")
                ? Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":false}"))
                : ScriptedBackend.Usual(key, body);
            using (var held = new ManualResetEventSlim(false))
            {
                rig.Timers.HeldStarts = held;
                rig.Core.Configure("sdk_key", 1, null);
                rig.Core.Stop();
                rig.Timers.HeldStarts = null;
                held.Set();
                rig.Settle();
            }
            Assert.IsEmpty(rig.Backend.To("GET /v1/config"), "stopped before its reading began");
            rig.Core.Start();
            rig.Settle();
            Assert.AreEqual(1, rig.Backend.To("GET /v1/config").Count, "read at Start");
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            rig.Send(0);
            rig.Settle();
            Assert.AreEqual(0, rig.Core.Queued, "off as read: not taken, never kept to wait");
        }

        [Test]
        public void ARejectedKeyOnTheConfigurationIsAConfigurationErrorThenDropsTheQueueWithTheReasonDisabled()
        {
            var rig = new Rig();
            rig.Other = (key, body) => key.StartsWith("GET /v1/config") ? Error(401) : ScriptedBackend.Usual(key, body);
            rig.Send(0);
            rig.Send(1);
            rig.Configure();
            rig.Settle();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            CollectionAssert.AreEqual(
                new[] { "configuration 401 1", "events_dropped disabled 2" },
                rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + e.Code + " " + e.Count),
                "the app hears why first, as with a Configure without an address");
            StringAssert.Contains("rejected", rig.Heard.Errors[0].Message);
            Assert.IsEmpty(rig.Backend.To("POST"));
        }

        [Test]
        public void ARejectedKeyWithNothingQueuedIsToldToTheAppOnceAProcess()
        {
            var rig = new Rig();
            rig.Other = (key, body) => key.StartsWith("GET /v1/config") ? Error(401) : ScriptedBackend.Usual(key, body);
            rig.Configure();
            rig.Settle();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            CollectionAssert.AreEqual(
                new[] { "configuration 401 1" },
                rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + e.Code + " " + e.Count),
                "nothing was queued: no drop, but the app is told its key was refused");
            Assert.AreEqual(ServiceErrorKind.Configuration, rig.Heard.Errors[0].Kind);
            Assert.IsNull(rig.Heard.Errors[0].Reason);

            // A Stop and Start reads the configuration again and meets the same answer: told once.
            rig.Core.Stop();
            rig.Core.Start();
            rig.Settle();
            Assert.AreEqual(2, rig.Backend.To("GET /v1/config").Count, "read again at Start");
            Assert.AreEqual(1, rig.Heard.Errors.Count(e => e.Kind == ServiceErrorKind.Configuration));

            // The next process is told again: the key may still be the wrong one.
            rig.Launch();
            rig.Configure();
            rig.Settle();
            Assert.AreEqual(1, rig.Heard.Errors.Count(e => e.Kind == ServiceErrorKind.Configuration));
        }

        [Test]
        public void A403OnTheConfigurationIsAFirewallsBlockThatSwitchesNothingOffAndDropsNothing()
        {
            // The service rejects a key with 401; a web firewall in front answers 403 for a
            // phone's address on its block list.
            var rig = new Rig();
            var blocked = true;
            rig.Other = (key, body) => key.StartsWith("GET /v1/config") && blocked ? Error(403) : ScriptedBackend.Usual(key, body);
            rig.Send(0);
            rig.Send(1);
            rig.Configure();
            rig.Settle();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            Assert.IsEmpty(rig.Heard.Errors.Where(e => e.KindName == "events_dropped"));
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
            // A first launch has no configuration in force: the events wait on the device for one.
            CollectionAssert.IsEmpty(rig.AcceptedNow, "no configuration known yet");
            Assert.AreEqual(2, rig.Core.Queued);
            // Off the block list: the next read takes it, and the events go.
            blocked = false;
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);
            Assert.IsFalse(rig.Core.IsSdkDisabled);
        }

        [Test]
        public void DeletingTheUsersDataDropsTheQueueWithTheReasonDeleted()
        {
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline(2);
            rig.Core.DeleteUserData().Wait();
            rig.Main.Drain();
            Assert.AreEqual(0, rig.Core.Queued);
            CollectionAssert.AreEqual(new[] { "events_dropped deleted 2" }, rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + " " + e.Count));
        }

        [Test]
        public void ErrorsReachTheListenerOnlyOnTheMainThread()
        {
            var rig = new Rig();
            rig.Core.Stop();
            rig.Core.Start();
            rig.Send(0);
            rig.Core.Stop();
            Assert.IsEmpty(rig.Heard.Errors, "not before the main thread runs");
            Assert.AreEqual(1, rig.Main.Drain());
            Assert.AreEqual(1, rig.Heard.Errors.Count);
        }

        [Test]
        public void AListenerThatThrowsDoesNotStopTheNextOne()
        {
            var rig = new Rig();
            rig.Core.Listeners.AddError(e => { throw new InvalidOperationException("app bug"); });
            var second = Heard.ErrorsOf(rig.Core.Listeners);
            rig.Send(0);
            rig.Core.Stop();
            rig.Main.Drain();
            Assert.AreEqual(1, second.Errors.Count);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Error, "app bug").Count);
        }

        // ---- a 202 that does not account for every event it takes ----

        private static JObject Refusal(JToken index, string detail)
        {
            return new JObject
            {
                { "index", index }, { "event_id", null }, { "error", "Unprocessable Entity" }, { "detail", detail }, { "retryable", false },
            };
        }

        private static List<string> Reported(Rig rig)
        {
            return rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + " " + e.Count).ToList();
        }

        [Test]
        public void AnEventNamedTwiceCountsOnceAndOneNamedByNoIndexOfTheRequestIsARefusedDrop()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", 1 },
                { "ignored", new JArray() },
                {
                    "rejected", new JArray(
                        Refusal(1, "event_name: too long"),
                        Refusal(1, "event_name: too long"),
                        Refusal(7, "event_time: is required"))
                },
            });
            rig.Configure();
            rig.QueueOffline(3);
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued, "none is sent again");
            CollectionAssert.AreEqual(new[] { "events_dropped refused 1", "events_dropped refused 1" }, Reported(rig));
            Assert.AreEqual(2, rig.Core.DroppedEventCount, "the one named twice, and the one the answer does not account for");
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "refused 1 of 3 events for good").Count);
            var unaccounted = rig.Log.At(LogLevel.Warn, "1 event neither accepted nor named in the service's answer");
            Assert.AreEqual(1, unaccounted.Count);
            StringAssert.Contains("(index 7): Unprocessable Entity: event_time: is required", unaccounted[0], "in the service's words");
            StringAssert.Contains("it accepts 1 and names 1 of the 3 events", unaccounted[0]);
        }

        [Test]
        public void EventsAnAnswerAcceptsFewerOfThanItTakesAreARefusedDrop()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", 1 }, { "ignored", new JArray() }, { "rejected", new JArray() },
            });
            rig.Configure();
            rig.QueueOffline(3);
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued);
            CollectionAssert.AreEqual(new[] { "events_dropped refused 2" }, Reported(rig));
            Assert.AreEqual(2, rig.Core.DroppedEventCount);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "it accepts 1 and names 0 of the 3 events it takes off the queue").Count);
        }

        [Test]
        public void AnEventIgnoredForAReasonTheSdkDoesNotKnowIsRefusedInTheServicesWords()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", numbers.Count - 1 },
                {
                    "ignored", new JArray(new JObject
                    {
                        { "index", 0 }, { "event_id", body["events"][0]["event_id"] }, { "reason", "install_event" },
                        { "detail", "installs are reported through POST /v1/installs" },
                    })
                },
                { "rejected", new JArray() },
            });
            rig.Configure();
            rig.QueueOffline(2);
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued);
            CollectionAssert.AreEqual(new[] { "events_dropped refused 1" }, Reported(rig), "not `disabled`: the app is not switched off");
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            var said = rig.Log.At(LogLevel.Warn, "1 event dropped (refused)");
            Assert.AreEqual(1, said.Count);
            StringAssert.Contains("(install_event): installs are reported through POST /v1/installs", said[0]);
        }

        [Test]
        public void ARepeatTheServiceStoredOnceIsDeliveredNotDropped()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", numbers.Count - 1 },
                {
                    "ignored", new JArray(new JObject
                    {
                        { "index", 1 }, { "event_id", body["events"][1]["event_id"] }, { "reason", "duplicate_event" },
                        { "detail", "an event of this install with this event_id came earlier in the request" },
                    })
                },
                { "rejected", new JArray() },
            });
            rig.Configure();
            rig.QueueOffline(2);
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued);
            Assert.IsEmpty(Reported(rig), "the service kept the event: nothing was lost");
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
            Assert.IsEmpty(rig.Log.At(LogLevel.Warn, ""), "nothing went wrong");
            Assert.AreEqual(1, rig.Log.At(LogLevel.Info, "the service stored 1 of 2 events once though they were in the request twice").Count);
        }

        [Test]
        public void AnAnswerThatCountsMoreThanItTakesOffIsAWarningAndDropsNothing()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", numbers.Count + 1 }, { "ignored", new JArray() }, { "rejected", new JArray() },
            });
            rig.Configure();
            rig.QueueOffline(3);
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued);
            Assert.IsEmpty(Reported(rig));
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
            var said = rig.Log.At(LogLevel.Warn, "the service's answer does not add up, though it leaves no event unaccounted for");
            Assert.AreEqual(1, said.Count);
            StringAssert.Contains("it accepts 4 and names 0 of the 3 events it takes off the queue", said[0]);
        }

        [Test]
        public void AVerdictNamingNoEventInAnAnswerThatAddsUpIsAWarningAndDropsNothing()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", numbers.Count }, { "ignored", new JArray() }, { "rejected", new JArray(Refusal(7, "event_time: is required")) },
            });
            rig.Configure();
            rig.QueueOffline(3);
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued);
            Assert.IsEmpty(Reported(rig));
            var said = rig.Log.At(LogLevel.Warn, "the service's answer does not add up, though it leaves no event unaccounted for");
            Assert.AreEqual(1, said.Count);
            StringAssert.Contains("(index 7): Unprocessable Entity: event_time: is required", said[0]);
            StringAssert.DoesNotContain("it accepts", said[0], "the counts add up");
        }

        [Test]
        public void AnEventKeptForARetryGoesWithTheDeletionTheSameAnswerTells()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", 0 },
                {
                    "ignored", new JArray(new JObject
                    {
                        { "index", 0 }, { "event_id", body["events"][0]["event_id"] }, { "reason", "install_deleted" },
                        { "detail", "the install's data was deleted" },
                    })
                },
                {
                    "rejected", new JArray(new JObject
                    {
                        { "index", 1 }, { "event_id", body["events"][1]["event_id"] }, { "error", "Conflict" }, { "retryable", true },
                        { "detail", "install not recorded yet" },
                    })
                },
            });
            rig.Configure();
            rig.QueueOffline(2);
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued, "the one kept for a retry goes with the deletion");
            Assert.AreEqual(1, rig.Backend.To("POST /v1/installs").Count, "the install, deleted, is not sent again");
            Assert.IsEmpty(rig.Log.At(LogLevel.Info, "events to send again later"), "no retry");
            CollectionAssert.AreEqual(new[] { "events_dropped deleted 1", "events_dropped deleted 1" }, Reported(rig));
        }

        [Test]
        public void AnEventIsDroppedOnceOlderThanTheServiceKeepsNotAtThatAgeItself()
        {
            var rig = new Rig();
            rig.Configure();
            var now = new DateTime(2026, 11, 29, 12, 0, 0, DateTimeKind.Utc);
            rig.Clock.Held = now - Delivery.MaxAge - TimeSpan.FromMilliseconds(1);
            rig.QueueOffline(1);
            rig.Clock.Held = now - Delivery.MaxAge;
            rig.QueueOffline(1, 1);
            rig.Clock.Held = now;
            rig.Settle();

            CollectionAssert.AreEqual(new[] { 1 }, rig.AcceptedNow, "#1, exactly as old as the service keeps");
            CollectionAssert.AreEqual(new[] { "events_dropped expired 1" }, Reported(rig));
        }

        [TestCase(202, "{\"accepted\":\"2\",\"rejected\":[],\"ignored\":[]}", "retried")]
        [TestCase(202, "{\"accepted\":2,\"rejected\":{},\"ignored\":[]}", "retried")]
        [TestCase(202, "{\"accepted\":2,\"rejected\":[],\"ignored\":{}}", "retried")]
        [TestCase(300, "{\"accepted\":2,\"rejected\":[],\"ignored\":[]}", "retried")]
        [TestCase(400, "{\"error\":5,\"detail\":\"a proxy's\"}", "retried")]
        [TestCase(413, "<html><body>413 Request Entity Too Large</body></html>", "split")]
        [TestCase(404, "<html><body>404 Not Found</body></html>", "configuration")]
        public void AnAnswerIsTheServicesOnlyInItsShapeBut413And404AreWhateverTheirBody(int status, string body, string outcome)
        {
            // Two events, answered so while a request holds both (a 413 takes them one at a time).
            var rig = new Rig();
            rig.Backend.RawAnswer = (key, sent) => key.StartsWith("POST /v1/events") && (outcome != "split" || sent["events"].Count() > 1)
                ? Tuple.Create(status, body)
                : null;
            rig.Configure();
            rig.QueueOffline(2);
            rig.Core.Idle().Wait();
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            rig.Core.Idle().Wait();
            if (outcome == "retried")
            {
                Assert.IsEmpty(rig.AcceptedNow, "not taken as delivered");
                Assert.AreEqual(2, rig.Core.Queued);
                rig.Backend.RawAnswer = null;
                rig.Settle();
                CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow, "sent again");
                Assert.IsEmpty(rig.Heard.Errors);
            }
            else if (outcome == "split")
            {
                rig.Settle();
                CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow, "one at a time");
                Assert.IsEmpty(rig.Heard.Errors);
            }
            else
            {
                rig.Settle();
                Assert.IsEmpty(rig.AcceptedNow);
                Assert.AreEqual(2, rig.Core.Queued, "kept on the device");
                CollectionAssert.AreEqual(new[] { "configuration 404 1" }, rig.Heard.Errors.Select(e => e.KindName + " " + e.Code + " " + e.Count).ToList());
            }
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
        }

        [Test]
        public void ALongBodyThatIsNotTheServicesIsLoggedCutTo200Characters()
        {
            var rig = new Rig();
            var page = "<html><body>" + new string('x', 400) + "</body></html>";
            var times = 1;
            rig.Backend.RawAnswer = (key, sent) => key.StartsWith("POST /v1/events") && times-- > 0 ? Tuple.Create(400, page) : null;
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            var warning = rig.Log.At(LogLevel.Warn, "unexpected answer").Single();
            StringAssert.Contains(page.Substring(0, 200) + "...", warning);
            StringAssert.DoesNotContain(page.Substring(0, 201), warning);
        }

        [Test]
        public void AServiceAddressEndingInASlashGetsNoDoubleSlash()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test/", backend, new MemoryStore()));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            lock (backend.Requests)
            {
                CollectionAssert.Contains(backend.Requests.Select(r => r.Key).ToList(), "POST /v1/installs");
                Assert.IsFalse(backend.Requests.Any(r => r.Key.Contains("//")), string.Join("\n", backend.Requests.Select(r => r.Key)));
            }
        }

        [TestCase("")]
        [TestCase("{}")]
        [TestCase("{\"enabled\":null}")]
        [TestCase("{\"enabled\":\"true\"}")]
        public void AConfigurationThatIsNotTheServicesKeepsTheOneInForce(string answer)
        {
            // Switched off by its owner, as read at a first launch.
            var rig = new Rig();
            rig.Other = (key, body) => key.StartsWith("GET /v1/config")
                ? Tuple.Create(200, (JToken)JObject.Parse("{\"enabled\":false}"))
                : ScriptedBackend.Usual(key, body);
            rig.Configure();
            Assert.IsTrue(rig.Core.IsSdkDisabled);

            // The next launch reads an answer no service gives (a proxy's, a captive portal's):
            // the app stays off, nothing is sent, and the answer is told of.
            rig.Backend.RawAnswer = (key, sent) => key.StartsWith("GET /v1/config") ? Tuple.Create(200, answer) : null;
            rig.Launch();
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            Assert.IsEmpty(rig.AcceptedNow);
            Assert.IsNotEmpty(rig.Log.At(LogLevel.Warn, "remote configuration not fetched"), string.Join("\n", rig.Log.Lines));
        }

        [Test]
        public void ANegativeCountAnItemIgnoredTwiceAndANegativeIndexCountForNoMoreThanTheRequestHolds()
        {
            var rig = new Rig();
            var answers = new Queue<JObject>(new[]
            {
                // Accepted -1 of 2: both taken off and unaccounted for, two drops, not three.
                new JObject { { "accepted", -1 }, { "ignored", new JArray() }, { "rejected", new JArray() } },
                // #0 ignored twice: one drop.
                new JObject
                {
                    { "accepted", 1 },
                    {
                        "ignored", new JArray(
                            new JObject { { "index", 0 }, { "reason", "app_disabled" }, { "detail", "off" } },
                            new JObject { { "index", 0 }, { "reason", "app_disabled" }, { "detail", "off" } })
                    },
                    { "rejected", new JArray() },
                },
                // Refusals naming no event (an index below, at or past the request's end, a
                // string): both accepted, a warning.
                new JObject
                {
                    { "accepted", 2 }, { "ignored", new JArray() },
                    {
                        "rejected", new JArray(
                            Refusal(-1, "event_name: too long"), Refusal(2, "at the end"), Refusal("1", "a string"),
                            new JObject { { "index", 7 }, { "error", "Unprocessable Entity" }, { "detail", JValue.CreateNull() } })
                    },
                },
            });
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)answers.Dequeue());
            rig.Configure();
            for (var round = 0; round < 3; round++)
            {
                rig.QueueOffline(2, 2 * round);
                rig.Settle();
            }

            Assert.AreEqual(0, rig.Core.Queued);
            CollectionAssert.AreEqual(new[] { "events_dropped refused 2", "events_dropped disabled 1" }, Reported(rig));
            Assert.AreEqual(3, rig.Core.DroppedEventCount);
            var warning = rig.Log.At(LogLevel.Warn, "does not add up").Single();
            foreach (var named in new[] { "(index -1)", "(index 2)", "(index \"1\")", "(index 7): Unprocessable Entity: no detail" })
            {
                StringAssert.Contains(named, warning);
            }
        }

        [Test]
        public void AnAnswerThatAddsUpReportsNothingMore()
        {
            var rig = new Rig();
            rig.Events = (numbers, body) => Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", numbers.Count - 1 },
                {
                    "ignored", new JArray(new JObject
                    {
                        { "index", 1 }, { "event_id", body["events"][1]["event_id"] }, { "reason", "app_disabled" }, { "detail", "the app is off" },
                    })
                },
                { "rejected", new JArray() },
            });
            rig.Configure();
            rig.QueueOffline(3);
            rig.Settle();

            CollectionAssert.AreEqual(new[] { "events_dropped disabled 1" }, Reported(rig));
            Assert.IsEmpty(rig.Log.At(LogLevel.Warn, "answer"), "no word of an answer that does not add up");
        }
    }

    /// <summary>The queue and the install's id on the disk: PlayerPrefs saved within a second, the id at once.</summary>
    [TestFixture]
    public class PersistenceTests
    {
        [Test]
        public void TheServiceIdIsOnTheDiskAtOnceOnTheFirstLaunch()
        {
            var disk = new DiskStore();
            var rig = new Rig(disk);
            rig.Backend.Offline = true;
            rig.Core.Configure("sdk_key", 1, null);
            Assert.IsNotNull(disk.OnDisk("service_sdk.service_id"), "saved before Configure returns");
            var restarted = new Rig(disk.AfterCrash());
            restarted.Configure();
            Assert.AreEqual(rig.Core.ServiceId, restarted.Core.ServiceId);
        }

        [Test]
        public void StopStartAnonymousModeAndConsentAreOnTheDiskAtOnce()
        {
            var disk = new DiskStore();
            var rig = new Rig(disk);
            // Before Configure too, where the app may set them.
            rig.Core.SetConsent(new ServiceConsent(true, false, false));
            Assert.IsNotNull(disk.OnDisk(ConsentState.Key), "SetConsent saved before it returns");
            rig.Core.SetAnonymous(true);
            Assert.AreEqual("true", disk.OnDisk("service_sdk.anonymous"), "SetAnonymous(true) saved before it returns");
            rig.Core.Stop();
            Assert.AreEqual("true", disk.OnDisk("service_sdk.stopped"), "Stop saved before it returns, before Configure");
            rig.Core.Start();
            Assert.IsNull(disk.OnDisk("service_sdk.stopped"), "Start saved before it returns, before Configure");

            rig.Configure();
            rig.Core.Stop();
            Assert.AreEqual("true", disk.OnDisk("service_sdk.stopped"), "Stop saved before it returns");
            var afterCrash = new Rig(disk.AfterCrash());
            Assert.IsTrue(afterCrash.Core.IsStopped, "a crash keeps the user's opt-out");
            rig.Core.Start();
            Assert.IsNull(disk.OnDisk("service_sdk.stopped"), "Start saved before it returns");
            rig.Core.SetAnonymous(false);
            Assert.IsNull(disk.OnDisk("service_sdk.anonymous"), "SetAnonymous(false) saved before it returns");
            rig.Core.SetConsent(null);
            Assert.IsNull(disk.OnDisk(ConsentState.Key), "SetConsent(null) saved before it returns");
        }

        /// <summary>A store that remembers every key written to it.</summary>
        private sealed class RecordingStore : IKeyValueStore
        {
            private readonly MemoryStore inner = new MemoryStore();
            public readonly HashSet<string> Written = new HashSet<string>();

            public string Get(string key)
            {
                return inner.Get(key);
            }

            public void Set(string key, string value)
            {
                lock (Written) Written.Add(key);
                inner.Set(key, value);
            }

            public void Remove(string key)
            {
                lock (Written) Written.Add(key);
                inner.Remove(key);
            }
        }

        [Test]
        public void EveryKeyTheCoreWritesIsOneThePlayerPrefsStoreLoads()
        {
            // PlayerPrefs cannot list their keys: the Unity layer loads SdkCore.StoreKeys, so a key
            // missing there would be lost at the next launch.
            var store = new RecordingStore();
            // The platform's fingerprint of the install, so that it is written too.
            var rig = new Rig(store, "1700000000000");
            // A conversion value schema, so that the windows' state is written too.
            var schema = JObject.Parse("{\"enabled\":true,\"skadnetwork\":{\"version\":1,\"usd_rates\":{},"
                + "\"windows\":[{\"rules\":[]},{\"rules\":[]},{\"rules\":[]}]}}");
            rig.Other = (key, body) => key.Contains("/attribution")
                ? Tuple.Create(200, (JToken)JObject.Parse("{\"service_match_status\":\"matched\",\"deep_link_path\":\"/levels/7\"}"))
                : key.StartsWith("GET /v1/config") ? Tuple.Create(200, (JToken)schema) : ScriptedBackend.Usual(key, body);
            rig.Core.Listeners.AddDeepLink(link => { });
            rig.Core.SetConsent(new ServiceConsent(true, true, true));
            rig.Core.SetAnonymous(true);
            rig.Core.Configure("sdk_key", 1, "user-1");
            rig.Send(0);
            rig.Settle();
            rig.QueueOffline(1, 1);
            // A session queued offline too (a return after an hour away), which the stop drops.
            rig.Backend.Offline = true;
            rig.Core.EnteredBackground();
            rig.Clock.Offset += TimeSpan.FromHours(1);
            rig.Core.EnteredForeground();
            rig.Core.Idle().Wait();
            rig.Backend.Offline = false;
            rig.Core.Stop();
            rig.Settle();
            // And the user's data deleted, which is kept too.
            rig.Core.DeleteUserData().Wait();
            CollectionAssert.AreEquivalent(SdkCore.StoreKeys, store.Written,
                "missing: " + string.Join(", ", SdkCore.StoreKeys.Except(store.Written)));
        }

        [Test]
        public void AValueSetOrRemovedIsOnTheDiskWithinASecond()
        {
            var disk = new DiskStore();
            var rig = new Rig(disk);
            rig.Configure();
            rig.Settle();
            rig.Core.SetCustomerUserId("user-1");
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.SaveDelay));
            Assert.AreEqual("user-1", disk.OnDisk("service_sdk.customer_user_id"));
            rig.Core.SetCustomerUserId(null);
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.SaveDelay));
            Assert.IsNull(disk.OnDisk("service_sdk.customer_user_id"));
        }

        [Test]
        public void ASessionQueuedWhileARetryWaitsIsOnTheDiskWithinASecond()
        {
            var disk = new DiskStore();
            var rig = new Rig(disk);
            rig.Configure();
            rig.QueueOffline(1);
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.SaveDelay));
            rig.Backend.Offline = true;
            rig.Core.EnteredBackground();
            rig.Core.Idle().Wait();
            rig.Clock.Offset = TimeSpan.FromHours(1);
            rig.Core.EnteredForeground();
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Core.QueuedSessions);
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.SaveDelay));
            Assert.AreEqual(1, JArray.Parse(disk.OnDisk(SessionQueue.Key)).Count);
        }

        [Test]
        public void TheQueueIsOnTheDiskWithinASecondOfEachChange()
        {
            var disk = new DiskStore();
            var rig = new Rig(disk);
            rig.Configure();
            rig.QueueOffline(3);
            Assert.IsNull(disk.OnDisk(EventQueue.Key), "not yet: the save waits for its timer");
            CollectionAssert.Contains(rig.Timers.Delays, SdkCore.SaveDelay);
            var saves = disk.Saves;
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.SaveDelay), "one save for every change within the second");
            Assert.AreEqual(saves + 1, disk.Saves);
            Assert.AreEqual(3, JArray.Parse(disk.OnDisk(EventQueue.Key)).Count);
            // A change after that save asks for a save of its own.
            rig.QueueOffline(1, 3);
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.SaveDelay), "a save for the next change");
            Assert.AreEqual(4, JArray.Parse(disk.OnDisk(EventQueue.Key)).Count);

            // A crash now: the next process has the queue and the recorded install.
            var next = new Rig(disk.AfterCrash());
            next.Configure();
            next.Settle();
            CollectionAssert.AreEqual(new[] { 0, 1, 2, 3 }, next.AcceptedNow);
            Assert.IsEmpty(next.Backend.To("POST /v1/installs"), "no second install");
        }
    }
}
