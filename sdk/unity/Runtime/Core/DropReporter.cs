using System;
using System.Globalization;

namespace Service.Unity
{
    /// <summary>
    /// Queued items dropped. An event's drop is made known three ways: a warning in the log with
    /// the reason, the count kept on the device (all launches together), and the error listener.
    /// A session's drop is not told to the error listener, since the app sent nothing
    /// (sdk/conformance/sessions.json): only the warning and its own count.
    /// </summary>
    internal sealed class DropReporter
    {
        public const string Key = "service_sdk.dropped_events";
        public const string SessionsKey = "service_sdk.dropped_sessions";
        private readonly IKeyValueStore store;
        private readonly string key;
        private readonly string noun;
        private readonly SdkListeners listeners;
        private readonly Action<LogLevel, string> write;
        private readonly object gate = new object();

        private DropReporter(IKeyValueStore store, string key, string noun, SdkListeners listeners, Action<LogLevel, string> write)
        {
            this.store = store;
            this.key = key;
            this.noun = noun;
            this.listeners = listeners;
            this.write = write;
        }

        /// <param name="write">The core's log, at the level the app set.</param>
        public static DropReporter ForEvents(IKeyValueStore store, SdkListeners listeners, Action<LogLevel, string> write)
        {
            return new DropReporter(store, Key, "event", listeners, write);
        }

        /// <param name="write">The core's log, at the level the app set.</param>
        public static DropReporter ForSessions(IKeyValueStore store, Action<LogLevel, string> write)
        {
            return new DropReporter(store, SessionsKey, "session", null, write);
        }

        /// <summary>Every item of its kind dropped on this device (all launches together).</summary>
        public long Count
        {
            get
            {
                long count;
                return long.TryParse(store.Get(key), out count) ? count : 0;
            }
        }

        /// <summary>Items dropped: a warning with the reason, the count kept on the device, and for events the error listener told.</summary>
        public void Drop(ServiceDropReason reason, int count, string why)
        {
            if (count <= 0) return;
            lock (gate) store.Set(key, (Count + count).ToString(CultureInfo.InvariantCulture));
            var message = count + " " + noun + (count == 1 ? "" : "s") + " dropped (" + ServiceError.WireName(reason) + "): " + why;
            write(LogLevel.Warn, message);
            if (listeners != null) listeners.RaiseError(new ServiceError(ServiceErrorKind.EventsDropped, reason, null, count, message));
        }

        /// <summary>
        /// Items kept on the device that could not be read back (a damaged value): lost unsent.
        /// Made known as a drop is, but as an error in the log, and to the error listener with no
        /// reason (none of delivery.json's reasons says it, since the SDK chose nothing here): counted
        /// and logged now, told when the caller says.
        /// </summary>
        /// <param name="atLeast">The count is a lower bound: the damaged text held an unknown number more.</param>
        /// <returns>Telling the error listener, for the caller to do once the app's handlers are set; null with nothing to tell.</returns>
        public Action Unreadable(int count, bool atLeast, string why)
        {
            if (count <= 0) return null;
            lock (gate) store.Set(key, (Count + count).ToString(CultureInfo.InvariantCulture));
            var message = (atLeast ? "at least " : "") + count + " " + noun + (count == 1 && !atLeast ? "" : "s")
                + " lost: the queue kept on the device could not be read back (" + why + ")";
            write(LogLevel.Error, message);
            if (listeners == null) return null;
            var error = new ServiceError(ServiceErrorKind.EventsDropped, null, null, count, message);
            return () => listeners.RaiseError(error);
        }
    }
}
