using System;
using System.Collections.Generic;
using System.Linq;
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
    /// order) would otherwise be lost. Otherwise a change costs no write to the disk. A value given
    /// by <see cref="SetLater"/> (the queues') is made at the save, or at a Get, not at each change:
    /// by the thread that asks for the save (the core's timer, off the main thread), so that the
    /// main thread only writes it.
    /// </summary>
    /// <remarks>
    /// A game may clear PlayerPrefs behind the SDK's back (PlayerPrefs.DeleteAll, often on a
    /// "reset progress" button): the install's id, an opt-out (Stop), anonymous mode and a
    /// deletion of the user's data would be gone at the next launch, which would then report a new
    /// install and send what the user had stopped. So each save writes a mark beside the SDK's
    /// keys, and a save that finds its mark gone writes every key again.
    /// </remarks>
    internal sealed class MainThreadStore : IDiskStore, ILaterStore
    {
        /// <summary>The mark each save leaves in the prefs; gone, something else cleared them.</summary>
        public const string MarkKey = "service_sdk.kept";

        private readonly Dictionary<string, string> values = new Dictionary<string, string>();
        /// <summary>
        /// The keys whose value is made when needed (<see cref="SetLater"/>), under the lock of
        /// <see cref="values"/> as the rest; each is in <see cref="changed"/> too.
        /// </summary>
        private readonly Dictionary<string, Later> later = new Dictionary<string, Later>();
        private readonly HashSet<string> changed = new HashSet<string>();
        private readonly IPrefs prefs;
        private readonly IMainThread mainThread;
        private readonly Action<string> warn;
        private readonly int mainThreadId = Thread.CurrentThread.ManagedThreadId;
        private volatile bool leaving;
        /// <summary>The mark is in the prefs as far as this store knows (it read or wrote it).</summary>
        private bool marked;

        /// <summary>
        /// Made on the main thread, from what the prefs hold under these keys; <paramref name="warn"/>
        /// hears of prefs cleared by something else.
        /// </summary>
        public MainThreadStore(IPrefs prefs, IMainThread mainThread, IEnumerable<string> keys, Action<string> warn = null)
        {
            this.prefs = prefs;
            this.mainThread = mainThread;
            this.warn = warn;
            foreach (var key in keys)
            {
                var value = prefs.Read(key);
                if (value != null) values[key] = value;
            }
            marked = prefs.Read(MarkKey) != null;
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
            Made made;
            lock (values)
            {
                Later pending;
                if (!later.TryGetValue(key, out pending))
                {
                    string value;
                    return values.TryGetValue(key, out value) ? value : null;
                }
                made = new Made(key, pending);
            }
            // Outside the lock: the value takes its owner's lock (see ILaterStore).
            made.Value = made.Taken.Make();
            lock (values) Keep(made);
            return made.Value;
        }

        public void Set(string key, string value)
        {
            lock (values)
            {
                values[key] = value;
                later.Remove(key);
                changed.Add(key);
            }
            SaveIfLeaving();
        }

        /// <summary>
        /// The key's value, made at the next save (or Get) from what <paramref name="value"/> gives
        /// then. While <see cref="Leaving"/>, on the main thread, it is made and saved at once, as
        /// <see cref="Set"/> does.
        /// </summary>
        public void SetLater(string key, Func<string> value)
        {
            if (leaving && OnMainThread)
            {
                Set(key, value());
                return;
            }
            lock (values)
            {
                Later pending;
                if (later.TryGetValue(key, out pending) && ReferenceEquals(pending.Make, value)) pending.Changes++;
                else later[key] = new Later(value);
                changed.Add(key);
            }
        }

        public void Remove(string key)
        {
            lock (values)
            {
                values.Remove(key);
                later.Remove(key);
                changed.Add(key);
            }
            SaveIfLeaving();
        }

        public void Save()
        {
            if (OnMainThread)
            {
                SaveOnMainThread();
                return;
            }
            // The values given to make later are made here, off the main thread: the save posted
            // to it writes text, and a queue of a thousand events costs the game's frame no
            // serialisation. A value whose key changes meanwhile is made again at the next save,
            // which that change asked for.
            var made = MakeLater();
            mainThread.Post(() => Write(made));
        }

        /// <summary>What changed to the prefs, then the prefs to the disk; on the main thread only.</summary>
        public void SaveOnMainThread()
        {
            Write(MakeLater());
        }

        /// <summary>
        /// Makes the values given to make later, on the calling thread, outside the lock (a value
        /// takes its owner's lock, whose holder may be waiting for this one to give the store a
        /// change): each becomes its key's own when its key did not change meanwhile. Returns those
        /// whose key changed: <see cref="Write"/> writes those whose maker is still the key's
        /// (changed again by a SetLater of the same maker, so newer than the prefs' value), which
        /// are made again at the save that change asked for.
        /// </summary>
        private List<Made> MakeLater()
        {
            List<Made> made;
            lock (values) made = later.Select(pair => new Made(pair.Key, pair.Value)).ToList();
            foreach (var one in made) one.Value = one.Taken.Make();
            lock (values) return made.Where(one => !Keep(one)).ToList();
        }

        /// <summary>What changed to the prefs, <paramref name="newer"/> (see <see cref="MakeLater"/>) included, then the prefs to the disk; on the main thread.</summary>
        private void Write(List<Made> newer)
        {
            var cleared = false;
            lock (values)
            {
                if (prefs.Read(MarkKey) == null)
                {
                    // Never saved, or cleared since: every key is written, whatever changed (the
                    // keys to make later are in it already).
                    cleared = marked && (values.Count > 0 || later.Count > 0);
                    foreach (var key in values.Keys) changed.Add(key);
                    prefs.Write(MarkKey, "1");
                    marked = true;
                }
                var again = new List<string>();
                foreach (var key in changed)
                {
                    string value;
                    Later pending;
                    if (later.TryGetValue(key, out pending))
                    {
                        again.Add(key);
                        // Made by the maker still pending: what it made is newer than the prefs'.
                        // Another maker since: the value last made (or set) is.
                        var one = newer.LastOrDefault(m => m.Key == key && m.Taken == pending);
                        if (one != null) prefs.Write(key, one.Value);
                        else if (values.TryGetValue(key, out value)) prefs.Write(key, value);
                    }
                    else if (values.TryGetValue(key, out value)) prefs.Write(key, value);
                    else prefs.Delete(key);
                }
                changed.Clear();
                changed.UnionWith(again);
            }
            prefs.Flush();
            if (cleared && warn != null)
            {
                warn("PlayerPrefs were cleared by something other than the SDK (PlayerPrefs.DeleteAll?): "
                    + "the SDK wrote its own keys back (the install's id, an opt-out, anonymous mode); "
                    + "delete your own keys one by one to leave the SDK's alone");
            }
        }

        /// <summary>
        /// A value made for its key becomes the key's own, its maker forgotten, when no Set,
        /// SetLater or Remove of the key came since the maker was taken; under the lock.
        /// </summary>
        private bool Keep(Made made)
        {
            Later now;
            if (!later.TryGetValue(made.Key, out now) || now != made.Taken || now.Changes != made.Changes) return false;
            later.Remove(made.Key);
            values[made.Key] = made.Value;
            return true;
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

        /// <summary>What makes a key's value; <see cref="Changes"/> counts the SetLater calls that gave it again.</summary>
        private sealed class Later
        {
            public readonly Func<string> Make;
            public int Changes;

            public Later(Func<string> make)
            {
                Make = make;
            }
        }

        /// <summary>A maker taken under the lock, as it was then, and what it made outside it.</summary>
        private sealed class Made
        {
            public readonly string Key;
            public readonly Later Taken;
            public readonly int Changes;
            public string Value;

            public Made(string key, Later taken)
            {
                Key = key;
                Taken = taken;
                Changes = taken.Changes;
            }
        }
    }
}
