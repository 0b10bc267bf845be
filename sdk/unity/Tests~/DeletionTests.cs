using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// DeleteUserData as the Kotlin and iOS SDKs have it: kept on the device, and nothing more
    /// queued or sent for the install, in this launch or a later one.
    /// </summary>
    [TestFixture]
    public class DeletionTests
    {
        /// <summary>The attribution as GetAttributionParams answers it, its callback run on the rig's main thread.</summary>
        internal static Dictionary<string, object> Read(SdkCore core, QueuedMainThread main)
        {
            var answer = new TaskCompletionSource<Dictionary<string, object>>();
            core.GetAttributionParams(p => answer.TrySetResult(p), e => answer.TrySetException(new Exception(e)));
            var deadline = DateTime.UtcNow + Patience.Bound;
            while (!answer.Task.IsCompleted && DateTime.UtcNow < deadline)
            {
                main.Drain();
                answer.Task.Wait(10);
            }
            Assert.IsTrue(answer.Task.IsCompleted, "GetAttributionParams did not answer");
            return answer.Task.Result;
        }

        private static List<string> Routes(ScriptedBackend backend)
        {
            return backend.To("").Select(r => r.Key.Split('?')[0]).ToList();
        }

        [Test]
        public void AfterDeleteUserDataNothingMoreIsQueuedOrSentForTheInstallInThisLaunchOrTheNext()
        {
            var store = new DiskStore();
            var rig = new Rig(store);
            rig.Configure();
            rig.Core.SetCustomerUserId("user-8812");
            rig.Send(0);
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            store.Set("service_sdk.attribution", "{\"service_match_status\":\"organic\"}");

            rig.Core.DeleteUserData().Wait();
            Assert.AreEqual("true", store.OnDisk("service_sdk.deleted"), "kept on the disk at once");
            Assert.IsNull(store.OnDisk("service_sdk.attribution"), "the attribution goes with the data");
            Assert.IsNull(store.OnDisk("service_sdk.customer_user_id"), "the customer user id goes with the data");
            var sent = Routes(rig.Backend).Count;

            // The same process: no event queued (nor reported as a drop, as the Kotlin SDK does),
            // no session, no consent update, no attribution read.
            rig.Send(1);
            Assert.AreEqual(0, rig.Core.Queued);
            rig.Core.SetConsent(new ServiceConsent(gdprApplies: true, adUserData: false));
            rig.Clock.Held = DateTime.UtcNow;
            rig.Core.EnteredBackground();
            rig.Clock.Held = rig.Clock.Held + TimeSpan.FromHours(2);
            rig.Core.EnteredForeground();
            Assert.AreEqual(0, rig.Core.QueuedSessions, "no session after half an hour away");
            var heard = 0;
            rig.Core.Listeners.AddAttribution(map => Interlocked.Increment(ref heard));
            Assert.AreEqual("skipped", Read(rig.Core, rig.Main)[SdkCore.MatchStatus], "as the iOS SDK answers");
            rig.Settle();
            CollectionAssert.AreEqual(new string[0], Routes(rig.Backend).Skip(sent), "nothing sent after the deletion");
            Assert.IsEmpty(rig.Heard.Errors);
            Assert.AreEqual(0, heard, "the attribution listener is not called after deletion");

            // The next launch, from what was on the disk: events before and after Configure, a
            // consent: only remote configuration is read.
            var next = new Rig(store.AfterCrash());
            next.Send(2);
            next.Configure();
            next.Send(3);
            next.Core.SetConsent(new ServiceConsent(adPersonalization: true));
            Assert.AreEqual("skipped", Read(next.Core, next.Main)[SdkCore.MatchStatus]);
            next.Settle();
            CollectionAssert.AreEqual(new[] { "GET /v1/config" }, Routes(next.Backend).Distinct());
            Assert.AreEqual(0, next.Core.Queued);
            Assert.AreEqual(0, next.Core.QueuedSessions);
            Assert.IsEmpty(next.Heard.Errors);

            AssertNoUserIdKeptAgain(next);
        }

        [Test]
        public void ADeletionAskedForAsTheSdkStartsWaitsForTheInstallToBeRecorded()
        {
            var rig = new Rig();
            var answer = new ManualResetEventSlim(false);
            rig.Other = (key, body) =>
            {
                if (key.StartsWith("GET /v1/config")) answer.Wait(Patience.Bound);
                return ScriptedBackend.Usual(key, body);
            };
            rig.Core.Configure("sdk_key", 1, null);
            var deletion = rig.Core.DeleteUserData();
            answer.Set();
            Assert.IsTrue(deletion.Wait(Patience.Bound));
            var routes = Routes(rig.Backend);
            var install = routes.IndexOf("POST /v1/installs");
            Assert.GreaterOrEqual(install, 0, "the install went: " + string.Join(", ", routes));
            Assert.Less(install, routes.FindIndex(r => r.StartsWith("DELETE")), string.Join(", ", routes));
        }

        [Test]
        public void AnEventKeptAsTheDeletionRanIsDroppedAtTheNextConfigureWhichMakesNoSession()
        {
            var store = new DiskStore();
            var rig = new Rig(store);
            rig.Configure();
            rig.Settle();
            rig.Core.DeleteUserData().Wait();
            rig.Settle();
            var sessionsDropped = rig.Core.DroppedSessionCount;

            // An event taken as the deletion ran, on the disk beside it.
            var disk = store.AfterCrash();
            disk.Set(EventQueue.Key, JsonText.Write(new List<QueuedEvent>
            {
                new QueuedEvent { EventId = "late", EventType = "LOGIN", EventTime = Requests.Iso(DateTime.UtcNow) },
            }));
            var next = new Rig(disk);
            next.Configure();
            next.Settle();
            Assert.AreEqual(0, next.Core.Queued);
            var dropped = next.Heard.Errors.Single();
            Assert.AreEqual(ServiceErrorKind.EventsDropped, dropped.Kind);
            Assert.AreEqual(ServiceDropReason.Deleted, dropped.Reason);
            Assert.AreEqual(1, dropped.Count);
            Assert.AreEqual(sessionsDropped, next.Core.DroppedSessionCount, "no session made, to be dropped");
            CollectionAssert.AreEqual(new[] { "GET /v1/config" }, Routes(next.Backend).Distinct());
        }

        /// <summary>
        /// An app that names its user again, or at each start, keeps no id of a deleted install:
        /// neither in this launch (<paramref name="next"/>) nor at the one after it.
        /// </summary>
        private static void AssertNoUserIdKeptAgain(Rig next)
        {
            next.Core.SetCustomerUserId("user-8812");
            Assert.IsNull(next.Store.Get("service_sdk.customer_user_id"));
            var third = new Rig(((DiskStore)next.Store).AfterCrash());
            third.Core.Configure("sdk_key", 1, "user-8812");
            third.Settle();
            Assert.IsNull(third.Store.Get("service_sdk.customer_user_id"));
        }

        /// <summary>A 202 that ignores every item of the batch because the install's data was deleted.</summary>
        private static Tuple<int, JToken> IgnoredAsDeleted(JToken body, string list, string idField)
        {
            var items = (JArray)body[list];
            return Tuple.Create(202, (JToken)new JObject
            {
                { "accepted", 0 },
                {
                    "ignored", new JArray(items.Select((item, i) => new JObject
                    {
                        { "index", i }, { idField, item[idField] }, { "reason", "install_deleted" }, { "detail", "the install's data was deleted" },
                    }))
                },
                { "rejected", new JArray() },
            });
        }

        [Test]
        public void AnEventSentOnAnotherThreadAsTheDeletionRunsIsNotKeptInTheQueueOfTheDeletedInstall()
        {
            // A thread of the game's sends an event as DeleteUserData runs: SendEvent has found
            // the install's data there (it says it in the log, as the event's email is blank)
            // when the deletion marks it deleted, empties the queues and is done. The event is
            // not queued after that deletion (said not sent, as any event once deleted): it is
            // not kept in the queue of an install that is gone, untold until the next launch's
            // Configure drops it.
            var rig = new Rig();
            rig.Configure();
            rig.Settle();
            var log = rig.Log;
            var checkedThere = new ManualResetEventSlim(false);
            var goOn = new ManualResetEventSlim(false);
            rig.Setup.Log = new DeliveryTests.LineHook(log, "matching parameters with no usable value were left out", () =>
            {
                checkedThere.Set();
                goOn.Wait(Patience.Bound);
            });
            var game = new Thread(() => rig.Core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "n", 9 }, { "email", "" } }));
            game.Start();
            Assert.IsTrue(checkedThere.Wait(Patience.Bound), "SendEvent found the install's data there");
            rig.Core.DeleteUserData().Wait();
            goOn.Set();
            Assert.IsTrue(game.Join(Patience.Bound), "SendEvent returned");
            Assert.AreEqual(0, rig.Core.Queued, "nothing queued once deleted");
            Assert.AreEqual(1, log.At(LogLevel.Info, "the install's data was deleted: LEVEL_START is not sent").Count, "said not sent");
            rig.Settle();
            CollectionAssert.IsEmpty(rig.AcceptedNow);
            CollectionAssert.IsEmpty(rig.Heard.Dropped(ServiceDropReason.Deleted), "nothing was queued for the deletion to drop");

            // Nothing of it is on the device for the next launch to drop either.
            rig.Launch();
            rig.Configure();
            rig.Settle();
            Assert.AreEqual(0, rig.Core.Queued);
            CollectionAssert.IsEmpty(rig.Heard.Dropped(ServiceDropReason.Deleted), "no event kept to be dropped at the next Configure");
        }

        [Test]
        public void ADeletionMadeThroughTheServicesApiIsLearnedFromAnEventsAnswerAndKeptForTheNextLaunch()
        {
            var store = new DiskStore();
            var rig = new Rig(store);
            rig.Configure();
            rig.Core.SetCustomerUserId("user-8812");
            rig.Settle();
            // The app's backend deleted the install on a person's request: the service ignores
            // every event sent for it from now on.
            rig.Events = (numbers, body) => IgnoredAsDeleted(body, "events", "event_id");
            rig.Send(0);
            rig.Settle();

            Assert.AreEqual("true", store.OnDisk("service_sdk.deleted"), "kept on the disk at once");
            Assert.IsNull(store.OnDisk("service_sdk.customer_user_id"), "the customer user id goes with the data");
            Assert.AreEqual(1, rig.Log.At(LogLevel.Info, "the service says the install's data was deleted").Count);
            var sent = Routes(rig.Backend).Count;

            // The same process: nothing more queued, nor sent, nor reported as a drop.
            rig.Send(1);
            Assert.AreEqual(0, rig.Core.Queued);
            rig.Core.EnteredBackground();
            rig.Clock.Offset += TimeSpan.FromHours(2);
            rig.Core.EnteredForeground();
            Assert.AreEqual(0, rig.Core.QueuedSessions, "no session after two hours away");
            rig.Settle();
            CollectionAssert.AreEqual(new string[0], Routes(rig.Backend).Skip(sent), "nothing sent after the deletion was learned");
            CollectionAssert.AreEqual(new[] { "events_dropped deleted 1" }, rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + " " + e.Count),
                "the ignored event reported once");

            // The next launch, from what was on the disk: only remote configuration is read.
            var next = new Rig(store.AfterCrash());
            next.Send(2);
            next.Configure();
            next.Send(3);
            next.Settle();
            CollectionAssert.AreEqual(new[] { "GET /v1/config" }, Routes(next.Backend).Distinct());
            Assert.AreEqual(0, next.Core.Queued);
            Assert.AreEqual(0, next.Core.QueuedSessions);
            Assert.IsEmpty(next.Heard.Errors);

            AssertNoUserIdKeptAgain(next);
        }

        [Test]
        public void ADeletionLearnedFromASessionsAnswerEndsTheSendBeforeTheEvents()
        {
            var store = new DiskStore();
            var rig = new Rig(store);
            rig.Other = (key, body) => key.StartsWith("POST /v1/sessions")
                ? IgnoredAsDeleted(body, "sessions", "session_id")
                : ScriptedBackend.Usual(key, body);
            // Sent before Configure: queued behind the launch's session, which goes first.
            rig.Send(0);
            rig.Configure();
            rig.Settle();

            Assert.AreEqual("true", store.OnDisk("service_sdk.deleted"));
            Assert.AreEqual(1, rig.Backend.To("POST /v1/sessions").Count);
            Assert.IsEmpty(rig.Backend.To("POST /v1/events"), "the event is not sent to an install that is gone");
            Assert.AreEqual(0, rig.Core.Queued);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "1 session dropped (deleted)").Count);
            CollectionAssert.AreEqual(new[] { "events_dropped deleted 1" }, rig.Heard.Errors.Select(e => e.KindName + " " + e.ReasonName + " " + e.Count),
                "the event that waited is dropped as deleted");
        }

        [Test]
        public void EventsOnTheirWayAsDeleteUserDataRunsAreReportedDroppedOnceWhateverTheirAnswerSays()
        {
            // Three events queued offline are on their way when the app deletes the user's data;
            // the service takes the deletion first and ignores the batch as install_deleted.
            var rig = new Rig();
            rig.Configure();
            rig.QueueOffline(3);
            rig.Events = (numbers, body) => IgnoredAsDeleted(body, "events", "event_id");
            var events = Held.First(rig, "POST /v1/events");
            rig.Timers.FireUpTo(TimeSpan.FromMinutes(1));
            Assert.IsTrue(events.OnItsWay.Wait(Patience.Bound), "the batch is on its way");
            rig.Core.DeleteUserData().Wait();
            events.Answer.Set();
            rig.Settle();

            Assert.AreEqual(0, rig.Core.Queued);
            Assert.AreEqual(3, rig.Heard.Dropped(ServiceDropReason.Deleted).Sum(e => e.Count), "each event reported once");
            Assert.AreEqual(3, rig.Core.DroppedEventCount);
        }

        /// <summary>Unity's main thread as .Wait() leaves it: blocked, so what is posted to it never runs.</summary>
        private sealed class BlockedContext : SynchronizationContext
        {
            public int Posted;

            public override void Post(SendOrPostCallback callback, object state)
            {
                Interlocked.Increment(ref Posted);
            }

            public override void Send(SendOrPostCallback callback, object state)
            {
                throw new InvalidOperationException("the main thread is blocked");
            }
        }

        /// <summary>The network, with the answer to DELETE held until the test gives it.</summary>
        private sealed class HeldDelete : IHttpTransport
        {
            private readonly IHttpTransport inner;
            private TaskCompletionSource<HttpAnswer> held;
            public readonly ManualResetEventSlim DeleteSent = new ManualResetEventSlim();

            public HeldDelete(IHttpTransport inner)
            {
                this.inner = inner;
            }

            public Task<HttpAnswer> Send(string method, string url, string authorization, string jsonBody)
            {
                if (method != "DELETE") return inner.Send(method, url, authorization, jsonBody);
                held = new TaskCompletionSource<HttpAnswer>();
                DeleteSent.Set();
                return held.Task;
            }

            public void Answer()
            {
                held.SetResult(new HttpAnswer(202, "{\"request_id\":\"r-1\"}"));
            }
        }

        [Test]
        public void DeleteUserDataWaitedForOnTheMainThreadEnds()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var setup = Setups.For("http://service.test", backend, scheduler: new ManualTimers());
            var network = new HeldDelete(setup.Transport);
            setup.Transport = network;
            ServiceSDK.UsePlatform(setup);
            try
            {
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.Core.Idle().Wait();

                // Called, through the facade as an app calls it, on a thread whose posted
                // continuations never run, as Unity's main thread while it waits in .Wait():
                // the call's own continuations must not need it.
                var main = new BlockedContext();
                var before = SynchronizationContext.Current;
                Task deleting;
                SynchronizationContext.SetSynchronizationContext(main);
                try
                {
                    deleting = ServiceSDK.DeleteUserData();
                }
                finally
                {
                    SynchronizationContext.SetSynchronizationContext(before);
                }
                Assert.IsTrue(network.DeleteSent.Wait(Patience.Bound), "the DELETE was not sent");
                network.Answer();
                Assert.IsTrue(deleting.Wait(Patience.Bound), "DeleteUserData waited for the blocked main thread");
                Assert.AreEqual(0, main.Posted);
            }
            finally
            {
                ServiceSDK.UsePlatform(null);
            }
        }
    }
}
