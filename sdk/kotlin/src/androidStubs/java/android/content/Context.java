package android.content;

import android.content.pm.PackageManager;

public abstract class Context {
    public static final int MODE_PRIVATE = 0;

    public abstract Context getApplicationContext();

    public abstract SharedPreferences getSharedPreferences(String name, int mode);

    public abstract PackageManager getPackageManager();

    public abstract String getPackageName();

    public abstract int checkCallingOrSelfPermission(String permission);
}
