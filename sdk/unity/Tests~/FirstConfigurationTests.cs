using System;
using System.Linq;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// An install's first launch whose GET /v1/config fails (offline, the service down): as in the
    /// Kotlin and iOS SDKs, the events wait on the device until a configuration is known, sent
    /// or dropped as `disabled` as it says; the configuration is asked for again from 2 s,
    /// doubling to a minute, never shorter than a Retry-After; the install and the sessions go
    /// meanwhile. A launch with a configuration kept from an earlier one is not held.
    /// </summary>
    [TestFixture]
    public class FirstConfigurationTests
    {
        private static readonly TimeSpan FirstStep = TimeSpan.FromSeconds(2);

        /// <summary>A rig whose retries start at the SDK's own 2 s, exact (no jitter), GET /v1/config answered by <paramref name="config"/>.</summary>
        private static Rig FirstLaunch(Func<Tuple<int, JToken>> config)
        {
            var rig = new Rig();
            rig.RetryDelay = FirstStep;
            rig.Launch();
            rig.Other = (key, body) => key.StartsWith("GET /v1/config") ? config() : ScriptedBackend.Usual(key, body);
            return rig;
        }

        private static Tuple<int, JToken> Unavailable()
        {
            return Tuple.Create(503, (JToken)new JObject { { "error", "Service Unavailable" }, { "detail", "scripted" } });
        }

        private static Tuple<int, JToken> Config(bool enabled)
        {
            return Tuple.Create(200, (JToken)new JObject { { "enabled", enabled } });
        }

        [Test]
        public void AFailedFirstReadHoldsTheEventsAsksAgainFrom2sDoublingToAMinuteAndSendsThemOnceARead()
        {
            var failing = true;
            var rig = FirstLaunch(() => failing ? Unavailable() : Config(true));
            rig.Send(0);
            rig.Configure();
            rig.Send(1);
            rig.Core.Idle().Wait();
            Assert.IsEmpty(rig.Backend.To("POST /v1/events"), "no event before a configuration is known");
            Assert.AreEqual(2, rig.Core.Queued, "on the device");
            // The install and the launch's session carry nothing a configuration decides.
            Assert.AreEqual(1, rig.Backend.To("POST /v1/installs").Count);
            Assert.AreEqual(1, rig.Backend.To("POST /v1/sessions").Count);

            var reads = 1;
            foreach (var seconds in new[] { 2, 4, 8, 16, 32, 60, 60 })
            {
                var step = TimeSpan.FromSeconds(seconds);
                CollectionAssert.AreEqual(new[] { step }, rig.Timers.Delays, "the next read waits " + seconds + " s, not an hour");
                Assert.AreEqual(1, rig.Timers.Fire(step));
                rig.Core.Idle().Wait();
                Assert.AreEqual(++reads, rig.Backend.To("GET /v1/config").Count);
                Assert.IsEmpty(rig.Backend.To("POST /v1/events"), "still none after the read at " + seconds + " s");
            }

            failing = false;
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromSeconds(60)));
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow, "sent in order once a configuration is known");
            CollectionAssert.AreEqual(new[] { SdkCore.DefaultRefreshInterval }, rig.Timers.Delays, "read again at the configuration's interval from then on");
            rig.Send(2);
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0, 1, 2 }, rig.AcceptedNow, "a later event goes at once");
            rig.Main.Drain();
            Assert.IsEmpty(rig.Heard.Errors);
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
        }

        [Test]
        public void AFirstReadThatSaysOffSendsNoneOfTheHeldEventsAndReportsThemDroppedAsDisabled()
        {
            var answer = Unavailable();
            var rig = FirstLaunch(() => answer);
            rig.Configure();
            rig.Send(0);
            rig.Send(1);
            rig.Core.Idle().Wait();
            Assert.IsEmpty(rig.Backend.To("POST /v1/events"));

            answer = Config(false);
            Assert.AreEqual(1, rig.Timers.Fire(FirstStep), "asked again after 2 s");
            rig.Core.Idle().Wait();
            rig.Main.Drain();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            Assert.IsEmpty(rig.Backend.To("POST /v1/events"), "none of them sent");
            Assert.AreEqual(0, rig.Core.Queued);
            var dropped = rig.Heard.Dropped(ServiceDropReason.Disabled);
            Assert.AreEqual(1, dropped.Count, "one report");
            Assert.AreEqual(2, dropped[0].Count);
            Assert.AreEqual(2, rig.Core.DroppedEventCount);
            CollectionAssert.AreEqual(new[] { SdkCore.DefaultRefreshInterval }, rig.Timers.Delays, "a configuration is known: read again at its interval");
        }

        [Test]
        public void TheReadIsAskedAgainNoSoonerThanTheServicesRetryAfter()
        {
            var rig = FirstLaunch(Unavailable);
            rig.Clock.Held = new DateTime(2026, 3, 1, 12, 0, 0, DateTimeKind.Utc);
            rig.Backend.RetryAfter = key => key.StartsWith("GET /v1/config") ? "30" : null;
            rig.Configure();
            CollectionAssert.AreEqual(new[] { TimeSpan.FromSeconds(30) }, rig.Timers.Delays, "the 30 s asked for, not the 2 s step nor an hour");
        }

        [Test]
        public void EventsHeldByALaunchThatEndsBeforeAnyReadWaitOnTheDeviceForTheNextLaunchsRead()
        {
            var answer = Unavailable();
            var rig = FirstLaunch(() => answer);
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            rig.Core.Retire();

            // The next launch's read fails too: still none is known, and the event still waits.
            rig.Launch();
            rig.Configure();
            rig.Send(1);
            rig.Core.Idle().Wait();
            Assert.IsEmpty(rig.Backend.To("POST /v1/events"));
            Assert.AreEqual(2, rig.Core.Queued);
            rig.Core.Retire();

            answer = Config(true);
            rig.Launch();
            rig.Configure();
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);
        }

        [Test]
        public void ALaunchWithAConfigurationKeptFromAnEarlierOneIsNotHeld()
        {
            var answer = Config(true);
            var rig = FirstLaunch(() => answer);
            rig.Configure();
            rig.Core.Retire();

            answer = Unavailable();
            var timersBefore = rig.Timers.Delays.Count;
            rig.Launch();
            rig.Configure();
            rig.Send(0);
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow, "sent under the configuration kept");
            var added = rig.Timers.Delays.Skip(timersBefore).ToList();
            CollectionAssert.AreEqual(new[] { SdkCore.DefaultRefreshInterval }, added, "the kept configuration holds until the periodic read");
        }

        [Test]
        public void ALaterLaunchWhoseReadFailsWaitsTheKeptConfigurationsInterval()
        {
            var answer = Tuple.Create(200, (JToken)new JObject { { "enabled", true }, { "refresh_interval_seconds", 600 } });
            var rig = FirstLaunch(() => answer);
            rig.Configure();
            rig.Core.Idle().Wait();
            Assert.AreEqual(TimeSpan.FromMinutes(10), rig.Core.RefreshInterval);

            // The next launch's read fails: what waits is the read again, after the kept interval.
            Action relaunchOffline = () =>
            {
                rig.Core.Retire();
                // The retired launch's timer goes, doing nothing: what waits next is the new launch's.
                rig.Timers.FireAll();
                answer = Unavailable();
                rig.Launch();
                rig.Configure();
                rig.Core.Idle().Wait();
            };
            relaunchOffline();
            CollectionAssert.AreEqual(new[] { TimeSpan.FromMinutes(10) }, rig.Timers.Delays, "read again at the interval last read, not the default hour");

            // A reading that names none goes back to the default, kept for the launch after.
            answer = Config(true);
            Assert.AreEqual(1, rig.Timers.Fire(TimeSpan.FromMinutes(10)));
            rig.Core.Idle().Wait();
            Assert.AreEqual(SdkCore.DefaultRefreshInterval, rig.Core.RefreshInterval);
            relaunchOffline();
            CollectionAssert.AreEqual(new[] { SdkCore.DefaultRefreshInterval }, rig.Timers.Delays);
        }
    }
}
