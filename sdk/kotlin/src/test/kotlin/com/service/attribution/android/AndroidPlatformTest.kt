package com.service.attribution.android

import android.app.Activity
import android.app.ActivityManager
import android.app.Application
import android.content.Context
import android.os.Bundle
import android.os.Looper
import com.android.installreferrer.api.InstallReferrerClient
import com.android.installreferrer.api.InstallReferrerStateListener
import com.android.installreferrer.api.ReferrerDetails
import com.service.attribution.EventType
import com.service.attribution.InitListener
import com.service.attribution.LogLevel
import com.service.attribution.core.HttpRequest
import com.service.attribution.core.HttpTransport
import com.service.attribution.core.InstallReferrerDetails
import com.service.attribution.core.Json
import com.service.attribution.core.LifecycleListener
import com.service.attribution.core.LogSink
import com.service.attribution.core.Logger
import com.service.attribution.core.ReferrerUnavailableException
import com.service.attribution.core.Requests
import com.service.attribution.core.SdkCore
import com.service.attribution.support.ManualClock
import com.service.attribution.support.Service
import com.service.attribution.support.eventually
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.Robolectric
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config
import java.util.concurrent.TimeUnit
import java.util.concurrent.CopyOnWriteArrayList

/** A Play install referrer client answering [code] and, for OK, [referrer]. */
private class FakeReferrerClient(
    private val code: Int,
    private val referrer: String = "",
    private val clickSeconds: Long = 1_789_552_700,
) : InstallReferrerClient() {
    var ended = false

    /** Whether the referrer was read inside the setup's callback (on a device, the main thread). */
    var readInCallback = false
    private var inCallback = false

    override fun isReady() = true

    override fun startConnection(listener: InstallReferrerStateListener) {
        inCallback = true
        try {
            listener.onInstallReferrerSetupFinished(code)
        } finally {
            inCallback = false
        }
    }

    override fun endConnection() {
        ended = true
    }

    override fun getInstallReferrer(): ReferrerDetails {
        if (inCallback) readInCallback = true
        return ReferrerDetails(
            Bundle().apply {
                putString("install_referrer", referrer)
                putLong("referrer_click_timestamp_seconds", clickSeconds)
                putLong("install_begin_timestamp_seconds", clickSeconds + 60)
                putLong("referrer_click_timestamp_server_seconds", clickSeconds + 1)
                putLong("install_begin_timestamp_server_seconds", clickSeconds + 61)
                putString("install_version", "3.2.1")
            },
        )
    }
}

/** SharedPreferences in memory that records how each edit was written: `commit` or `apply`. */
private class RecordingPreferences(private val commitSucceeds: Boolean) : android.content.SharedPreferences {
    val values = java.util.concurrent.ConcurrentHashMap<String, String>()
    val writes = CopyOnWriteArrayList<String>()

    override fun getString(key: String, defValue: String?): String? = values[key] ?: defValue

    override fun edit(): android.content.SharedPreferences.Editor =
        object : android.content.SharedPreferences.Editor {
            private val changes = ArrayList<() -> Unit>()

            override fun putString(key: String, value: String?) = apply { changes += { if (value == null) values.remove(key) else values[key] = value } }

            override fun remove(key: String) = apply { changes += { values.remove(key) } }

            override fun commit(): Boolean {
                changes.forEach { it() }
                writes += "commit"
                return commitSucceeds
            }

            override fun apply() {
                changes.forEach { it() }
                writes += "apply"
            }

            override fun putStringSet(key: String, values: MutableSet<String>?) = throw UnsupportedOperationException()

            override fun putInt(key: String, value: Int) = throw UnsupportedOperationException()

            override fun putLong(key: String, value: Long) = throw UnsupportedOperationException()

            override fun putFloat(key: String, value: Float) = throw UnsupportedOperationException()

            override fun putBoolean(key: String, value: Boolean) = throw UnsupportedOperationException()

            override fun clear() = throw UnsupportedOperationException()
        }

    override fun getAll(): MutableMap<String, *> = HashMap(values)

    override fun getStringSet(key: String, defValues: MutableSet<String>?) = defValues

