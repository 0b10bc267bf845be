using System;
using System.Linq;
using System.Threading;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>iOS's background time as the core asks for it: every loan and return counted.</summary>
    internal sealed class RecordingBackgroundTime : IBackgroundTime
    {
        public int Begun;
        public int Ended;
        /// <summary>False: iOS lends no time.</summary>
        public bool Lends = true;
        /// <summary>iOS takes the time back as soon as it lent it.</summary>
        public bool TakesBackAtOnce;

        public Action Begin(Action expired)
        {
            Interlocked.Increment(ref Begun);
            if (!Lends) return null;
            if (TakesBackAtOnce) expired();
            return () => Interlocked.Increment(ref Ended);
        }
    }

    /// <summary>
    /// The app going to the background: the sessions and events waiting are sent at once, a retry
    /// waiting or not (the retry made void), in time iOS lends for it and gives back once the send
    /// is done; an install not recorded yet is left to its retry.
    /// </summary>
    [TestFixture]
    public class BackgroundTests
    {
        private static void Until(Func<bool> condition, string what)
        {
            var deadline = DateTime.UtcNow + Patience.Bound;
            while (!condition())
            {
                Assert.Less(DateTime.UtcNow, deadline, what);
                Thread.Sleep(5);
            }
        }

        [Test]
        public void WhatWaitsForARetryIsSentAtOnceInTimeLentAndTheRetryIsVoid()
        {
            var rig = new Rig();
            var time = new RecordingBackgroundTime();
            rig.Setup.BackgroundTime = time;
            rig.Configure();
            rig.QueueOffline(3);
            Assert.AreEqual(3, rig.Core.Queued);
            Assert.AreEqual(1, rig.Timers.Delays.Count(delay => delay == rig.RetryDelay), "a retry waits");

            rig.Core.EnteredBackground();
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0, 1, 2 }, rig.AcceptedNow, "sent as the app went, not at the retry");
            Assert.AreEqual(0, rig.Core.Queued);
            Until(() => time.Ended == 1, "the time lent is given back once the send is done");
            Assert.AreEqual(1, time.Begun);

            var posts = rig.Backend.To("POST").Count;
            Assert.AreEqual(1, rig.Timers.Fire(rig.RetryDelay));
            rig.Core.Idle().Wait();
            Assert.AreEqual(posts, rig.Backend.To("POST").Count, "the retry that waited finds its work done");
            Assert.AreEqual(1, time.Ended);
        }

        [Test]
        public void AnInstallNotRecordedYetIsLeftToItsRetryAsTheAppGoes()
        {
            var rig = new Rig();
            var time = new RecordingBackgroundTime();
            rig.Setup.BackgroundTime = time;
            rig.Backend.Offline = true;
            rig.Core.Configure("sdk_key", 1, null);
            rig.Core.Idle().Wait();
            rig.Backend.Offline = false;
            var installs = rig.Backend.To("POST /v1/installs").Count;
            // The install's retry, and the read of a configuration none of which is known yet.
            Assert.AreEqual(2, rig.Timers.Delays.Count(delay => delay == rig.RetryDelay), "a retry waits");

            rig.Core.EnteredBackground();
            rig.Core.Idle().Wait();
            Assert.AreEqual(installs, rig.Backend.To("POST /v1/installs").Count, "not sent as the app goes");
            Assert.AreEqual(0, time.Begun, "no time asked for");

            Assert.AreEqual(2, rig.Timers.Fire(rig.RetryDelay), "the retry still waits");
            rig.Core.Idle().Wait();
            Assert.AreEqual(installs + 1, rig.Backend.To("POST /v1/installs").Count, "sent at its retry");
            Assert.AreEqual(1, rig.Backend.To("POST /v1/sessions").Count, "the launch's session after it");
        }

        /// <summary>Google Play's referrer service: it cannot answer the first times asked, then answers.</summary>
        private sealed class BusyPlayStore : IInstallReferrerSource
        {
            public int Busy;
            public int Reads;

            public InstallReferrer Read()
            {
                Interlocked.Increment(ref Reads);
                if (Interlocked.Decrement(ref Busy) >= 0) throw new ReferrerUnavailableException("the Play Store answered SERVICE_UNAVAILABLE (1)");
                return new InstallReferrer { Referrer = "utm_source=x&click_id=c1" };
            }
        }

        [Test]
        public void LeavingAndComingBackOnTheFirstLaunchUsesUpNoReadOfThePlayInstallReferrer()
        {
            var rig = new Rig();
            var play = new BusyPlayStore { Busy = 2 };
            rig.Setup.InstallReferrer = play;
            rig.Configure();
            Assert.AreEqual(1, play.Reads);
            Assert.IsEmpty(rig.Backend.To("POST /v1/installs"), "the install waits for the referrer");

            for (var trip = 0; trip < 3; trip++)
            {
                rig.Core.EnteredBackground();
                rig.Core.Idle().Wait();
                rig.Core.EnteredForeground();
                rig.Core.Idle().Wait();
            }
            Assert.AreEqual(1, play.Reads, "no read as the app goes");
            Assert.IsEmpty(rig.Backend.To("POST /v1/installs"));

            rig.Settle();
            Assert.AreEqual(3, play.Reads, "read again at the install's retries only");
            var installs = rig.Backend.To("POST /v1/installs");
            Assert.AreEqual(1, installs.Count);
            Assert.AreEqual("utm_source=x&click_id=c1", (string)installs[0].Value["install_referrer"]["referrer"]);
            Assert.IsEmpty(rig.Log.At(LogLevel.Warn, "referrer"));
        }

        [Test]
        public void WhenIosLendsNoTimeOrTakesItBackFirstTheSendStillGoesAndNothingIsGivenBackTwice()
        {
            var rig = new Rig();
            var time = new RecordingBackgroundTime { Lends = false };
            rig.Setup.BackgroundTime = time;
            rig.Configure();
            rig.QueueOffline(1);
            rig.Core.EnteredBackground();
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);

            time.Lends = true;
            time.TakesBackAtOnce = true;
            rig.QueueOffline(1, 1);
            rig.Core.EnteredBackground();
            rig.Core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);
            Until(() => rig.Log.At(LogLevel.Info, "iOS took back the time").Count == 1, "the time taken back is logged");
            Thread.Sleep(100);
            Assert.AreEqual(2, time.Begun);
            Assert.AreEqual(0, time.Ended, "iOS ended the task itself");
            Assert.IsEmpty(rig.Log.At(LogLevel.Warn, "not given back"), "no time lent, none to give back");
        }

        [Test]
        public void ASessionWaitingForARetryGoesAsTheAppGoesWithNoEventQueued()
        {
            var rig = new Rig();
            rig.Configure();
            // A return after the interval, offline: its session waits for a retry.
            rig.Core.EnteredBackground();
            rig.Clock.Offset = TimeSpan.FromHours(1);
            rig.Backend.Offline = true;
            rig.Core.EnteredForeground();
            rig.Core.Idle().Wait();
            rig.Backend.Offline = false;
            Assert.AreEqual(1, rig.Core.QueuedSessions);
            Assert.AreEqual(0, rig.Core.Queued);

            rig.Core.EnteredBackground();
            rig.Core.Idle().Wait();
            Assert.AreEqual(0, rig.Core.QueuedSessions, "sent as the app went, not at the retry");
        }

        [Test]
        public void NothingIsSentNorTimeAskedForWithNothingWaitingOrTheSdkStopped()
        {
            var rig = new Rig();
            var time = new RecordingBackgroundTime();
            rig.Setup.BackgroundTime = time;
            rig.Configure();
            var requests = rig.Backend.Requests.Count;
            rig.Core.EnteredBackground();
            rig.Core.Idle().Wait();
            Assert.AreEqual(requests, rig.Backend.Requests.Count, "nothing waits");
            Assert.AreEqual(0, time.Begun);

            var stopped = new Rig();
            stopped.Setup.BackgroundTime = time;
            stopped.Core.Stop();
            stopped.Core.Configure("sdk_key", 1, null);
            stopped.Core.EnteredBackground();
            stopped.Core.Idle().Wait();
            Assert.IsEmpty(stopped.Backend.Requests, "stopped: no request at all, the install's neither");
            Assert.AreEqual(0, time.Begun);
        }
    }
}
