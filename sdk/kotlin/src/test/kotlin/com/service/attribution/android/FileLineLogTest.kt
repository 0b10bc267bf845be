package com.service.attribution.android

import com.service.attribution.LogLevel
import com.service.attribution.core.Logger
import com.service.attribution.support.RecordingLog
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.nio.file.Files

/** sendEvent's journal file on a real disk (plain JVM: the class touches java.io alone). */
class FileLineLogTest {
    private val dir = Files.createTempDirectory("journal").toFile()
    private val file = File(dir, "events")
    private val log = RecordingLog()
    private val journal = FileLineLog(file, Logger(log, LogLevel.DEBUG))

    @After
    fun clean() {
        dir.deleteRecursively()
    }

    @Test
    fun `lines appended are read back in order, each ended on the disk`() {
        assertEquals(emptyList<String>(), journal.read())
        assertTrue(journal.append(listOf("""{"a":1}""")))
        assertTrue(journal.append(listOf("""{"b":"é"}""", """{"c":3}""")))
        assertEquals(listOf("""{"a":1}""", """{"b":"é"}""", """{"c":3}"""), journal.read())
        assertEquals("{\"a\":1}\n{\"b\":\"é\"}\n{\"c\":3}\n", file.readText())
        // Another reader of the same file (the next process) sees them.
        assertEquals(journal.read(), FileLineLog(file, Logger(log, LogLevel.DEBUG)).read())
    }

    @Test
    fun `appending leaves what is there as it was, byte for byte`() {
        journal.write(listOf("x", "y"))
        val before = file.readBytes()
        journal.append(listOf("z"))
        val after = file.readBytes()
        assertTrue(after.copyOf(before.size).contentEquals(before))
        assertEquals(listOf("x", "y", "z"), journal.read())
    }

    @Test
    fun `written whole, the lines replace those there, and none removes the file`() {
        journal.append(listOf("old1"))
        journal.append(listOf("old2"))
        assertTrue(journal.write(listOf("new")))
        assertEquals(listOf("new"), journal.read())
        assertFalse(File(file.path + ".new").exists())
        assertTrue(journal.write(emptyList()))
        assertFalse(file.exists())
        assertEquals(emptyList<String>(), journal.read())
    }

    @Test
    fun `a line an earlier process left cut short stays alone, and the next line is whole`() {
        file.writeText("{\"whole\":1}\n{\"cut\":")
        assertTrue(journal.append(listOf("{\"next\":2}")))
        assertEquals(listOf("{\"whole\":1}", "{\"cut\":", "{\"next\":2}"), journal.read())
    }

    @Test
    fun `a write the disk refuses is false and a warning, and the file is as it was`() {
        journal.append(listOf("kept"))
        // The place of the file beside it, which a whole write goes through, is taken by a folder.
        File(file.path + ".new").mkdirs()
        File(file.path + ".new", "inside").writeText("x")
        assertFalse(journal.write(listOf("a", "b")))
        assertEquals(listOf("kept"), journal.read())
        // An append to a file that cannot be opened.
        val blocked = FileLineLog(dir, Logger(log, LogLevel.DEBUG))
        assertFalse(blocked.append(listOf("lost")))
        assertEquals(2, log.lines.count { it.first == LogLevel.WARN && "was not written to disk" in it.second })
    }
}
