using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>An event as SendEvent took it, kept until the service has it.</summary>
    [Preserve]
    internal sealed class QueuedEvent
    {
        [Preserve]
        public string EventId { get; set; }
        [Preserve]
        public string EventType { get; set; }
        [Preserve]
        public string EventName { get; set; }
        [Preserve]
        public JToken Parameters { get; set; }
        [Preserve]
        public string EventTime { get; set; }
        [Preserve]
        public string CustomerUserId { get; set; }

        /// <summary>
        /// Taken while anonymous: the event is sent marked `anonymous` (and without the customer
        /// user id) also in a later launch, once the mode is off. Written only when true: an event
        /// taken outside the mode keeps no such field, and reads back as not taken while
        /// anonymous.
        /// </summary>
        [Preserve]
        [JsonProperty(DefaultValueHandling = DefaultValueHandling.Ignore)]
        public bool Anonymous { get; set; }
    }

    /// <summary>The events not yet delivered, oldest first, at most <see cref="Capacity"/>.</summary>
    internal sealed class EventQueue : StoredQueue<QueuedEvent>
    {
        public const int Capacity = 1000;
        public const string Key = "service_sdk.event_queue";

        public EventQueue(IKeyValueStore store) : base(store, Key, Capacity, e => e.EventId, e => e.EventTime) { }
    }
}
