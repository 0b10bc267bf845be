using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>
    /// The queued events to the service: in order, at most <see cref="Batch"/> a request, those
    /// too old dropped first; a batch refused as a whole halved until the one refused event is
    /// known; a 202's verdicts applied to the queue. What fails otherwise is thrown to the core,
    /// which retries later.
    /// </summary>
    internal sealed class EventDelivery
    {
        public const int Batch = 100;
        /// <summary>An event older than this (by the device's clock) the service refuses: it is not sent.</summary>
        public static readonly TimeSpan MaxEventAge = TimeSpan.FromDays(30);
        private readonly EventQueue queue;
        private readonly IClock clock;
        private readonly DropReporter drops;
        private readonly Action<LogLevel, string> write;
        private readonly Action installMissing;

        /// <param name="write">The core's log, at the level the app set.</param>
        /// <param name="installMissing">The service has no install for events it keeps retryable: the core sends it again.</param>
        public EventDelivery(EventQueue queue, IClock clock, DropReporter drops, Action<LogLevel, string> write, Action installMissing)
        {
            this.queue = queue;
            this.clock = clock;
            this.drops = drops;
            this.write = write;
            this.installMissing = installMissing;
        }

        /// <summary>
        /// The queued events in order, at most 100 a request, while <paramref name="sending"/> holds.
        /// A request refused as a whole (413, or a 4xx naming no event) is split in halves until
        /// the one event refused alone is known: that one is dropped, every other goes.
        /// </summary>
        /// <param name="anonymous">Read for each request: anonymous mode set meanwhile holds from the next one.</param>
        public async Task SendAll(ApiClient api, string serviceId, Func<bool> sending, Func<bool> anonymous)
        {
            var limit = Batch;
            while (sending() && queue.Count > 0)
            {
                drops.Drop(ServiceDropReason.Expired, queue.RemoveOlderThan(clock.UtcNow.ToUniversalTime() - MaxEventAge),
                    "older than the " + MaxEventAge.TotalDays + " days the service keeps, by the device's clock");
                var batch = queue.Peek(limit);
                if (batch.Count == 0) break;
                JToken answer;
                try
                {
                    answer = await api.Send(
                        "POST", "/v1/events", Requests.Events(batch, serviceId, clock.UtcNow, anonymous()), ApiClient.EventsAnswer);
                }
                catch (ServiceHttpException error) when (error.IsRefusedForGood)
                {
                    // Refused as a whole, naming no event: sent again it would be refused again.
                    if (batch.Count == 1)
                    {
                        queue.Remove(new[] { batch[0].EventId });
                        drops.Drop(ServiceDropReason.Refused, 1, "the service refused " + batch[0].EventType + " " + batch[0].EventId + " alone: " + error.Message);
                    }
                    else
                    {
                        limit = (batch.Count + 1) / 2;
                        write(LogLevel.Info, "the service refused a batch of " + batch.Count + " events as a whole (" + error.Code
                            + "); it is sent again in halves to find the event it refuses");
                    }
                    continue;
                }
                // After a split, the batches grow back to their full size.
                limit = Math.Min(Batch, limit * 2);
                HandleVerdicts(batch, (JObject)answer);
            }
        }

        /// <summary>
        /// A 202's verdicts: accepted and ignored events leave the queue, one refused for good is
        /// dropped (reason `refused`), one refused as retryable stays for a later attempt.
        /// </summary>
        private void HandleVerdicts(List<QueuedEvent> batch, JObject answer)
        {
            Func<JToken, QueuedEvent> named = verdict =>
            {
                var index = verdict.Value<int?>("index");
                if (index.HasValue && index.Value >= 0 && index.Value < batch.Count) return batch[index.Value];
                var id = verdict.Value<string>("event_id");
                return batch.FirstOrDefault(e => e.EventId == id);
            };
            var rejected = (answer["rejected"] as JArray ?? new JArray()).Where(r => r is JObject).ToList();
            var keep = new HashSet<string>(rejected.Where(r => r.Value<bool?>("retryable") == true)
                .Select(named).Where(e => e != null).Select(e => e.EventId));
            var refused = rejected.Where(r => r.Value<bool?>("retryable") != true)
                .Select(r => new { Event = named(r), Detail = r.Value<string>("detail") })
                .Where(r => r.Event != null && !keep.Contains(r.Event.EventId))
                .ToList();
            var ignored = (answer["ignored"] as JArray ?? new JArray()).Where(r => r is JObject)
                .Select(r => new { Event = named(r), Reason = r.Value<string>("reason"), Detail = r.Value<string>("detail") ?? "" })
                .Where(r => r.Event != null && !keep.Contains(r.Event.EventId))
                .ToList();
            queue.Remove(batch.Select(e => e.EventId).Where(id => !keep.Contains(id)));
            if (refused.Count > 0)
            {
                drops.Drop(ServiceDropReason.Refused, refused.Count, "the service refused " + refused.Count + " of " + batch.Count
                    + " events for good: " + string.Join("; ", refused.Select(r => r.Event.EventType + " " + r.Event.EventId + ": " + r.Detail)));
            }
            // Ignored: the service will not keep them (`app_disabled`: the app switched off;
            // `install_deleted`: the install's data deleted).
            var deletedOnes = ignored.Where(r => r.Reason == "install_deleted").ToList();
            var offOnes = ignored.Except(deletedOnes).ToList();
            if (deletedOnes.Count > 0)
            {
                drops.Drop(ServiceDropReason.Deleted, deletedOnes.Count, "the service ignored them: " + deletedOnes[0].Detail);
            }
            if (offOnes.Count > 0)
            {
                drops.Drop(ServiceDropReason.Disabled, offOnes.Count, "the service ignored them: " + offOnes[0].Detail);
            }
            if (keep.Count > 0)
            {
                // The service has no install for them: it is reported again before they are.
                installMissing();
                throw new InvalidOperationException("events to send again later");
            }
        }
    }
}
