package android.content;

import android.net.Uri;

public class Intent {
    public Uri getData() { throw new RuntimeException("Stub!"); }
}
