package com.example.consumer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.robolectric.Shadows.shadowOf;

import android.Manifest;
import android.app.Activity;
import android.app.Application;
import android.content.Intent;
import android.net.Uri;
import android.os.Bundle;
import android.os.Looper;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.Robolectric;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;

/**
 * Runs one consumer app (the class named by the system property consumer.activity) under
 * Robolectric against the real embedded service: the calls it makes work (its events reach the
 * export, its listeners are called, its futures complete). Written in Java so that nothing of
 * a newer Kotlin runs beside the app: the classpath holds kotlin-stdlib 2.0.21, the POM's.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 34, manifest = Config.NONE)
public class ConsumerAppTest {
    private static final String SERVICE_URL = System.getenv("SERVICE_URL");
    private static final String DATA_DIR = System.getenv("SERVICE_DATA_DIR");
    private static final String REPO = System.getProperty("repo.root");

    @Test
    public void theConsumerAppCallsEveryMemberAndTheyWork() throws Exception {
        long since = System.currentTimeMillis() / 1000 - 120;
        String appId = "com.example.consumer.c" + System.nanoTime() % 1_000_000_000L;
        String created = run("node", "bin/attribution.js", "apps", "create", "--app-id", appId, "--name", "consumer", "--platform", "android", "--json", "--data-dir", DATA_DIR);
        String sdkKey = find(created, "\"key\"\\s*:\\s*\"(sdk_[^\"]+)\"");
        String serverKey = find(created, "\"key\"\\s*:\\s*\"(srv_[^\"]+)\"");

        Application app = RuntimeEnvironment.getApplication();
        Bundle meta = new Bundle();
        meta.putString("com.service.attribution.BASE_URL", SERVICE_URL);
        shadowOf(app.getPackageManager()).getInternalMutablePackageInfo(app.getPackageName()).applicationInfo.metaData = meta;
        shadowOf(app).grantPermissions(Manifest.permission.INTERNET);

        @SuppressWarnings("unchecked")
        Class<? extends Activity> activity = (Class<? extends Activity>) Class.forName(System.getProperty("consumer.activity"));
        Intent intent = new Intent(Intent.ACTION_VIEW, Uri.parse("myapp://open?deep_link_path=%2Flevels%2F7&promo=W"));
        intent.putExtra("sdkKey", sdkKey);
        Activity started = Robolectric.buildActivity(activity, intent).create().get();

        assertTrue("listeners and futures: " + Seen.LINES, eventually(() -> seen("initialized") && seen("attribution:organic")
            && seen("deeplink:direct:/levels/7") && seen("await-async:organic") && seen("refresh-async:done")));
        if (activity.getSimpleName().startsWith("Kotlin")) {
            assertTrue("suspend members: " + Seen.LINES, eventually(() -> seen("await:organic") && seen("refresh:done")));
        }
        assertTrue("no error: " + Seen.LINES, Seen.LINES.stream().noneMatch(l -> l.startsWith("error:") || l.startsWith("init-error:")));
        // The state line: configured, not stopped, not anonymous, with an id, enabled.
        String state = Seen.LINES.stream().filter(l -> l.startsWith("state:")).findFirst().orElse("");
        assertTrue(state, state.startsWith("state:[true, false, false, true") || state.startsWith("state:truefalsefalsetrue"));

        String[] expected = {"service_install", "service_login"};
        String export = "";
        for (int i = 0; i < 100; i++) {
            export = get(SERVICE_URL + "/api/v1/export?timestamp=" + (since - i), serverKey);
            if (export.contains(expected[0]) && export.contains(expected[1]) && export.contains("consumer_")) break;
            Thread.sleep(300);
        }
        for (String name : expected) assertTrue(name + " in " + export, export.contains("\"" + name + "\""));
        assertTrue("the custom event in " + export, export.contains("consumer_"));

        activity.getMethod("finishUp").invoke(started);
        assertTrue("deleted: " + Seen.LINES, eventually(() -> seen("deleted-async")));
    }

    private static boolean seen(String line) {
        return Seen.LINES.contains(line);
    }

    /** Polls [condition] for up to 60 s, running what was posted to the main thread in between. */
    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long end = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < end) {
            shadowOf(Looper.getMainLooper()).idle();
            if (condition.getAsBoolean()) return true;
            Thread.sleep(50);
        }
        shadowOf(Looper.getMainLooper()).idle();
        return condition.getAsBoolean();
    }

    private static String find(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(regex + " in " + text, m.find());
        return m.group(1);
    }

    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).directory(new File(REPO)).redirectErrorStream(false).start();
        String out = read(process.getInputStream());
        String err = read(process.getErrorStream());
        assertEquals(String.join(" ", command) + ": " + err, 0, process.waitFor());
        return out;
    }

    private static String get(String url, String key) throws Exception {
        HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
        connection.setRequestProperty("Authorization", key);
        int code = connection.getResponseCode();
        return code + " " + read(code >= 400 ? connection.getErrorStream() : connection.getInputStream());
    }

    private static String read(InputStream in) throws Exception {
        if (in == null) return "";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
        in.close();
        return out.toString(StandardCharsets.UTF_8.name());
    }
}
