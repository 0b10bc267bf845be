package com.service.attribution

/**
 * How configure reports its outcome. A lambda passed to configure implements [onError].
 */
fun interface InitListener {
    /**
     * Initialization hit an error, such as a failed remote configuration fetch. May run on a
     * background thread. After an [AuthenticationException] or a missing required permission
     * the SDK has disabled itself; after any other error it goes on with a placeholder
     * configuration.
     */
    fun onError(t: Throwable)

    /**
     * Initialization is complete, remote configuration included; called on the main thread.
     * [mainThreadDurationMs] is the time spent in configure's synchronous part,
     * [totalDurationMs] the time from the configure call to now.
     */
    fun onInitialized(mainThreadDurationMs: Long, totalDurationMs: Long) {}
}
