using System.Collections.Generic;
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
    /// week offline) loses none. Bounded: past <see cref="Capacity"/> the oldest go first.
    /// </summary>
    internal sealed class EventQueue
    {
        public const int Capacity = 1000;
        private const string Key = "service_sdk.event_queue";
        private readonly IKeyValueStore store;
        private readonly List<QueuedEvent> events;
        private readonly object gate = new object();

        public EventQueue(IKeyValueStore store)
        {
            this.store = store;
            var saved = store.Get(Key);
            events = saved == null
                ? new List<QueuedEvent>()
                : JsonConvert.DeserializeObject<List<QueuedEvent>>(saved) ?? new List<QueuedEvent>();
        }

        public int Count
        {
            get { lock (gate) return events.Count; }
        }

        public void Add(QueuedEvent queued)
        {
            lock (gate)
            {
                events.Add(queued);
                if (events.Count > Capacity) events.RemoveRange(0, events.Count - Capacity);
                Save();
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
                events.RemoveAll(queued => gone.Contains(queued.EventId));
                Save();
            }
        }

        public void Clear()
        {
            lock (gate)
            {
                events.Clear();
                Save();
            }
        }

        private void Save()
        {
            store.Set(Key, JsonConvert.SerializeObject(events));
        }
    }
}
