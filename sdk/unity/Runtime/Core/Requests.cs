using System;
using System.Globalization;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>
    /// The bodies of POST /v1/installs and of each event of POST /v1/events, as
    /// sdk/conformance/requests.json shows them.
    /// </summary>
    internal static class Requests
    {
        public const string SdkPlatform = "unity";
        public const string SdkVersion = "1.6.0";
        private const string NoAdvertisingId = "00000000-0000-0000-0000-000000000000";

        public static JObject Install(string serviceId, DateTime firstOpen, DeviceSignals device, string customerUserId)
        {
            var referrer = device.InstallReferrer;
            return new JObject
            {
                { "service_id", serviceId },
                { "os", device.Os },
                { "os_version", device.OsVersion },
                { "device_model", device.DeviceModel },
                { "app_version", device.AppVersion },
                { "sdk_platform", SdkPlatform },
                { "sdk_version", SdkVersion },
                { "first_open_time", Iso(firstOpen) },
                { "idfv", device.Idfv },
                // The all-zero id is what the OS gives without consent: no id at all.
                { "maid", device.AdvertisingId == NoAdvertisingId ? null : device.AdvertisingId },
                {
                    "install_referrer", referrer == null ? null : new JObject
                    {
                        { "referrer", referrer.Referrer },
                        { "click_timestamp", referrer.ClickTimestampSeconds },
                        { "install_begin_timestamp", referrer.InstallBeginTimestampSeconds },
                        { "referrer_click_timestamp_server_seconds", referrer.ReferrerClickTimestampServerSeconds },
                        { "install_begin_timestamp_server_seconds", referrer.InstallBeginTimestampServerSeconds },
                        { "install_version", referrer.InstallVersion },
                    }
                },
                { "att_status", device.AttStatus },
                { "platform_ads_token", device.PlatformAdsToken },
                { "open_url", device.OpenUrl },
                { "customer_user_id", customerUserId },
                { "locale", device.Locale },
                { "timezone", device.Timezone },
            };
        }

        public static JObject Event(QueuedEvent queued, string serviceId)
        {
            return new JObject
            {
                { "event_id", queued.EventId },
                { "event_type", queued.EventType },
                { "event_name", queued.EventName },
                { "parameters", queued.Parameters },
                { "event_time", queued.EventTime },
                { "service_id", serviceId },
                { "customer_user_id", queued.CustomerUserId },
            };
        }

        public static string Iso(DateTime time)
        {
            return time.ToUniversalTime().ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);
        }
    }
}
