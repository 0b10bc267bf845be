package com.service.attribution.android

import android.app.Application
import android.provider.Settings
import com.google.android.gms.ads.identifier.AdvertisingIdClient
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.annotation.Config
import org.robolectric.shadows.ShadowBuild

/** The advertising id as the device gives it: Play services', or a Fire device's own. */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [34], manifest = Config.NONE) // compileSdk (test.sh checks it against gradle/libs.versions.toml)
class AndroidDeviceTest {
    private val app: Application = RuntimeEnvironment.getApplication()
    private val gaid = "38400000-8cf0-11bd-b23e-10b96e40000d"
    private val fireId = "df07c7dc-cea7-4a89-b328-810ff5acb15d"

    private fun device(limited: Boolean = false) =
        AndroidDevice(app) {
            // Deprecated for apps, which get it from Play services; a test has no other way to make one.
            @Suppress("DEPRECATION")
            AdvertisingIdClient.Info(gaid, limited)
        }

    private fun noPlayServices() = AndroidDevice(app) { throw NoClassDefFoundError("com/google/android/gms/ads/identifier/AdvertisingIdClient") }

    @After
    fun reset() {
        ShadowBuild.reset()
    }

    @Test
    fun `a Fire device gives its own advertising id, and none while it limits ad tracking`() {
        ShadowBuild.setManufacturer("Amazon")
        Settings.Secure.putString(app.contentResolver, "advertising_id", fireId)
        Settings.Secure.putInt(app.contentResolver, "limit_ad_tracking", 0)
        assertEquals(fireId, noPlayServices().advertisingId())
        Settings.Secure.putInt(app.contentResolver, "limit_ad_tracking", 1)
        assertNull(noPlayServices().advertisingId())
    }

    @Test
    fun `a Fire OS that keeps no advertising id asks Play services, and another maker's device never reads Amazon's setting`() {
        ShadowBuild.setManufacturer("Amazon")
        assertEquals(gaid, device().advertisingId())
        ShadowBuild.setManufacturer("Google")
        Settings.Secure.putString(app.contentResolver, "advertising_id", fireId)
        assertEquals(gaid, device().advertisingId())
        assertNull(device(limited = true).advertisingId())
    }

    @Test
    fun `plain http to a host is permitted as the app's network security configuration says`() {
        val kept = libcore.net.NetworkSecurityPolicy.getInstance()
        try {
            // The policy an app's network security configuration installs: no cleartext but to one host.
            libcore.net.NetworkSecurityPolicy.setInstance(
                object : libcore.net.NetworkSecurityPolicy() {
                    override fun isCleartextTrafficPermitted() = false

                    override fun isCleartextTrafficPermitted(hostname: String) = hostname == "10.0.2.2"

                    override fun isCertificateTransparencyVerificationRequired(hostname: String) = false
                },
            )
            assertEquals(true, device().cleartextPermitted("10.0.2.2"))
            assertEquals(false, device().cleartextPermitted("attribution.example.com"))
        } finally {
            libcore.net.NetworkSecurityPolicy.setInstance(kept)
        }
    }
}
