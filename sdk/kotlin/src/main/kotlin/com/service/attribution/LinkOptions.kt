package com.service.attribution

/**
 * How handleAppLink accepts a link. [allowedHosts] null accepts any host; otherwise a link on
 * another host gives a null result (hosts compare without case, ports aside). It does not
 * verify that the app owns the domain. A blank host is a programming error and throws.
 */
data class LinkOptions(val allowedHosts: Set<String>? = null) {
    init {
        require(allowedHosts == null || allowedHosts.none { it.isBlank() }) {
            "allowedHosts must not hold a blank host name"
        }
    }
}
