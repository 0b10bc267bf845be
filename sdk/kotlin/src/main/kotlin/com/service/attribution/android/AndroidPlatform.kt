package com.service.attribution.android

import android.app.Activity
import android.app.ActivityManager
import android.app.Application
import android.content.BroadcastReceiver
import android.content.Context
import android.content.Intent
import android.content.IntentFilter
import android.content.SharedPreferences
import android.content.pm.PackageManager
import android.os.Build
import android.provider.Settings
import android.security.NetworkSecurityPolicy
import android.os.Bundle
import android.os.Handler
import android.os.Looper
import android.os.UserManager
import android.util.Log
import com.android.installreferrer.api.InstallReferrerClient
import com.android.installreferrer.api.InstallReferrerStateListener
import com.google.android.gms.ads.identifier.AdvertisingIdClient
import com.service.attribution.LogLevel
import com.service.attribution.core.AppLifecycle
import com.service.attribution.core.DeviceSignals
import com.service.attribution.core.EarlyStorage
import com.service.attribution.core.InstallReferrerDetails
import com.service.attribution.core.InstallReferrerSource
import com.service.attribution.core.KeyValueStore
import com.service.attribution.core.LifecycleListener
import com.service.attribution.core.LogSink
import com.service.attribution.core.Logger
import com.service.attribution.core.MainThread
import com.service.attribution.core.Platform
import com.service.attribution.core.ReferrerUnavailableException
import com.service.attribution.core.SdkSettings
import com.service.attribution.core.TcfSource
import com.service.attribution.core.TcfValues
import java.io.File
import java.util.Collections
import java.util.IdentityHashMap
import java.util.Locale
import java.util.TimeZone
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicReference

/** The core's seams, on Android. Thin on purpose: every rule is in the core. */
internal object AndroidPlatform {
    const val TAG = "ServiceSdk"
    private const val BASE_URL_META = "com.service.attribution.BASE_URL"

    const val PREFERENCES = "com.service.attribution"

    /** What stop(), setAnonymous and setConsent set, written with commit() before they return: a file of its own, kept small. */
    const val JOURNAL = "com.service.attribution.journal"

    /**
     * What sendEvent hands over, a line an event appended before it returns ([FileLineLog]), in
     * the app's files kept out of backups: another install would forget it (see the backups in
     * the README), and the file is this install's alone.
     */
    const val EVENTS = "com.service.attribution.events"

    /**
     * The events' and sessions' queues, a line an item ([FileLineLog]) beside [EVENTS], read by
     * the worker alone: SharedPreferences load a file whole at its first read (configure reads
     * [PREFERENCES] on the app's main thread), and write it whole at each commit.
     */
    const val EVENT_QUEUE = "com.service.attribution.event_queue"
    const val SESSION_QUEUE = "com.service.attribution.session_queue"

    /** The app's main thread (listeners run there). */
    val mainThread = MainThread { Handler(Looper.getMainLooper()).post(it) }

    /** Logcat through [level]: what a process that runs no SDK (another of the app's) writes. */
    fun logger(level: LogLevel): Logger = Logger(Logcat, level)

    fun create(
        context: Context,
        referrerClient: (Context) -> InstallReferrerClient = { InstallReferrerClient.newBuilder(it).build() },
        advertisingIdInfo: (Context) -> AdvertisingIdClient.Info = AdvertisingIdClient::getAdvertisingIdInfo,
        logLevel: LogLevel = LogLevel.INFO,
    ) =
        Platform(
            store = PreferencesStore(context.getSharedPreferences(PREFERENCES, Context.MODE_PRIVATE), Logger(Logcat, logLevel)),
            device = AndroidDevice(context, advertisingIdInfo),
            installReferrer = PlayInstallReferrer(context, referrerClient),
            mainThread = mainThread,
            log = Logcat,
            tcf = DefaultPreferencesTcf(context),
            journal = PreferencesStore(context.getSharedPreferences(JOURNAL, Context.MODE_PRIVATE), Logger(Logcat, logLevel), onAnyThread = true),
            lifecycle = ActivityLifecycle(context.applicationContext as? Application),
            appInstalledAt = appInstalledAt(context),
            drafts = FileLineLog(File(context.noBackupFilesDir, EVENTS), Logger(Logcat, logLevel)),
            eventQueue = FileLineLog(File(context.noBackupFilesDir, EVENT_QUEUE), Logger(Logcat, logLevel)),
            sessionQueue = FileLineLog(File(context.noBackupFilesDir, SESSION_QUEUE), Logger(Logcat, logLevel)),
        )

