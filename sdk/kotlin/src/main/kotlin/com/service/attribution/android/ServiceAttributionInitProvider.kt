package com.service.attribution.android

import android.content.ContentProvider
import android.content.ContentValues
import android.database.Cursor
import android.net.Uri
import com.service.attribution.ServiceAttributionSdk

/**
 * Hands the application Context to the SDK as the app's main process starts, before
 * `Application.onCreate` (the pattern androidx.startup and Firebase use: Android creates the
 * providers of the merged manifest first). With it, stop(), start(), setAnonymous and setConsent
 * called before configure are written to the device before they return, as they are after it:
 * an opt-out the app is killed just after is still one at the next launch. Declared in the
 * library's manifest, not exported, under an authority of the app's own id; it serves no data.
 */
internal class ServiceAttributionInitProvider : ContentProvider() {
    override fun onCreate(): Boolean {
        // Nothing is read here: the files are opened at the first call that writes to them.
        context?.let { ServiceAttributionSdk.attachEarly(it.applicationContext ?: it) }
        return true
    }

    override fun query(uri: Uri, projection: Array<out String>?, selection: String?, selectionArgs: Array<out String>?, sortOrder: String?): Cursor? = null

    override fun getType(uri: Uri): String? = null

    override fun insert(uri: Uri, values: ContentValues?): Uri? = null

    override fun delete(uri: Uri, selection: String?, selectionArgs: Array<out String>?): Int = 0

    override fun update(uri: Uri, values: ContentValues?, selection: String?, selectionArgs: Array<out String>?): Int = 0
}
