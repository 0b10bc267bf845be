package com.service.attribution.support

import java.util.PriorityQueue
import java.util.concurrent.AbstractExecutorService
import java.util.concurrent.Callable
import java.util.concurrent.Delayed
import java.util.concurrent.Executors
import java.util.concurrent.FutureTask
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.ScheduledFuture
import java.util.concurrent.TimeUnit

/** A device clock the test moves by hand (milliseconds since the epoch). */
internal class ManualClock(
    @Volatile var now: Long = 1_790_000_000_000,
) {
    val read: () -> Long = { now }
}

/**
 * A scheduled executor that runs nothing by itself: the test runs what is due, on its own
 * thread, and moves [clock] to run what is scheduled later. No sleeps, no races: a retry
 * "after 2 seconds" runs when the test advances the clock by 2 seconds.
 */
internal class ManualScheduler(val clock: ManualClock) : AbstractExecutorService(), ScheduledExecutorService {
    private var sequence = 0L
    private val tasks = PriorityQueue<Task<*>>(compareBy<Task<*>>({ it.at }, { it.seq }))

    /** What a task threw (the SDK's executors swallow it; a test should see it). */
    val failures = ArrayList<Throwable>()

    @Volatile private var shut = false

    private inner class Task<V>(callable: Callable<V>, val at: Long, val seq: Long) : FutureTask<V>(callable), ScheduledFuture<V> {
        override fun getDelay(unit: TimeUnit): Long = unit.convert(at - clock.now, TimeUnit.MILLISECONDS)

        override fun compareTo(other: Delayed): Int = getDelay(TimeUnit.MILLISECONDS).compareTo(other.getDelay(TimeUnit.MILLISECONDS))
    }

    private fun <V> add(callable: Callable<V>, delayMs: Long): Task<V> =
        synchronized(this) {
            Task(callable, clock.now + maxOf(0, delayMs), sequence++).also { if (!shut) tasks.add(it) }
        }

    override fun execute(command: Runnable) {
        add(Executors.callable(command), 0)
    }

    override fun schedule(command: Runnable, delay: Long, unit: TimeUnit): ScheduledFuture<*> =
        add(Executors.callable(command), unit.toMillis(delay))

    override fun <V> schedule(callable: Callable<V>, delay: Long, unit: TimeUnit): ScheduledFuture<V> = add(callable, unit.toMillis(delay))

    override fun scheduleAtFixedRate(command: Runnable, initialDelay: Long, period: Long, unit: TimeUnit): ScheduledFuture<*> =
        throw UnsupportedOperationException()

    override fun scheduleWithFixedDelay(command: Runnable, initialDelay: Long, delay: Long, unit: TimeUnit): ScheduledFuture<*> =
        throw UnsupportedOperationException()

    private fun nextDue(limit: Long): Task<*>? =
        synchronized(this) {
            while (tasks.peek()?.isCancelled == true) tasks.poll()
            val head = tasks.peek() ?: return null
            if (head.at <= limit) tasks.poll() else null
        }

    private fun run(task: Task<*>) {
        task.run()
        if (!task.isCancelled) {
            try {
                task.get()
            } catch (e: java.util.concurrent.ExecutionException) {
                failures.add(e.cause ?: e)
            }
        }
    }

    /** Runs every task due now, those they hand over included; returns how many ran. */
    fun runDue(): Int {
        var ran = 0
        while (true) {
            val task = nextDue(clock.now) ?: return ran
            run(task)
            ran++
        }
    }

    /** Moves the clock forward by [ms], running each task when its time comes. */
    fun advance(ms: Long) {
        val target = clock.now + ms
        runDue()
        while (true) {
            val task = nextDue(target) ?: break
            if (task.at > clock.now) clock.now = task.at
            run(task)
        }
        clock.now = target
        runDue()
    }

    /** Moves the clock at once by [ms] (a device asleep for days), then runs what is due. */
    fun jump(ms: Long) {
        clock.now += ms
        runDue()
    }

    /** Tasks waiting, due or not. */
    fun pending(): Int = synchronized(this) { tasks.count { !it.isCancelled } }

    override fun shutdown() {
        shut = true
        synchronized(this) { tasks.clear() }
    }

    override fun shutdownNow(): MutableList<Runnable> {
        shutdown()
        return ArrayList()
    }

    override fun isShutdown() = shut

    override fun isTerminated() = shut

    override fun awaitTermination(timeout: Long, unit: TimeUnit) = true
}
