using System.Collections.Generic;
using System.Threading;

namespace Service.Unity
{
    /// <summary>What a <see cref="MainThreadStore"/> writes to: PlayerPrefs in Unity, which only the main thread may touch.</summary>
    internal interface IPrefs
    {
        /// <summary>The value kept under the key; null when there is none.</summary>
        string Read(string key);

        void Write(string key, string value);

        void Delete(string key);

        /// <summary>What was written, to the disk (PlayerPrefs.Save).</summary>
        void Flush();
    }

    /// <summary>
    /// The SDK's state over PlayerPrefs, which only the main thread may touch while the SDK
    /// writes from its own threads: reads come from a copy made at load, writes go to the copy,
    /// and Save (which the core calls within a second of a change, and at once for the install's
    /// id) writes what changed to PlayerPrefs and PlayerPrefs to the disk, on the main thread.
    /// While the app is leaving the foreground or quitting (<see cref="Leaving"/>) a change made
    /// on the main thread is saved at once: the main thread's queue does not run while the app is
    /// paused, and the OS may end a paused app without a word, so an event the app sends from its
    /// own OnApplicationPause or OnApplicationQuit (called before or after the SDK's, in no set
    /// order) would otherwise be lost. Otherwise a change costs no write to the disk.
    /// </summary>
    internal sealed class MainThreadStore : IDiskStore
    {
        private readonly Dictionary<string, string> values = new Dictionary<string, string>();
        private readonly HashSet<string> changed = new HashSet<string>();
        private readonly IPrefs prefs;
        private readonly IMainThread mainThread;
        private readonly int mainThreadId = Thread.CurrentThread.ManagedThreadId;
        private volatile bool leaving;

        /// <summary>Made on the main thread, from what the prefs hold under these keys.</summary>
        public MainThreadStore(IPrefs prefs, IMainThread mainThread, IEnumerable<string> keys)
        {
            this.prefs = prefs;
            this.mainThread = mainThread;
            foreach (var key in keys)
            {
                var value = prefs.Read(key);
                if (value != null) values[key] = value;
            }
        }

        /// <summary>
        /// The app is pausing, paused or quitting: from now until it is back in the foreground,
        /// each change made on the main thread is on the disk before the call that made it returns.
        /// </summary>
        public bool Leaving
        {
            get { return leaving; }
            set { leaving = value; }
        }

        public string Get(string key)
        {
            lock (values)
            {
                string value;
                return values.TryGetValue(key, out value) ? value : null;
            }
        }

        public void Set(string key, string value)
        {
            lock (values)
            {
                values[key] = value;
                changed.Add(key);
            }
            SaveIfLeaving();
        }

        public void Remove(string key)
        {
            lock (values)
            {
                values.Remove(key);
                changed.Add(key);
            }
            SaveIfLeaving();
        }

        public void Save()
        {
            if (OnMainThread) SaveOnMainThread();
            else mainThread.Post(SaveOnMainThread);
        }

        /// <summary>What changed to the prefs, then the prefs to the disk; on the main thread only.</summary>
        public void SaveOnMainThread()
        {
            lock (values)
            {
                foreach (var key in changed)
                {
                    string value;
                    if (values.TryGetValue(key, out value)) prefs.Write(key, value);
                    else prefs.Delete(key);
                }
                changed.Clear();
            }
            prefs.Flush();
        }

        private bool OnMainThread
        {
            get { return Thread.CurrentThread.ManagedThreadId == mainThreadId; }
        }

        /// <summary>
        /// A change off the main thread cannot reach PlayerPrefs now: it goes with the core's
        /// timed save, posted to the main thread, or with the next save the behaviour makes.
        /// </summary>
        private void SaveIfLeaving()
        {
            if (leaving && OnMainThread) SaveOnMainThread();
        }
    }
}
