using System;
using System.Collections.Generic;
using System.Linq;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// How long a retry waits (delivery.json's `retryWait`): its backoff jittered between half of
    /// it and the whole, so that devices that failed together do not come back together, and
    /// never less than the Retry-After the service last answered with, up to an hour.
    /// </summary>
    [TestFixture]
    public class RetryWaitTests
    {
        private static readonly DateTime Now = new DateTime(2026, 9, 21, 14, 13, 20, DateTimeKind.Utc);

        private static string HttpDate(DateTime at)
        {
            return at.ToString("r", System.Globalization.CultureInfo.InvariantCulture);
        }

        private static Tuple<int, JToken> Answer(int status)
        {
            return Tuple.Create(status, (JToken)new JObject { { "error", "Later" }, { "detail", "scripted " + status } });
        }

        /// <summary>The answer to POST /v1/events: <paramref name="status"/> to the first, then the usual.</summary>
        private static Func<List<int>, JToken, Tuple<int, JToken>> FirstThenUsual(int status)
        {
            var answered = false;
            return (numbers, body) =>
            {
                if (answered) return ScriptedBackend.Usual("POST /v1/events", body);
                answered = true;
                return Answer(status);
            };
        }

        /// <summary>A rig whose clock stands still at <see cref="Now"/>, its retries waiting 2 s doubling.</summary>
        private static Rig StillRig()
        {
            var rig = new Rig { RetryDelay = TimeSpan.FromSeconds(2) };
            rig.Clock.Held = Now;
            rig.Launch();
            return rig;
        }

        [Test]
        public void TheWaitsAreDeliveryJsonsRetryWait()
        {
            var retryWait = Repo.Vectors("delivery.json")["retryWait"];
            Assert.AreEqual((double)retryWait["maxRetryAfterSeconds"], RetryWait.MaxRetryAfter.TotalSeconds);
            Assert.AreEqual((double)retryWait["jitterLowestShare"], RetryWait.JitterLowestShare);
        }

        [Test]
        public void ARetryAfterIsReadAsSecondsOrAsAnHttpDateAndAtMostAnHour()
        {
            Assert.AreEqual(TimeSpan.FromSeconds(30), RetryWait.Parse("30", Now));
            Assert.AreEqual(TimeSpan.Zero, RetryWait.Parse("0", Now));
            Assert.AreEqual(TimeSpan.FromSeconds(90), RetryWait.Parse(HttpDate(Now.AddSeconds(90)), Now));
            Assert.AreEqual(TimeSpan.Zero, RetryWait.Parse(HttpDate(Now.AddSeconds(-90)), Now));
            Assert.AreEqual(RetryWait.MaxRetryAfter, RetryWait.Parse("86400", Now));
            Assert.AreEqual(RetryWait.MaxRetryAfter, RetryWait.Parse("99999999999999999999999", Now));
            // A long, but more seconds than a TimeSpan holds.
            Assert.AreEqual(RetryWait.MaxRetryAfter, RetryWait.Parse("999999999999999", Now));
            Assert.AreEqual(RetryWait.MaxRetryAfter, RetryWait.Parse(HttpDate(Now.AddDays(2)), Now));
            Assert.AreEqual(TimeSpan.FromSeconds(30), RetryWait.Parse(" 30 ", Now), "spaces around it");
            foreach (var unreadable in new[] { null, "", "soon", "-5", "1.5" })
            {
                Assert.IsNull(RetryWait.Parse(unreadable, Now), unreadable ?? "null");
            }
        }

        [Test]
        public void TheJitterSpreadsABackoffOverItsSecondHalf()
        {
            var random = new Random(7);
            var waits = Enumerable.Range(0, 1000).Select(_ => RetryWait.Jittered(TimeSpan.FromSeconds(2), random).TotalMilliseconds).ToList();
            Assert.IsTrue(waits.All(w => w >= 1000 && w <= 2000));
            Assert.IsTrue(waits.Min() < 1100 && waits.Max() > 1900, "spread over the half, not bunched at one end");
            Assert.That(waits.Count(w => w < 1500), Is.InRange(400, 600));
            Assert.AreEqual(TimeSpan.Zero, RetryWait.Jittered(TimeSpan.Zero, random));
        }

        [Test]
        public void ARetryWaitsWhatTheJitterMakesOfItsBackoffAndTheSdkShipsWithTheJitterOn()
        {
            var rig = StillRig();
            rig.Setup.Jitter = backoff => TimeSpan.FromTicks(backoff.Ticks / 2);
            rig.Events = (numbers, body) => Answer(503);
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromSeconds(1));
            CollectionAssert.DoesNotContain(rig.Timers.Delays, TimeSpan.FromSeconds(2));

            var shipped = Enumerable.Range(0, 200).Select(_ => new SdkSetup().Jitter(TimeSpan.FromSeconds(2))).ToList();
            Assert.IsTrue(shipped.All(w => w >= TimeSpan.FromSeconds(1) && w <= TimeSpan.FromSeconds(2)));
            Assert.Greater(shipped.Distinct().Count(), 1);
        }

        [Test]
        public void TheBackoffDoublesWhileTheServiceIsUnwellAndStartsAgainOnceASendGoesThrough()
        {
            var rig = StillRig();
            var unwell = true;
            rig.Events = (numbers, body) => unwell ? Answer(503) : ScriptedBackend.Usual("POST /v1/events", body);
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(2)));
            rig.Core.Idle().Wait();
            unwell = false;
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(4)), "doubled");
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);

            unwell = true;
            rig.Send(1);
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(2)), "from the start again");
            rig.Core.Idle().Wait();

            // Unwell for long: the backoff stops growing at SdkCore.MaxRetryDelay.
            foreach (var seconds in new[] { 4, 8, 16, 32 })
            {
                Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(seconds)), seconds + " s");
                rig.Core.Idle().Wait();
            }
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.MaxRetryDelay), "held at the longest");
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Timers.Fire(SdkCore.MaxRetryDelay), "and again");
        }

        [Test]
        public void EventsAnswered503WithARetryAfterWaitAsLongAsItAsksNotTheBackoff()
        {
            var rig = StillRig();
            rig.Events = FirstThenUsual(503);
            rig.Backend.RetryAfter = key => key.StartsWith("POST /v1/events") ? "30" : null;
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromSeconds(30));
            CollectionAssert.DoesNotContain(rig.Timers.Delays, TimeSpan.FromSeconds(2));
            Assert.IsTrue(rig.Log.Lines.Any(l => l.Contains("as the service asked (Retry-After)")), string.Join("\n", rig.Log.Lines));
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(30)));
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
        }

        [Test]
        public void GoingToTheBackgroundSendsNothingBeforeARetryAftersTimeWhichTheRetryKeeps()
        {
            var rig = StillRig();
            rig.Events = FirstThenUsual(503);
            rig.Backend.RetryAfter = key => key.StartsWith("POST /v1/events") ? "30" : null;
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            rig.Core.EnteredBackground();
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Count, "nothing sent in the background");
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(30)), "the retry kept its time");
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
        }

        [Test]
        public void AnInstallAnswered429WithARetryAfterDateIsSentAgainAtThatDate()
        {
            var rig = StillRig();
            var answers = 0;
            rig.Other = (key, body) => key.StartsWith("POST /v1/installs") && answers++ == 0 ? Answer(429) : ScriptedBackend.Usual(key, body);
            rig.Backend.RetryAfter = key => key.StartsWith("POST /v1/installs") ? HttpDate(Now.AddSeconds(45)) : null;
            rig.Configure();
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromSeconds(45));
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(45)));
            rig.Core.Idle().Wait();
            Assert.AreEqual(2, rig.Backend.To("POST /v1/installs").Count);
        }

        [Test]
        public void ARetryAfterOfADayIsWaitedForAnHour()
        {
            var rig = StillRig();
            rig.Events = (numbers, body) => Answer(503);
            rig.Backend.RetryAfter = key => "86400";
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromHours(1));
        }

        [Test]
        public void ARefusalWithARetryAfterHoldsNothingBack()
        {
            var rig = StillRig();
            rig.Events = FirstThenUsual(400);
            rig.Backend.RetryAfter = key => "600";
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            rig.Send(1);
            rig.Core.Idle().Wait();
            // Refused alone and dropped; the next one went at once, not ten minutes later.
            CollectionAssert.AreEqual(new[] { 1 }, rig.AcceptedNow);
            CollectionAssert.DoesNotContain(rig.Timers.Delays, TimeSpan.FromSeconds(600));
            // Nor does a later retry wait for it: a 503 that asks for no time waits its backoff.
            rig.Backend.RetryAfter = key => null;
            rig.Events = FirstThenUsual(503);
            rig.Send(2);
            rig.Core.Idle().Wait();
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromSeconds(2));
            CollectionAssert.DoesNotContain(rig.Timers.Delays, TimeSpan.FromSeconds(600));
        }

        [Test]
        public void ARetryAfterShorterThanOneAskedBeforeShortensNoWait()
        {
            var rig = StillRig();
            rig.Other = (key, body) => key.Contains("/attribution") ? Answer(503) : ScriptedBackend.Usual(key, body);
            rig.Events = FirstThenUsual(503);
            rig.Backend.RetryAfter = key => key.Contains("/attribution") ? "120" : key.StartsWith("POST /v1/events") ? "5" : null;
            rig.Configure();
            rig.Core.Listeners.AddAttribution(attribution => { });
            rig.Core.Idle().Wait();
            rig.Send(0);
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Count);
            CollectionAssert.DoesNotContain(rig.Timers.Delays, TimeSpan.FromSeconds(5));
            Assert.AreEqual(2, rig.Timers.Delays.Count(delay => delay == TimeSpan.FromSeconds(120)), "the attribution's and the events' retries");
        }

        [Test]
        public void TheAttributionIsAskedAgainNoSoonerThanItsRetryAfter()
        {
            var rig = StillRig();
            rig.Other = (key, body) => key.Contains("/attribution") ? Answer(503) : ScriptedBackend.Usual(key, body);
            rig.Backend.RetryAfter = key => key.Contains("/attribution") ? "120" : null;
            rig.Configure();
            rig.Core.Listeners.AddAttribution(attribution => { });
            rig.Core.Idle().Wait();
            Assert.That(rig.Backend.To("GET /v1/installs/").Count, Is.GreaterThan(0), "the attribution was asked");
            CollectionAssert.Contains(rig.Timers.Delays, TimeSpan.FromSeconds(120));
        }
    }
}