    /**
     * The files configure reads, for the calls made before it (stop, start, anonymous mode,
     * consent): each write committed before the call returns, on whatever thread makes it, as
     * the journal is for sendEvent. Opened only when such a call is made.
     */
    fun earlyStorage(context: Context): EarlyStorage {
        val log = Logger(Logcat, LogLevel.INFO)
        return EarlyStorage(
            store = PreferencesStore(context.getSharedPreferences(PREFERENCES, Context.MODE_PRIVATE), log, onAnyThread = true),
            journal = PreferencesStore(context.getSharedPreferences(JOURNAL, Context.MODE_PRIVATE), log, onAnyThread = true),
            appInstalledAt = { appInstalledAt(context) },
        )
    }

    /**
     * Whether the device's user has unlocked it since it started. Until then, in an app that runs
     * at boot (a `directBootAware` component, Direct Boot), the app's own storage is encrypted and
     * opening SharedPreferences throws: configure waits for [whenUnlocked].
     */
    fun isUserUnlocked(context: Context): Boolean =
        Build.VERSION.SDK_INT < 24 || context.getSystemService(UserManager::class.java)?.isUserUnlocked != false

    /** Runs [then] once, on the main thread, when the user unlocks the device (at once if that happened meanwhile). */
    fun whenUnlocked(context: Context, then: () -> Unit) {
        val ran = AtomicBoolean(false)
        val receiver =
            object : BroadcastReceiver() {
                override fun onReceive(received: Context?, intent: Intent?) {
                    if (!ran.compareAndSet(false, true)) return
                    runCatching { context.unregisterReceiver(this) }
                    then()
                }
            }
        val filter = IntentFilter(Intent.ACTION_USER_UNLOCKED)
        // The system's broadcast alone: no other app may send it to this receiver.
        if (Build.VERSION.SDK_INT >= 33) {
            context.registerReceiver(receiver, filter, Context.RECEIVER_NOT_EXPORTED)
        } else {
            context.registerReceiver(receiver, filter)
        }
        // Unlocked between the check and the registration: its broadcast came before the receiver.
        if (isUserUnlocked(context)) mainThread.post { receiver.onReceive(context, null) }
    }

    /** The package's first install time (an update keeps it); null when Android does not say. */
    private fun appInstalledAt(context: Context): Long? =
        runCatching { context.packageManager.getPackageInfo(context.packageName, 0).firstInstallTime }
            .getOrNull()?.takeIf { it > 0 }

    /** This process's name (`com.example.app`, `com.example.app:push`); null when Android does not say. */
    fun processName(context: Context): String? =
        if (Build.VERSION.SDK_INT >= 28) {
            Application.getProcessName()
        } else {
            val pid = android.os.Process.myPid()
            (context.getSystemService(Context.ACTIVITY_SERVICE) as? ActivityManager)
                ?.runningAppProcesses?.firstOrNull { it.pid == pid }?.processName
        }

    /**
     * Why configure must not run in [process]: one of the app's other processes (a `:push` or
     * `:player` service runs `Application.onCreate` too). SharedPreferences take one process's
     * writes: a second would make its own install id and write its own queue over the main
     * one's. Null in the app's main process, or when the process is not known.
     */
    fun otherProcessRefusal(context: Context, process: String?): IllegalStateException? {
        val main = context.applicationInfo.processName ?: context.packageName
        if (process == null || process == main) return null
        return IllegalStateException(
            "configure ran in the process $process: the SDK runs in the app's main process ($main) only, " +
                "where its data is kept; nothing is sent from this one",
        )
    }

