package android.content.pm;

import android.os.Bundle;

public class ApplicationInfo {
    public Bundle metaData;
}