    override fun getInt(key: String, defValue: Int) = defValue

    override fun getLong(key: String, defValue: Long) = defValue

    override fun getFloat(key: String, defValue: Float) = defValue

    override fun getBoolean(key: String, defValue: Boolean) = defValue

    override fun contains(key: String) = values.containsKey(key)

    override fun registerOnSharedPreferenceChangeListener(listener: android.content.SharedPreferences.OnSharedPreferenceChangeListener) = Unit

    override fun unregisterOnSharedPreferenceChangeListener(listener: android.content.SharedPreferences.OnSharedPreferenceChangeListener) = Unit
}

/**
 * The Android implementations of the core's seams, on Robolectric's Android framework: the
 * SharedPreferences store across a restart, the Play install referrer flow behind
 * InstallReferrerClient, an app without the optional Google libraries, and the app's
 * foreground and background from its activities.
 */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [34], manifest = Config.NONE) // compileSdk (test.sh checks it against gradle/libs.versions.toml)
class AndroidPlatformTest {
    private val cores = ArrayList<SdkCore>()
    private val since = System.currentTimeMillis() / 1000 - 120

    @After
    fun close() = cores.forEach { it.close() }

    private fun launch(
        app: Context,
        key: String,
        referrerClient: (Context) -> InstallReferrerClient = { FakeReferrerClient(InstallReferrerClient.InstallReferrerResponse.FEATURE_NOT_SUPPORTED) },
        advertisingIdInfo: (Context) -> com.google.android.gms.ads.identifier.AdvertisingIdClient.Info = { throw IllegalStateException("no Play services here") },
    ): SdkCore {
        val core = SdkCore().also { cores += it }
        core.configure(AndroidPlatform.create(app, referrerClient, advertisingIdInfo), AndroidPlatform.settings(app), key, LogLevel.DEBUG, null, null)
        return core
    }

    private fun preferences(app: Context) = app.getSharedPreferences(AndroidPlatform.PREFERENCES, Context.MODE_PRIVATE)

    @Test
    fun `the Play referrer's answer becomes the install's referrer`() {
        val app = robolectricApp()
        val ok = FakeReferrerClient(InstallReferrerClient.InstallReferrerResponse.OK, "utm_source=x&service_click_id=abc")
        val details = PlayInstallReferrer(app) { ok }.fetch()
        assertEquals(InstallReferrerDetails("utm_source=x&service_click_id=abc", 1_789_552_700, 1_789_552_760, 1_789_552_701, 1_789_552_761, "3.2.1"), details)
        assertTrue("the connection is closed", ok.ended)
        // Read by the caller (the SDK's worker), not in the callback, which Android runs on the
        // app's main thread: the read is a call into the Play Store's process.
        assertFalse("read in the callback", ok.readInCallback)
        // No referrer to give: none. Not able to answer now: asked again (the core waits for it).
        val unsupported = FakeReferrerClient(InstallReferrerClient.InstallReferrerResponse.FEATURE_NOT_SUPPORTED)
        assertNull(PlayInstallReferrer(app) { unsupported }.fetch())
        assertTrue(unsupported.ended)
        for (code in listOf(InstallReferrerClient.InstallReferrerResponse.SERVICE_UNAVAILABLE, InstallReferrerClient.InstallReferrerResponse.SERVICE_DISCONNECTED)) {
            val unavailable = FakeReferrerClient(code)
            assertThrows(ReferrerUnavailableException::class.java) { PlayInstallReferrer(app) { unavailable }.fetch() }
            assertTrue(unavailable.ended)
        }
    }

    @Test
    fun `a tap on the service's link, handed over by the Play referrer, matches the install`() {
        val app = robolectricApp()
        val service = Service.createApp("playreferrer")
        val referrer = Service.tapFromAndroid(Service.createLink(service, "/shop/42", "promo=PLAY"))
        val now = System.currentTimeMillis() / 1000
        val core = launch(app, service.sdkKey, referrerClient = { FakeReferrerClient(InstallReferrerClient.InstallReferrerResponse.OK, referrer, now - 60) })
        val params = runBlocking { withTimeout(60_000) { core.awaitAttributionParams(null) } }
        assertEquals("/shop/42", params["deep_link_path"])
        assertEquals("PLAY", params["promo"])
        assertEquals("kotlin_ads", params["media_source"])
    }

