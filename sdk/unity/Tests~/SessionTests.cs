using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// sdk/conformance/sessions.json against the core: every `lifecycle` case driven step by step
    /// with a held clock, the `requests` case, its limits, and the delivery of sessions (kept on
    /// the device, after the install, retried, split, dropped with a warning and a count but no
    /// error listener) with a scripted backend.
    /// </summary>
    [TestFixture]
    public class SessionTests
    {
        /// <summary>The device clock at a case's `at` 0.</summary>
        private static readonly DateTime Origin = new DateTime(2026, 3, 2, 8, 0, 0, DateTimeKind.Utc);

        private static JObject Vectors
        {
            get { return Repo.Vectors("sessions.json"); }
        }

        public static IEnumerable<TestCaseData> Lifecycle()
        {
            return Vectors["lifecycle"].Cast<JObject>()
                .Select(vector => new TestCaseData(vector).SetName("sessions.json: " + (string)vector["name"]));
        }

        /// <summary>A time the SDK sent (Json.NET reads an ISO string as a date).</summary>
        private static DateTime Time(JToken value)
        {
            return value.Type == JTokenType.Date
                ? ((DateTime)value).ToUniversalTime()
                : DateTime.Parse((string)value, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind).ToUniversalTime();
        }

        /// <summary>Every session the backend was sent, in the order sent, each once (a retry sends one again).</summary>
        private static List<JObject> SessionsSent(ScriptedBackend backend)
        {
            var seen = new HashSet<string>();
            return backend.To("POST /v1/sessions").SelectMany(r => r.Value["sessions"]).Cast<JObject>()
                .Where(s => seen.Add((string)s["session_id"])).ToList();
        }

        /// <summary>A remote configuration on or off, with the case's session interval (none when null).</summary>
        private static Func<string, JToken, Tuple<int, JToken>> Config(Func<bool> on, JToken interval)
        {
            return (key, body) =>
            {
                if (!key.StartsWith("GET /v1/config")) return ScriptedBackend.Usual(key, body);
                var config = new JObject { { "enabled", on() } };
                if (interval != null && interval.Type != JTokenType.Null) config["session_interval_seconds"] = interval;
                return Tuple.Create(200, (JToken)config);
            };
        }

        [TestCaseSource("Lifecycle")]
        public void TheLifecycleCaseReportsItsSessions(JObject vector)
        {
            var on = true;
            var rig = new Rig();
            rig.Other = Config(() => on, vector["config"]);
            rig.Clock.Held = Origin;
            // Remote configuration arriving while the app runs: its next read, fired now.
            Action readConfig = () =>
            {
                if (!rig.Core.IsConfigured) return;
                rig.Timers.Fire(rig.Core.RefreshInterval);
                rig.Settle();
            };
            foreach (JObject step in vector["steps"])
            {
                rig.Clock.Held = Origin.AddSeconds((double)step["at"]);
                switch ((string)step["step"])
                {
                    case "start":
                        // A process start: a new core on the same device's store, configured.
                        if (rig.Core.IsConfigured) rig.Launch();
                        rig.Configure();
                        break;
                    case "background":
                        rig.Core.EnteredBackground();
                        break;
                    case "foreground":
                        rig.Core.EnteredForeground();
                        break;
                    case "stop":
                        rig.Core.Stop();
                        break;
                    case "start_again":
                        rig.Core.Start();
                        break;
                    case "disable":
                        on = false;
                        readConfig();
                        break;
                    case "enable":
                        on = true;
                        readConfig();
                        break;
                    default:
                        Assert.Fail("an unknown step: " + step["step"]);
                        break;
                }
                rig.Settle();
            }
            var sent = SessionsSent(rig.Backend);
            var at = sent.Select(s => (Time(s["started_at"]) - Origin).TotalSeconds).ToList();
            CollectionAssert.AreEqual(vector["sessions"].Select(s => (double)s).ToList(), at, "the sessions reported, by their start");
            Assert.IsTrue(sent.All(s => (string)s["service_id"] == rig.Core.ServiceId));
            Assert.AreEqual(0, rig.Core.QueuedSessions, "nothing left waiting");
            Assert.IsEmpty(rig.Heard.Errors, "a session is never the error listener's");
            // The case's interval, or the default for none and for one the contract refuses
            // (remote-config.json, which RemoteConfigTests runs).
            var given = vector["config"];
            var taken = given.Type == JTokenType.Integer && (long)given >= 1 ? TimeSpan.FromSeconds((long)given) : SessionTracker.DefaultInterval;
            Assert.AreEqual(taken, rig.Core.SessionInterval);
        }

        [Test]
        public void EveryLifecycleStepIsOneTheTestDrives()
        {
            var steps = Vectors["lifecycle"].SelectMany(c => c["steps"]).Select(s => (string)s["step"]).Distinct();
            CollectionAssert.IsSubsetOf(steps, new[] { "start", "background", "foreground", "stop", "start_again", "disable", "enable" });
        }

        [Test]
        public void TheLimitsAreTheVectors()
        {
            var limits = Vectors["limits"];
            Assert.AreEqual((int)limits["defaultSessionIntervalSeconds"], (int)SessionTracker.DefaultInterval.TotalSeconds);
            Assert.AreEqual((int)limits["maxSessionsPerRequest"], Delivery.Batch);
            Assert.AreEqual((int)limits["maxQueuedSessions"], SessionQueue.Capacity);
        }

        public static IEnumerable<TestCaseData> Requests()
        {
            return Vectors["requests"].Cast<JObject>()
                .Select(vector => new TestCaseData(vector).SetName("sessions.json: " + (string)vector["name"]));
        }

        [TestCaseSource("Requests")]
        public void TheSessionRequestIsTheVectors(JObject vector)
        {
            var rig = new Rig();
            rig.Configure();
            rig.Settle();
            var request = rig.Backend.Requests.Single(r => r.Key.StartsWith("POST /v1/sessions"));
            Assert.AreEqual((string)vector["request"]["method"] + " " + (string)vector["request"]["path"], request.Key);
            ConformanceTests.AssertMatches(vector["request"]["body"], request.Value, rig.Core.ServiceId);
        }

        [Test]
        public void TheTrackerKeepsTheFirstSignalOfTheBackgroundAndIgnoresAForegroundWithoutOne()
        {
            var tracker = new SessionTracker();
            // Unity tells of the resume and the focus at launch too: no time away.
            Assert.IsFalse(tracker.Foreground(Origin));
            // Paused, then unfocused: away since the first.
            tracker.Background(Origin);
            tracker.Background(Origin.AddSeconds(1000));
            Assert.IsTrue(tracker.Foreground(Origin.AddSeconds(1800)));
            // Resumed, then focused: the second signal is no return of its own.
            Assert.IsFalse(tracker.Foreground(Origin.AddSeconds(4000)));
            // A clock put back while away is no time away.
            tracker.Background(Origin.AddSeconds(5000));
            Assert.IsFalse(tracker.Foreground(Origin));
            // A time in the device's own zone is the same instant (the tests run far from UTC).
            tracker.Background(Origin.AddSeconds(6000).ToLocalTime());
            Assert.IsTrue(tracker.Foreground(Origin.AddSeconds(7800)));
            tracker.Background(Origin.AddSeconds(8000));
            Assert.IsFalse(tracker.Foreground(Origin.AddSeconds(9799).ToLocalTime()));
        }

        [Test]
        public void NoSessionBeforeConfigureAndTheIntervalIsKeptForTheNextLaunch()
        {
            var rig = new Rig();
            rig.Other = Config(() => true, 60);
            rig.Core.EnteredBackground();
            rig.Clock.Offset = TimeSpan.FromHours(2);
            rig.Core.EnteredForeground();
            Assert.AreEqual(0, rig.Core.QueuedSessions, "nothing before Configure");
            rig.Configure();
            rig.Settle();
            Assert.AreEqual(1, SessionsSent(rig.Backend).Count, "Configure's own");
            Assert.AreEqual(TimeSpan.FromSeconds(60), rig.Core.SessionInterval);

            // The next launch, offline: the interval read before holds.
            rig.Backend.Offline = true;
            rig.Launch();
            Assert.AreEqual(TimeSpan.FromSeconds(60), rig.Core.SessionInterval);
            // A configuration that names none: the default again.
            rig.Backend.Offline = false;
            rig.Other = Config(() => true, null);
            rig.Configure();
            rig.Settle();
            Assert.AreEqual(SessionTracker.DefaultInterval, rig.Core.SessionInterval);
        }

        [Test]
        public void SessionsGoAfterTheInstallAndSurviveACrash()
        {
            var disk = new DiskStore();
            var rig = new Rig(disk);
            rig.Backend.Offline = true;
            rig.Configure();
            Assert.AreEqual(1, rig.Core.QueuedSessions, "kept while offline");
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.SaveDelay));
            Assert.AreEqual(1, JArray.Parse(disk.OnDisk(SessionQueue.Key)).Count, "on the disk within a second");

            // The process is killed; the next one, online, sends the install, then both sessions.
            var next = new Rig(disk.AfterCrash());
            next.Clock.Offset = TimeSpan.FromMinutes(5);
            next.Configure();
            next.Settle();
            var posts = next.Backend.Requests.Where(r => r.Key.StartsWith("POST")).Select(r => r.Key).ToList();
            CollectionAssert.AreEqual(new[] { "POST /v1/installs", "POST /v1/sessions" }, posts);
            var sent = SessionsSent(next.Backend);
            Assert.AreEqual(2, sent.Count, "the killed launch's and this one's, in one request");
            Assert.Less(Time(sent[0]["started_at"]), Time(sent[1]["started_at"]), "in the order they started");
            Assert.AreEqual(0, next.Core.QueuedSessions);
        }

        [Test]
        public void AFullQueueDropsItsOldestSessionWithAWarningAndACountButNoErrorListener()
        {
            var rig = new Rig();
            rig.Backend.Offline = true;
            rig.Configure();
            var first = rig.Clock.UtcNow;
            // A hundred returns after half an hour away, all offline.
            for (var n = 0; n < SessionQueue.Capacity; n++)
            {
                rig.Core.EnteredBackground();
                rig.Clock.Offset += TimeSpan.FromMinutes(31);
                rig.Core.EnteredForeground();
            }
            rig.Core.Idle().Wait();
            Assert.AreEqual(SessionQueue.Capacity, rig.Core.QueuedSessions);
            Assert.AreEqual(1, rig.Core.DroppedSessionCount);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "1 session dropped (queue_full)").Count);
            Assert.AreEqual(0, rig.Core.DroppedEventCount, "no event was dropped");

            rig.Backend.Offline = false;
            rig.Settle();
            Assert.IsEmpty(rig.Heard.Errors);
            var requests = rig.Backend.To("POST /v1/sessions");
            Assert.IsTrue(requests.All(r => r.Value["sessions"].Count() <= 100), "at most 100 a request");
            var sent = SessionsSent(rig.Backend);
            Assert.AreEqual(SessionQueue.Capacity, sent.Count);
            Assert.Greater(Time(sent[0]["started_at"]), first.AddMinutes(1), "the launch's, the oldest, went");
            CollectionAssert.IsOrdered(sent.Select(s => Time(s["started_at"])).ToList());
        }

        private static Tuple<int, JToken> Verdicts(JToken body, Func<int, JObject> rejected, Func<int, JObject> ignored = null)
        {
            var count = ((JArray)body["sessions"]).Count;
            var rejections = Enumerable.Range(0, count).Select(rejected).Where(r => r != null).ToList();
            var ignores = Enumerable.Range(0, count).Select(ignored ?? (i => null)).Where(r => r != null).ToList();
            return Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", count - rejections.Count - ignores.Count },
                { "ignored", new JArray(ignores) },
                { "rejected", new JArray(rejections) },
            });
        }

        /// <summary>Five sessions queued offline: the launch's and four returns, an hour apart.</summary>
        private static void QueueFive(Rig rig)
        {
            rig.Backend.Offline = true;
            rig.Configure();
            for (var n = 0; n < 4; n++)
            {
                rig.Core.EnteredBackground();
                rig.Clock.Offset += TimeSpan.FromHours(1);
                rig.Core.EnteredForeground();
            }
            rig.Core.Idle().Wait();
            Assert.AreEqual(5, rig.Core.QueuedSessions);
            rig.Backend.Offline = false;
        }

        [Test]
        public void ABatchRefusedAsAWholeIsSplitUntilTheOneRefusedSessionIsAlone()
        {
            var rig = new Rig();
            string refused = null;
            rig.Other = (key, body) =>
            {
                if (!key.StartsWith("POST /v1/sessions")) return ScriptedBackend.Usual(key, body);
                var ids = body["sessions"].Select(s => (string)s["session_id"]).ToList();
                refused = refused ?? ids[2];
                return ids.Contains(refused)
                    ? Tuple.Create(413, (JToken)new JObject { { "error", "Payload Too Large" }, { "detail", "scripted" } })
                    : ScriptedBackend.Usual(key, body);
            };
            QueueFive(rig);
            rig.Settle();
            var accepted = rig.Backend.To("POST /v1/sessions").Where(r => !r.Value["sessions"].Any(s => (string)s["session_id"] == refused))
                .SelectMany(r => r.Value["sessions"]).Select(s => (string)s["session_id"]).ToList();
            Assert.AreEqual(4, accepted.Count, "every other session, each once");
            Assert.AreEqual(0, rig.Core.QueuedSessions);
            Assert.AreEqual(1, rig.Core.DroppedSessionCount);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "1 session dropped (refused)").Count);
            Assert.IsEmpty(rig.Heard.Errors);
        }

        [Test]
        public void ARetryableConflictIsKeptWithItsIdAndSentAgainWithANewSentAtAfterTheInstall()
        {
            var rig = new Rig();
            var posts = 0;
            rig.Other = (key, body) =>
            {
                if (!key.StartsWith("POST /v1/sessions") || ++posts > 1) return ScriptedBackend.Usual(key, body);
                return Verdicts(body, i => new JObject
                {
                    { "index", i }, { "session_id", body["sessions"][i]["session_id"] }, { "error", "Conflict" },
                    { "detail", "install not recorded yet" }, { "retryable", true },
                });
            };
            rig.Configure();
            Assert.AreEqual(1, rig.Core.QueuedSessions, "kept for the retry");
            rig.Clock.Offset += TimeSpan.FromSeconds(3);
            rig.Settle();
            Assert.AreEqual(0, rig.Core.QueuedSessions);
            var posted = rig.Backend.Requests.Where(r => r.Key.StartsWith("POST")).Select(r => r.Key).ToList();
            CollectionAssert.AreEqual(new[] { "POST /v1/installs", "POST /v1/sessions", "POST /v1/installs", "POST /v1/sessions" }, posted,
                "the service had no install: it is reported again before the session");
            var attempts = rig.Backend.To("POST /v1/sessions");
            Assert.AreEqual((string)attempts[0].Value["sessions"][0]["session_id"], (string)attempts[1].Value["sessions"][0]["session_id"], "the same id");
            Assert.AreEqual(Time(attempts[0].Value["sessions"][0]["started_at"]), Time(attempts[1].Value["sessions"][0]["started_at"]));
            Assert.Greater(Time(attempts[1].Value["sent_at"]), Time(attempts[0].Value["sent_at"]).AddSeconds(2), "sent_at set on each attempt");
            Assert.AreEqual(0, rig.Core.DroppedSessionCount);
        }

        [Test]
        public void AServiceUnwellIsRetriedAndRejectedOrIgnoredSessionsAreDroppedByTheirReason()
        {
            var rig = new Rig();
            var posts = 0;
            rig.Other = (key, body) =>
            {
                if (!key.StartsWith("POST /v1/sessions")) return ScriptedBackend.Usual(key, body);
                if (++posts == 1) return Tuple.Create(503, (JToken)new JObject());
                return Verdicts(
                    body,
                    i => i == 1 ? new JObject
                    {
                        { "index", i }, { "session_id", body["sessions"][i]["session_id"] }, { "error", "Unprocessable Entity" },
                        { "detail", "started_at: is more than 24 hours ahead of sent_at" }, { "retryable", false },
                    } : null,
                    i => i >= 3 ? new JObject
                    {
                        { "index", i }, { "session_id", body["sessions"][i]["session_id"] }, { "reason", "app_disabled" },
                        { "detail", "the app is disabled" },
                    } : null);
            };
            QueueFive(rig);
            rig.Settle();
            Assert.AreEqual(2, rig.Backend.To("POST /v1/sessions").Count, "the 503, then the retry");
            Assert.AreEqual(0, rig.Core.QueuedSessions);
            Assert.AreEqual(3, rig.Core.DroppedSessionCount);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "1 session dropped (refused)").Count);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "2 sessions dropped (disabled)").Count);
            Assert.IsEmpty(rig.Heard.Errors);
        }

        [Test]
        public void StoppingDropsTheQueuedSessionsAndNothingIsSentWhileStopped()
        {
            var rig = new Rig();
            rig.Backend.Offline = true;
            rig.Configure();
            rig.Core.Stop();
            Assert.AreEqual(0, rig.Core.QueuedSessions);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "1 session dropped (stopped)").Count);
            rig.Backend.Offline = false;
            rig.Core.EnteredBackground();
            rig.Clock.Offset += TimeSpan.FromHours(2);
            rig.Core.EnteredForeground();
            rig.Settle();
            // A new process, still stopped: no session at its Configure either.
            rig.Launch();
            rig.Configure();
            rig.Settle();
            Assert.IsEmpty(rig.Backend.Requests, "no request at all while stopped");
            Assert.IsEmpty(rig.Heard.Errors);
        }

        [Test]
        public void ALaunchOffAsKeptMakesItsOneSessionOnceItsReadingSaysOn()
        {
            var on = false;
            var rig = new Rig();
            rig.Other = Config(() => on, null);
            rig.Configure();
            rig.Settle();
            Assert.IsEmpty(SessionsSent(rig.Backend), "switched off");

            on = true;
            // The clock still, and a minute on by the time the reading answers (a slow network):
            // the session starts when the launch did, as a launch's session does when on.
            var launched = new DateTime(2026, 11, 20, 9, 0, 0, DateTimeKind.Utc);
            rig.Clock.Held = launched;
            var reading = Config(() => on, null);
            rig.Other = (key, body) =>
            {
                if (key.StartsWith("GET /v1/config")) rig.Clock.Held = launched.AddMinutes(1);
                return reading(key, body);
            };
            rig.Launch();
            rig.Configure();
            rig.Settle();
            Assert.AreEqual(1, SessionsSent(rig.Backend).Count, "the launch's session, once");
            var session = SessionsSent(rig.Backend)[0];
            Assert.AreEqual(launched, ((DateTime)session["started_at"]).ToUniversalTime());
            rig.Timers.Fire(rig.Core.RefreshInterval);
            rig.Settle();
            Assert.AreEqual(1, SessionsSent(rig.Backend).Count, "the next reading makes none");
        }

        [Test]
        public void AStartWhileSwitchedOffOrAfterTheDeletionMakesNoSession()
        {
            var off = new Rig();
            off.Other = Config(() => false, null);
            off.Configure();
            off.Settle();
            off.Core.Stop();
            off.Core.Start();
            off.Settle();
            Assert.AreEqual(0, off.Core.QueuedSessions, "switched off");

            var deleted = new Rig();
            deleted.Configure();
            deleted.Settle();
            deleted.Core.DeleteUserData().Wait();
            deleted.Core.Stop();
            deleted.Core.Start();
            deleted.Settle();
            Assert.AreEqual(0, deleted.Core.QueuedSessions, "the install's data deleted");
        }

        [TestCase("\"60\"", 1800)]
        [TestCase("60.5", 1800)]
        [TestCase("0", 1800)]
        [TestCase("-5", 1800)]
        [TestCase("9007199254740991", int.MaxValue)]
        public void ASessionIntervalIsAPositiveWholeNumberOfSecondsOrTheDefault(string json, long seconds)
        {
            var rig = new Rig();
            rig.Other = Config(() => true, JToken.Parse(json));
            rig.Configure();
            rig.Settle();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            Assert.AreEqual(TimeSpan.FromSeconds(seconds), rig.Core.SessionInterval);
            rig.Launch();
            Assert.AreEqual(TimeSpan.FromSeconds(seconds), rig.Core.SessionInterval, "kept for the next launch");
        }

        [Test]
        public void ADeletedInstallOffAsKeptMakesNoSessionWhenItsReadingSaysOn()
        {
            var on = true;
            var rig = new Rig();
            rig.Other = Config(() => on, null);
            rig.Configure();
            rig.Settle();
            rig.Core.DeleteUserData().Wait();
            on = false;
            rig.Launch();
            rig.Configure();
            rig.Settle();
            var dropped = rig.Core.DroppedSessionCount;
            on = true;
            rig.Launch();
            rig.Configure();
            rig.Settle();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            Assert.AreEqual(0, rig.Core.QueuedSessions);
            Assert.AreEqual(dropped, rig.Core.DroppedSessionCount, "none made, to be dropped");
        }

        [Test]
        public void AConfigurationThatNamesNoEnabledLeavesTheSdkOn()
        {
            // `enabled` is required: an answer without it is no configuration of the service's,
            // so a first launch's events wait for one, as for a read that failed.
            var rig = new Rig();
            var named = false;
            rig.Other = (key, body) => key.StartsWith("GET /v1/config")
                ? Tuple.Create(200, (JToken)(named ? new JObject { { "enabled", true } } : new JObject { { "session_interval_seconds", 60 } }))
                : ScriptedBackend.Usual(key, body);
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            Assert.AreEqual(1, rig.Backend.To("POST /v1/sessions").Count, "the launch's session goes");
            CollectionAssert.IsEmpty(rig.AcceptedNow, "the event waits for a configuration");
            named = true;
            rig.Settle();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
        }

        [Test]
        public void SwitchedOffByRemoteConfigurationDropsTheQueuedSessions()
        {
            var rig = new Rig();
            var on = true;
            rig.Other = Config(() => on, null);
            rig.Configure();
            rig.Settle();
            rig.Backend.Offline = true;
            rig.Core.EnteredBackground();
            rig.Clock.Offset += TimeSpan.FromHours(2);
            rig.Core.EnteredForeground();
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Core.QueuedSessions);
            rig.Backend.Offline = false;
            on = false;
            rig.Timers.Fire(rig.Core.RefreshInterval);
            rig.Settle();
            Assert.AreEqual(0, rig.Core.QueuedSessions);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "1 session dropped (disabled)").Count);
            Assert.AreEqual(1, SessionsSent(rig.Backend).Count, "only the launch's went");
        }
    }
}
