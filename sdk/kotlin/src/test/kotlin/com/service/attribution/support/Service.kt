package com.service.attribution.support

import com.service.attribution.core.Json
import java.io.File
import java.net.HttpURLConnection
import java.net.URL
import java.net.URLDecoder
import java.util.concurrent.TimeUnit

/**
 * The real embedded service that test.sh started (no mock of it): its URLs and data folder
 * come from the environment, and apps and links are made with its CLI, as an owner would.
 */
internal object Service {
    val url: String = env("SERVICE_URL")
    private val dataDir: String = env("SERVICE_DATA_DIR")
    private val repoRoot: String = System.getProperty("repo.root") ?: error("repo.root is not set")

    private fun env(name: String) = System.getenv(name) ?: error("$name is not set: run sdk/kotlin/test.sh")

    data class App(val appId: String, val sdkKey: String, val serverKey: String)

    private var apps = 0

    /** A fresh Android app, with its keys. */
    fun createApp(prefix: String): App {
        val appId = "com.example.kt.${prefix.lowercase()}${System.nanoTime() % 1_000_000_000}${apps++}"
        val json = Json.parseObject(cli("apps", "create", "--app-id", appId, "--name", prefix, "--platform", "android", "--json"))
        val keys = (json["keys"] as List<*>).map { it as Map<*, *> }
        return App(
            appId,
            keys.first { it["kind"] == "sdk" }["key"] as String,
            keys.first { it["kind"] == "server" }["key"] as String,
        )
    }

    fun configApp(app: App, vararg options: String) {
        cli("apps", "config", "--app-id", app.appId, *options)
    }

    /** Makes a link and returns its URL on the link host. */
    fun createLink(app: App, deepLinkPath: String, vararg params: String): String {
        val args = mutableListOf("links", "create", "--app-id", app.appId, "--media-source", "kotlin_ads", "--campaign-name", "Winter", "--deep-link-path", deepLinkPath, "--json")
        params.forEach { args += listOf("--param", it) }
        val json = Json.parseObject(cli(*args.toTypedArray()))
        return json["url"] as String
    }

    /** Taps [link] as an Android browser; returns the install referrer the Play Store would hand over. */
    fun tapFromAndroid(link: String): String {
        val connection = URL(link).openConnection() as HttpURLConnection
        connection.instanceFollowRedirects = false
        connection.setRequestProperty("User-Agent", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36")
        check(connection.responseCode == 302) { "tap answered ${connection.responseCode}" }
        val location = connection.getHeaderField("Location")
        connection.disconnect()
        val referrer = location.substringAfter("?").split('&').first { it.startsWith("referrer=") }.substringAfter('=')
        return URLDecoder.decode(referrer, "UTF-8")
    }

    /** The app's exported events since [sinceSeconds], once the lake has them. */
    @Suppress("UNCHECKED_CAST")
    fun export(app: App, sinceSeconds: Long): List<Map<String, Any?>> {
        val response = request("GET", "$url/api/v1/export?timestamp=$sinceSeconds", app.serverKey, null)
        check(response.first == 200) { "export answered ${response.first}: ${response.second}" }
        return Json.parseObject(response.second)["data"] as List<Map<String, Any?>>
    }

    /**
     * Polls the export until [done] holds for it; returns the last export. Each poll starts
     * its window a second earlier: the service answers a repeated timestamp from the snapshot
     * it made the first time, without what arrived since.
     */
    fun exportUntil(app: App, sinceSeconds: Long, timeoutMs: Long = 60_000, done: (List<Map<String, Any?>>) -> Boolean): List<Map<String, Any?>> {
        val end = System.currentTimeMillis() + timeoutMs
        var since = sinceSeconds
        var last = export(app, since)
        while (!done(last) && System.currentTimeMillis() < end) {
            Thread.sleep(300)
            last = export(app, --since)
        }
        return last
    }

    fun request(method: String, target: String, key: String, body: String?): Pair<Int, String> {
        val connection = URL(target).openConnection() as HttpURLConnection
        connection.requestMethod = method
        connection.setRequestProperty("Authorization", key)
        if (body != null) {
            connection.doOutput = true
            connection.setRequestProperty("Content-Type", "application/json")
            connection.outputStream.use { it.write(body.toByteArray()) }
        }
        val code = connection.responseCode
        val text = (if (code >= 400) connection.errorStream else connection.inputStream)?.use { String(it.readBytes()) } ?: ""
        return code to text
    }

    /**
     * The parameters the service stored for [eventId] ("stored"), and the same with every sealed
     * value opened by the service's own code with the app's keys ("opened").
     */
    @Suppress("UNCHECKED_CAST")
    fun storedParameters(app: App, eventId: String): Pair<Map<String, Any?>, Map<String, Any?>> {
        val process =
            ProcessBuilder("node", "sdk/stored-parameters.mjs", dataDir, app.appId, eventId)
                .directory(File(repoRoot))
                .start()
        val out = process.inputStream.bufferedReader().readText()
        val err = process.errorStream.bufferedReader().readText()
        check(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0) { "stored-parameters failed: $err" }
        val json = Json.parseObject(out)
        return json["stored"] as Map<String, Any?> to json["opened"] as Map<String, Any?>
    }

    private fun cli(vararg args: String): String {
        val process =
            ProcessBuilder(listOf("node", "bin/attribution.js") + args + listOf("--data-dir", dataDir))
                .directory(File(repoRoot))
                .redirectErrorStream(false)
                .start()
        val out = process.inputStream.bufferedReader().readText()
        val err = process.errorStream.bufferedReader().readText()
        check(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0) { "attribution ${args.joinToString(" ")} failed: $err" }
        return out
    }
}
