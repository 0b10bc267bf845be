// Apple's AdServices token for the install (iOS 14.3 and later), read when the app has called
// ServiceSDK.EnablePlatformAdsAttribution. The service resolves it with Apple.
#import <Foundation/Foundation.h>
#import <AdServices/AdServices.h>

const char *ServiceSdkAdServicesToken(void) {
    if (@available(iOS 14.3, *)) {
        NSError *error = nil;
        NSString *token = [AAAttribution attributionTokenWithError:&error];
        if (token != nil) return strdup([token UTF8String]);
    }
    return NULL;
}
