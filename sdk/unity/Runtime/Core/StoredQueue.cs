using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>
    /// Items not yet delivered, oldest first, kept in the store so that a restart (or a week
    /// offline) loses none. Bounded: past its capacity the oldest go first. Each change is given
    /// to the store at once; the core saves the store to disk. A store that can make a value when
    /// it needs it (<see cref="ILaterStore"/>, PlayerPrefs') is given the queue to write out at its
    /// save: a thousand events queued offline are then written out once a save, not at each
    /// SendEvent on the app's thread. Another store is given the text at each change. The events
    /// and the sessions each have one (<see cref="EventQueue"/>, <see cref="SessionQueue"/>).
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
        /// <summary>The queue as text, made under <see cref="gate"/>: one instance, given at each change.</summary>
        private readonly Func<string> text;

        /// <param name="idOf">The item's id, unique in the queue.</param>
        /// <param name="timeOf">When the item happened, ISO 8601 (what <see cref="RemoveOlderThan"/> reads).</param>
        protected StoredQueue(IKeyValueStore store, string key, int capacity, Func<T, string> idOf, Func<T, string> timeOf)
        {
            this.store = store;
            this.key = key;
            this.capacity = capacity;
            this.idOf = idOf;
            this.timeOf = timeOf;
            items = new List<T>();
            text = () =>
            {
                lock (gate) return JsonText.Write(items);
            };
            var saved = store.Get(key);
            if (saved != null) Load(saved);
        }

        /// <summary>
        /// How many items of the saved queue could not be read back (a damaged value): lost, for
        /// the core to report. With <see cref="LostAtLeast"/> the count is a lower bound: the text
        /// broke off, and how many items its rest held is not known.
        /// </summary>
        public int LostOnLoad { get; private set; }

        public bool LostAtLeast { get; private set; }

        /// <summary>What was wrong with the saved queue, for the log; null when nothing was lost.</summary>
        public string LostWhy { get; private set; }

        /// <summary>
        /// The saved queue, item by item: one item that cannot be read is lost alone, and the
        /// items before a break in the text are kept. Strings stay as they were written (a
        /// parameter that looks like a date included). The queue is written back without what
        /// was lost, so that the loss is reported once.
        /// </summary>
        private void Load(string saved)
        {
            var lost = 0;
            string why = null;
            try
            {
                using (var reader = JsonText.Reader(saved))
                {
                    if (!reader.Read() || reader.TokenType != JsonToken.StartArray) throw new JsonReaderException("not a JSON array");
                    while (true)
                    {
                        if (!reader.Read()) throw new JsonReaderException("the array has no end");
                        if (reader.TokenType == JsonToken.EndArray) break;
                        T item;
                        if (TryRead(JToken.ReadFrom(reader), out item))
                        {
                            items.Add(item);
                            continue;
                        }
                        lost++;
                        why = why ?? "an item of another shape";
                    }
                }
            }
            catch (JsonException error)
            {
                // The text breaks off here: its rest held one item at least.
                lost++;
                LostAtLeast = true;
                why = "the saved text is damaged (" + error.Message + ")";
            }
            if (lost == 0) return;
            LostOnLoad = lost;
            LostWhy = why;
            Save();
        }

        /// <summary>
        /// One saved item as the queue wrote it; false when it is not one (no object, no id, fields
        /// of other types: what Newtonsoft cannot make a <typeparamref name="T"/> of, it throws on).
        /// </summary>
        private bool TryRead(JToken token, out T item)
        {
            item = default(T);
            try
            {
                item = token.ToObject<T>(JsonText.Serializer);
            }
            catch (Exception)
            {
                // Newtonsoft says "not of this type" in several ways (JsonException, FormatException,
                // InvalidCastException, ArgumentException): any of them is an item that cannot be read.
                return false;
            }
            return item != null && !string.IsNullOrEmpty(idOf(item));
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

        /// <summary>Adds an item; how many of the oldest went to make room, their ids added to <paramref name="gone"/> when given.</summary>
        public int Add(T item, List<string> gone = null)
        {
            lock (gate)
            {
                items.Add(item);
                var over = Math.Max(0, items.Count - capacity);
                if (over > 0)
                {
                    if (gone != null) gone.AddRange(items.Take(over).Select(idOf));
                    items.RemoveRange(0, over);
                }
                Save();
                return over;
            }
        }

        public List<T> Peek(int max)
        {
            lock (gate) return items.Take(max).ToList();
        }

        /// <summary>Of these items, those it still holds, in their order: one its bound dropped since they were peeked is left out.</summary>
        public List<T> StillHeld(List<T> batch)
        {
            lock (gate)
            {
                var held = new HashSet<string>(items.Select(idOf));
                return batch.Where(item => held.Contains(idOf(item))).ToList();
            }
        }

        /// <summary>Removes the items of these ids; how many it found (one dropped meanwhile is not counted again).</summary>
        public int Remove(IEnumerable<string> ids)
        {
            lock (gate)
            {
                var gone = new HashSet<string>(ids);
                var removed = items.RemoveAll(item => gone.Contains(idOf(item)));
                if (removed > 0) Save();
                return removed;
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

        /// <summary>
        /// Empties the queue but for the items of the <paramref name="kept"/> ids (a batch on its
        /// way to the service, which its answer settles); how many it took out.
        /// </summary>
        public int Clear(ICollection<string> kept = null)
        {
            lock (gate)
            {
                var count = items.RemoveAll(item => kept == null || !kept.Contains(idOf(item)));
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

        /// <summary>Under <see cref="gate"/>, or in the constructor.</summary>
        private void Save()
        {
            var later = store as ILaterStore;
            if (later != null) later.SetLater(key, text);
            else store.Set(key, JsonText.Write(items));
        }
    }
}
