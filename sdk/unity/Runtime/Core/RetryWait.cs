using System;
using System.Globalization;
using System.Threading;

namespace Service.Unity
{
    /// <summary>
    /// How long the SDK waits before it tries again (sdk/conformance/delivery.json's
    /// `retryWait`): a backoff jittered between half of it and the whole, and never less than the
    /// Retry-After the service last answered with, up to an hour.
    /// </summary>
    internal static class RetryWait
    {
        /// <summary>The longest a Retry-After is waited for: a device asked for more tries again after this.</summary>
        public static readonly TimeSpan MaxRetryAfter = TimeSpan.FromHours(1);

        /// <summary>The share of a backoff a jittered wait is at least.</summary>
        public const double JitterLowestShare = 0.5;

        private static int seed = Environment.TickCount;
        private static readonly ThreadLocal<Random> Randoms =
            new ThreadLocal<Random>(() => new Random(Interlocked.Increment(ref seed)));

        /// <summary>
        /// A Retry-After as a wait from <paramref name="now"/>: delay-seconds, or an HTTP date
        /// (RFC 9110); null when absent or unreadable; never more than <see cref="MaxRetryAfter"/>.
        /// </summary>
        public static TimeSpan? Parse(string value, DateTime now)
        {
            var text = value == null ? "" : value.Trim();
            if (text.Length == 0) return null;
            TimeSpan wait;
            if (IsDigits(text))
            {
                long seconds;
                wait = long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out seconds)
                    && seconds < (long)MaxRetryAfter.TotalSeconds
                    ? TimeSpan.FromSeconds(seconds)
                    : MaxRetryAfter;
            }
            else
            {
                DateTime at;
                if (!DateTime.TryParseExact(text, "r", CultureInfo.InvariantCulture,
                        DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out at))
                {
                    return null;
                }
                wait = at - now;
            }
            if (wait < TimeSpan.Zero) return TimeSpan.Zero;
            return wait > MaxRetryAfter ? MaxRetryAfter : wait;
        }

        /// <summary>
        /// The wait before an attempt whose backoff is <paramref name="backoff"/>: a random point
        /// between <see cref="JitterLowestShare"/> of it and the whole ("equal jitter"), so that
        /// the devices that failed together (the service down for a while) do not all come back
        /// at the same moment.
        /// </summary>
        public static TimeSpan Jittered(TimeSpan backoff, Random random = null)
        {
            var least = (long)(backoff.Ticks * JitterLowestShare);
            var spread = backoff.Ticks - least;
            var r = (random ?? Randoms.Value).NextDouble();
            return TimeSpan.FromTicks(least + (long)Math.Round(r * spread));
        }

        private static bool IsDigits(string text)
        {
            foreach (var c in text)
            {
                if (c < '0' || c > '9') return false;
            }
            return true;
        }
    }
}
