// What only iOS itself knows, for the Unity layer (Runtime/Unity/UnityServices.cs, through
// [DllImport("__Internal")]): App Tracking Transparency's status and, once the user allowed
// tracking, the IDFA; Apple's AdServices token once the app has called
// ServiceSDK.EnablePlatformAdsAttribution; the device's language; the IAB TCF values a consent
// platform stored in NSUserDefaults; the IDFV, which tells this install from another one that a
// backup restored PlayerPrefs to; and background time (UIApplication's background tasks) for the
// send the SDK makes as the app goes to the background. Each string answer is a malloc'd copy (or
// NULL), which the managed marshaller frees.
//
// AppTrackingTransparency (iOS 14) and AdServices (iOS 14.3) are missing on older systems: they
// are weak-linked (Editor/ServiceSdkXcodeFrameworks.cs) and every use is behind @available.
#import <Foundation/Foundation.h>
#import <UIKit/UIKit.h>
#import <AdServices/AdServices.h>
#import <AdSupport/AdSupport.h>
#import <AppTrackingTransparency/AppTrackingTransparency.h>

static char *ServiceSdkCopy(NSString *text) {
    if (text == nil) return NULL;
    const char *utf8 = [text UTF8String];
    return utf8 == NULL ? NULL : strdup(utf8);
}

// Apple's AdServices token; NULL before iOS 14.3, which has none to give; "" when the framework
// could not make one now (Apple advises asking again), for the SDK to read at the install's retry.
const char *ServiceSdkAdServicesToken(void) {
    if (@available(iOS 14.3, *)) {
        NSError *error = nil;
        NSString *token = [AAAttribution attributionTokenWithError:&error];
        return ServiceSdkCopy(token != nil ? token : @"");
    }
    return NULL;
}

// The service's names of the four statuses; NULL before iOS 14, which has no ATT.
const char *ServiceSdkTrackingStatus(void) {
    if (@available(iOS 14, *)) {
        switch ([ATTrackingManager trackingAuthorizationStatus]) {
            case ATTrackingManagerAuthorizationStatusAuthorized:
                return ServiceSdkCopy(@"authorized");
            case ATTrackingManagerAuthorizationStatusDenied:
                return ServiceSdkCopy(@"denied");
            case ATTrackingManagerAuthorizationStatusRestricted:
                return ServiceSdkCopy(@"restricted");
            case ATTrackingManagerAuthorizationStatusNotDetermined:
                return ServiceSdkCopy(@"not_determined");
        }
    }
    return NULL;
}

// The IDFA only while ATT says authorized; without it iOS gives the all-zero id, which names
// no device. Before iOS 14 there is no consent to read, so none is sent.
const char *ServiceSdkAdvertisingId(void) {
    if (@available(iOS 14, *)) {
        if ([ATTrackingManager trackingAuthorizationStatus] != ATTrackingManagerAuthorizationStatusAuthorized) {
            return NULL;
        }
        NSUUID *idfa = [[ASIdentifierManager sharedManager] advertisingIdentifier];
        return ServiceSdkCopy([idfa UUIDString]);
    }
    return NULL;
}

// The IDFV, or NULL while iOS has none to give (after a restart, before the first unlock):
// no fallback to another id, which would look like another install of the app.
const char *ServiceSdkVendorId(void) {
    return ServiceSdkCopy([[[UIDevice currentDevice] identifierForVendor] UUIDString]);
}

// The user's first preferred language, a BCP 47 tag such as "en-US".
const char *ServiceSdkLocale(void) {
    return ServiceSdkCopy([[NSLocale preferredLanguages] firstObject]);
}

// The device's time zone, an IANA name such as "Europe/Berlin" (Mono's TimeZoneInfo.Local on a
// device is a zone of its own named "Local").
const char *ServiceSdkTimeZone(void) {
    return ServiceSdkCopy([[NSTimeZone localTimeZone] name]);
}

