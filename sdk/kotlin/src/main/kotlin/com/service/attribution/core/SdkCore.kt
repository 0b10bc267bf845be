package com.service.attribution.core

import com.service.attribution.AuthenticationException
import com.service.attribution.EventType
import com.service.attribution.HttpException
import com.service.attribution.InitListener
import com.service.attribution.LogLevel
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.withContext
import java.io.IOException
import java.util.UUID
import java.util.concurrent.Executors
import java.util.concurrent.ScheduledFuture
import java.util.concurrent.TimeUnit

/** Settings the spec leaves to the SDK: where the backend is, and how patiently to retry. */
internal data class SdkSettings(
    val baseUrl: String,
    val retryDelayMs: Long = 2_000,
    val maxRetryDelayMs: Long = 60_000,
    /** How long one attribution request may wait on the backend (0 to 20 seconds). */
    val attributionWaitSeconds: Int = 20,
    /** Events kept on the device at most; the oldest go first. */
    val maxQueuedEvents: Int = 1_000,
)

/**
 * Every rule of the SDK, with no Android type: ServiceAttributionSdk is this plus the Android
 * glue. One instance is one process of the app; a second instance on the same [KeyValueStore]
 * is the app's next launch.
 *
 * Threads: every change of state and every request but the attribution long poll runs on one
 * worker thread, so events leave in the order they were sent; public calls only hand work to it.
 * The attribution poll has its own thread so that its long wait never holds events back.
 */
internal class SdkCore {
    private val worker =
        Executors.newSingleThreadScheduledExecutor { r -> Thread(r, "ServiceSdk").apply { isDaemon = true } }
    private val workerDispatcher = worker.asCoroutineDispatcher()
    private val poller =
        Executors.newSingleThreadScheduledExecutor { r -> Thread(r, "ServiceSdk-attribution").apply { isDaemon = true } }

    @Volatile private var configured = false

    @Volatile private var disabled = false

    @Volatile private var config: RemoteConfig? = null

    @Volatile private var lastInitError: Throwable? = null

    @Volatile private var customerUserId: String? = null

    @Volatile private var serviceId: String? = null

    @Volatile private var openUrl: String? = null

    /** Set once deleteUserData succeeded: no attribution is kept for the install again. */
    @Volatile private var deleted = false

    @Volatile private var log = Logger(LogSink { _, _, _ -> }, LogLevel.INFO)

    /** The SDK built on this one, if any (the Flutter plugin): named on the install, with its rules. */
    @Volatile var wrapper: Wrapper? = null

    private lateinit var platform: Platform
    private lateinit var settings: SdkSettings
    private lateinit var api: Api
    private lateinit var queue: EventQueue

    // Worker-thread state.
    private val early = ArrayList<Draft>()
    private var retryDelayMs = 0L
    private var retry: ScheduledFuture<*>? = null
    private var refresh: ScheduledFuture<*>? = null
    private var polling = false
    private var referrerRead = false
    private var referrer: InstallReferrerDetails? = null

    /** Events still to send one a request, after a batch holding them was refused as a whole. */
    private var singlesLeft = 0

    /** Set once the backend refused the full install for good: only its required fields go. */
    private var minimalInstall = false

    /** Completed once the first attribution attempt of this process has finished, either way. */
    private val initialMatch = CompletableDeferred<Unit>()

    fun configure(
        platform: Platform,
        settings: SdkSettings,
        apiKey: String,
        logLevel: LogLevel,
        listener: InitListener?,
        customerUserId: String?,
    ) {
        val started = platform.clock()
        synchronized(this) {
            if (configured) {
                log.info("configure was already called: this call changes nothing")
                return
            }
            this.platform = platform
            this.settings = settings
            log = Logger(platform.log, logLevel)
            api = Api(settings.baseUrl, apiKey, platform.http)
            queue = EventQueue(platform.store, settings.maxQueuedEvents)
            Fields.customerUserId(customerUserId)?.let { this.customerUserId = it }
            this.customerUserId?.let { platform.store.put(KEY_CUSTOMER_USER_ID, it) }
                ?: run { this.customerUserId = platform.store.get(KEY_CUSTOMER_USER_ID) }
            serviceId = platform.store.get(KEY_SERVICE_ID) ?: UUID.randomUUID().toString().also {
                platform.store.put(KEY_SERVICE_ID, it)
                platform.store.put(KEY_FIRST_OPEN, started.toString())
            }
            configured = true
        }
        val mainThreadMs = platform.clock() - started
        worker.execute { initialize(apiKey, listener, started, mainThreadMs) }
    }