    /**
     * The backend's address, from the app's manifest: the spec names none. Missing, it is
     * empty, and the core disables itself and says why through onError.
     */
    fun settings(context: Context): SdkSettings {
        val baseUrl =
            runCatching {
                context.packageManager.getApplicationInfo(context.packageName, PackageManager.GET_META_DATA)
                    .metaData?.getString(BASE_URL_META)
            }.getOrNull()
        return SdkSettings(baseUrl = baseUrl ?: "")
    }
}

/**
 * SharedPreferences, each write on disk when it returns (commit()): apply() writes behind, and a
 * process killed within the next ~100 ms loses it (an event moved from the journal to the queue,
 * the install's id, a stop). The core writes from its worker thread; a write on the main thread
 * is written behind there, never blocking it, unless [onAnyThread] (the journal, small, written
 * before sendEvent returns on whatever thread calls it). A commit that fails is a warning.
 */
internal class PreferencesStore(
    private val preferences: SharedPreferences,
    private val log: Logger,
    private val onAnyThread: Boolean = false,
) : KeyValueStore {
    override fun get(key: String): String? = preferences.getString(key, null)

    override fun put(key: String, value: String) = write(key, preferences.edit().putString(key, value))

    override fun remove(key: String) = write(key, preferences.edit().remove(key))

    override fun clear() {
        write("every key", preferences.edit().clear())
    }

    /** False when commit() failed; a write behind on the main thread cannot tell, and counts as made. */
    private fun write(key: String, editor: SharedPreferences.Editor): Boolean {
        if (!onAnyThread && Looper.myLooper() == Looper.getMainLooper()) {
            editor.apply()
            return true
        }
        if (editor.commit()) return true
        log.warn("the SDK's storage did not write $key to disk: it may be lost if the app is killed now")
        return false
    }
}

/**
 * The app's foreground and background, from its activities (the library has no lifecycle
 * dependency): in the foreground while one is started. An activity stopped to be made again
 * (a rotation) is no leave. An activity started before configure is not known: its stop, with
 * no other activity started, is still the app's leave, and the first start seen while the app is
 * in the foreground changes nothing.
 *
 * Whether the app is in the foreground when configure runs: Android starts the process in the
 * background too (a push message, a WorkManager job, a broadcast), where `Application.onCreate`
 * configures with no user there. The system's importance of this process says which: foreground
 * while an activity of it is started (visible), as when the Flutter plugin configures once its
 * activity runs, and already for a launch by the user, whose activity the system has started by
 * the time `Application.onCreate` runs; lower for a process started for a receiver, a service or
 * a job. Foreground only because a client in the foreground uses one of its services or
 * providers is not the app's own foreground.
 */
internal class ActivityLifecycle(private val application: Application?) : AppLifecycle {
    override fun watch(listener: LifecycleListener) {
        application?.registerActivityLifecycleCallbacks(StartedActivities(listener))
    }

    /** Without an Application to watch, or when the system does not answer, the app counts as in the foreground (a session at configure). */
    override fun isInForeground(): Boolean {
        if (application == null) return true
        val process = ActivityManager.RunningAppProcessInfo()
        return runCatching {
            ActivityManager.getMyMemoryState(process)
            process.importance == ActivityManager.RunningAppProcessInfo.IMPORTANCE_FOREGROUND &&
                process.importanceReasonCode == ActivityManager.RunningAppProcessInfo.REASON_UNKNOWN
        }.getOrDefault(true)
    }

    /** On the main thread, as Android calls it. */
    private class StartedActivities(private val listener: LifecycleListener) : Application.ActivityLifecycleCallbacks {
        private val started = Collections.newSetFromMap(IdentityHashMap<Activity, Boolean>())
        private var foreground = false

        override fun onActivityStarted(activity: Activity) {
            started.add(activity)
            if (!foreground) {
                foreground = true
                listener.onForeground()
            }
        }

