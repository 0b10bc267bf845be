package android.os;

public final class Bundle {
    public String getString(String key) { throw new RuntimeException("Stub!"); }
}