    @Test
    fun `without the install referrer and ads identifier libraries the install is still sent, with one warning each`() {
        val app = robolectricApp()
        val service = Service.createApp("nolibs")
        val core =
            launch(
                app,
                service.sdkKey,
                referrerClient = { throw NoClassDefFoundError("com/android/installreferrer/api/InstallReferrerClient") },
                advertisingIdInfo = { throw NoClassDefFoundError("com/google/android/gms/ads/identifier/AdvertisingIdClient") },
            )
        core.sendEvent(EventType.LOGIN, null, null)
        val records = Service.exportUntil(service, since) { it.size == 2 }
        // In either order: the install's time is its first open's, the event's its own, each set
        // on the service's clock by its request's sent_at, the two made within a millisecond.
        assertEquals(listOf("service_install", "service_login"), records.map { it["event_name"].toString() }.sorted())
        val warnings = sdkLogs(WARN)
        assertEquals(warnings.toString(), 1, warnings.count { "install referrer library is missing" in it })
        assertEquals(warnings.toString(), 1, warnings.count { "ads identifier library is missing" in it })
    }

    @Test
    fun `limit ad tracking turned on after the install is read off the main thread at the next start, and the later events export without the id`() {
        val app = robolectricApp()
        val service = Service.createApp("limitadtracking")
        val gaid = "38400000-8cf0-11bd-b23e-10b96e40000d"
        val limited = java.util.concurrent.atomic.AtomicBoolean(false)
        val readers = CopyOnWriteArrayList<Thread>()
        val info = { _: Context ->
            readers += Thread.currentThread()
            // Deprecated for apps, which get it from Play services; a test has no other way to make one.
            @Suppress("DEPRECATION")
            com.google.android.gms.ads.identifier.AdvertisingIdClient.Info(gaid, limited.get())
        }
        val first = launch(app, service.sdkKey, advertisingIdInfo = info)
        first.sendEvent(EventType.LOGIN, null, null)
        Service.exportUntil(service, since) { it.size == 2 }
        first.close()

        // The user limited ad tracking: Play services still give the id, flagged not to be used.
        limited.set(true)
        val second = launch(app, service.sdkKey, advertisingIdInfo = info)
        second.sendEvent(EventType.SHARE, null, null)
        val records = Service.exportUntil(service, since) { it.size == 3 }
        val maids = records.associate { it["event_name"] to it["maid"] }
        assertEquals(mapOf("service_install" to gaid, "service_login" to gaid, "service_share" to null), maids)
        // Once for the install, once at the start, each on the SDK's worker.
        assertEquals(2, readers.size)
        assertTrue(readers.toString(), readers.none { it === Looper.getMainLooper().thread })
    }

    @Test
    fun `SharedPreferences keep the install and the user id across a restart`() {
        val app = robolectricApp()
        val service = Service.createApp("restart")
        val first = launch(app, service.sdkKey)
        first.setCustomerUserId("kept-user")
        first.sendEvent(EventType.TUTORIAL_COMPLETE, null, null)
        Service.exportUntil(service, since) { it.size == 2 }
        assertTrue(eventually { preferences(app).getString("install_tracked", null) != null })
        val id = first.getServiceId()
        assertEquals(id, preferences(app).getString("service_id", null))
        first.close()

        val second = launch(app, service.sdkKey)
        assertEquals(id, second.getServiceId())
        second.sendEvent(EventType.SHARE, null, null)
        val records = Service.exportUntil(service, since) { it.size == 3 }
        // The first two in either order (see the test without the libraries); the next launch's last.
        assertEquals(setOf("service_install", "service_tutorial_complete"), records.take(2).map { it["event_name"] }.toSet())
        assertEquals("service_share", records.last()["event_name"])
        assertEquals(setOf(id), records.map { it["service_id"] }.toSet())
        assertEquals("kept-user", records.last()["customer_user_id"])
    }

