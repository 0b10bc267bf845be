using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>An event as SendEvent took it, kept until the service has it.</summary>
    internal sealed class QueuedEvent
    {
        public string EventId { get; set; }
        public string EventType { get; set; }
        public string EventName { get; set; }
        public JToken Parameters { get; set; }
        public string EventTime { get; set; }
        public string CustomerUserId { get; set; }
    }

    /// <summary>
    /// The events not yet delivered, oldest first, kept in the store so that a restart (or a
    /// week offline) loses none. Bounded: past <see cref="Capacity"/> the oldest go first. Each
    /// change is written to the store at once; the core saves the store to disk.
    /// </summary>
    internal sealed class EventQueue
    {
        public const int Capacity = 1000;
        public const string Key = "service_sdk.event_queue";
        private readonly IKeyValueStore store;
        private readonly List<QueuedEvent> events;
        private readonly object gate = new object();

        public EventQueue(IKeyValueStore store)
        {
            this.store = store;
            var saved = store.Get(Key);
            try
            {
                events = saved == null ? null : JsonConvert.DeserializeObject<List<QueuedEvent>>(saved);
            }
            catch (JsonException)
            {
                events = null;
            }
            events = events ?? new List<QueuedEvent>();
        }

        public int Count
        {
            get { lock (gate) return events.Count; }
        }

        /// <summary>Adds an event; how many of the oldest went to make room.</summary>
        public int Add(QueuedEvent queued)
        {
            lock (gate)
            {
                events.Add(queued);
                var over = Math.Max(0, events.Count - Capacity);
                if (over > 0) events.RemoveRange(0, over);
                Save();
                return over;
            }
        }

        public List<QueuedEvent> Peek(int max)
        {
            lock (gate) return events.Take(max).ToList();
        }

        public void Remove(IEnumerable<string> eventIds)
        {
            lock (gate)
            {
                var gone = new HashSet<string>(eventIds);
                if (events.RemoveAll(queued => gone.Contains(queued.EventId)) > 0) Save();
            }
        }

        /// <summary>Removes the events of before this time; how many.</summary>
        public int RemoveOlderThan(DateTime cutoff)
        {
            lock (gate)
            {
                var removed = events.RemoveAll(queued => Time(queued) < cutoff);
                if (removed > 0) Save();
                return removed;
            }
        }

        /// <summary>Empties the queue; how many it held.</summary>
        public int Clear()
        {
            lock (gate)
            {
                var count = events.Count;
                events.Clear();
                Save();
                return count;
            }
        }

        private static DateTime Time(QueuedEvent queued)
        {
            DateTime time;
            return DateTime.TryParse(queued.EventTime, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out time)
                ? time.ToUniversalTime()
                : DateTime.MaxValue;
        }

        private void Save()
        {
            store.Set(Key, JsonConvert.SerializeObject(events));
        }
    }
}
