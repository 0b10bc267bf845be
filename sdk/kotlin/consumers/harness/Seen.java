package com.example.consumer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What a consumer app saw of the SDK (listener calls, futures completed), for the harness to check. */
public final class Seen {
    public static final List<String> LINES = Collections.synchronizedList(new ArrayList<String>());

    private Seen() {}

    public static void add(String line) {
        LINES.add(line);
    }
}