    private fun initialize(apiKey: String, listener: InitListener?, started: Long, mainThreadMs: Long) {
        val missing = platform.device.missingPermissions()
        val refusal =
            when {
                apiKey.isBlank() -> IllegalArgumentException("apiKey must not be empty")
                settings.baseUrl.isBlank() -> IllegalStateException("the backend address (baseUrl) is not set")
                missing.isNotEmpty() -> SecurityException("missing permission: ${missing.joinToString()}")
                else -> null
            }
        if (refusal != null) return failInit(refusal, listener, disable = true)
        val fetched =
            try {
                api.config().also { platform.store.put(KEY_CONFIG, it.toJson()) }
            } catch (e: AuthenticationException) {
                return failInit(e, listener, disable = true)
            } catch (e: Exception) {
                failInit(e, listener, disable = false)
                cachedConfig() ?: RemoteConfig.PLACEHOLDER
            }
        apply(fetched)
        log.info("initialized: ${if (fetched.enabled) "enabled" else "switched off by remote configuration"}")
        if (listener != null) {
            val total = platform.clock() - started
            platform.mainThread.post { listener.onInitialized(mainThreadMs, total) }
        }
    }

    private fun failInit(error: Throwable, listener: InitListener?, disable: Boolean) {
        lastInitError = error
        log.error("initialization: ${error.message}", error)
        if (disable) disable()
        try {
            listener?.onError(error)
        } catch (e: RuntimeException) {
            log.error("InitListener.onError threw", e)
        }
    }

    private fun cachedConfig(): RemoteConfig? =
        platform.store.get(KEY_CONFIG)?.let { runCatching { RemoteConfig.parse(it) }.getOrNull() }

    /** On the worker: runs with a configuration, switching off or on as it says. */
    private fun apply(newConfig: RemoteConfig) {
        config = newConfig
        refresh?.cancel(false)
        refresh = worker.schedule({ refreshQuietly() }, newConfig.refreshIntervalSeconds, TimeUnit.SECONDS)
        if (!newConfig.enabled) return disable()
        disabled = false
        early.forEach(::enqueue)
        early.clear()
        flush()
    }

    /** Sends nothing from now on: what was waiting is dropped, as the app's owner asked. */
    private fun disable() {
        disabled = true
        early.clear()
        if (::queue.isInitialized) queue.clear()
        initialMatch.complete(Unit)
    }

    private fun refreshQuietly() {
        try {
            refreshOnWorker()
        } catch (e: Exception) {
            log.warn("remote configuration refresh failed: ${e.message}")
        }
    }

    private fun refreshOnWorker() {
        val fetched =
            try {
                api.config()
            } catch (e: AuthenticationException) {
                disable()
                throw e
            }
        platform.store.put(KEY_CONFIG, fetched.toJson())
        apply(fetched)
    }

    suspend fun refreshConfig() {
        check(configured) { "configure has not been called" }
        withContext(workerDispatcher) { refreshOnWorker() }
    }

    fun setCustomerUserId(value: String?) {
        val customerUserId = Fields.customerUserId(value)
        if (customerUserId != value && value != null) log.warn("customer user id must be 1 to 256 characters: cleared")
        this.customerUserId = customerUserId
        if (configured) {
            worker.execute {
                if (customerUserId == null) {
                    platform.store.remove(KEY_CUSTOMER_USER_ID)
                } else {
                    platform.store.put(KEY_CUSTOMER_USER_ID, customerUserId)
                }
            }
        }
    }

    fun sendEvent(event: EventType, name: String?, parameters: Map<String, Any?>?) {
        if (configured && disabled) {
            require(event != EventType.CUSTOM || !name.isNullOrBlank()) { Drafts.CUSTOM_NAME_RULE }
            log.debug("the SDK is disabled: ${event.name} is not sent")
            return
        }
        val timeMs = if (configured) platform.clock() else System.currentTimeMillis()
        val draft = Drafts.create(event, name, parameters, timeMs, customerUserId, log) ?: return
        worker.execute {
            when {
                disabled && configured -> Unit
                config == null -> {
                    // Bounded like the queue, for an app that sends events and never configures.
                    if (early.size >= MAX_EARLY_EVENTS) early.removeAt(0)
                    early.add(draft)
                }
                else -> {
                    enqueue(draft)
                    flush()
                }
            }
        }
    }

    /** On the worker: protects the draft's matching parameters and keeps it on the device. */
    private fun enqueue(draft: Draft) {
        val encryption = config?.encryption ?: Encryption.Off
        val sealer = (encryption as? Encryption.On)?.let { Sealer(it.keyId, it.publicKey) }
        val pii = Pii { plaintext -> sealer?.seal(plaintext.toByteArray(Charsets.UTF_8)) }
        val protected = pii.protect(draft.parameters, encryption)
        if (protected.dropped.isNotEmpty()) {
            log.warn("${draft.type.name}: matching parameters with no usable value were left out: ${protected.dropped.joinToString()}")
        }
        var parameters = protected.parameters
        if (sealer != null && wrapper?.sealsCustomValues == true) {
            val sealed = CustomValues.seal(parameters, encryption.clearKeys) { sealer.seal(it.toByteArray(Charsets.UTF_8)) }
            if (sealed.dropped.isNotEmpty()) {
                log.warn("${draft.type.name}: values too long to send sealed were left out: ${sealed.dropped.joinToString()}")
            }
            parameters = sealed.parameters
        }
        queue.add(Requests.event(draft, parameters, serviceId!!))
    }

