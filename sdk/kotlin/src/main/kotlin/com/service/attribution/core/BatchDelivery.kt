package com.service.attribution.core

import com.service.attribution.AuthenticationException
import com.service.attribution.DropReason
import com.service.attribution.HttpException
import java.io.IOException

/** Where the drops of a queue go: for events, the error listener too; for sessions, the log and a count. */
internal fun interface DropReport {
    /** [count] items dropped for [reason], with [why] in words when there is more to say; nothing when [count] is 0. */
    fun report(reason: DropReason, count: Int, why: String?)

    fun report(reason: DropReason, count: Int) = report(reason, count, null)
}

/**
 * Delivery of one queue (the events, the sessions), one request at a time: the queued items in
 * order, [maxPerRequest] a request; a batch the backend refused as a whole sent again in halves
 * until the one refused alone is known; a 202's verdicts applied. On the worker only: SdkCore
 * decides when to send (the install and a changed consent first) and what a [Result] means for
 * the retries. [noun] names an item in the log.
 */
internal class BatchDelivery(
    private val queue: StoredQueue,
    private val noun: String,
    /** Posts one batch with its `sent_at` (the device clock as it leaves): Api.events or Api.sessions. */
    private val post: (List<Map<String, Any?>>, Long) -> BatchVerdict,
    private val clock: () -> Long,
    private val maxAgeMs: Long,
    private val log: Logger,
    private val drops: DropReport,
    private val maxPerRequest: Int = 100,
) {
    /** What one [sendNext] did. */
    sealed class Result {
        /** Nothing is queued. */
        object Empty : Result()

        /** A request answered: the next one can go. */
        object Sent : Result()

        /**
         * The route refused the install's key or address (401, 403, 404): a configuration error,
         * not a verdict on the items, which stay queued.
         */
        class RouteRefused(val code: Int, val cause: Exception) : Result()

        /** The backend has not recorded the install: it is reported again, then these items. */
        object InstallMissing : Result()

        /**
         * The backend ignored items because the install's data was deleted: on request through
         * the service's API (the app's backend, a person's erasure request), or by this SDK in a
         * process that died before it kept the deletion. Nothing more is to be sent for it.
         */
        object InstallDeleted : Result()

        /** Not sent: tried again later. */
        class Retry(val cause: Exception, val warn: Boolean = false) : Result()
    }

    /**
     * How many items at the head of the queue hold one the backend refused as a whole (413, or
     * a 4xx naming no item): sent in halves until the one refused alone is known.
     */
    private var suspect = 0

    /** Drops the expired items, then sends the next batch, each item as [prepare] gives it. */
    fun sendNext(prepare: ((Map<String, Any?>) -> Map<String, Any?>)? = null): Result {
        drops.report(DropReason.EXPIRED, queue.expire(clock() - maxAgeMs))
        val size = if (suspect > 0) (suspect + 1) / 2 else maxPerRequest
        val queued = queue.peek(size)
        if (queued.isEmpty()) return Result.Empty
        val batch = if (prepare != null) queued.map(prepare) else queued
        val verdict =
            try {
                post(batch, clock())
            } catch (e: AuthenticationException) {
                return Result.RouteRefused(e.code, e)
            } catch (e: HttpException) {
                if (SdkCore.isConfigurationError(e.code)) return Result.RouteRefused(e.code, e)
                if (!SdkCore.refusedForGood(e.code)) return Result.Retry(e)
                if (batch.size > 1) {
                    // Refused as a whole: sent in halves until the one refused alone is known.
                    log.info("${batch.size} ${noun}s refused as a whole (${e.message}): sent again in halves")
                    suspect = batch.size
                    return Result.Sent
                }
                // Alone and refused: sent again it would be refused again.
                log.error("$noun refused by the backend (${e.message})")
                queue.remove(1, emptySet())
                suspect = 0
                drops.report(DropReason.REFUSED, 1, "refused by the backend: ${e.message}")
                return Result.Sent
            } catch (e: UnexpectedAnswerException) {
                return Result.Retry(e, warn = true)
            } catch (e: IOException) {
                return Result.Retry(e)
            }
        // Accepted: the refused one is in the rest of the suspect items, if any.
        suspect = maxOf(0, suspect - batch.size)
        queue.remove(batch.size, verdict.retry)
        val removed = batch.size - verdict.retry.size
        log.debug("${verdict.accepted} ${noun}${if (verdict.accepted == 1) "" else "s"} accepted")
        // Stored, but not quite as sent (a revenue in no currency the backend knows, say): the
        // app's developer reads it here, the event being delivered.
        for (warning in verdict.warnings) log.warn("$noun stored with a change: $warning")
        if (verdict.refused.isNotEmpty()) {
            log.error("${noun}s refused by the backend: ${verdict.refused.joinToString("; ")}")
            drops.report(DropReason.REFUSED, verdict.refused.size, "refused by the backend: ${verdict.refused.joinToString("; ")}")
        }
        // Taken and not stored (the install's data deleted, the app switched off): not sent again.
        for (reason in listOf(DropReason.DELETED, DropReason.DISABLED)) drops.report(reason, verdict.ignored[reason] ?: 0)
        if (verdict.repeated > 0) {
            // The backend stored the first copy: delivered, not dropped, whatever put the copy in the queue.
            log.info("${verdict.repeated} ${noun}${if (verdict.repeated == 1) "" else "s"} repeated an id sent earlier in the same request: the backend kept the first")
        }
        reportUnexplained(verdict, removed)
        // The install's data was deleted: nothing more is to be sent for it, the items kept for a retry included.
        if ((verdict.ignored[DropReason.DELETED] ?: 0) > 0) return Result.InstallDeleted
        if (verdict.retry.isNotEmpty()) {
            suspect = 0
            // Only a Conflict says the backend has not recorded the install: report it again, then
            // these items. Any other retryable refusal sends them again later, the install as it is.
            if (verdict.installMissing) return Result.InstallMissing
            return Result.Retry(IOException("the backend asks for ${verdict.retry.size} ${noun}${if (verdict.retry.size == 1) "" else "s"} to be sent again later"))
        }
        return Result.Sent
    }

    /**
     * Every item the answer took off the queue that it neither accepted, named as a repeat, nor
     * let the SDK count as a drop above (an ignored reason the SDK does not know, a refusal
     * naming no item of the request, fewer items accepted than the answer leaves unnamed) is
     * dropped too: refused, logged, counted and reported like any other, in the backend's words,
     * never lost unsaid.
     * An item is never counted twice: an entry naming no item can only speak of one that no
     * entry named and the answer did not accept, so such entries count up to those items and no
     * further.
     */
    private fun reportUnexplained(verdict: BatchVerdict, removed: Int) {
        val named = verdict.refused.size + verdict.ignored.values.sum() + verdict.unexplained.size + verdict.repeated
        // Taken off the queue, named by no entry; of those, the ones not accepted either.
        val notNamed = maxOf(0, removed - named)
        val notAccepted = maxOf(0, notNamed - verdict.accepted)
        val unplaced = minOf(verdict.unplaced.size, notAccepted)
        val unaccounted = maxOf(0, notAccepted - unplaced)
        if (verdict.namedAgain > 0 || verdict.accepted + named + verdict.unplaced.size != removed) {
            // A backend or a proxy answering out of contract: the counts below are the SDK's best reading.
            log.warn(
                "the backend's answer does not add up: of the $removed ${noun}s taken off the queue it accepts " +
                    "${verdict.accepted}, names $named as not stored or repeated and has ${verdict.unplaced.size} " +
                    "verdict${if (verdict.unplaced.size == 1) "" else "s"} naming no item of the request" +
                    (if (verdict.namedAgain > 0) "; ${verdict.namedAgain} more name an item named already" else ""),
            )
        }
        val said = ArrayList(verdict.unexplained)
        said += verdict.unplaced
        if (unaccounted > 0) {
            said += "$unaccounted ${noun}${if (unaccounted == 1) "" else "s"} neither accepted nor named " +
                "(the answer accepts ${verdict.accepted} of the $removed it takes off the queue)"
        }
        if (said.isEmpty()) return
        val words = "the backend's answer: ${said.joinToString("; ")}"
        log.error("${noun}s not stored by the backend, $words")
        val count = verdict.unexplained.size + unplaced + unaccounted
        if (count > 0) drops.report(DropReason.REFUSED, count, words)
    }
}
