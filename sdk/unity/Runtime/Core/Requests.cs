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

        /// <summary>
        /// The install with every device signal fitted to the service's install schema (see
        /// <see cref="Fields"/>). On iOS the advertising id goes only with ATT's `authorized`.
        /// </summary>
        /// <param name="sentAt">The clock now: set on each attempt, it tells the service how far off the clock is.</param>
        public static JObject Install(string serviceId, DateTime firstOpen, DateTime sentAt, DeviceSignals device, string customerUserId)
        {
            var referrer = device.InstallReferrer;
            var referrerText = referrer == null ? null : Fields.Text(referrer.Referrer, Fields.MaxReferrerLength);
            var os = device.Os == "ios" ? "ios" : "android";
            var attStatus = Fields.AttStatus(device.AttStatus);
            var maid = Fields.DeviceIdentifier(device.AdvertisingId);
            if (os == "ios" && attStatus != "authorized") maid = null;
            return new JObject
            {
                { "service_id", serviceId },
                { "os", os },
                { "os_version", Fields.Text(device.OsVersion, Fields.MaxDeviceFieldLength) },
                { "device_model", Fields.Text(device.DeviceModel, Fields.MaxDeviceFieldLength) },
                { "app_version", Fields.Text(device.AppVersion, Fields.MaxDeviceFieldLength) },
                { "sdk_platform", SdkPlatform },
                { "sdk_version", SdkVersion },
                { "first_open_time", Iso(firstOpen) },
                { "sent_at", Iso(sentAt) },
                { "idfv", Fields.DeviceIdentifier(device.Idfv) },
                // The all-zero id is what the OS gives without consent: no id at all.
                { "maid", maid },
                {
                    "install_referrer", referrerText == null ? null : new JObject
                    {
                        { "referrer", referrerText },
                        { "click_timestamp", Fields.UnixSeconds(referrer.ClickTimestampSeconds) },
                        { "install_begin_timestamp", Fields.UnixSeconds(referrer.InstallBeginTimestampSeconds) },
                        { "referrer_click_timestamp_server_seconds", Fields.UnixSeconds(referrer.ReferrerClickTimestampServerSeconds) },
                        { "install_begin_timestamp_server_seconds", Fields.UnixSeconds(referrer.InstallBeginTimestampServerSeconds) },
                        { "install_version", Fields.Text(referrer.InstallVersion, Fields.MaxDeviceFieldLength) },
                    }
                },
                { "att_status", attStatus },
                { "platform_ads_token", Fields.Bounded(device.PlatformAdsToken, Fields.MaxAdsTokenLength) },
                { "open_url", Fields.Bounded(device.OpenUrl, Fields.MaxReferrerLength) },
                { "customer_user_id", customerUserId },
                { "locale", Fields.LocaleTag(device.Locale) },
                { "timezone", Fields.TimeZoneName(device.Timezone) },
            };
        }

        /// <summary>
        /// The install with only what the service requires: sent once the whole one was refused
        /// for good, so that the install is still recorded and its events are taken.
        /// </summary>
        public static JObject BareInstall(string serviceId, DateTime firstOpen, DateTime sentAt, string os)
        {
            return new JObject
            {
                { "service_id", serviceId },
                { "os", os },
                { "sdk_platform", SdkPlatform },
                { "sdk_version", SdkVersion },
                { "first_open_time", Iso(firstOpen) },
                { "sent_at", Iso(sentAt) },
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