    /** On the worker: the install first, then queued events in order, 100 a request. */
    private fun flush() {
        if (disabled || retry != null) return
        if (!ensureInstall()) {
            if (!disabled) scheduleRetry()
            return
        }
        while (!disabled) {
            val batch = queue.peek(if (singlesLeft > 0) 1 else 100)
            if (batch.isEmpty()) break
            val verdict =
                try {
                    api.events(batch)
                } catch (e: AuthenticationException) {
                    log.error("the API key was rejected: the SDK disables itself", e)
                    disable()
                    return
                } catch (e: HttpException) {
                    if (!refusedForGood(e.code)) return scheduleRetry(e)
                    if (batch.size > 1) {
                        // Refused as a whole: one at a time, so that only the culprit is lost.
                        singlesLeft = batch.size
                        continue
                    }
                    // Sent again it would be refused again: dropped, and what follows goes on.
                    log.error("event refused by the backend (${e.message}): it is dropped")
                    queue.remove(1, emptySet())
                    singlesLeft--
                    continue
                } catch (e: IOException) {
                    return scheduleRetry(e)
                }
            if (singlesLeft > 0) singlesLeft--
            queue.remove(batch.size, verdict.retry)
            if (verdict.refused.isNotEmpty()) log.error("events refused by the backend: ${verdict.refused.joinToString("; ")}")
            if (verdict.retry.isNotEmpty()) {
                // The backend has not recorded the install: report it again, then these events.
                platform.store.remove(KEY_INSTALL_TRACKED)
                return scheduleRetry()
            }
        }
        retryDelayMs = 0
    }

    private fun scheduleRetry(cause: Exception? = null) {
        retryDelayMs = if (retryDelayMs == 0L) settings.retryDelayMs else minOf(retryDelayMs * 2, settings.maxRetryDelayMs)
        log.info("backend not reachable (${cause?.message ?: "install pending"}): retrying in $retryDelayMs ms")
        retry = worker.schedule({
            retry = null
            flush()
        }, retryDelayMs, TimeUnit.MILLISECONDS)
    }

    /** On the worker: reports the first open once per install; true once it is recorded. */
    private fun ensureInstall(): Boolean {
        if (platform.store.get(KEY_INSTALL_TRACKED) != null) {
            startPolling()
            return true
        }
        val body =
            try {
                Requests.install(
                    wrapper = wrapper,
                    serviceId = serviceId!!,
                    firstOpenMs = platform.store.get(KEY_FIRST_OPEN)?.toLongOrNull() ?: platform.clock(),
                    sentAtMs = platform.clock(),
                    device = platform.device,
                    advertisingId = advertisingId(),
                    referrer = installReferrer(),
                    openUrl = openUrl,
                    customerUserId = customerUserId,
                )
            } catch (e: RuntimeException) {
                log.error("device signals failed", e)
                return false
            }
        return try {
            api.install(if (minimalInstall) Requests.minimalInstall(body, platform.clock()) else body)
            platform.store.put(KEY_INSTALL_TRACKED, "1")
            log.info("install recorded")
            startPolling()
            true
        } catch (e: AuthenticationException) {
            disable()
            false
        } catch (e: HttpException) {
            if (refusedForGood(e.code) && !minimalInstall) {
                // The same body would be refused forever, and every event waits on the install.
                log.error("install refused by the backend (${e.message}): sent again with its required fields only")
                minimalInstall = true
                return ensureInstall()
            }
            log.warn("install not recorded yet: ${e.message}")
            initialMatch.complete(Unit)
            false
        } catch (e: Exception) {
            log.warn("install not recorded yet: ${e.message}")
            // An attempt was made and did not resolve: a reader sees `failed` until the retry.
            initialMatch.complete(Unit)
            false
        }
    }

    private fun installReferrer(): InstallReferrerDetails? {
        if (!referrerRead) {
            referrer =
                try {
                    platform.installReferrer.fetch()
                } catch (e: LinkageError) {
                    // NoClassDefFoundError: the app ships without the Play install referrer library.
                    log.warn("the Play install referrer library is missing (${e.message}): the install is sent without its referrer")
                    null
                } catch (e: Exception) {
                    log.warn("install referrer unavailable: ${e.message}")
                    null
                }
            referrerRead = true
        }
        return referrer
    }