    @Test
    fun `the consent platform's IAB TCF values are read from the default SharedPreferences and go on the install`() {
        val app = robolectricApp()
        // Where a consent platform writes them: PreferenceManager.getDefaultSharedPreferences.
        @Suppress("DEPRECATION")
        android.preference.PreferenceManager.getDefaultSharedPreferences(app).edit()
            .putString("IABTCF_TCString", "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA").putInt("IABTCF_gdprApplies", 1).commit()
        assertEquals(com.service.attribution.core.TcfValues("CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA", 1), DefaultPreferencesTcf(app).read())
        val service = Service.createApp("tcf")
        val core = launch(app, service.sdkKey)
        core.sendEvent(EventType.LOGIN, null, null)
        // The journal is written (commit) before sendEvent returns, in its own small file.
        Service.exportUntil(service, since) { it.size == 2 }
        assertTrue(eventually { preferences(app).getString("consent_sent", null) != null })
        assertEquals(
            mapOf("gdpr_applies" to true, "ad_user_data" to null, "ad_personalization" to null, "tcf_string" to "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA"),
            com.service.attribution.core.Json.parseObject(preferences(app).getString("consent_sent", null)!!),
        )
    }

    @Test
    fun `the store commits each write off the main thread, writes behind on it, and warns when a commit fails`() {
        val preferences = RecordingPreferences(commitSucceeds = false)
        val logged = CopyOnWriteArrayList<Pair<LogLevel, String>>()
        val store = PreferencesStore(preferences, Logger(LogSink { level, message, _ -> logged.add(level to message) }, LogLevel.DEBUG))
        val results = CopyOnWriteArrayList<Boolean>()
        val worker = Thread {
            results += store.put("service_id", "abc")
            results += store.remove("stopped")
        }
        worker.start()
        worker.join()
        // On disk when each write returns: an event moved to the queue, the install's id, a stop.
        assertEquals(listOf("commit", "commit"), preferences.writes)
        assertEquals(2, logged.count { it.first == LogLevel.WARN && "did not write" in it.second })
        // Each failed commit says so, for a caller that must keep its data where it was.
        assertEquals(listOf(false, false), results.toList())
        assertEquals("abc", store.get("service_id"))
        // The main thread never waits for the disk.
        assertTrue(store.put("consent", "{}"))
        assertEquals("apply", preferences.writes.last())
    }

    @Test
    fun `an event handed to sendEvent is a line of its journal file, out of backups, before it returns`() {
        val app = robolectricApp()
        // A worker that runs nothing: what is on disk when sendEvent returns is sendEvent's doing.
        val idle = com.service.attribution.support.ManualScheduler(ManualClock())
        val core = SdkCore(idle, idle).also { cores += it }
        core.configure(AndroidPlatform.create(app), AndroidPlatform.settings(app), "sdk_key", LogLevel.NONE, null, null)
        core.sendEvent(EventType.SHARE, null, mapOf("sku" to "gems"))
        core.sendEvent(EventType.LOGIN, null, null)
        val journal = java.io.File(app.noBackupFilesDir, AndroidPlatform.EVENTS).readText()
        val lines = journal.split('\n')
        assertEquals(journal, 3, lines.size)
        assertTrue(journal, lines[0].contains("SHARE") && lines[0].contains("gems") && lines[1].contains("LOGIN"))
        // In no preferences file: each commit of one writes it whole.
        assertNull(preferences(app).getString("pending_events", null))
        assertNull(app.getSharedPreferences(AndroidPlatform.JOURNAL, Context.MODE_PRIVATE).getString("pending_events", null))
        // A new process reads them back.
        core.close()
        val next = SdkCore(idle, idle).also { cores += it }
        next.configure(AndroidPlatform.create(app), AndroidPlatform.settings(app), "sdk_key", LogLevel.NONE, null, null)
        assertEquals(2, next.queuedCount())
    }

