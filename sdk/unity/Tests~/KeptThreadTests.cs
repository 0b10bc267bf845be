using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// The thread the Unity layer's calls into Java run on (Android's JNI): one thread, set up
    /// once before anything it runs, whoever asks and from whatever thread, for as long as the
    /// process lives; each caller gets its own answer, or its own failure.
    /// </summary>
    [TestFixture]
    public class KeptThreadTests
    {
        [Test]
        public void WorkFromManyThreadsRunsOnOneThreadSetUpOnceBeforeAnyOfIt()
        {
            var setups = new ConcurrentQueue<int>();
            var kept = new KeptThread("test.kept", () => setups.Enqueue(Thread.CurrentThread.ManagedThreadId));
            var callers = new ConcurrentQueue<int>();
            var ran = Enumerable.Range(0, 40)
                .Select(i => Task.Run(() =>
                {
                    callers.Enqueue(Thread.CurrentThread.ManagedThreadId);
                    return kept.Run(() => Tuple.Create(i, Thread.CurrentThread.ManagedThreadId, setups.Count));
                }))
                .ToArray();
            Task.WaitAll(ran);

            Assert.That(setups.Count, Is.EqualTo(1), "set up once");
            var keptId = setups.Single();
            Assert.That(ran.Select(task => task.Result.Item1), Is.EqualTo(Enumerable.Range(0, 40)), "each caller has its own answer");
            Assert.That(ran.Select(task => task.Result.Item2).Distinct(), Is.EqualTo(new[] { keptId }), "all on the kept thread");
            Assert.That(ran.All(task => task.Result.Item3 == 1), Is.True, "each after the setup");
            Assert.That(callers.Contains(keptId), Is.False, "the kept thread is none of the pool's");
        }

        [Test]
        public void AFailureReachesItsCallerAndTheThreadGoesOn()
        {
            var kept = new KeptThread("test.kept", () => { });
            var failure = Assert.Throws<InvalidOperationException>(
                () => kept.Run<string>(() => throw new InvalidOperationException("no Play services")));
            Assert.That(failure.Message, Is.EqualTo("no Play services"));
            Assert.That(failure.StackTrace, Is.StringContaining(nameof(AFailureReachesItsCallerAndTheThreadGoesOn)), "thrown where it was");
            Assert.That(kept.Run(() => "next"), Is.EqualTo("next"));
        }

        [Test]
        public void WorkGivenFromTheKeptThreadItselfRunsAtOnce()
        {
            var kept = new KeptThread("test.kept", () => { });
            var inner = kept.Run(() =>
            {
                var outer = Thread.CurrentThread.ManagedThreadId;
                return kept.Run(() => Thread.CurrentThread.ManagedThreadId == outer);
            });
            Assert.That(inner, Is.True);
        }

        [Test]
        public void AFailedSetupFailsNothingButWhatNeededIt()
        {
            var kept = new KeptThread("test.kept", () => throw new InvalidOperationException("no VM"));
            Assert.That(kept.Run(() => 7), Is.EqualTo(7));
        }

        [Test]
        public void TheThreadHoldsNoProcessOpenAndIsNamed()
        {
            var kept = new KeptThread("test.kept", () => { });
            var thread = kept.Run(() => Thread.CurrentThread);
            Assert.That(thread.IsBackground, Is.True);
            Assert.That(thread.Name, Is.EqualTo("test.kept"));
            Assert.That(thread.IsThreadPoolThread, Is.False);
            Thread.Sleep(50);
            Assert.That(thread.IsAlive, Is.True, "waits for more rather than ends");
        }
    }
}
