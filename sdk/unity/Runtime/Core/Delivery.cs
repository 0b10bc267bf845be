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
        /// <summary>
        /// Guards <see cref="onItsWay"/> and what is noted of it below: a batch is marked on its way
        /// under it, and the queue is emptied (Stop, a deletion, a switch-off) and added to under it.
        /// </summary>
        private readonly object flight = new object();
        /// <summary>The ids of the batch on its way to the service; null between requests.</summary>
        private HashSet<string> onItsWay;
        /// <summary>
        /// The queue was emptied while that batch was on its way (Stop, a deletion, a switch-off):
        /// what its answer leaves queued is dropped then, for this reason; null when it was not.
        /// </summary>
        private ServiceDropReason? clearedOnItsWay;
        private string clearedWhy;
        /// <summary>
        /// The ids of that batch the queue's bound took off it meanwhile, to make room for newer
        /// items: its answer settles them. Stored, they are delivered; refused or ignored, that
        /// verdict is their one report; left to a retry, or the request failed, they are lost, and
        /// told dropped (`queue_full`) then. Told at once, one the service stored would be a drop
        /// told of an item delivered, and one it refused a drop told twice.
        /// </summary>
        private readonly HashSet<string> takenOnItsWay = new HashSet<string>();
        /// <summary>How many times the queue was emptied, under <see cref="flight"/>: a batch taken before is no batch to send after it, even once a Start follows (its items were dropped).</summary>
        private int clears;

        /// <param name="write">The core's log, at the level the app set.</param>
        /// <param name="installMissing">The service has no install for items it refused as retryable (`Conflict`): the core sends it again.</param>
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
        /// the one item refused alone is known: that one is dropped, every other goes, and the
        /// requests after it are whole again.
        /// <paramref name="beforeBatch"/> runs before each request, once its batch is taken.
        /// </summary>
        public async Task SendAll(ApiClient api, string serviceId, Func<bool> sending, Func<Task> beforeBatch = null)
        {
            // How many items at the head of the queue hold the one a request refused as a whole:
            // sent in halves until it is known. None: requests are whole.
            var suspect = 0;
            while (sending() && queue.Count > 0)
            {
                drops.Drop(ServiceDropReason.Expired, queue.RemoveOlderThan(clock.UtcNow.ToUniversalTime() - Delivery.MaxAge),
                    "older than the " + Delivery.MaxAge.TotalDays + " days the service keeps, by the device's clock");
                int clearsBefore;
                lock (flight) clearsBefore = clears;
                var batch = queue.Peek(suspect > 0 ? (suspect + 1) / 2 : Delivery.Batch);
                if (batch.Count == 0) break;
                // Once the batch is taken: what changed before holds for every item of it, and an
                // item taken after that change is either in it or left for the next batch.
                if (beforeBatch != null) await beforeBatch();
                // The consent update may have taken a round trip: a Stop or a deletion made
                // meanwhile dropped this batch's items, which must not leave after it, not even
                // once a Start followed. Checked under the lock Stop empties the queue under: a
                // Stop either came first, and the batch stays unsent, or leaves it to its answer.
                // And under the lock the queue's bound drops under: an item it took since the batch
                // was taken was told dropped then, and does not leave; one it takes from now on is
                // left to the answer.
                HashSet<string> ids;
                lock (flight)
                {
                    if (!sending() || clears != clearsBefore) break;
                    batch = queue.StillHeld(batch);
                    if (batch.Count == 0) continue;
                    ids = new HashSet<string>(batch.Select(queue.IdOf));
                    onItsWay = ids;
                    clearedOnItsWay = null;
                    clearedWhy = null;
                    takenOnItsWay.Clear();
                }
                try
                {
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
                            // Taken by the bound meanwhile or not, the refusal is its one report.
                            lock (flight)
                            {
                                var refused = queue.IdOf(batch[0]);
                                queue.Remove(new[] { refused });
                                takenOnItsWay.Remove(refused);
                            }
                            drops.Drop(ServiceDropReason.Refused, 1, "the service refused " + kind.Describe(batch[0]) + " alone: " + error.Message);
                            suspect = 0;
                        }
                        else
                        {
                            suspect = batch.Count;
                            write(LogLevel.Info, "the service refused a batch of " + batch.Count + " " + Plural + " as a whole (" + error.Code
                                + "); it is sent again in halves to find the " + kind.Noun + " it refuses");
                        }
                        continue;
                    }
                    // Taken: the item refused as a whole is among the suspect ones after these.
                    suspect = Math.Max(0, suspect - batch.Count);
                    HandleVerdicts(batch, (JObject)answer);
                }
                finally
                {
                    Settle(ids);
                }
            }
        }

        /// <summary>
        /// Adds an item to the queue. How many of the oldest its bound took off to make room, for
        /// the caller to report as `queue_full`; but for those of the batch on its way, which its
        /// answer settles (<see cref="takenOnItsWay"/>).
        /// </summary>
        public int Add(T item)
        {
            var gone = new List<string>();
            lock (flight)
            {
                queue.Add(item, gone);
                if (onItsWay == null) return gone.Count;
                var taken = gone.Where(onItsWay.Contains).ToList();
                takenOnItsWay.UnionWith(taken);
                return gone.Count - taken.Count;
            }
        }

        /// <summary>
        /// The queue emptied (Stop, a deletion, a switch-off) but for the batch on its way, which
        /// its answer settles (<see cref="Settle"/>): what the service accepts of it is delivered,
        /// never counted dropped, and the rest is dropped for <paramref name="reason"/> once the
        /// answer is in. How many items it took out now, for the caller to report for that reason.
        /// </summary>
        public int Clear(ServiceDropReason reason, string why)
        {
            lock (flight)
            {
                clears++;
                if (onItsWay != null && !clearedOnItsWay.HasValue)
                {
                    clearedOnItsWay = reason;
                    clearedWhy = why;
                }
                return queue.Clear(onItsWay);
            }
        }

        /// <summary>
        /// The batch of these ids has its answer (or failed), and the queue holds what the answer
        /// left: no longer on its way. When the queue was emptied meanwhile, what is left of it (the
        /// whole batch when the request failed) is dropped for that reason, so that the queue ends
        /// empty and nothing of it leaves after; what the bound took off it and the answer did not
        /// settle is dropped as `queue_full`.
        /// </summary>
        private void Settle(HashSet<string> ids)
        {
            var left = 0;
            int taken;
            ServiceDropReason? reason;
            string why;
            lock (flight)
            {
                reason = clearedOnItsWay;
                why = clearedWhy;
                if (reason.HasValue) left = queue.Remove(ids);
                taken = takenOnItsWay.Count;
                takenOnItsWay.Clear();
                onItsWay = null;
                clearedOnItsWay = null;
                clearedWhy = null;
            }
            if (reason.HasValue) drops.Drop(reason.Value, left, why + " while they were on their way, and the service did not take them");
            drops.Drop(ServiceDropReason.QueueFull, taken, "the queue was full, and the oldest made room while they were on their way; the service did not take them");
        }

        /// <summary>
        /// A 202's verdicts: accepted and ignored items leave the queue, one refused for good is
        /// dropped (reason `refused`), one refused as retryable stays for a later attempt. Any
        /// ignored as `install_deleted` puts the core in the deleted state, which ends the send run.
        /// No item leaves the queue unaccounted for: one the answer neither counts as accepted nor
        /// names (or names by an index outside the request) is a `refused` drop too, in the
        /// service's words, as is one ignored for a reason this SDK does not know.
        /// </summary>
        private void HandleVerdicts(List<T> batch, JObject answer)
        {
            var verdict = BatchVerdict.Parse(answer, batch.Count);
            var ids = batch.Select(queue.IdOf).ToList();
            var keep = new HashSet<string>(verdict.Retry.Select(index => ids[index]));
            var removed = ids.Count(id => !keep.Contains(id));
            var settled = ids.Where(id => !keep.Contains(id)).ToList();
            lock (flight)
            {
                queue.Remove(settled);
                // Those the bound took off the queue meanwhile: this answer accounts for them.
                takenOnItsWay.ExceptWith(settled);
            }
            // Stored, but not quite as sent (a revenue in no currency the service knows, say): the
            // game's developer reads it here, the item being delivered.
            foreach (var warning in verdict.Warnings) write(LogLevel.Warn, kind.Noun + " stored with a change: " + warning);
            if (verdict.Refused.Count > 0)
            {
                drops.Drop(ServiceDropReason.Refused, verdict.Refused.Count, "the service refused " + verdict.Refused.Count + " of " + batch.Count
                    + " " + Plural + " for good: " + string.Join("; ", verdict.Refused.Select(r => kind.Describe(batch[r.Key]) + ": " + r.Value)));
            }
            // Ignored: the service will not keep them (`app_disabled`: the app switched off;
            // `install_deleted`: the install's data deleted), or keeps them already
            // (`duplicate_event`: a repeat of an event stored from the same request, delivered).
            // Any other reason is none this SDK sends for (`install_event`: it never sends an
            // INSTALL event): refused, in the service's words.
            var deletedOnes = verdict.Ignored.Where(r => r.Reason == "install_deleted").ToList();
            var offOnes = verdict.Ignored.Where(r => r.Reason == "app_disabled").ToList();
            var repeatedOnes = verdict.Ignored.Where(r => r.Reason == "duplicate_event").ToList();
            var otherOnes = verdict.Ignored.Except(deletedOnes).Except(offOnes).Except(repeatedOnes).ToList();
            if (repeatedOnes.Count > 0)
            {
                write(LogLevel.Info, "the service stored " + repeatedOnes.Count + " of " + batch.Count + " " + Plural + " once though they were in the request twice");
            }
            if (deletedOnes.Count > 0)
            {
                drops.Drop(ServiceDropReason.Deleted, deletedOnes.Count, "the service ignored them: " + deletedOnes[0].Detail);
            }
            if (offOnes.Count > 0)
            {
                drops.Drop(ServiceDropReason.Disabled, offOnes.Count, "the service ignored them: " + offOnes[0].Detail);
            }
            if (otherOnes.Count > 0)
            {
                drops.Drop(ServiceDropReason.Refused, otherOnes.Count, "the service ignored " + otherOnes.Count + " of " + batch.Count + " " + Plural + ": "
                    + string.Join("; ", otherOnes.Select(r => kind.Describe(batch[r.Index]) + " (" + (r.Reason ?? "no reason") + "): " + r.Detail)));
            }
            ReportUnaccounted(verdict, removed);
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
                // Only a Conflict says the service has no install for them: it is reported again
                // before they are. Reporting it for any other retryable refusal would send the
                // install again for nothing, the device forgetting that it was recorded.
                if (verdict.InstallMissing) installMissing();
                throw new InvalidOperationException(Plural + " to send again later");
            }
        }

        /// <summary>
        /// The items the answer takes off the queue that it neither counts as accepted nor names:
        /// dropped (`refused`), with what the answer said that names no item. An answer that
        /// counts more than it takes off loses nothing, but is not the service's: a warning.
        /// </summary>
        private void ReportUnaccounted(BatchVerdict verdict, int removed)
        {
            var named = verdict.Refused.Count + verdict.Ignored.Count;
            var unaccounted = Math.Max(0L, removed - verdict.Accepted - named);
            var said = new List<string>(verdict.Unexplained);
            if (unaccounted > 0 || verdict.Accepted + named > removed)
            {
                said.Add("it accepts " + verdict.Accepted + " and names " + named + " of the " + removed + " " + Plural + " it takes off the queue");
            }
            if (unaccounted > 0)
            {
                drops.Drop(ServiceDropReason.Refused, (int)unaccounted, unaccounted + " " + (unaccounted == 1 ? kind.Noun : Plural)
                    + " neither accepted nor named in the service's answer: " + string.Join("; ", said));
            }
            else if (verdict.Unexplained.Count > 0 || verdict.Accepted + named > removed)
            {
                write(LogLevel.Warn, "the service's answer does not add up, though it leaves no " + kind.Noun + " unaccounted for: " + string.Join("; ", said));
            }
        }
    }
}
