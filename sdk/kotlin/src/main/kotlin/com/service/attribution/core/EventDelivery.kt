package com.service.attribution.core

import com.service.attribution.AuthenticationException
import com.service.attribution.DropReason
import com.service.attribution.HttpException
import java.io.IOException

/**
 * Delivery of the event queue, one request at a time: the queued events in order, 100 a
 * request; a batch the backend refused as a whole sent again in halves until the one refused
 * alone is known; a 202's verdicts applied. On the worker only: SdkCore decides when to send
 * (the install and a changed consent first) and what a [Result] means for the retries.
 */
internal class EventDelivery(
    private val queue: EventQueue,
    private val api: Api,
    private val clock: () -> Long,
    private val maxEventAgeMs: Long,
    private val log: Logger,
    private val listeners: ListenerDispatch,
) {
    /** What one [sendNext] did. */
    sealed class Result {
        /** Nothing is queued. */
        object Empty : Result()

        /** A request answered: the next one can go. */
        object Sent : Result()

        /** The API key was rejected: the SDK disables itself. */
        object KeyRejected : Result()

        /** The backend has not recorded the install: it is reported again, then these events. */
        object InstallMissing : Result()

        /** Not sent: tried again later. */
        class Retry(val cause: Exception, val warn: Boolean = false) : Result()
    }

    /**
     * How many events at the head of the queue hold one the backend refused as a whole (413, or
     * a 4xx naming no event): sent in halves until the one refused alone is known.
     */
    private var suspect = 0

    /** Drops the expired events, then sends the next batch; [anonymous]: without the customer user id. */
    fun sendNext(anonymous: Boolean): Result {
        listeners.reportDrop(DropReason.EXPIRED, queue.expire(clock() - maxEventAgeMs))
        val size = if (suspect > 0) (suspect + 1) / 2 else MAX_EVENTS_PER_REQUEST
        val queued = queue.peek(size)
        if (queued.isEmpty()) return Result.Empty
        val batch = if (anonymous) queued.map { it + ("customer_user_id" to null) } else queued
        val verdict =
            try {
                api.events(batch, clock())
            } catch (e: AuthenticationException) {
                log.error("the API key was rejected: the SDK disables itself", e)
                return Result.KeyRejected
            } catch (e: HttpException) {
                if (!SdkCore.refusedForGood(e.code)) return Result.Retry(e)
                if (batch.size > 1) {
                    // Refused as a whole: sent in halves until the one refused alone is known.
                    log.info("${batch.size} events refused as a whole (${e.message}): sent again in halves")
                    suspect = batch.size
                    return Result.Sent
                }
                // Alone and refused: sent again it would be refused again.
                log.error("event refused by the backend (${e.message})")
                queue.remove(1, emptySet())
                suspect = 0
                listeners.reportDrop(DropReason.REFUSED, 1)
                return Result.Sent
            } catch (e: UnexpectedAnswerException) {
                return Result.Retry(e, warn = true)
            } catch (e: IOException) {
                return Result.Retry(e)
            }
        // Accepted: the refused one is in the rest of the suspect events, if any.
        suspect = maxOf(0, suspect - batch.size)
        queue.remove(batch.size, verdict.retry)
        if (verdict.refused.isNotEmpty()) {
            log.error("events refused by the backend: ${verdict.refused.joinToString("; ")}")
            listeners.reportDrop(DropReason.REFUSED, verdict.refused.size)
        }
        // Taken and not stored (the install's data deleted, the app switched off): not sent again.
        for (reason in listOf(DropReason.DELETED, DropReason.DISABLED)) listeners.reportDrop(reason, verdict.ignored[reason] ?: 0)
        if (verdict.retry.isNotEmpty()) {
            // The backend has not recorded the install: report it again, then these events.
            suspect = 0
            return Result.InstallMissing
        }
        return Result.Sent
    }

    private companion object {
        const val MAX_EVENTS_PER_REQUEST = 100
    }
}