    @Test
    fun `the queues are in files of their own, a line an item, not in the one configure reads on the main thread`() {
        val app = robolectricApp()
        val android = AndroidPlatform.create(app)
        // Offline for sessions and events: they stay queued on the device.
        val transport = com.service.attribution.support.ScriptedTransport { request ->
            when {
                request.url.endsWith("/v1/config") -> com.service.attribution.core.HttpResponse(200, """{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}""")
                request.url.endsWith("/v1/installs") -> com.service.attribution.core.HttpResponse(202, "{}")
                else -> null
            }
        }
        val platform = com.service.attribution.core.Platform(
            store = android.store, device = android.device, installReferrer = android.installReferrer,
            mainThread = android.mainThread, log = android.log, http = transport, clock = android.clock,
            tcf = android.tcf, journal = android.journal, lifecycle = android.lifecycle,
            appInstalledAt = android.appInstalledAt, drafts = android.drafts,
            eventQueue = android.eventQueue, sessionQueue = android.sessionQueue,
        )
        val worker = com.service.attribution.support.ManualScheduler(ManualClock())
        val core = SdkCore(worker, worker).also { cores += it }
        core.configure(platform, com.service.attribution.core.SdkSettings(baseUrl = "https://backend.test"), "sdk_key", LogLevel.NONE, null, null)
        core.sendEvent(EventType.SHARE, null, mapOf("sku" to "gems"))
        worker.runDue()
        assertEquals(1, transport.count("POST", "/v1/sessions"))
        val queued = java.io.File(app.noBackupFilesDir, AndroidPlatform.EVENT_QUEUE).readText()
        assertTrue(queued, queued.contains("SHARE") && queued.contains("gems") && queued.endsWith("}\n"))
        assertTrue(java.io.File(app.noBackupFilesDir, AndroidPlatform.SESSION_QUEUE).readText().contains("started_at"))
        assertNull(preferences(app).getString("event_queue", null))
        assertNull(preferences(app).getString("session_queue", null))
        assertTrue(preferences(app).getString("service_id", null) != null)
    }

    @Test
    fun `the library's provider gives the SDK its Context, and calls before configure are in the journal for the next launch`() {
        val app = robolectricApp()
        // As Android creates the providers of the merged manifest before Application.onCreate.
        Robolectric.buildContentProvider(ServiceAttributionInitProvider::class.java).create("${app.packageName}.serviceattribution.init")
        assertTrue(com.service.attribution.ServiceAttributionSdk.core.hasEarlyStorage())
        // A process that makes the calls before configure, then ends.
        val first = SdkCore().also { cores += it }
        first.useEarlyStorage { AndroidPlatform.earlyStorage(app) }
        first.stop()
        first.setAnonymous(true)
        first.setConsent(com.service.attribution.Consent(gdprApplies = true, adUserData = false))
        val journal = app.getSharedPreferences(AndroidPlatform.JOURNAL, Context.MODE_PRIVATE)
        assertEquals("1", journal.getString("stopped", null))
        assertEquals("1", journal.getString("anonymous", null))
        assertTrue(journal.getString("consent", null)!!.contains("\"ad_user_data\":false"))
        first.close()
        // The next launch reads them at configure: stopped, so no request at all.
        val idle = com.service.attribution.support.ManualScheduler(ManualClock())
        val next = SdkCore(idle, idle).also { cores += it }
        next.configure(AndroidPlatform.create(app), AndroidPlatform.settings(app), "sdk_key", LogLevel.NONE, null, null)
        assertTrue(next.isStopped())
        assertTrue(next.isAnonymous())
    }

    @Test
    fun `a stop, anonymous mode and a consent are in the journal file before their calls return`() {
        val app = robolectricApp()
        // A worker that runs nothing, busy with a slow request: what is on disk is the calls' doing.
        val idle = com.service.attribution.support.ManualScheduler(ManualClock())
        val core = SdkCore(idle, idle).also { cores += it }
        core.configure(AndroidPlatform.create(app), AndroidPlatform.settings(app), "sdk_key", LogLevel.NONE, null, null)
        core.stop()
        core.setAnonymous(true)
        core.setConsent(com.service.attribution.Consent(gdprApplies = true, adUserData = false))
        val journal = app.getSharedPreferences(AndroidPlatform.JOURNAL, Context.MODE_PRIVATE)
        assertEquals("1", journal.getString("stopped", null))
        assertEquals("1", journal.getString("anonymous", null))
        assertTrue(journal.getString("consent", null)!!.contains("\"ad_user_data\":false"))
        // The app killed here: its next launch is stopped and anonymous.
        val next = SdkCore(idle, idle).also { cores += it }
        next.configure(AndroidPlatform.create(app), AndroidPlatform.settings(app), "sdk_key", LogLevel.NONE, null, null)
        assertTrue(next.isStopped())
        assertTrue(next.isAnonymous())
    }

