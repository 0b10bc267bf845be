package com.example.consumer;

import android.app.Activity;
import android.net.Uri;
import android.os.Bundle;
import com.service.attribution.AppLinkResult;
import com.service.attribution.Consent;
import com.service.attribution.DeepLink;
import com.service.attribution.EventType;
import com.service.attribution.InitListener;
import com.service.attribution.LinkOptions;
import com.service.attribution.LogLevel;
import com.service.attribution.ServiceAttributionSdk;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * An app written in Java (javac against the AAR's classes.jar): calls every public member of
 * ServiceAttributionSdk, the suspend ones through their CompletableFuture twins.
 */
public class JavaConsumerActivity extends Activity {
    @Override
    @SuppressWarnings("deprecation")
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        String key = getIntent().getStringExtra("sdkKey");
        ServiceAttributionSdk.setAttributionListener(map -> Seen.add("attribution:" + map.get("service_match_status")));
        ServiceAttributionSdk.setDeepLinkListener(link -> Seen.add("deeplink:" + link.getKind().getWire() + ":" + link.getPath()));
        ServiceAttributionSdk.setErrorListener(error -> Seen.add("error:" + error.getKind().getWire()));
        ServiceAttributionSdk.setConsent(new Consent(true, true, false));
        ServiceAttributionSdk.setConsent(new Consent(true));
        ServiceAttributionSdk.setConsent(new Consent(true, true, false));
        ServiceAttributionSdk.setAnonymous(false);
        ServiceAttributionSdk.stop();
        ServiceAttributionSdk.start();
        ServiceAttributionSdk.configure(getApplicationContext(), key, LogLevel.DEBUG, new InitListener() {
            @Override
            public void onError(Throwable t) {
                Seen.add("init-error:" + t);
            }

            @Override
            public void onInitialized(long mainThreadDurationMs, long totalDurationMs) {
                Seen.add("initialized");
            }
        }, "java-consumer");
        // The other overloads: repeat calls, no-ops.
        ServiceAttributionSdk.configure(this, key);
        ServiceAttributionSdk.configure(this, key, LogLevel.INFO);
        // InitListener's onInitialized has a default body: from Java too, a lambda implements onError.
        InitListener quiet = t -> Seen.add("init-error:" + t);
        ServiceAttributionSdk.configure(this, key, LogLevel.INFO, quiet);
        ServiceAttributionSdk.configure(this, key, quiet);
        ServiceAttributionSdk.configure(this, key, true);
        ServiceAttributionSdk.configure(this, key, (InitListener) null, "u");
        ServiceAttributionSdk.setCustomerUserId("java-consumer");
        ServiceAttributionSdk.sendEvent(EventType.LOGIN);
        ServiceAttributionSdk.sendEvent(EventType.CUSTOM, "Consumer Java");
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("level", 7);
        ServiceAttributionSdk.sendEvent(EventType.LEVEL_START, null, parameters);
        AppLinkResult link = ServiceAttributionSdk.handleAppLink(getIntent());
        Uri uri = getIntent().getData();
        AppLinkResult filtered = ServiceAttributionSdk.handleAppLink(uri, new LinkOptions(Collections.singleton("go.example.com")));
        AppLinkResult any = ServiceAttributionSdk.handleAppLink(uri);
        DeepLink fromIntent = ServiceAttributionSdk.handleDeepLink(getIntent());
        DeepLink fromUri = ServiceAttributionSdk.handleDeepLink(uri);
        Seen.add("state:" + ServiceAttributionSdk.isConfigured() + ServiceAttributionSdk.isStopped() + ServiceAttributionSdk.isAnonymous()
            + (ServiceAttributionSdk.getServiceId() != null) + ServiceAttributionSdk.isSdkDisabled() + ServiceAttributionSdk.isEnabled()
            + ServiceAttributionSdk.getLastInitError() + ServiceAttributionSdk.getDroppedEventCount() + link + filtered + any
            + fromIntent + fromUri + ServiceAttributionSdk.getAttributionParams() + ServiceAttributionSdk.getAttributionParams("utm_source=x"));
        ServiceAttributionSdk.awaitAttributionParamsAsync().thenAccept(map -> Seen.add("await-async:" + map.get("media_source")));
        ServiceAttributionSdk.awaitAttributionParamsAsync("utm_source=x");
        ServiceAttributionSdk.refreshConfigAsync().thenRun(() -> Seen.add("refresh-async:done"));
    }

    /** Called by the harness once the events are in the service's export. */
    public void finishUp() {
        ServiceAttributionSdk.deleteUserDataAsync().thenRun(() -> Seen.add("deleted-async"));
    }
}
