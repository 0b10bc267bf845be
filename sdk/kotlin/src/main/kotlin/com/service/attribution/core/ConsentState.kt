package com.service.attribution.core

import com.service.attribution.Consent

/**
 * The consent: what the app set with setConsent, kept on the device; the TCF values on the
 * device; the body sent to the backend, and whether it changed since it was last sent.
 * Made by configure: [setBeforeConfigure], what the app set before it (written to the journal at
 * once when the platform gave it early), wins over what the store holds, and is written there
 * again by [persist].
 */
internal class ConsentState(
    private val store: KeyValueStore,
    /** Where the app's consent is kept: written before setConsent returns (the journal). */
    private val kept: KeyValueStore,
    private val tcfSource: TcfSource,
    private val log: Logger,
    setBeforeConfigure: Consent?,
) {
    /** What the app set with setConsent; kept on the device. */
    @Volatile private var consent: Consent?

    init {
        consent = setBeforeConfigure ?: kept.get(KEY_CONSENT)?.let(::parseConsent)
    }

    /** The app's [consent], in effect at once; [persist] keeps it on the device. */
    fun set(consent: Consent) {
        this.consent = consent
    }

    /**
     * Keeps the app's consent on the device before setConsent returns (the journal, as an event
     * sendEvent takes): a consent the app is killed just after is still the app's at the next
     * launch, not the one before it.
     */
    fun persist() {
        consent?.let { keep(kept, it) }
    }

    /** On the worker: the consent to send (the app's, with the TCF values on the device), or null when none is known. */
    fun current(): Map<String, Any?>? {
        val tcf =
            try {
                tcfSource.read()
            } catch (e: Exception) {
                log.warn("TCF values unreadable: ${e.message}")
                TcfValues(null, null)
            }
        val app = consent
        val gdprApplies =
            app?.gdprApplies ?: when (tcf.gdprApplies) {
                1 -> true
                0 -> false
                else -> null
            }
        val body = Requests.consent(gdprApplies, app?.adUserData, app?.adPersonalization, usableTcString(tcf.tcString))
        return body.takeIf { it.values.any { v -> v != null } }
    }

    /**
     * The TC string to send, or null: empty is none, and one longer than the backend takes
     * ([MAX_TCF_STRING_LENGTH]) is left out, since the install or consent update carrying it would be
     * refused whole (422), costing the install its referrer and advertising id. Warned once a string.
     */
    private fun usableTcString(tcString: String?): String? {
        if (tcString.isNullOrEmpty()) return null
        if (tcString.length <= MAX_TCF_STRING_LENGTH) return tcString
        if (warnedTooLong != tcString.length) {
            warnedTooLong = tcString.length
            log.warn("the TCF string (IABTCF_TCString) has ${tcString.length} characters, more than the backend takes ($MAX_TCF_STRING_LENGTH): it is not sent")
        }
        return null
    }

    /** The length of the over-long TC string last warned about, so that each is warned once. */
    @Volatile private var warnedTooLong = -1

    /**
     * On the worker: the consent route's body as the consent now stands (all null when none is
     * known, or it was withdrawn), and whether it changed since last sent. A tracking update
     * sends it unchanged, since every update carries the consent.
     */
    fun update(): Update {
        val current = current()
        val lastSent = store.get(KEY_CONSENT_SENT)
        val body = current ?: Requests.consent(null, null, null, null)
        return Update(body, changed = (current != null || lastSent != null) && Json.write(body) != lastSent)
    }

    class Update(val body: Map<String, Any?>, val changed: Boolean)

    /** The backend holds [body] now (or refused it for good): not sent again until the consent changes. */
    fun markSent(body: Map<String, Any?>) {
        store.put(KEY_CONSENT_SENT, Json.write(body))
    }

    private fun parseConsent(text: String): Consent? =
        runCatching {
            val json = Json.parseObject(text)
            Consent(json["gdpr_applies"] as Boolean?, json["ad_user_data"] as Boolean?, json["ad_personalization"] as Boolean?)
        }.getOrNull()

    companion object {
        /** The longest `tcf_string` the backend takes (spec/openapi.json). */
        const val MAX_TCF_STRING_LENGTH = 4_096
        private const val KEY_CONSENT = "consent"
        private const val KEY_CONSENT_SENT = "consent_sent"

        /** Writes the app's [consent] where it is kept ([kept]: the journal), as configure reads it. */
        fun keep(kept: KeyValueStore, consent: Consent) = kept.put(KEY_CONSENT, consentJson(consent))

        private fun consentJson(consent: Consent) =
            Json.write(
                linkedMapOf(
                    "gdpr_applies" to consent.gdprApplies,
                    "ad_user_data" to consent.adUserData,
                    "ad_personalization" to consent.adPersonalization,
                ),
            )
    }
}
