package com.android.installreferrer.api;

public interface InstallReferrerStateListener {
    void onInstallReferrerSetupFinished(int responseCode);

    void onInstallReferrerServiceDisconnected();
}