    @Test
    fun `the app's activities say when it leaves and comes back, and a rotation or a move between activities is no leave`() {
        val app = robolectricApp()
        val seen = ArrayList<String>()
        // Started before the SDK watches (configure called late, as the Flutter plugin does).
        val early = Robolectric.buildActivity(Activity::class.java).setup()
        ActivityLifecycle(app).watch(
            object : LifecycleListener {
                override fun onForeground() {
                    seen += "foreground"
                }

                override fun onBackground() {
                    seen += "background"
                }
            },
        )
        // Not known, and no other activity started: its stop is the app's leave.
        early.pause().stop()
        assertEquals(listOf("background"), seen)
        val main = Robolectric.buildActivity(Activity::class.java).setup()
        assertEquals(listOf("background", "foreground"), seen)
        // A rotation: the activity stopped and made again, the app never away.
        main.recreate()
        // One activity opening another, then going back to it.
        val second = Robolectric.buildActivity(Activity::class.java).setup()
        main.pause().stop()
        main.restart()
        second.pause().stop().destroy()
        main.resume()
        assertEquals(listOf("background", "foreground"), seen)
        // Home, and back.
        main.pause().stop()
        assertEquals(listOf("background", "foreground", "background"), seen)
        main.restart().resume()
        assertEquals(listOf("background", "foreground", "background", "foreground"), seen)
    }

    @Test
    fun `configured, the core watches the app's activities, and a return after the session interval is a session`() {
        val app = robolectricApp()
        val service = Service.createApp("lifecycle")
        val clock = ManualClock(System.currentTimeMillis())
        val core = SdkCore().also { cores += it }
        val platform = AndroidPlatform.create(app).let {
            com.service.attribution.core.Platform(it.store, it.device, { null }, it.mainThread, it.log, it.http, clock.read, it.tcf, it.journal, it.lifecycle)
        }
        core.configure(platform, AndroidPlatform.settings(app), service.sdkKey, LogLevel.DEBUG, null, null)
        val activity = Robolectric.buildActivity(Activity::class.java).setup()
        assertTrue("the cold start's session sent", eventuallyOnMain { core.queuedSessionCount() == 0 && sdkLogs(android.util.Log.DEBUG).count { it == "1 session accepted" } == 1 })
        activity.pause().stop()
        // Away for the remote configuration's interval (the service's default, 30 minutes): by the device clock.
        clock.now += 1_800_000
        activity.restart().resume()
        assertTrue("the return's session sent", eventuallyOnMain { sdkLogs(android.util.Log.DEBUG).count { it == "1 session accepted" } == 2 })
        assertEquals(0L, core.droppedSessionCount())
    }
    /** This process as the system ranks it ([ActivityManager.getMyMemoryState]'s answer). */
    private fun processImportance(app: Application, importance: Int, reason: Int = ActivityManager.RunningAppProcessInfo.REASON_UNKNOWN) {
        val process =
            ActivityManager.RunningAppProcessInfo(app.packageName, android.os.Process.myPid(), arrayOf(app.packageName)).apply {
                this.importance = importance
                importanceReasonCode = reason
            }
        shadowOf(app.getSystemService(ActivityManager::class.java)).setProcesses(listOf(process))
    }

