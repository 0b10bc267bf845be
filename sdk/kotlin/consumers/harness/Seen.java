package com.example.consumer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What a consumer app saw of the SDK (listener calls, futures completed), for the harness to check. */
public final class Seen {
    public static final List<String> LINES = new CopyOnWriteArrayList<String>();

    private Seen() {}

    public static void add(String line) {
        LINES.add(line);
    }
}
