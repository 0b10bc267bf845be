package com.service.attribution

/** The backend answered with a non-success HTTP status [code]. */
class HttpException(val code: Int, message: String? = null) :
    RuntimeException(message ?: "HTTP $code")

/** The backend rejected the API key (status [code]); the SDK has disabled itself. */
class AuthenticationException(val code: Int, message: String? = null) :
    RuntimeException(message ?: "API key rejected (HTTP $code)")