// IABTCF_TCString as the app's consent platform stored it in the standard user defaults (the
// TCF's place on iOS; Unity's PlayerPrefs do not hold it), or NULL.
const char *ServiceSdkTcfString(void) {
    id value = [[NSUserDefaults standardUserDefaults] objectForKey:@"IABTCF_TCString"];
    if (![value isKindOfClass:[NSString class]] || [(NSString *)value length] == 0) return NULL;
    return ServiceSdkCopy((NSString *)value);
}

// IABTCF_gdprApplies: 1 or 0 (a number, or the string "1" or "0" some platforms store); -1 when
// absent or anything else: a string such as "true" or "" says nothing, and is not read as 0.
int ServiceSdkTcfGdprApplies(void) {
    id value = [[NSUserDefaults standardUserDefaults] objectForKey:@"IABTCF_gdprApplies"];
    if ([value isKindOfClass:[NSNumber class]]) {
        NSInteger applies = [value integerValue];
        if (applies == 0 || applies == 1) return (int)applies;
    } else if ([value isKindOfClass:[NSString class]]) {
        NSString *text = [(NSString *)value stringByTrimmingCharactersInSet:[NSCharacterSet whitespaceCharacterSet]];
        if ([text isEqualToString:@"1"]) return 1;
        if ([text isEqualToString:@"0"]) return 0;
    }
    return -1;
}

// Background time for the send the SDK makes as the app goes to the background. Each task is
// ended once: by the SDK when its send is done, or here when iOS takes the time back first
// (iOS wants it ended before the expiration handler returns). The tasks not ended yet are kept
// under a lock, since the SDK ends its own from one of its threads.
typedef void (*ServiceSdkBackgroundExpired)(int64_t task);

static NSMutableSet *ServiceSdkOpenTasks(void) {
    static NSMutableSet *open;
    static dispatch_once_t once;
    dispatch_once(&once, ^{
        open = [NSMutableSet set];
    });
    return open;
}

// YES once for a task begun here and not ended yet, which the caller then ends.
static BOOL ServiceSdkTakeTask(UIBackgroundTaskIdentifier task) {
    NSMutableSet *open = ServiceSdkOpenTasks();
    @synchronized (open) {
        NSNumber *key = @(task);
        if (![open containsObject:key]) return NO;
        [open removeObject:key];
        return YES;
    }
}

// On the main thread: the task's number, or 0 (UIBackgroundTaskInvalid) when iOS lends no time.
int64_t ServiceSdkBeginBackgroundTask(ServiceSdkBackgroundExpired expired) {
    UIApplication *application = [UIApplication sharedApplication];
    NSMutableSet *open = ServiceSdkOpenTasks();
    __block UIBackgroundTaskIdentifier task = UIBackgroundTaskInvalid;
    // Held until the task is recorded, so that an expiration cannot come before it is.
    @synchronized (open) {
        task = [application beginBackgroundTaskWithName:@"ServiceSDK: sending what is queued"
                                      expirationHandler:^{
            if (!ServiceSdkTakeTask(task)) return;
            if (expired != NULL) expired((int64_t)task);
            [application endBackgroundTask:task];
        }];
        if (task != UIBackgroundTaskInvalid) [open addObject:@(task)];
    }
    return (int64_t)task;
}

// From any thread: the time given back, unless iOS took it back already.
void ServiceSdkEndBackgroundTask(int64_t task) {
    UIBackgroundTaskIdentifier identifier = (UIBackgroundTaskIdentifier)task;
    if (!ServiceSdkTakeTask(identifier)) return;
    [[UIApplication sharedApplication] endBackgroundTask:identifier];
}

// From any thread: `before` runs on the main queue, then the time is given back there. The main
// queue runs while the app is in the background (Unity's player loop does not), so the SDK saves
// there what its send changed: PlayerPrefs may be touched on the main thread only, and once the
// time is given back iOS may suspend the app, and later end it, without a word.
typedef void (*ServiceSdkOnMainQueue)(int64_t task);

void ServiceSdkEndBackgroundTaskOnMainQueue(int64_t task, ServiceSdkOnMainQueue before) {
    dispatch_async(dispatch_get_main_queue(), ^{
        if (before != NULL) before(task);
        ServiceSdkEndBackgroundTask(task);
    });
}
