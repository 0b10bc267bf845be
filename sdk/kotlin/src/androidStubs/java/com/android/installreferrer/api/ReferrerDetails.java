package com.android.installreferrer.api;

public class ReferrerDetails {
    public String getInstallReferrer() { throw new RuntimeException("Stub!"); }

    public long getReferrerClickTimestampSeconds() { throw new RuntimeException("Stub!"); }

    public long getInstallBeginTimestampSeconds() { throw new RuntimeException("Stub!"); }

    public long getReferrerClickTimestampServerSeconds() { throw new RuntimeException("Stub!"); }

    public long getInstallBeginTimestampServerSeconds() { throw new RuntimeException("Stub!"); }

    public String getInstallVersion() { throw new RuntimeException("Stub!"); }
}
