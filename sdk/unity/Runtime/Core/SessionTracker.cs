using System;

namespace Service.Unity
{
    /// <summary>
    /// When a return to the foreground starts a session (sdk/conformance/sessions.json): after
    /// at least <see cref="Interval"/> in the background, by the device's clock; a return after
    /// less continues the session, and time in the foreground does not count as away. The other
    /// starts (each Configure of a process, each Start after Stop) are sessions whatever the
    /// time, and whether one may be reported at all (not while stopped or switched off) is the
    /// core's to say. No Unity type: the Unity layer only forwards its pause and resume.
    /// </summary>
    internal sealed class SessionTracker
    {
        /// <summary>Remote configuration's `session_interval_seconds` until one names it.</summary>
        public static readonly TimeSpan DefaultInterval = TimeSpan.FromSeconds(1800);
        private readonly object gate = new object();
        private DateTime? backgroundSince;
        private TimeSpan interval = DefaultInterval;

        /// <summary>How long away starts a new session at the return.</summary>
        public TimeSpan Interval
        {
            get { lock (gate) return interval; }
            set { lock (gate) interval = value; }
        }

        /// <summary>The app went to the background (a second signal of it keeps the first time).</summary>
        public void Background(DateTime now)
        {
            lock (gate)
            {
                if (backgroundSince == null) backgroundSince = now.ToUniversalTime();
            }
        }

        /// <summary>
        /// The app is back in the foreground: true when it was away at least the interval, so a
        /// new session starts now. A foreground with no background before it (Unity tells of the
        /// focus and the resume at launch too) is none.
        /// </summary>
        public bool Foreground(DateTime now)
        {
            lock (gate)
            {
                if (backgroundSince == null) return false;
                var away = now.ToUniversalTime() - backgroundSince.Value;
                backgroundSince = null;
                return away >= interval;
            }
        }
    }
}
