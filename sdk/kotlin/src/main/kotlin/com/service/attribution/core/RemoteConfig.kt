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
) {
    fun toJson(): String =
        Json.write(
            mapOf(
                "enabled" to enabled,
                "refresh_interval_seconds" to refreshIntervalSeconds,
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
        /**
         * What the SDK runs with when the fetch fails for a reason other than the key: on,
         * sealing off (matching parameters are then hashed, never sent in clear), and a retry
         * within the hour.
         */
        val PLACEHOLDER = RemoteConfig(enabled = true, refreshIntervalSeconds = 3600, encryption = Encryption.Off)

        fun parse(text: String): RemoteConfig {
            val json = Json.parseObject(text)
            val encryption = json["encryption"] as? Map<*, *>
            return RemoteConfig(
                enabled = json["enabled"] as? Boolean ?: throw IllegalArgumentException("config: enabled"),
                refreshIntervalSeconds = (json["refresh_interval_seconds"] as? Number)?.toLong()?.coerceAtLeast(1) ?: 3600,
                encryption =
                    if (encryption?.get("enabled") == true) {
                        Encryption.On(
                            keyId = encryption["key_id"] as String,
                            publicKey = encryption["public_key"] as String,
                            clearKeys = (encryption["clear_keys"] as? List<*>)?.map { it.toString() }?.toSet() ?: emptySet(),
                        )
                    } else {
                        Encryption.Off
                    },
            )
        }
    }
}
