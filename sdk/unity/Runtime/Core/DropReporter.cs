using System;
using System.Globalization;

namespace Service.Unity
{
    /// <summary>
    /// Events dropped, each drop made known three ways: a warning in the log with the reason, the
    /// count kept on the device (all launches together), and the error listener.
    /// </summary>
    internal sealed class DropReporter
    {
        public const string Key = "service_sdk.dropped_events";
        private readonly IKeyValueStore store;
        private readonly SdkListeners listeners;
        private readonly Action<LogLevel, string> write;
        private readonly object gate = new object();

        /// <param name="write">The core's log, at the level the app set.</param>
        public DropReporter(IKeyValueStore store, SdkListeners listeners, Action<LogLevel, string> write)
        {
            this.store = store;
            this.listeners = listeners;
            this.write = write;
        }

        /// <summary>Every event dropped on this device (all launches together).</summary>
        public long Count
        {
            get
            {
                long count;
                return long.TryParse(store.Get(Key), out count) ? count : 0;
            }
        }

        /// <summary>Events dropped: a warning with the reason, the count kept on the device, the error listener told.</summary>
        public void Drop(ServiceDropReason reason, int count, string why)
        {
            if (count <= 0) return;
            lock (gate) store.Set(Key, (Count + count).ToString(CultureInfo.InvariantCulture));
            var message = count + (count == 1 ? " event" : " events") + " dropped (" + ServiceError.WireName(reason) + "): " + why;
            write(LogLevel.Warn, message);
            listeners.RaiseError(new ServiceError(ServiceErrorKind.EventsDropped, reason, null, count, message));
        }
    }
}
