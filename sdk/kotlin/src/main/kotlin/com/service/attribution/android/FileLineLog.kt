package com.service.attribution.android

import com.service.attribution.core.LineLog
import com.service.attribution.core.Logger
import java.io.File
import java.io.FileOutputStream
import java.io.IOException
import java.io.RandomAccessFile

/**
 * A [LineLog] in a file of its own: a line is appended and synced to the disk before append
 * returns, so its cost does not grow with the file (SharedPreferences write their whole file at
 * each commit). Written whole through a file beside it, synced, then renamed over it: a process
 * killed meanwhile leaves the old lines or the new ones, never half of each.
 */
internal class FileLineLog(private val file: File, private val log: Logger) : LineLog {
    private val next = File(file.path + ".new")

    override fun read(): List<String> =
        try {
            if (file.exists()) file.readText(Charsets.UTF_8).split('\n').filter { it.isNotEmpty() } else emptyList()
        } catch (e: IOException) {
            log.warn("the SDK's file ${file.name} could not be read: ${e.message}")
            emptyList()
        }

    override fun append(lines: List<String>): Boolean {
        val bytes = lines.joinToString("") { it + "\n" }.toByteArray(Charsets.UTF_8)
        return try {
            file.parentFile?.mkdirs()
            RandomAccessFile(file, "rw").use { out ->
                val before = out.length()
                try {
                    // A line an earlier append left cut short (its process killed mid-write) ends
                    // first, so that it is lost alone rather than with this one.
                    if (before > 0 && endsCutShort(out, before)) out.write('\n'.code)
                    out.write(bytes)
                    out.fd.sync()
                    true
                } catch (e: IOException) {
                    runCatching { out.setLength(before) }
                    throw e
                }
            }
        } catch (e: IOException) {
            failed(e)
        }
    }

    override fun write(lines: List<String>): Boolean =
        try {
            if (lines.isEmpty()) {
                if (file.exists() && !file.delete()) throw IOException("could not delete ${file.name}")
            } else {
                file.parentFile?.mkdirs()
                FileOutputStream(next).use { out ->
                    out.write(lines.joinToString("") { it + "\n" }.toByteArray(Charsets.UTF_8))
                    out.fd.sync()
                }
                if (!next.renameTo(file)) throw IOException("could not replace ${file.name}")
            }
            true
        } catch (e: IOException) {
            next.delete()
            failed(e)
        }

    private fun endsCutShort(out: RandomAccessFile, length: Long): Boolean {
        out.seek(length - 1)
        val last = out.read()
        out.seek(length)
        return last != '\n'.code
    }

    private fun failed(e: IOException): Boolean {
        log.warn("the SDK's file ${file.name} was not written to disk: ${e.message}")
        return false
    }
}