        override fun onActivityStopped(activity: Activity) {
            started.remove(activity)
            if (started.isEmpty() && !activity.isChangingConfigurations) {
                foreground = false
                listener.onBackground()
            }
        }

        override fun onActivityCreated(activity: Activity, savedInstanceState: Bundle?) = Unit

        override fun onActivityResumed(activity: Activity) = Unit

        override fun onActivityPaused(activity: Activity) = Unit

        override fun onActivitySaveInstanceState(activity: Activity, outState: Bundle) = Unit

        override fun onActivityDestroyed(activity: Activity) = Unit
    }
}

/**
 * The IAB TCF values the app's consent platform stored in the default SharedPreferences (what
 * `PreferenceManager.getDefaultSharedPreferences` opens: the file `<package>_preferences`).
 * `IABTCF_gdprApplies` is an int by the TCF spec; a string or boolean is read too.
 */
internal class DefaultPreferencesTcf(private val context: Context) : TcfSource {
    override fun read(): TcfValues {
        val values = context.getSharedPreferences(context.packageName + "_preferences", Context.MODE_PRIVATE).all
        val gdprApplies =
            when (val v = values["IABTCF_gdprApplies"]) {
                is Int -> v
                is Long -> v.toInt()
                is String -> v.trim().toIntOrNull()
                is Boolean -> if (v) 1 else 0
                else -> null
            }
        return TcfValues(values["IABTCF_TCString"] as? String, gdprApplies)
    }
}

/**
 * The device's signals. The advertising id comes from Play services' ads identifier library;
 * without it (NoClassDefFoundError) the core sends the install without the id. An Amazon
 * device (a Fire tablet or TV, which has no Play services) keeps its own in its secure
 * settings, read first there.
 */
internal class AndroidDevice(
    private val context: Context,
    private val advertisingIdInfo: (Context) -> AdvertisingIdClient.Info,
) : DeviceSignals {
    override val osVersion: String? get() = Build.VERSION.RELEASE
    override val deviceModel: String? get() = Build.MODEL
    override val appVersion: String?
        get() = runCatching { context.packageManager.getPackageInfo(context.packageName, 0).versionName }.getOrNull()
    override val locale: String? get() = Locale.getDefault().toLanguageTag()
    override val timezone: String? get() = TimeZone.getDefault().id

    /** Null when ad tracking is limited; throws without Play services (the core catches it). */
    override fun advertisingId(): String? {
        fireAdvertisingId()?.let { return it.id.takeUnless { _ -> it.limited } }
        val info = advertisingIdInfo(context)
        return if (info.isLimitAdTrackingEnabled) null else info.id
    }

    private class FireId(val id: String?, val limited: Boolean)

    /**
     * Fire OS's advertising id and its limit-ad-tracking switch (Amazon's `advertising_id` and
     * `limit_ad_tracking` secure settings); null on another maker's device, or a Fire OS too
     * old to keep one (then Play services are asked, as elsewhere).
     */
    private fun fireAdvertisingId(): FireId? {
        if (!Build.MANUFACTURER.equals("Amazon", ignoreCase = true)) return null
        val resolver = context.contentResolver
        val id = Settings.Secure.getString(resolver, "advertising_id")
        val limited = Settings.Secure.getInt(resolver, "limit_ad_tracking", 0) != 0
        return if (id == null && !limited) null else FireId(id, limited)
    }

    override fun missingPermissions(): List<String> =
        listOf("android.permission.INTERNET").filter {
            context.checkCallingOrSelfPermission(it) != PackageManager.PERMISSION_GRANTED
        }

    override fun cleartextPermitted(host: String): Boolean =
        NetworkSecurityPolicy.getInstance().isCleartextTrafficPermitted(host)
}

/**
 * The Play install referrer client, waited for at most [WAIT_SECONDS] seconds on the core's
 * worker. Without the library, [client] throws NoClassDefFoundError, which the core catches. A
 * Play Store that cannot answer now (busy, disconnected, too slow) is a
 * [ReferrerUnavailableException], asked again; one that has no referrer to give (no Play Store,
 * not supported) is null.
 */
