package com.service.attribution.flutter

import org.json.JSONObject
import java.io.File
import java.net.HttpURLConnection
import java.net.URL
import java.util.concurrent.TimeUnit

/**
 * The real embedded service that test.sh started (no mock of it): its URL and data folder come
 * from the environment; apps are made and configured with its CLI, as an owner would, and
 * what it recorded is read back through its export and its lake.
 */
internal object Service {
    val url: String = env("SERVICE_URL")
    private val dataDir: String = env("SERVICE_DATA_DIR")
    private val repoRoot: String = System.getProperty("repo.root") ?: error("repo.root is not set")
    private val since = System.currentTimeMillis() / 1000 - 120

    private fun env(name: String) = System.getenv(name) ?: error("$name is not set: run sdk/flutter/test.sh")

    class App(val appId: String, val sdkKey: String, val serverKey: String)

    fun createApp(prefix: String): App {
        val appId = "com.example.flutter.$prefix${System.nanoTime() % 1_000_000_000}"
        val json = JSONObject(cli("apps", "create", "--app-id", appId, "--name", prefix, "--platform", "android", "--json"))
        val keys = json.getJSONArray("keys").let { list -> (0 until list.length()).map { list.getJSONObject(it) } }
        return App(
            appId,
            keys.first { it.getString("kind") == "sdk" }.getString("key"),
            keys.first { it.getString("kind") == "server" }.getString("key"),
        )
    }

    fun configApp(app: App, vararg options: String) {
        cli("apps", "config", "--app-id", app.appId, *options)
    }

    /**
     * Polls the app's export until [done] holds for it (within 60 seconds) and returns it. Each
     * poll starts its window a second earlier: the service answers a repeated timestamp from
     * the snapshot it made the first time, without what arrived since.
     */
    fun exportUntil(app: App, done: (List<JSONObject>) -> Boolean): List<JSONObject> {
        var window = since
        var last = export(app, window)
        eventually {
            last = export(app, --window)
            done(last)
        }
        return last
    }

    /** What the service exported of the app's events so far. */
    fun exportNow(app: App): List<JSONObject> = export(app, since)

    private fun export(app: App, sinceSeconds: Long): List<JSONObject> {
        val connection = URL("$url/api/v1/export?timestamp=$sinceSeconds").openConnection() as HttpURLConnection
        connection.setRequestProperty("Authorization", app.serverKey)
        val code = connection.responseCode
        val body = (if (code >= 400) connection.errorStream else connection.inputStream).use { String(it.readBytes()) }
        check(code == 200) { "export answered $code: $body" }
        val data = JSONObject(body).getJSONArray("data")
        return (0 until data.length()).map { data.getJSONObject(it) }
    }

    /**
     * The event's parameters as the service keeps them in its lake (`stored`) and with every
     * sealed value opened with the app's keys by the service's own code (`opened`).
     */
    fun storedParameters(app: App, eventId: String): JSONObject =
        JSONObject(run("node", "sdk/stored-parameters.mjs", dataDir, app.appId, eventId))

    private fun cli(vararg args: String): String = run("node", "bin/attribution.js", *args, "--data-dir", dataDir)

    private fun run(vararg command: String): String {
        val process = ProcessBuilder(*command).directory(File(repoRoot)).start()
        val err = StringBuilder()
        val errors = Thread { err.append(process.errorStream.bufferedReader().readText()) }.apply { start() }
        val out = process.inputStream.bufferedReader().readText()
        errors.join()
        check(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0) { "${command.joinToString(" ")} failed: $err" }
        return out
    }
}
