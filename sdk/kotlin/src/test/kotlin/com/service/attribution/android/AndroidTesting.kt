package com.service.attribution.android

import android.Manifest
import android.app.Application
import android.os.Bundle
import android.os.Looper
import android.util.Log
import com.service.attribution.support.Service
import org.robolectric.RuntimeEnvironment
import org.robolectric.Shadows.shadowOf
import org.robolectric.shadows.ShadowLog

/** The app under Robolectric, set up as an app's manifest would: the service's address, the network. */
internal fun robolectricApp(): Application {
    val app = RuntimeEnvironment.getApplication()
    shadowOf(app.packageManager).getInternalMutablePackageInfo(app.packageName).applicationInfo.metaData =
        Bundle().apply { putString("com.service.attribution.BASE_URL", Service.url) }
    shadowOf(app).grantPermissions(Manifest.permission.INTERNET)
    return app
}

/** Polls [condition], running what was posted to the main thread in between. */
internal fun eventuallyOnMain(timeoutMs: Long = 60_000, condition: () -> Boolean): Boolean {
    val end = System.currentTimeMillis() + timeoutMs
    while (System.currentTimeMillis() < end) {
        shadowOf(Looper.getMainLooper()).idle()
        if (condition()) return true
        Thread.sleep(50)
    }
    shadowOf(Looper.getMainLooper()).idle()
    return condition()
}

/** What the SDK wrote to logcat at [type] (Log.WARN, Log.ERROR…). */
internal fun sdkLogs(type: Int): List<String> =
    ShadowLog.getLogsForTag(AndroidPlatform.TAG).filter { it.type == type }.map { it.msg }

internal val INFO = Log.INFO
internal val WARN = Log.WARN
internal val ERROR = Log.ERROR
