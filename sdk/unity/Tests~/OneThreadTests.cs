using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// The core on one thread, as a WebGL build runs it: work starts on the main thread, every
    /// answer comes back there (as UnityWebRequest's do), and no other thread ever runs SDK code.
    /// </summary>
    [TestFixture]
    public class OneThreadTests
    {
        /// <summary>A main loop: one thread running whatever is posted to it, in order.</summary>
        private sealed class MainLoop : SynchronizationContext, IDisposable
        {
            private readonly BlockingCollection<Action> posted = new BlockingCollection<Action>();
            private readonly Thread thread;

            public MainLoop()
            {
                thread = new Thread(() =>
                {
                    SetSynchronizationContext(this);
                    foreach (var action in posted.GetConsumingEnumerable()) action();
                }) { IsBackground = true };
                thread.Start();
            }

            public int ThreadId
            {
                get { return thread.ManagedThreadId; }
            }

            public override void Post(SendOrPostCallback callback, object state)
            {
                posted.Add(() => callback(state));
            }

            public void Dispose()
            {
                posted.CompleteAdding();
            }
        }

        /// <summary>WebGL's scheduling: work runs where it is started; a delay ends on the loop.</summary>
        private sealed class LoopScheduler : IScheduler
        {
            private readonly MainLoop loop;

            public LoopScheduler(MainLoop loop)
            {
                this.loop = loop;
            }

            public Task Start(Func<Task> work)
            {
                return work();
            }

            public void After(TimeSpan delay, Action action)
            {
                Task.Delay(delay).ContinueWith(_ => loop.Post(state => action(), null));
            }
        }

        /// <summary>Answers as the service usually does, back on the loop, noting which thread asked.</summary>
        private sealed class LoopTransport : IHttpTransport
        {
            private readonly MainLoop loop;
            public readonly ConcurrentBag<int> Threads = new ConcurrentBag<int>();
            public readonly ConcurrentQueue<string> Requests = new ConcurrentQueue<string>();

            public LoopTransport(MainLoop loop)
            {
                this.loop = loop;
            }

            public Task<HttpAnswer> Send(string method, string url, string authorization, string jsonBody)
            {
                Threads.Add(Thread.CurrentThread.ManagedThreadId);
                var path = new Uri(url).AbsolutePath;
                Requests.Enqueue(method + " " + path);
                var usual = path.EndsWith("/attribution")
                    ? Tuple.Create(200, (JToken)JObject.Parse("{\"service_match_status\":\"organic\",\"media_source\":\"organic\"}"))
                    : ScriptedBackend.Usual(method + " " + path, null);
                var answer = new TaskCompletionSource<HttpAnswer>();
                loop.Post(state => answer.SetResult(new HttpAnswer(usual.Item1, usual.Item2.ToString())), null);
                return answer.Task;
            }
        }

        [Test]
        public void EverythingRunsOnTheMainThread()
        {
            using (var loop = new MainLoop())
            {
                var transport = new LoopTransport(loop);
                var setup = Setups.For("http://service.test", null);
                setup.Transport = transport;
                setup.Scheduler = new LoopScheduler(loop);
                var callbackThreads = new ConcurrentBag<int>();
                var done = new TaskCompletionSource<Dictionary<string, object>>();
                loop.Post(state =>
                {
                    var core = new SdkCore(setup);
                    core.Configure("sdk_key", 1, null);
                    core.SendEvent(EventType.LOGIN, null, null);
                    core.GetAttributionParams(p =>
                    {
                        callbackThreads.Add(Thread.CurrentThread.ManagedThreadId);
                        done.TrySetResult(p);
                    }, error => done.TrySetException(new Exception(error)));
                }, null);
                Assert.IsTrue(done.Task.Wait(Patience.Bound), "the attribution callback came");
                Assert.AreEqual("organic", done.Task.Result[SdkCore.MatchStatus]);
                var requests = transport.Requests.ToList();
                CollectionAssert.IsSubsetOf(new[] { "GET /v1/config", "POST /v1/installs", "POST /v1/events" }, requests);
                CollectionAssert.AreEqual(new[] { loop.ThreadId }, transport.Threads.Distinct().ToList());
                CollectionAssert.AreEqual(new[] { loop.ThreadId }, callbackThreads.ToList());
            }
        }
    }
}
