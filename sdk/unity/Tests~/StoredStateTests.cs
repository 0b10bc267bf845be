using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// What the SDK keeps on the device and reads back: strings as they were, a damaged value
    /// costing only itself, and the saves while the app is paused or quitting.
    /// </summary>
    [TestFixture]
    public class StoredStateTests
    {
        private const string DateLike = "2024-05-01T10:00:00.000+02:00";

        [Test]
        public void ADateLikeParameterQueuedInOneLaunchLeavesTheNextAsTheSameString()
        {
            var store = new DiskStore();
            var first = new Rig(store);
            first.Configure();
            first.Backend.Offline = true;
            first.Core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "n", 0 }, { "ends_at", DateLike } });
            first.Core.Idle().Wait();
            first.Core.SaveNow();

            var next = new Rig(store.AfterCrash());
            next.Configure();
            next.Settle();
            CollectionAssert.AreEqual(new[] { 0 }, next.AcceptedNow);
            var body = next.Backend.Texts.Single(t => t.Key.StartsWith("POST /v1/events")).Value;
            StringAssert.Contains("\"ends_at\":\"" + DateLike + "\"", body);
        }

        [Test]
        public void TheGamesOwnJsonDefaultSettingsChangeNothingSentOrKept()
        {
            var before = JsonConvert.DefaultSettings;
            // Settings a game may make global: camel-cased names (dictionary keys too), $type keys.
            JsonConvert.DefaultSettings = () => new JsonSerializerSettings
            {
                ContractResolver = new Newtonsoft.Json.Serialization.CamelCasePropertyNamesContractResolver(),
                TypeNameHandling = TypeNameHandling.All,
            };
            try
            {
                var store = new DiskStore();
                var first = new Rig(store);
                first.Configure();
                first.Backend.Offline = true;
                first.Core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object>
                {
                    { "n", 0 },
                    { "PlayerID", "p-1" },
                    { "Items", new List<object> { 1, 2 } },
                });
                first.Core.Idle().Wait();
                first.Core.SaveNow();

                var next = new Rig(store.AfterCrash());
                next.Configure();
                next.Settle();
                CollectionAssert.AreEqual(new[] { 0 }, next.AcceptedNow);
                var body = next.Backend.Texts.Single(t => t.Key.StartsWith("POST /v1/events")).Value;
                StringAssert.Contains("\"PlayerID\":\"p-1\"", body);
                StringAssert.Contains("\"Items\":[1,2]", body);
                StringAssert.DoesNotContain("$type", body);
            }
            finally
            {
                JsonConvert.DefaultSettings = before;
            }
        }

        [Test]
        public void ADateLikeAttributionValueReachesTheAppAsTheSameString()
        {
            var backend = new ScriptedBackend
            {
                Answer = ScriptedBackend.Usual,
                RawAnswer = (key, body) => key.Contains("/attribution")
                    ? Tuple.Create(200, "{\"service_match_status\":\"matched\",\"media_source\":\"x\",\"deep_link_path\":\"/sale\",\"ends_at\":\"" + DateLike + "\"}")
                    : null,
            };
            var store = new MemoryStore();
            var main = new QueuedMainThread();
            var core = new SdkCore(Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: main));
            var links = new List<ServiceDeepLink>();
            core.Listeners.AddDeepLink(link => links.Add(link));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.AreEqual(DateLike, DeletionTests.Read(core, main)["ends_at"]);
            core.Idle().Wait();
            main.Drain();
            Assert.AreEqual(DateLike, links.Single().Params["ends_at"], "the deferred deep link's parameter");

            // A later launch reads it back from the device.
            var laterMain = new QueuedMainThread();
            var later = new SdkCore(Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: laterMain));
            later.Configure("sdk_key", 1, null);
            Assert.AreEqual(DateLike, DeletionTests.Read(later, laterMain)["ends_at"]);
        }

        [TestCase("{\"gdpr_applies\":tru")]
        [TestCase("{\"gdpr_applies\":\"yes\"}")]
        [TestCase("[]")]
        [TestCase("{\"gdpr_applies\":true} {\"gdpr_applies\":false}")]
        public void AnUnreadableConsentKeptOnTheDeviceCountsAsNoneAndCostsNoInstall(string damaged)
        {
            var store = new MemoryStore();
            store.Set(ConsentState.Key, damaged);
            var rig = new Rig(store);
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            var installs = rig.Backend.To("POST /v1/installs");
            Assert.AreEqual(1, installs.Count);
            Assert.IsNull(installs[0].Value["consent"]);
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Error, "the consent kept on the device cannot be read").Count, "said once");
        }

        [TestCase("{}")]
        [TestCase("[1, {\"type\": \"NO_SUCH_TYPE\", \"time\": \"2026-01-01T00:00:00Z\"}, {\"type\": \"LOGIN\"}]")]
        [TestCase("[{\"type\": \"LOGIN\", \"time\": \"not a time\"}")]
        public void EventsWaitingForTheirConversionValueThatCannotBeReadBackAreNone(string damaged)
        {
            var store = new MemoryStore();
            store.Set("service_sdk.conversion_waiting", damaged);
            var rig = new Rig(store);
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
        }

        [Test]
        public void AFirstOpenKeptInTheFutureGoesAsNow()
        {
            // Kept while the device's clock ran ahead, and put right since.
            var store = new MemoryStore();
            store.Set("service_sdk.service_id", "4b6f8c1e-0a1d-4c55-9e0b-6f1d2b7a9c11");
            store.Set("service_sdk.first_open", "2026-12-04T12:00:00.000Z");
            var rig = new Rig(store);
            rig.Clock.Held = new DateTime(2026, 12, 1, 12, 0, 0, DateTimeKind.Utc);
            rig.Configure();
            rig.Settle();
            var sent = JsonText.ParseObject(rig.Backend.Texts.Single(t => t.Key == "POST /v1/installs").Value);
            Assert.AreEqual("2026-12-01T12:00:00.000Z", (string)sent["first_open_time"]);
        }

        [Test]
        public void AnUnreadableFirstOpenKeptOnTheDeviceIsTakenAsNowAndTheInstallGoes()
        {
            var store = new MemoryStore();
            store.Set("service_sdk.service_id", "4b6f8c1e-0a1d-4c55-9e0b-6f1d2b7a9c11");
            store.Set("service_sdk.first_open", "not a time");
            var rig = new Rig(store);
            rig.Configure();
            rig.Send(0);
            rig.Settle();
            var installs = rig.Backend.To("POST /v1/installs");
            Assert.AreEqual(1, installs.Count);
            Assert.IsNotNull(DateTime.Parse((string)installs[0].Value["first_open_time"]));
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Error, "the first open kept on the device cannot be read").Count, "said once");
        }

        [Test]
        public void AnUnreadableAttributionKeptOnTheDeviceIsReadAgainFromTheService()
        {
            var store = new MemoryStore();
            store.Set("service_sdk.attribution", "{\"service_match_status\":\"orga");
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.Contains("/attribution")
                    ? Tuple.Create(200, (JToken)JObject.Parse("{\"service_match_status\":\"organic\"}"))
                    : ScriptedBackend.Usual(key, body),
            };
            var main = new QueuedMainThread();
            var setup = Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: main);
            var core = new SdkCore(setup);
            Assert.DoesNotThrow(() => core.Configure("sdk_key", 1, null));
            core.Idle().Wait();
            Assert.IsFalse(core.IsSdkDisabled);
            Assert.AreEqual("organic", DeletionTests.Read(core, main)[SdkCore.MatchStatus]);
            Assert.AreEqual(1, ((ListLog)setup.Log).At(LogLevel.Error, "the attribution kept on the device cannot be read").Count);
        }

        private static string Event(int n)
        {
            return new JObject
            {
                { "EventId", "e" + n },
                { "EventType", "LEVEL_START" },
                { "EventName", null },
                { "Parameters", new JObject { { "n", n } } },
                { "EventTime", Requests.Iso(DateTime.UtcNow) },
                { "CustomerUserId", null },
            }.ToString(Formatting.None);
        }

        /// <summary>A launch whose store holds these queues, its error listener set before the SDK is made.</summary>
        private sealed class Damaged
        {
            public readonly ScriptedBackend Backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            public readonly QueuedMainThread Main = new QueuedMainThread();
            public readonly Heard Heard;
            public readonly SdkSetup Setup;
            public readonly SdkCore Core;

            public Damaged(IKeyValueStore store)
            {
                var listeners = new SdkListeners();
                Heard = Heard.ErrorsOf(listeners);
                Setup = Setups.For("http://service.test", Backend, store, scheduler: new ManualTimers(), mainThread: Main);
                Core = new SdkCore(Setup, listeners);
                Core.Configure("sdk_key", 1, null);
                Core.Idle().Wait();
                Main.Drain();
            }

            public List<int> Sent
            {
                get { return Backend.To("POST /v1/events").SelectMany(r => r.Value["events"]).Select(e => (int)e["parameters"]["n"]).ToList(); }
            }

            public List<string> Errors(LogLevel level, string saying)
            {
                return ((ListLog)Setup.Log).At(level, saying);
            }
        }

        [Test]
        public void AnUnreadableItemOfTheSavedQueueIsLostAloneAndReported()
        {
            var store = new MemoryStore();
            store.Set(EventQueue.Key, "[" + Event(0) + ",{\"EventId\":{\"not\":\"text\"}},\"an event\",{\"EventType\":\"LOGIN\"}," + Event(1) + "]");
            var launch = new Damaged(store);
            CollectionAssert.AreEqual(new[] { 0, 1 }, launch.Sent);
            var lost = launch.Heard.Errors.Single();
            Assert.AreEqual(ServiceErrorKind.EventsDropped, lost.Kind);
            Assert.IsNull(lost.Reason);
            Assert.AreEqual(3, lost.Count);
            Assert.AreEqual(3, launch.Core.DroppedEventCount);
            Assert.AreEqual(1, launch.Errors(LogLevel.Error, "3 events lost").Count);
        }

        /// <summary>
        /// A link that opened the app makes the SDK as the app loads (the Unity layer's
        /// NoteOpenUrl at BeforeSceneLoad), before its scripts subscribe: the loss is told at
        /// Configure, to the handler subscribed before it, as the README asks.
        /// </summary>
        [Test]
        public void ALossOfTheSavedQueueIsToldAtConfigureWhenALinkOpenedTheAppBeforeItsScriptsSubscribed()
        {
            var store = new MemoryStore();
            store.Set(EventQueue.Key, "[" + Event(0) + ",{\"EventType\":\"LOGIN\"}]");
            var main = new QueuedMainThread();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            ServiceSDK.UsePlatform(Setups.For("http://service.test", backend, store, mainThread: main));
            var errors = new List<ServiceError>();
            Action<ServiceError> handler = errors.Add;
            try
            {
                ServiceSDK.NoteOpenUrl("https://go.example.com/Kx3v9QpZ2aQ?promo=WINTER");
                Assert.AreEqual(1, ServiceSDK.GetDroppedEventCount(), "counted as the SDK is made");
                ServiceSDK.ErrorOccurred += handler;
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.Core.Idle().Wait();
                main.Drain();
                var lost = errors.Where(e => e.Kind == ServiceErrorKind.EventsDropped && e.Reason == null).ToList();
                Assert.AreEqual(1, lost.Count, "told once, to the handler subscribed before Configure");
                Assert.AreEqual(1, lost[0].Count);
                Assert.AreEqual(1, ServiceSDK.GetDroppedEventCount());
            }
            finally
            {
                ServiceSDK.ErrorOccurred -= handler;
                ServiceSDK.UsePlatform(null);
            }
        }

        [Test]
        public void ASavedQueueThatBreaksOffKeepsTheEventsBeforeTheBreak()
        {
            var store = new MemoryStore();
            store.Set(EventQueue.Key, "[" + Event(0) + "," + Event(1) + ",{\"EventId\":\"e2\",\"Ev");
            var launch = new Damaged(store);
            CollectionAssert.AreEqual(new[] { 0, 1 }, launch.Sent);
            var lost = launch.Heard.Errors.Single();
            Assert.IsNull(lost.Reason);
            Assert.AreEqual(1, lost.Count);
            StringAssert.StartsWith("at least 1 events lost", lost.Message);
        }

        [Test]
        public void ASavedQueueThatIsNoJsonIsReportedOnceRatherThanSilentlyEmpty()
        {
            var store = new MemoryStore();
            store.Set(EventQueue.Key, "not json");
            store.Set(SessionQueue.Key, "{\"SessionId\":");
            var launch = new Damaged(store);
            var lost = launch.Heard.Errors.Single();
            Assert.AreEqual(ServiceErrorKind.EventsDropped, lost.Kind);
            Assert.IsNull(lost.Reason);
            Assert.AreEqual(1, launch.Core.DroppedEventCount);
            // A session's loss is logged and counted apart, never raised: the app sent nothing.
            Assert.AreEqual(1, launch.Core.DroppedSessionCount);
            Assert.AreEqual(1, launch.Errors(LogLevel.Error, "sessions lost").Count);

            // Written back without what was lost: the next launch reports nothing.
            var next = new Damaged(store);
            Assert.IsEmpty(next.Heard.Errors);
            Assert.AreEqual(1, next.Core.DroppedEventCount);
        }

        /// <summary>PlayerPrefs as the store sees them: written in memory, on the disk once flushed.</summary>
        internal sealed class Prefs : IPrefs
        {
            private readonly Dictionary<string, string> written = new Dictionary<string, string>();
            private Dictionary<string, string> disk = new Dictionary<string, string>();
            public int Flushes;

            public string Read(string key)
            {
                lock (written)
                {
                    string value;
                    return written.TryGetValue(key, out value) ? value : null;
                }
            }

            public void Write(string key, string value)
            {
                lock (written) written[key] = value;
            }

            public void Delete(string key)
            {
                lock (written) written.Remove(key);
            }

            public void Flush()
            {
                lock (written)
                {
                    disk = new Dictionary<string, string>(written);
                    Flushes++;
                }
            }

            /// <summary>What a game's PlayerPrefs.DeleteAll does: every key gone, in memory and on the disk.</summary>
            public void DeleteAll()
            {
                lock (written)
                {
                    written.Clear();
                    disk.Clear();
                }
            }

            public string OnDisk(string key)
            {
                lock (written)
                {
                    string value;
                    return disk.TryGetValue(key, out value) ? value : null;
                }
            }
        }

        /// <summary>Runs the action on a thread of its own (not the test's, which is the store's main thread), to its end.</summary>
        private static void OffTheMainThread(Action action)
        {
            var thread = new Thread(() => action());
            thread.Start();
            Assert.IsTrue(thread.Join(Patience.Bound));
        }

        [Test]
        public void WhileTheAppIsPausedOrQuittingAChangeOnTheMainThreadIsOnTheDiskAtOnce()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var store = new MainThreadStore(prefs, main, new[] { "a", "b", "c" });
            store.Set("a", "1");
            Assert.IsNull(prefs.OnDisk("a"), "while the app runs a change waits for the timed save");
            Assert.AreEqual(0, prefs.Flushes);

            // OnApplicationPause(true), or the quit.
            store.Leaving = true;
            store.Set("b", "2");
            Assert.AreEqual("1", prefs.OnDisk("a"));
            Assert.AreEqual("2", prefs.OnDisk("b"));
            store.Remove("a");
            Assert.IsNull(prefs.OnDisk("a"));

            // A save asked for on the main thread is made there at once, nothing posted.
            store.Leaving = false;
            store.Set("b", "5");
            store.Save();
            Assert.AreEqual("5", prefs.OnDisk("b"));
            Assert.AreEqual(0, main.Drain());
            store.Leaving = true;

            // PlayerPrefs belong to the main thread: a change off it waits for a save there.
            OffTheMainThread(() => store.Set("c", "3"));
            OffTheMainThread(store.Save);
            Assert.IsNull(prefs.OnDisk("c"));
            main.Drain();
            Assert.AreEqual("3", prefs.OnDisk("c"));

            // Back in the foreground: no save on the hot path.
            store.Leaving = false;
            var flushes = prefs.Flushes;
            store.Set("a", "4");
            Assert.AreEqual(flushes, prefs.Flushes);
            Assert.IsNull(prefs.OnDisk("a"));
        }

        [Test]
        public void AnEventTheAppSendsFromItsOwnPauseHandlerIsOnTheDiskWhenSendEventReturns()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var store = new MainThreadStore(prefs, main, SdkCore.StoreKeys);
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: main));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            backend.Offline = true;

            // The SDK's OnApplicationPause(true) ran before the app's, which sends an event.
            store.Leaving = true;
            core.SendEvent(EventType.LEVEL_COMPLETE, null, new Dictionary<string, object> { { "level", 7 } });
            var queued = prefs.OnDisk(EventQueue.Key);
            Assert.IsNotNull(queued, "the queue is not on the disk");
            StringAssert.Contains("LEVEL_COMPLETE", queued);
        }

        [Test]
        public void PrefsTheGameClearsAreWrittenBackAtTheNextSaveWithOneWarning()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var warnings = new List<string>();
            var store = new MainThreadStore(prefs, main, new[] { "a", "b" }, warnings.Add);
            store.Set("a", "1");
            store.Set("b", "2");
            store.SaveOnMainThread();
            Assert.IsEmpty(warnings, "a first save clears nothing");

            // The game's "reset progress": PlayerPrefs.DeleteAll; then the app pauses.
            prefs.DeleteAll();
            store.SaveOnMainThread();
            Assert.AreEqual("1", prefs.OnDisk("a"));
            Assert.AreEqual("2", prefs.OnDisk("b"));
            Assert.AreEqual(1, warnings.Count);
            StringAssert.Contains("PlayerPrefs.DeleteAll", warnings[0]);

            // The next launch reads them; its saves warn of nothing.
            var next = new MainThreadStore(prefs, main, new[] { "a", "b" }, warnings.Add);
            Assert.AreEqual("1", next.Get("a"));
            next.Set("a", "3");
            next.SaveOnMainThread();
            Assert.AreEqual(1, warnings.Count);
        }

        [Test]
        public void PrefsClearedWhenTheSdkKeptNothingInThemAreNoWarning()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var warnings = new List<string>();
            new MainThreadStore(prefs, main, new[] { "a" }, warnings.Add).SaveOnMainThread();
            Assert.IsNotNull(prefs.OnDisk(MainThreadStore.MarkKey));

            // The next launch finds the mark and none of its keys: it holds nothing to lose.
            var next = new MainThreadStore(prefs, main, new[] { "a" }, warnings.Add);
            prefs.DeleteAll();
            next.SaveOnMainThread();
            Assert.IsEmpty(warnings);
            Assert.IsNull(next.Get("a"));
            Assert.IsNotNull(prefs.OnDisk(MainThreadStore.MarkKey), "marked again");
        }

        /// <summary>A value to make later that counts how often it was made; it gives "v" and the count.</summary>
        private sealed class Counted
        {
            public int Made;
            public readonly Func<string> Make;

            public Counted()
            {
                Make = () => "v" + Interlocked.Increment(ref Made);
            }
        }

        [Test]
        public void AValueGivenToMakeLaterIsMadeOnceASaveNotOnceAChange()
        {
            var prefs = new Prefs();
            var store = new MainThreadStore(prefs, new QueuedMainThread(), new[] { "q" });
            var counted = new Counted();
            for (var i = 0; i < 1000; i++) store.SetLater("q", counted.Make);
            Assert.AreEqual(0, counted.Made, "a change makes nothing");

            store.SaveOnMainThread();
            Assert.AreEqual(1, counted.Made);
            Assert.AreEqual("v1", prefs.OnDisk("q"));

            // Made once: kept as the key's value, saved again without being made again.
            store.SaveOnMainThread();
            Assert.AreEqual("v1", store.Get("q"));
            Assert.AreEqual(1, counted.Made);
        }

        [Test]
        public void ATimedSaveOffTheMainThreadMakesTheValueThereAndTheMainThreadOnlyWritesIt()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var store = new MainThreadStore(prefs, main, new[] { "q" });
            var makers = new List<int>();
            var made = 0;
            Func<string> make = () =>
            {
                lock (makers) makers.Add(Thread.CurrentThread.ManagedThreadId);
                return "v" + Interlocked.Increment(ref made);
            };
            store.SetLater("q", make);
            // The core's timed save runs on its timer's thread.
            var timer = new Thread(store.Save);
            timer.Start();
            timer.Join();
            Assert.AreEqual(new[] { timer.ManagedThreadId }, makers.ToArray(), "made on the timer's thread");
            Assert.IsNull(prefs.OnDisk("q"), "PlayerPrefs are the main thread's");
            Assert.AreEqual(1, main.Drain());
            Assert.AreEqual("v1", prefs.OnDisk("q"));
            Assert.AreEqual(1, made, "the main thread made nothing");

            // Changed again between the timer's make and the main thread's write: what the timer
            // made is written, and the change is made at the next timed save, off the main thread.
            store.SetLater("q", make);
            timer = new Thread(() =>
            {
                store.Save();
                store.SetLater("q", make);
            });
            timer.Start();
            timer.Join();
            main.Drain();
            Assert.AreEqual("v2", prefs.OnDisk("q"));
            timer = new Thread(store.Save);
            timer.Start();
            timer.Join();
            main.Drain();
            Assert.AreEqual("v3", prefs.OnDisk("q"));
            Assert.AreEqual(3, made);
            CollectionAssert.DoesNotContain(makers, Thread.CurrentThread.ManagedThreadId, "never on the main thread");
        }

        [Test]
        public void AValueGivenToMakeLaterIsReadAsMadeAndASetAfterItWins()
        {
            var prefs = new Prefs();
            var store = new MainThreadStore(prefs, new QueuedMainThread(), new[] { "q", "r" });
            var counted = new Counted();
            store.SetLater("q", counted.Make);
            Assert.AreEqual(0, counted.Made);
            Assert.AreEqual("v1", store.Get("q"), "a Get makes it");
            store.SaveOnMainThread();
            Assert.AreEqual("v1", prefs.OnDisk("q"), "the save writes what the Get made");
            Assert.AreEqual(1, counted.Made);

            var other = new Counted();
            store.SetLater("r", other.Make);
            store.Set("r", "set");
            Assert.AreEqual("set", store.Get("r"));
            store.SaveOnMainThread();
            Assert.AreEqual("set", prefs.OnDisk("r"));
            store.Remove("q");
            Assert.IsNull(store.Get("q"));
            store.SaveOnMainThread();
            Assert.IsNull(prefs.OnDisk("q"));
            Assert.AreEqual(0, other.Made, "a Set forgets what was to be made");
        }

        [Test]
        public void AValueGivenToMakeLaterByAnotherMakerIsMadeByTheNewOneAndARemoveForgetsIt()
        {
            var prefs = new Prefs();
            var store = new MainThreadStore(prefs, new QueuedMainThread(), new[] { "q" });
            var first = new Counted();
            var second = new Counted();
            store.SetLater("q", first.Make);
            store.SetLater("q", second.Make);
            Assert.AreEqual("v1", store.Get("q"));
            Assert.AreEqual(0, first.Made, "the maker given last makes the value");
            Assert.AreEqual(1, second.Made);

            store.SaveOnMainThread();
            store.SetLater("q", first.Make);
            store.Remove("q");
            Assert.IsNull(store.Get("q"));
            store.SaveOnMainThread();
            Assert.IsNull(prefs.OnDisk("q"));
            Assert.AreEqual(0, first.Made, "a Remove forgets what was to be made");
        }

        /// <summary>
        /// A queue whose text is made later, and whose maker, the first time it runs, sees the
        /// queue change once it has read it: what another thread's add does between the make and
        /// the store's keeping of what was made.
        /// </summary>
        private sealed class ChangedWhileMade
        {
            private readonly Func<string> changeWith;
            private int items = 1;
            private bool changed;
            public readonly Func<string> Make;

            /// <param name="changeWith">The maker the change gives the store: this queue's own, or another.</param>
            public ChangedWhileMade(MainThreadStore store, Func<string> changeWith = null)
            {
                Make = () =>
                {
                    var text = "items:" + items;
                    if (!changed)
                    {
                        changed = true;
                        items++;
                        store.SetLater("q", this.changeWith ?? Make);
                    }
                    return text;
                };
                this.changeWith = changeWith;
            }
        }

        [Test]
        public void AValueMadeWhileItsKeyChangesIsNotKeptAsTheKeysOwnAndTheChangeIsMadeAtTheNextSave()
        {
            var prefs = new Prefs();
            var store = new MainThreadStore(prefs, new QueuedMainThread(), new[] { "q" });
            var queue = new ChangedWhileMade(store);
            store.SetLater("q", queue.Make);
            Assert.AreEqual("items:1", store.Get("q"), "what was made is what the Get reads");
            Assert.AreEqual("items:2", store.Get("q"), "the change since is made again");

            var saved = new ChangedWhileMade(store);
            store.SetLater("q", saved.Make);
            store.SaveOnMainThread();
            Assert.AreEqual("items:1", prefs.OnDisk("q"));
            store.SaveOnMainThread();
            Assert.AreEqual("items:2", prefs.OnDisk("q"), "the change made during the save is saved at the next");
        }

        [Test]
        public void AValueMadeWhileAnotherMakerTakesItsKeyIsNotKeptAndTheOtherMakesTheValue()
        {
            var prefs = new Prefs();
            var store = new MainThreadStore(prefs, new QueuedMainThread(), new[] { "q" });
            var other = new Counted();
            var queue = new ChangedWhileMade(store, other.Make);
            store.SetLater("q", queue.Make);
            Assert.AreEqual("items:1", store.Get("q"));
            Assert.AreEqual("v1", store.Get("q"), "the maker given during the make makes the value");
            store.SaveOnMainThread();
            Assert.AreEqual("v1", prefs.OnDisk("q"));
            Assert.AreEqual(1, other.Made);
        }

        [Test]
        public void WhileTheAppIsPausedOrQuittingAValueGivenToMakeLaterOnTheMainThreadIsOnTheDiskAtOnce()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var store = new MainThreadStore(prefs, main, new[] { "q", "r" });
            var counted = new Counted();
            store.SetLater("q", counted.Make);
            Assert.AreEqual(0, counted.Made, "while the app runs it waits for the timed save");

            store.Leaving = true;
            var flushes = prefs.Flushes;
            store.SetLater("q", counted.Make);
            Assert.AreEqual("v1", prefs.OnDisk("q"), "made and on the disk before SetLater returns");
            Assert.Less(flushes, prefs.Flushes);

            // Off the main thread it waits for a save there.
            var other = new Counted();
            OffTheMainThread(() => store.SetLater("r", other.Make));
            Assert.IsNull(prefs.OnDisk("r"));
            Assert.AreEqual(0, other.Made);
            main.Drain();
            store.SaveOnMainThread();
            Assert.AreEqual("v1", prefs.OnDisk("r"));
        }

        [Test]
        public void AValueGivenToMakeLaterIsWrittenBackAfterTheGameClearsThePrefs()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var warnings = new List<string>();
            var store = new MainThreadStore(prefs, main, new[] { "q" }, warnings.Add);
            var counted = new Counted();
            store.SetLater("q", counted.Make);
            Assert.AreEqual(0, counted.Made);
            store.SaveOnMainThread();
            prefs.DeleteAll();
            store.SaveOnMainThread();
            Assert.AreEqual("v1", prefs.OnDisk("q"), "written again as it was made");
            Assert.AreEqual(1, counted.Made);
            Assert.AreEqual(1, warnings.Count);

            // The next launch read the mark but none of its keys; a value to make is all it holds.
            var next = new MainThreadStore(prefs, main, new[] { "r" }, warnings.Add);
            var other = new Counted();
            next.SetLater("r", other.Make);
            Assert.AreEqual(0, other.Made);
            prefs.DeleteAll();
            next.SaveOnMainThread();
            Assert.AreEqual("v1", prefs.OnDisk("r"));
            Assert.AreEqual(2, warnings.Count, "the clearing is told");
        }

        /// <summary>
        /// A store that makes a value given to make later only at its save or a Get, counting the
        /// texts it is given and the values it makes.
        /// </summary>
        private sealed class MakesLater : IDiskStore, ILaterStore
        {
            private readonly Dictionary<string, string> values = new Dictionary<string, string>();
            private readonly Dictionary<string, Func<string>> makers = new Dictionary<string, Func<string>>();
            /// <summary>Texts given by Set, per key.</summary>
            public readonly Dictionary<string, int> Texts = new Dictionary<string, int>();
            public int Made;

            public string Get(string key)
            {
                Func<string> maker;
                lock (values)
                {
                    if (!makers.TryGetValue(key, out maker))
                    {
                        string value;
                        return values.TryGetValue(key, out value) ? value : null;
                    }
                }
                Interlocked.Increment(ref Made);
                return maker();
            }

            public void Set(string key, string value)
            {
                lock (values)
                {
                    values[key] = value;
                    makers.Remove(key);
                    int count;
                    Texts.TryGetValue(key, out count);
                    Texts[key] = count + 1;
                }
            }

            public void SetLater(string key, Func<string> value)
            {
                lock (values) makers[key] = value;
            }

            public void Remove(string key)
            {
                lock (values)
                {
                    values.Remove(key);
                    makers.Remove(key);
                }
            }

            public void Save()
            {
                List<KeyValuePair<string, Func<string>>> taken;
                lock (values)
                {
                    taken = makers.ToList();
                    makers.Clear();
                }
                foreach (var pair in taken)
                {
                    Interlocked.Increment(ref Made);
                    var made = pair.Value();
                    lock (values) values[pair.Key] = made;
                }
            }

            public int TextsOf(string key)
            {
                lock (values)
                {
                    int count;
                    return Texts.TryGetValue(key, out count) ? count : 0;
                }
            }
        }

        private static QueuedEvent Queued(int n)
        {
            var parameters = new JObject { { "n", n } };
            for (var i = 1; i < 20; i++) parameters["p" + i] = "value " + i;
            return new QueuedEvent
            {
                EventId = "e" + n,
                EventType = "LEVEL_COMPLETE",
                Parameters = parameters,
                EventTime = Requests.Iso(DateTime.UtcNow),
            };
        }

        [Test]
        public void AThousandEventsQueuedAreWrittenOutOnceASaveNotOnceAnAdd()
        {
            var store = new MakesLater();
            var queue = new EventQueue(store);
            for (var n = 0; n < 1000; n++) queue.Add(Queued(n));
            Assert.AreEqual(0, store.TextsOf(EventQueue.Key), "no text given");
            Assert.AreEqual(0, store.Made, "nothing made");

            store.Save();
            Assert.AreEqual(1, store.Made);
            var saved = JArray.Parse(store.Get(EventQueue.Key));
            CollectionAssert.AreEqual(Enumerable.Range(0, 1000).Select(n => "e" + n), saved.Select(e => (string)e["EventId"]));
            Assert.AreEqual("value 19", (string)saved[999]["Parameters"]["p19"]);

            var next = new EventQueue(store);
            CollectionAssert.AreEqual(Enumerable.Range(0, 1000).Select(n => "e" + n), next.Peek(1000).Select(e => e.EventId));
        }

        [Test]
        public void SendEventGivesTheStoreTheQueueToWriteOutAtItsSave()
        {
            var main = new QueuedMainThread();
            var store = new MakesLater();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: main));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            backend.Offline = true;
            for (var n = 0; n < 50; n++) core.SendEvent(EventType.LEVEL_COMPLETE, null, new Dictionary<string, object> { { "n", n } });
            Assert.AreEqual(0, store.TextsOf(EventQueue.Key), "SendEvent gives the store no text");
            core.SaveNow();
            var sent = JArray.Parse(store.Get(EventQueue.Key)).Select(e => (int)e["Parameters"]["n"]);
            CollectionAssert.AreEqual(Enumerable.Range(0, 50), sent);
        }

        [Test]
        public void AThousandEventsQueuedOverPlayerPrefsAreOnTheDiskAfterTheSaveAndReadBackInOrder()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var kept = new MainThreadStore(prefs, main, SdkCore.StoreKeys);
            var queue = new EventQueue(kept);
            for (var n = 0; n < 1000; n++) queue.Add(Queued(n));
            Assert.IsNull(prefs.OnDisk(EventQueue.Key));
            kept.SaveOnMainThread();
            var read = new EventQueue(new MainThreadStore(prefs, main, SdkCore.StoreKeys));
            Assert.AreEqual(1000, read.Count);
            CollectionAssert.AreEqual(Enumerable.Range(0, 1000).Select(n => "e" + n), read.Peek(1000).Select(e => e.EventId));
        }

        [Test]
        public void SavesWhileEventsAreQueuedOnAnotherThreadWaitForNeitherAndMissNoEvent()
        {
            var prefs = new Prefs();
            var store = new MainThreadStore(prefs, new QueuedMainThread(), SdkCore.StoreKeys);
            var queue = new EventQueue(store);
            var adds = 0;
            var adding = new Thread(() =>
            {
                // The queue's lock is held while the store takes each change.
                for (var n = 0; n < 3000; n++)
                {
                    queue.Add(Queued(n));
                    Interlocked.Increment(ref adds);
                }
            }) { IsBackground = true };
            var added = false;
            var saving = new Thread(() =>
            {
                // The save makes the queue's text, which takes the queue's lock: one save after
                // each add the other thread made meanwhile, as the adds go on. Saves back to back,
                // each taking the lock again at once, would starve the adds on a busy machine.
                var seen = 0;
                while (!Volatile.Read(ref added))
                {
                    var now = Volatile.Read(ref adds);
                    if (now == seen)
                    {
                        Thread.Yield();
                        continue;
                    }
                    seen = now;
                    store.SaveOnMainThread();
                }
            }) { IsBackground = true };
            adding.Start();
            saving.Start();
            Assert.IsTrue(adding.Join(Patience.Bound), "the adds went on");
            Volatile.Write(ref added, true);
            Assert.IsTrue(saving.Join(Patience.Bound), "the saves went on");

            store.SaveOnMainThread();
            var saved = JArray.Parse(prefs.OnDisk(EventQueue.Key));
            CollectionAssert.AreEqual(Enumerable.Range(2000, 1000).Select(n => "e" + n), saved.Select(e => (string)e["EventId"]));
        }

        [Test]
        public void AnOptOutAndTheInstallsIdOutliveTheGamesPlayerPrefsDeleteAll()
        {
            var prefs = new Prefs();
            var main = new QueuedMainThread();
            var store = new MainThreadStore(prefs, main, SdkCore.StoreKeys);
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: main));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            var id = core.ServiceId;
            Assert.IsNotNull(id);
            core.Stop();
            core.Idle().Wait();
            store.SaveOnMainThread();

            prefs.DeleteAll();
            // OnApplicationPause(true): the SDK's save.
            store.SaveOnMainThread();

            var nextStore = new MainThreadStore(prefs, main, SdkCore.StoreKeys);
            var next = new SdkCore(Setups.For("http://service.test", backend, nextStore, scheduler: new ManualTimers(), mainThread: main));
            Assert.IsTrue(next.IsStopped, "the opt-out is kept");
            lock (backend.Requests) backend.Requests.Clear();
            next.Configure("sdk_key", 1, null);
            next.Idle().Wait();
            Assert.AreEqual(id, next.ServiceId);
            Assert.IsEmpty(backend.To("POST /v1/installs"), "no new install");
        }

        [Test]
        public void WhatNewtonsoftReadsBackIsKeptFromCodeStripping()
        {
            foreach (var type in new[] { typeof(QueuedEvent), typeof(QueuedSession) })
            {
                Assert.IsTrue(Preserved(type), type.Name);
                foreach (var property in type.GetProperties()) Assert.IsTrue(Preserved(property), type.Name + "." + property.Name);
            }
        }

        /// <summary>Unity's linker keeps what carries an attribute named exactly PreserveAttribute.</summary>
        private static bool Preserved(System.Reflection.MemberInfo member)
        {
            return member.GetCustomAttributes(false).Any(a => a.GetType().Name == "PreserveAttribute");
        }
    }
}