    @Test
    fun `the app is in the foreground at configure when the system ranks the process so for its own activity`() {
        val app = robolectricApp()
        val lifecycle = ActivityLifecycle(app)
        processImportance(app, ActivityManager.RunningAppProcessInfo.IMPORTANCE_FOREGROUND)
        assertTrue(lifecycle.isInForeground())
        // Started for a receiver, a job, a service: no activity.
        processImportance(app, ActivityManager.RunningAppProcessInfo.IMPORTANCE_SERVICE)
        assertFalse(lifecycle.isInForeground())
        processImportance(app, ActivityManager.RunningAppProcessInfo.IMPORTANCE_CACHED)
        assertFalse(lifecycle.isInForeground())
        // In the foreground only for a client in the foreground using its service (a home screen widget's).
        processImportance(app, ActivityManager.RunningAppProcessInfo.IMPORTANCE_FOREGROUND, ActivityManager.RunningAppProcessInfo.REASON_SERVICE_IN_USE)
        assertFalse(lifecycle.isInForeground())
        // No Application to watch: counted as in the foreground.
        assertTrue(ActivityLifecycle(null).isInForeground())
    }

    /**
     * A process Android starts in the background (a push message, a job): the system ranks it
     * below the foreground, and the Application configures with no activity started. Its
     * requests are recorded; [clock] is the device's.
     */
    private fun configuredInBackground(app: Application, clock: ManualClock, sent: MutableList<HttpRequest>): SdkCore {
        processImportance(app, ActivityManager.RunningAppProcessInfo.IMPORTANCE_SERVICE)
        val service = Service.createApp("background")
        val core = SdkCore().also { cores += it }
        val platform = AndroidPlatform.create(app).let {
            val http = HttpTransport { request -> sent += request; it.http.send(request) }
            com.service.attribution.core.Platform(it.store, it.device, { null }, it.mainThread, it.log, http, clock.read, it.tcf, it.journal, it.lifecycle)
        }
        val errors = CopyOnWriteArrayList<Throwable>()
        var initialized = false
        val listener =
            object : InitListener {
                override fun onError(t: Throwable) {
                    errors += t
                }

                override fun onInitialized(mainThreadDurationMs: Long, totalDurationMs: Long) {
                    initialized = true
                }
            }
        core.configure(platform, AndroidPlatform.settings(app), service.sdkKey, LogLevel.DEBUG, listener, null)
        assertTrue("initialized, the install sent", eventuallyOnMain { initialized })
        assertEquals(emptyList<Throwable>(), errors.toList())
        assertTrue(sent.any { it.url.endsWith("/v1/installs") })
        return core
    }

    @Test
    fun `a process whose Application configures with no activity started sends no session`() {
        val app = robolectricApp()
        val sent = CopyOnWriteArrayList<HttpRequest>()
        val core = configuredInBackground(app, ManualClock(System.currentTimeMillis()), sent)
        // Its work done, the process stays in the background.
        shadowOf(Looper.getMainLooper()).idle()
        assertEquals(emptyList<HttpRequest>(), sent.filter { it.url.endsWith("/v1/sessions") })
        assertEquals(0, core.queuedSessionCount())
        assertEquals(0L, core.droppedSessionCount())
    }

    @Test
    fun `a process started in the background sends its session when its first activity starts, started then`() {
        val app = robolectricApp()
        val sent = CopyOnWriteArrayList<HttpRequest>()
        val clock = ManualClock(System.currentTimeMillis())
        val core = configuredInBackground(app, clock, sent)
        // The user opens the app 10 minutes later, in the same process.
        clock.now += 600_000
        val opened = clock.now
        processImportance(app, ActivityManager.RunningAppProcessInfo.IMPORTANCE_FOREGROUND)
        val activity = Robolectric.buildActivity(Activity::class.java).setup()
        assertTrue("the session sent", eventuallyOnMain { core.queuedSessionCount() == 0 && sdkLogs(android.util.Log.DEBUG).count { it == "1 session accepted" } == 1 })
        val sessions = sent.filter { it.url.endsWith("/v1/sessions") }.flatMap { Json.parseObject(it.body!!)["sessions"] as List<*> }
        assertEquals(listOf(Requests.iso(opened)), sessions.map { (it as Map<*, *>)["started_at"] })
        // A short leave: the same session (the worker's work behind the return done once a refresh is).
        activity.pause().stop()
        clock.now += 60_000
        activity.restart().resume()
        core.refreshConfigAsync().get(30, TimeUnit.SECONDS)
        assertEquals(1, sent.count { it.url.endsWith("/v1/sessions") })
        assertEquals(0L, core.droppedSessionCount())
    }
}
