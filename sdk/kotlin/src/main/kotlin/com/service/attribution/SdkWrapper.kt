package com.service.attribution

import com.service.attribution.core.Wrapper

/** SDKs built on this one. */
enum class WrapperPlatform(internal val wire: String, internal val sealsCustomValues: Boolean) {
    /**
     * The Flutter plugin: its installs say `flutter`, and with sealing on in remote
     * configuration every custom parameter value is sealed (the spec's Flutter parameter rule
     * 4), `clear_keys` excepted.
     */
    FLUTTER("flutter", sealsCustomValues = true),
}

/**
 * For an SDK built on this one, not for apps: names it, and applies its rules. Call before
 * [ServiceAttributionSdk.configure].
 */
object SdkWrapper {
    @JvmStatic
    fun declare(platform: WrapperPlatform, version: String) {
        ServiceAttributionSdk.core.wrapper = Wrapper(platform.wire, version, platform.sealsCustomValues)
    }
}
