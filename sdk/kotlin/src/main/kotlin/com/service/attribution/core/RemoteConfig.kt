package com.service.attribution.core

/** Whether and how parameter values are sealed, as GET /v1/config says. */
internal sealed class Encryption {
    object Off : Encryption()

    data class On(val keyId: String, val publicKey: String, val clearKeys: Set<String>) : Encryption()
}

/** The app's remote configuration (GET /v1/config). */
internal data class RemoteConfig(
    val enabled: Boolean,
    val refreshIntervalSeconds: Long,
    val encryption: Encryption,
    /** How long the app must be away from the foreground for its return to start a session. */
    val sessionIntervalSeconds: Long = DEFAULT_SESSION_INTERVAL_SECONDS,
) {
    fun toJson(): String =
        Json.write(
            mapOf(
                "enabled" to enabled,
                "refresh_interval_seconds" to refreshIntervalSeconds,
                "session_interval_seconds" to sessionIntervalSeconds,
                "encryption" to
                    when (encryption) {
                        Encryption.Off -> mapOf("enabled" to false)
                        is Encryption.On ->
                            mapOf(
                                "enabled" to true,
                                "key_id" to encryption.keyId,
                                "public_key" to encryption.publicKey,
                                "clear_keys" to encryption.clearKeys.toList(),
                            )
                    },
            ),
        )

    companion object {
        /** The session interval until a configuration gives one (sdk/conformance/sessions.json). */
        const val DEFAULT_SESSION_INTERVAL_SECONDS = 1_800L

        /** How often the configuration is read again when it gives no interval (sdk/conformance/remote-config.json). */
        const val DEFAULT_REFRESH_INTERVAL_SECONDS = 3_600L

        /** The contract's largest integer: JSON's exact ones, 2^53 - 1. */
        private const val MAX_CONTRACT_INTEGER = 9_007_199_254_740_991L

        /**
         * What the SDK runs with when the fetch fails for a reason other than the key and none
         * is kept on the device: on, so that the install and sessions go. It says nothing of
         * sealing: events wait on the device until a configuration the backend gave says how to
         * protect their parameters, and it is read again with the retries' backoff, not after
         * this interval.
         */
        val PLACEHOLDER = RemoteConfig(enabled = true, refreshIntervalSeconds = DEFAULT_REFRESH_INTERVAL_SECONDS, encryption = Encryption.Off)

        /**
         * An interval as the contract gives it, a whole number of seconds from 1 to 2^53 - 1
         * (`900.0` is 900); null for any other value, which is then taken as none given: the
         * default. Never the nearest value allowed, as though it were the owner's setting: a
         * damaged 0 taken as 1 s would read the configuration every second, and start a session
         * at every return to the foreground (sdk/conformance/remote-config.json).
         */
        private fun contractSeconds(value: Any?): Long? {
            val seconds =
                when (value) {
                    is Long -> value
                    // A whole number written with a fraction part, as the JSON reader gives it.
                    is Double -> value.takeIf { it == Math.rint(it) && Math.abs(it) <= MAX_CONTRACT_INTEGER }?.toLong()
                    else -> null
                }
            return seconds?.takeIf { it in 1..MAX_CONTRACT_INTEGER }
        }

        /**
         * A key that cannot seal would fail every event: such an answer is refused whole (the
         * configuration in force stays), as one that is not the contract's JSON.
         */
        private fun checkSealing(on: Encryption.On) {
            try {
                Sealer(on.keyId, on.publicKey)
            } catch (e: Exception) {
                throw IllegalArgumentException("config: encryption.public_key is not an EC public key (${e.message})", e)
            }
        }

        fun parse(text: String): RemoteConfig {
            val json = Json.parseObject(text)
            val encryption = json["encryption"] as? Map<*, *>
            return RemoteConfig(
                enabled = json["enabled"] as? Boolean ?: throw IllegalArgumentException("config: enabled"),
                refreshIntervalSeconds = contractSeconds(json["refresh_interval_seconds"]) ?: DEFAULT_REFRESH_INTERVAL_SECONDS,
                sessionIntervalSeconds = contractSeconds(json["session_interval_seconds"]) ?: DEFAULT_SESSION_INTERVAL_SECONDS,
                encryption =
                    if (encryption?.get("enabled") == true) {
                        Encryption.On(
                            keyId = encryption["key_id"] as String,
                            publicKey = encryption["public_key"] as String,
                            clearKeys = (encryption["clear_keys"] as? List<*>)?.map { it.toString() }?.toSet() ?: emptySet(),
                        ).also(::checkSealing)
                    } else {
                        Encryption.Off
                    },
            )
        }
    }
}
