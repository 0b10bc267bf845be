package android.os;

public class Build {
    public static final String MODEL = null;

    public static class VERSION {
        public static final String RELEASE = null;
        public static final int SDK_INT = 0;
    }
}
