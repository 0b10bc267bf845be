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

    /// <summary>The events not yet delivered, oldest first, at most <see cref="Capacity"/>.</summary>
    internal sealed class EventQueue : StoredQueue<QueuedEvent>
    {
        public const int Capacity = 1000;
        public const string Key = "service_sdk.event_queue";

        public EventQueue(IKeyValueStore store) : base(store, Key, Capacity, e => e.EventId, e => e.EventTime) { }
    }
}