internal class PlayInstallReferrer(
    private val context: Context,
    private val client: (Context) -> InstallReferrerClient,
) : InstallReferrerSource {
    override fun fetch(): InstallReferrerDetails? {
        val client = client(context)
        val done = CountDownLatch(1)
        // The first answer counts: a disconnection after the setup finished changes nothing.
        val setup = AtomicReference<Setup>()
        client.startConnection(
            object : InstallReferrerStateListener {
                override fun onInstallReferrerSetupFinished(responseCode: Int) {
                    setup.compareAndSet(null, Setup(responseCode))
                    done.countDown()
                }

                override fun onInstallReferrerServiceDisconnected() {
                    setup.compareAndSet(null, Setup(null))
                    done.countDown()
                }
            },
        )
        done.await(WAIT_SECONDS, TimeUnit.SECONDS)
        // Read here, on the SDK's worker, not in the callback, which runs on the app's main
        // thread: reading the referrer is a call into the Play Store's process.
        val answer =
            when (val finished = setup.get()) {
                null -> Answer(unavailable = "the Play Store did not answer in $WAIT_SECONDS seconds")
                else -> finished.responseCode?.let { answerOf(client, it) } ?: Answer(unavailable = "the Play Store disconnected")
            }
        runCatching { client.endConnection() }
        answer.unavailable?.let { throw ReferrerUnavailableException(it) }
        return answer.details
    }

    internal companion object {
        /**
         * How long a read waits for the Play Store's answer; the Unity SDK waits as long (its
         * Tools~/check-package.mjs compares the two). A read with no answer in time is one of
         * the install's three, after which the install goes without the referrer and the click
         * id it carries: a short wait loses attributions on a slow device, where a longer one
         * only delays the install (and what waits for it), on the worker, never the app's thread.
         */
        const val WAIT_SECONDS = 10L
    }

    /** How the connection's setup ended: the Play Store's response code, or null when it disconnected first. */
    private class Setup(val responseCode: Int?)

    /** What the Play Store answered: its referrer (null: none to give), or why it could not answer now. */
    private class Answer(val details: InstallReferrerDetails? = null, val unavailable: String? = null)

    private fun answerOf(client: InstallReferrerClient, responseCode: Int): Answer =
        when (responseCode) {
            InstallReferrerClient.InstallReferrerResponse.OK ->
                try {
                    val r = client.installReferrer
                    Answer(
                        InstallReferrerDetails(
                            referrer = r.installReferrer,
                            clickTimestampSeconds = r.referrerClickTimestampSeconds,
                            installBeginTimestampSeconds = r.installBeginTimestampSeconds,
                            referrerClickTimestampServerSeconds = r.referrerClickTimestampServerSeconds,
                            installBeginTimestampServerSeconds = r.installBeginTimestampServerSeconds,
                            installVersion = r.installVersion,
                        ),
                    )
                } catch (e: Exception) {
                    // A RemoteException: the Play Store's process went away while it was read.
                    Answer(unavailable = "the referrer could not be read: ${e.message}")
                }
            InstallReferrerClient.InstallReferrerResponse.SERVICE_UNAVAILABLE,
            InstallReferrerClient.InstallReferrerResponse.SERVICE_DISCONNECTED,
            -> Answer(unavailable = "the Play Store answered $responseCode")
            // Not supported here, or refused for good: no referrer to give.
            else -> Answer()
        }
}

private object Logcat : LogSink {
    override fun write(level: LogLevel, message: String, error: Throwable?) {
        when (level) {
            LogLevel.DEBUG -> Log.d(AndroidPlatform.TAG, message, error)
            LogLevel.INFO -> Log.i(AndroidPlatform.TAG, message, error)
            LogLevel.WARN -> Log.w(AndroidPlatform.TAG, message, error)
            LogLevel.ERROR -> Log.e(AndroidPlatform.TAG, message, error)
            LogLevel.NONE -> Unit
        }
    }
}
