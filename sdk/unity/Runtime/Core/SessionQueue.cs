namespace Service.Unity
{
    /// <summary>A session as it started on the device, kept until the service has it.</summary>
    [Preserve]
    internal sealed class QueuedSession
    {
        /// <summary>Made when the session starts, the same on every retry.</summary>
        [Preserve]
        public string SessionId { get; set; }
        /// <summary>The device's clock when the session started, ISO 8601 UTC.</summary>
        [Preserve]
        public string StartedAt { get; set; }
    }

    /// <summary>
    /// The sessions not yet delivered, oldest first, at most <see cref="Capacity"/>
    /// (sdk/conformance/sessions.json's maxQueuedSessions): past it the oldest goes.
    /// </summary>
    internal sealed class SessionQueue : StoredQueue<QueuedSession>
    {
        public const int Capacity = 100;
        public const string Key = "service_sdk.session_queue";

        public SessionQueue(IKeyValueStore store) : base(store, Key, Capacity, s => s.SessionId, s => s.StartedAt) { }
    }
}