    /** The advertising id, or null: without consent, Play services or its library. */
    private fun advertisingId(): String? =
        try {
            platform.device.advertisingId()
        } catch (e: LinkageError) {
            log.warn("the ads identifier library is missing (${e.message}): the install is sent without the advertising id")
            null
        } catch (e: Exception) {
            log.debug("no advertising id: ${e.message}")
            null
        }

    /** Reads the install's attribution until it resolves; `failed` and errors are tried again. */
    private fun startPolling() {
        if (polling) return
        if (platform.store.get(KEY_ATTRIBUTION) != null) {
            initialMatch.complete(Unit)
            return
        }
        polling = true
        poller.execute { poll(settings.retryDelayMs) }
    }

    private fun poll(delayMs: Long) {
        if (disabled || deleted) return
        val id = serviceId ?: return
        val next =
            try {
                val answer = api.attribution(id, settings.attributionWaitSeconds)
                val status = answer[MATCH_STATUS]
                when {
                    answer.isEmpty() -> 0L // still pending: wait on the backend again
                    status == "failed" -> {
                        log.info("attribution failed on the backend: trying again")
                        initialMatch.complete(Unit)
                        delayMs
                    }
                    else -> {
                        if (!disabled && !deleted) platform.store.put(KEY_ATTRIBUTION, Json.write(answer))
                        log.info("attribution resolved: $status")
                        initialMatch.complete(Unit)
                        return
                    }
                }
            } catch (e: HttpException) {
                if (e.code == 404) {
                    log.warn("the backend knows no install $id: attribution stops")
                    initialMatch.complete(Unit)
                    return
                }
                initialMatch.complete(Unit)
                delayMs
            } catch (e: AuthenticationException) {
                worker.execute { disable() }
                return
            } catch (e: Exception) {
                initialMatch.complete(Unit)
                delayMs
            }
        poller.schedule({ poll(minOf(delayMs * 2, settings.maxRetryDelayMs)) }, next, TimeUnit.MILLISECONDS)
    }

    /**
     * The attribution known now, without `service_match_status`, which Android does not send
     * (docs/attribution.md#results): empty when nothing is known. [rawReferrer]'s parameters
     * fill in what the backend's answer does not hold.
     */
    fun getAttributionParams(rawReferrer: String?): Map<String, String> {
        if (!configured || disabled) return emptyMap()
        val cached = platform.store.get(KEY_ATTRIBUTION)?.let { runCatching { Json.parseObject(it) }.getOrNull() }.orEmpty()
        val params = LinkedHashMap<String, String>()
        if (!rawReferrer.isNullOrBlank()) {
            params.putAll(LinkParser.query(rawReferrer))
        }
        for ((k, v) in cached) if (k != MATCH_STATUS && v is String) params[k] = v
        return params
    }

    suspend fun awaitAttributionParams(rawReferrer: String?): Map<String, String> {
        if (configured && !disabled) initialMatch.await()
        return getAttributionParams(rawReferrer)
    }

    suspend fun deleteUserData() {
        check(configured) { "configure has not been called" }
        withContext(workerDispatcher) {
            api.deleteInstall(serviceId!!)
            deleted = true
            platform.store.remove(KEY_ATTRIBUTION)
            queue.clear()
            log.info("the install's data is deleted")
        }
    }

    /** Remembers the link that opened the app, for the install's `open_url` on its first launch. */
    fun noteOpenUrl(url: String) {
        if (openUrl == null) openUrl = url
    }

    fun getServiceId(): String? = serviceId

    fun isSdkDisabled(): Boolean = !configured || disabled

    fun isConfigured(): Boolean = configured

    fun isEnabled(): Boolean = configured && !disabled && config?.enabled == true

    fun getLastInitError(): Throwable? = lastInitError

    /** Waits until the worker has done what was handed to it so far. */
    internal fun drain() {
        worker.submit {}.get()
    }

    /** Stops this instance's threads, as the end of the app's process does. */
    internal fun close() {
        worker.shutdownNow()
        poller.shutdownNow()
    }

    companion object {
        /** A 4xx but 408 and 429: the same request would be refused again. */
        fun refusedForGood(code: Int): Boolean = code in 400..499 && code != 408 && code != 429

        const val MATCH_STATUS = "service_match_status"
        private const val MAX_EARLY_EVENTS = 1_000
        private const val KEY_SERVICE_ID = "service_id"
        private const val KEY_FIRST_OPEN = "first_open_time"
        private const val KEY_INSTALL_TRACKED = "install_tracked"
        private const val KEY_CUSTOMER_USER_ID = "customer_user_id"
        private const val KEY_CONFIG = "remote_config"
        private const val KEY_ATTRIBUTION = "attribution"
    }
}
