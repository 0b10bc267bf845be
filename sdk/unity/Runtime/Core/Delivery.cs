using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>The rules delivery.json gives every kind of queued item.</summary>
    internal static class Delivery
    {
        /// <summary>At most this many items a request (events and sessions alike).</summary>
        public const int Batch = 100;
        /// <summary>An item older than this (by the device's clock) the service refuses: it is not sent.</summary>
        public static readonly TimeSpan MaxAge = TimeSpan.FromDays(30);
    }

    /// <summary>What one kind of queued item (events, sessions) is to its route.</summary>
    internal sealed class DeliveredKind<T>
    {
        /// <summary>The route, e.g. `/v1/events`.</summary>
        public string Path { get; set; }
        /// <summary>The item's name in the log: `event`, `session`.</summary>
        public string Noun { get; set; }
        /// <summary>The field of a 202's verdicts that names the item: `event_id`, `session_id`.</summary>
        public string IdField { get; set; }
        /// <summary>The item in the log, e.g. an event's type and id.</summary>
        public Func<T, string> Describe { get; set; }
        /// <summary>The request's body: the batch in order, with the device clock as it leaves (set on each attempt).</summary>
        public Func<List<T>, string, DateTime, JObject> Body { get; set; }
    }

    /// <summary>
    /// One queue's items to the service: in order, at most <see cref="Delivery.Batch"/> a request,
    /// those too old dropped first; a batch refused as a whole halved until the one refused item
    /// is known; a 202's verdicts applied to the queue. What fails otherwise is thrown to the core,
    /// which retries later.
    /// </summary>
    internal sealed class Delivery<T>
    {
        private readonly StoredQueue<T> queue;
        private readonly DeliveredKind<T> kind;
        private readonly IClock clock;
        private readonly DropReporter drops;
        private readonly Action<LogLevel, string> write;
        private readonly Action installMissing;
        private readonly Action installDeleted;

        /// <param name="write">The core's log, at the level the app set.</param>
        /// <param name="installMissing">The service has no install for items it keeps retryable: the core sends it again.</param>
        /// <param name="installDeleted">
        /// The service ignored items because the install's data was deleted: the core keeps the
        /// deletion, and nothing more is sent for the install.
        /// </param>
        public Delivery(
            StoredQueue<T> queue, DeliveredKind<T> kind, IClock clock, DropReporter drops, Action<LogLevel, string> write,
            Action installMissing, Action installDeleted)
        {
            this.queue = queue;
            this.kind = kind;
            this.clock = clock;
            this.drops = drops;
            this.write = write;
            this.installMissing = installMissing;
            this.installDeleted = installDeleted;
        }

        private string Plural
        {
            get { return kind.Noun + "s"; }
        }

        /// <summary>
        /// The queued items in order, at most 100 a request, while <paramref name="sending"/> holds.
        /// A request refused as a whole (413, or a 4xx naming no item) is split in halves until
        /// the one item refused alone is known: that one is dropped, every other goes.
        /// </summary>
        public async Task SendAll(ApiClient api, string serviceId, Func<bool> sending)
        {
            var limit = Delivery.Batch;
            while (sending() && queue.Count > 0)
            {
                drops.Drop(ServiceDropReason.Expired, queue.RemoveOlderThan(clock.UtcNow.ToUniversalTime() - Delivery.MaxAge),
                    "older than the " + Delivery.MaxAge.TotalDays + " days the service keeps, by the device's clock");
                var batch = queue.Peek(limit);
                if (batch.Count == 0) break;
                JToken answer;
                try
                {
                    answer = await api.Send("POST", kind.Path, kind.Body(batch, serviceId, clock.UtcNow), ApiClient.VerdictsAnswer);
                }
                // 401, 403 and 404 refuse the route itself (a wrong address or key), not this
                // batch: the core holds the route, and the items stay queued.
                catch (ServiceHttpException error) when (error.IsRefusedForGood && !error.IsConfiguration)
                {
                    // Refused as a whole, naming no item: sent again it would be refused again.
                    if (batch.Count == 1)
                    {
                        queue.Remove(new[] { queue.IdOf(batch[0]) });
                        drops.Drop(ServiceDropReason.Refused, 1, "the service refused " + kind.Describe(batch[0]) + " alone: " + error.Message);
                    }
                    else
                    {
                        limit = (batch.Count + 1) / 2;
                        write(LogLevel.Info, "the service refused a batch of " + batch.Count + " " + Plural + " as a whole (" + error.Code
                            + "); it is sent again in halves to find the " + kind.Noun + " it refuses");
                    }
                    continue;
                }
                // After a split, the batches grow back to their full size.
                limit = Math.Min(Delivery.Batch, limit * 2);
                HandleVerdicts(batch, (JObject)answer);
            }
        }

        /// <summary>
        /// A 202's verdicts: accepted and ignored items leave the queue, one refused for good is
        /// dropped (reason `refused`), one refused as retryable stays for a later attempt. Any
        /// ignored as `install_deleted` puts the core in the deleted state, which ends the send run.
        /// </summary>
        private void HandleVerdicts(List<T> batch, JObject answer)
        {
            Func<JToken, string> named = verdict =>
            {
                var index = verdict.Value<int?>("index");
                if (index.HasValue && index.Value >= 0 && index.Value < batch.Count) return queue.IdOf(batch[index.Value]);
                var id = verdict.Value<string>(kind.IdField);
                return batch.Select(queue.IdOf).FirstOrDefault(own => own == id);
            };
            var byId = batch.GroupBy(queue.IdOf).ToDictionary(g => g.Key, g => g.First());
            var rejected = (answer["rejected"] as JArray ?? new JArray()).Where(r => r is JObject).ToList();
            var keep = new HashSet<string>(rejected.Where(r => r.Value<bool?>("retryable") == true)
                .Select(named).Where(id => id != null));
            var refused = rejected.Where(r => r.Value<bool?>("retryable") != true)
                .Select(r => new { Id = named(r), Detail = r.Value<string>("detail") })
                .Where(r => r.Id != null && !keep.Contains(r.Id))
                .ToList();
            var ignored = (answer["ignored"] as JArray ?? new JArray()).Where(r => r is JObject)
                .Select(r => new { Id = named(r), Reason = r.Value<string>("reason"), Detail = r.Value<string>("detail") ?? "" })
                .Where(r => r.Id != null && !keep.Contains(r.Id))
                .ToList();
            queue.Remove(byId.Keys.Where(id => !keep.Contains(id)));
            if (refused.Count > 0)
            {
                drops.Drop(ServiceDropReason.Refused, refused.Count, "the service refused " + refused.Count + " of " + batch.Count
                    + " " + Plural + " for good: " + string.Join("; ", refused.Select(r => kind.Describe(byId[r.Id]) + ": " + r.Detail)));
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
            if (deletedOnes.Count > 0)
            {
                // The install's data was deleted at the service: through its API (the app's
                // backend handling a person's erasure request), or by DeleteUserData in a process
                // that died before it kept the deletion. Everything sent for the install from now
                // on would be ignored the same way, so the core enters the deleted state, which
                // also drops what waits, the items kept for a retry among them: sending them
                // after the install again would only go to an install that is gone.
                installDeleted();
                return;
            }
            if (keep.Count > 0)
            {
                // The service has no install for them: it is reported again before they are.
                installMissing();
                throw new InvalidOperationException(Plural + " to send again later");
            }
        }
    }
}
