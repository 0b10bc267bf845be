using System;
using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace Service.Unity
{
    /// <summary>
    /// One thread of the SDK's own that lives as long as the process, and runs what it is given
    /// one at a time, each caller waiting for its own answer. Android's JNI wants it: a thread
    /// attached to the Java VM must detach before it ends, or ART aborts the app, and the thread
    /// pool's threads end whenever the pool retires them. Attached once here, at the start, this
    /// one never ends while the app runs.
    /// </summary>
    internal sealed class KeptThread
    {
        private readonly BlockingCollection<Action> work = new BlockingCollection<Action>();
        private readonly Thread thread;

        /// <param name="name">The thread's name, as a crash report or a debugger shows it.</param>
        /// <param name="setup">Run on the thread once, before anything it is given.</param>
        public KeptThread(string name, Action setup)
        {
            thread = new Thread(() =>
            {
                try
                {
                    setup();
                }
                catch (Exception)
                {
                    // Each piece of work then fails as it would on a thread without the setup,
                    // and its caller handles that failure as its own.
                }
                foreach (var action in work.GetConsumingEnumerable()) action();
            })
            {
                // An app's end waits for no thread of the SDK's.
                IsBackground = true,
                Name = name,
            };
            thread.Start();
        }

        /// <summary>
        /// What <paramref name="read"/> answers, read on the kept thread; what it throws is thrown
        /// here. Called on the kept thread itself (from work it runs), it runs at once.
        /// </summary>
        public T Run<T>(Func<T> read)
        {
            if (Thread.CurrentThread == thread) return read();
            var answer = default(T);
            ExceptionDispatchInfo failure = null;
            // Not disposed: the kept thread may still be inside Set when this wait ends.
            var done = new ManualResetEventSlim();
            work.Add(() =>
            {
                try
                {
                    answer = read();
                }
                catch (Exception error)
                {
                    failure = ExceptionDispatchInfo.Capture(error);
                }
                finally
                {
                    done.Set();
                }
            });
            done.Wait();
            if (failure != null) failure.Throw();
            return answer;
        }

        /// <summary><see cref="Run{T}"/> for work that answers nothing.</summary>
        public void Run(Action action)
        {
            Run(() =>
            {
                action();
                return true;
            });
        }
    }
}
