package android.content.pm;

public abstract class PackageManager {
    public static final int PERMISSION_GRANTED = 0;
    public static final int GET_META_DATA = 128;

    public abstract PackageInfo getPackageInfo(String packageName, int flags) throws NameNotFoundException;

    public abstract ApplicationInfo getApplicationInfo(String packageName, int flags) throws NameNotFoundException;

    public static class NameNotFoundException extends Exception {}
}
