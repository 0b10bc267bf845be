using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Newtonsoft.Json;

namespace Service.Unity
{
    /// <summary>
    /// Items not yet delivered, oldest first, kept in the store so that a restart (or a week
    /// offline) loses none. Bounded: past its capacity the oldest go first. Each change is
    /// written to the store at once; the core saves the store to disk. The events and the
    /// sessions each have one (<see cref="EventQueue"/>, <see cref="SessionQueue"/>).
    /// </summary>
    internal abstract class StoredQueue<T>
    {
        private readonly IKeyValueStore store;
        private readonly string key;
        private readonly int capacity;
        private readonly Func<T, string> idOf;
        private readonly Func<T, string> timeOf;
        private readonly List<T> items;
        private readonly object gate = new object();

        /// <param name="idOf">The item's id, unique in the queue.</param>
        /// <param name="timeOf">When the item happened, ISO 8601 (what <see cref="RemoveOlderThan"/> reads).</param>
        protected StoredQueue(IKeyValueStore store, string key, int capacity, Func<T, string> idOf, Func<T, string> timeOf)
        {
            this.store = store;
            this.key = key;
            this.capacity = capacity;
            this.idOf = idOf;
            this.timeOf = timeOf;
            var saved = store.Get(key);
            try
            {
                items = saved == null ? null : JsonConvert.DeserializeObject<List<T>>(saved);
            }
            catch (JsonException)
            {
                items = null;
            }
            items = items ?? new List<T>();
        }

        public int Count
        {
            get { lock (gate) return items.Count; }
        }

        /// <summary>The item's id.</summary>
        public string IdOf(T item)
        {
            return idOf(item);
        }

        /// <summary>Adds an item; how many of the oldest went to make room.</summary>
        public int Add(T item)
        {
            lock (gate)
            {
                items.Add(item);
                var over = Math.Max(0, items.Count - capacity);
                if (over > 0) items.RemoveRange(0, over);
                Save();
                return over;
            }
        }

        public List<T> Peek(int max)
        {
            lock (gate) return items.Take(max).ToList();
        }

        public void Remove(IEnumerable<string> ids)
        {
            lock (gate)
            {
                var gone = new HashSet<string>(ids);
                if (items.RemoveAll(item => gone.Contains(idOf(item))) > 0) Save();
            }
        }

        /// <summary>Removes the items of before this time; how many.</summary>
        public int RemoveOlderThan(DateTime cutoff)
        {
            lock (gate)
            {
                var removed = items.RemoveAll(item => Time(item) < cutoff);
                if (removed > 0) Save();
                return removed;
            }
        }

        /// <summary>Empties the queue; how many it held.</summary>
        public int Clear()
        {
            lock (gate)
            {
                var count = items.Count;
                items.Clear();
                Save();
                return count;
            }
        }

        private DateTime Time(T item)
        {
            DateTime time;
            return DateTime.TryParse(timeOf(item), CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out time)
                ? time.ToUniversalTime()
                : DateTime.MaxValue;
        }

        private void Save()
        {
            store.Set(key, JsonConvert.SerializeObject(items));
        }
    }
}
