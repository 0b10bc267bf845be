package com.service.attribution

import android.net.Uri

/**
 * A parsed App Link: [deeplinkId] is the link's single path segment (null when it has none),
 * [queryParams] its query, percent-decoded, the last value winning for a repeated name and a
 * missing value as "", custom parameters such as `deep_link_path` included.
 */
data class AppLinkResult(
    val deeplinkId: String?,
    val queryParams: Map<String, String>,
    val uri: Uri,
)
