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
 * For an SDK built on this one, not for apps: names it, and applies its rules (call [declare]
 * before [ServiceAttributionSdk.configure]), and gives it what it needs beyond the app's API.
 * Everything a wrapper calls is public, here or on [ServiceAttributionSdk]: a wrapper may be
 * built against the SDK's published artifact, where the SDK's internal members are out of reach.
 */
object SdkWrapper {
    @JvmStatic
    fun declare(platform: WrapperPlatform, version: String) {
        ServiceAttributionSdk.core.wrapper = Wrapper(platform.wire, version, platform.sealsCustomValues)
    }

    /**
     * [ServiceAttributionSdk.sendEvent], answering whether the event was taken: sent, or kept
     * on the device until it can be (before configure too). False when the SDK sends nothing:
     * switched off, stopped, the install's data deleted, a manual install (which the SDK tracks
     * itself), or one of the app's other processes. A wrapper's own API answers its caller with
     * it (the Flutter plugin's `sendEvent`); apps have no use for it. Public here, not internal,
     * because a wrapper is compiled as a module of its own against the SDK's artifact.
     */
    @JvmStatic
    fun sendEventTaken(event: EventType, name: String?, parameters: Map<String, Any>?): Boolean =
        ServiceAttributionSdk.sendEventTaken(event, name, parameters)
}
