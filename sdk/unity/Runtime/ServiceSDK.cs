using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace Service.Unity
{
    /// <summary>
    /// The attribution service's SDK for Unity. Calls are synchronous unless stated; each logs
    /// and rethrows what fails. Configure must come first (HandleUniversalLink excepted).
    /// </summary>
    public static class ServiceSDK
    {
        private static readonly object Gate = new object();
        private static SdkSetup setup;
        private static SdkCore core;
        private static string baseUrl;

        /// <summary>
        /// The service's address, e.g. https://api.example.com; set it before Configure. The
        /// public API names no address, so the app sets it: without it Configure leaves the SDK
        /// off.
        /// </summary>
        public static string BaseUrl
        {
            get { return baseUrl; }
            set { baseUrl = value; }
        }

        public static void Configure(string apiKey, int logLevel = 1, string customerUserId = null)
        {
            Guard("Configure", () => Core.Configure(apiKey, logLevel, customerUserId));
        }

        public static void SetCustomerUserId(string customerUserId)
        {
            Guard("SetCustomerUserId", () => Core.SetCustomerUserId(customerUserId));
        }

        public static void SendEvent(EventType eventType, string eventName = null, Dictionary<string, object> parameters = null)
        {
            Guard("SendEvent", () => Core.SendEvent(eventType, eventName, parameters));
        }

        public static string GetServiceId()
        {
            return Guard("GetServiceId", () => Core.ServiceId);
        }

        public static bool IsSdkDisabled()
        {
            return Guard("IsSdkDisabled", () => Core.IsSdkDisabled);
        }

        public static void GetAttributionParams(Action<Dictionary<string, object>> onSuccess, Action<string> onError = null)
        {
            Guard("GetAttributionParams", () => Core.GetAttributionParams(onSuccess, onError));
        }

        public static ServiceLinkResult HandleUniversalLink(string url, string[] allowedHosts = null)
        {
            return Guard("HandleUniversalLink", () => LinkParser.Parse(url, allowedHosts));
        }

        /// <summary>iOS only: the install then carries Apple's AdServices token. A no-op elsewhere.</summary>
        public static void EnablePlatformAdsAttribution()
        {
            Guard("EnablePlatformAdsAttribution", () => PlatformAds.Enable());
        }

        public static Task DeleteUserData()
        {
            return Guard("DeleteUserData", () => Core.DeleteUserData());
        }

        /// <summary>
        /// The platform the SDK runs on: the Unity layer sets it at load; tests and non-Unity
        /// hosts set their own. A new setup starts a new, unconfigured SDK.
        /// </summary>
        public static void UsePlatform(SdkSetup platform)
        {
            lock (Gate)
            {
                setup = platform;
                core = null;
            }
        }

        internal static SdkCore Core
        {
            get
            {
                lock (Gate)
                {
                    if (core != null) return core;
                    if (setup == null) throw new InvalidOperationException("no platform: call ServiceSDK.UsePlatform first");
                    setup.BaseUrl = setup.BaseUrl ?? baseUrl;
                    core = new SdkCore(setup);
                    return core;
                }
            }
        }

        private static void Guard(string member, Action action)
        {
            Guard<object>(member, () =>
            {
                action();
                return null;
            });
        }

        private static T Guard<T>(string member, Func<T> call)
        {
            try
            {
                return call();
            }
            catch (Exception error)
            {
                var log = setup == null ? null : setup.Log;
                if (log != null) log.Write(LogLevel.Error, "ServiceSDK." + member + " failed: " + error.Message);
                throw;
            }
        }
    }
}
