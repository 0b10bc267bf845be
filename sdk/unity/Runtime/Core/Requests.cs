using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>
    /// The bodies of POST /v1/installs and of each event of POST /v1/events, as
    /// sdk/conformance/requests.json shows them, and of POST /v1/sessions, as
    /// sdk/conformance/sessions.json does.
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
        /// <param name="consent">The consent object (<see cref="Consent"/>), or null when nothing of it is known: no `consent` at all.</param>
        /// <param name="anonymous">Anonymous mode: no advertising id, IDFV or customer user id.</param>
        public static JObject Install(
            string serviceId, DateTime firstOpen, DateTime sentAt, DeviceSignals device, string customerUserId,
            JObject consent = null, bool anonymous = false)
        {
            var referrer = device.InstallReferrer;
            var referrerText = referrer == null ? null : Fields.Text(referrer.Referrer, Fields.MaxReferrerLength);
            var os = device.Os == "ios" ? "ios" : "android";
            var tracking = Tracking(device, anonymous);
            var idfv = Fields.DeviceIdentifier(device.Idfv);
            if (anonymous)
            {
                idfv = null;
                customerUserId = null;
            }
            var install = new JObject
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
                { "idfv", idfv },
                { "maid", tracking["maid"] },
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
                { "att_status", tracking["att_status"] },
                { "platform_ads_token", Fields.Bounded(device.PlatformAdsToken, Fields.MaxAdsTokenLength) },
                { "open_url", Fields.Bounded(device.OpenUrl, Fields.MaxReferrerLength) },
                { "customer_user_id", customerUserId },
                { "locale", Fields.LocaleTag(device.Locale) },
                { "timezone", Fields.TimeZoneName(device.Timezone) },
            };
            if (consent != null) install["consent"] = consent;
            // The install says so: its postbacks then name no address or user agent.
            if (anonymous) install["anonymous"] = true;
            return install;
        }

        /// <summary>
        /// The consent object of the install and of its update route: what the app set, with the
        /// TCF values of the device (`IABTCF_gdprApplies` standing in for gdprApplies the app did
        /// not set); null when none of its four is known. A TCF string longer than the service
        /// takes is left out (<see cref="ConsentState"/> warns of it): sent, it would cost the
        /// whole request.
        /// </summary>
        public static JObject Consent(ServiceConsent app, TcfValues tcf)
        {
            bool? gdprApplies = app == null ? null : app.GdprApplies;
            if (gdprApplies == null && tcf != null && (tcf.GdprApplies == 1 || tcf.GdprApplies == 0)) gdprApplies = tcf.GdprApplies == 1;
            var tcString = tcf == null || string.IsNullOrWhiteSpace(tcf.TcString) || TcStringTooLong(tcf) ? null : tcf.TcString;
            var consent = new JObject
            {
                { "gdpr_applies", gdprApplies },
                { "ad_user_data", app == null ? null : app.AdUserData },
                { "ad_personalization", app == null ? null : app.AdPersonalization },
                // A null string would be a JValue of type String: null as JSON's null.
                { "tcf_string", tcString == null ? JValue.CreateNull() : new JValue(tcString) },
            };
            return consent.Properties().All(p => p.Value.Type == JTokenType.Null) ? null : consent;
        }

        /// <summary>Whether the consent platform's TCF string is longer than the service takes.</summary>
        public static bool TcStringTooLong(TcfValues tcf)
        {
            return tcf != null && tcf.TcString != null && tcf.TcString.Length > Fields.MaxTcfStringLength;
        }

        /// <summary>
        /// The device's tracking as the install reports it (its `maid` and `att_status`) and as
        /// every consent update carries it (`device`): the advertising id, which the all-zero id
        /// (what the OS gives without consent) is not, on iOS only with ATT's `authorized`, never
        /// in anonymous mode; iOS's ATT status (Android has none).
        /// </summary>
        public static JObject Tracking(DeviceSignals device, bool anonymous)
        {
            var attStatus = Fields.AttStatus(device.AttStatus);
            var maid = Fields.DeviceIdentifier(device.AdvertisingId);
            if ((device.Os == "ios" && attStatus != "authorized") || anonymous) maid = null;
            return new JObject { { "maid", maid }, { "att_status", attStatus } };
        }

        /// <summary>
        /// POST /v1/installs/{service_id}/consent: the consent now, all four null when none is
        /// known, and the device's tracking now (<see cref="Tracking"/>); without `device` only
        /// when the device could not say (null), which leaves the service's as it is.
        /// </summary>
        public static JObject ConsentUpdate(JObject consent, JObject tracking, DateTime sentAt)
        {
            var update = new JObject
            {
                { "sent_at", Iso(sentAt) },
                {
                    "consent", consent ?? new JObject
                    {
                        { "gdpr_applies", null }, { "ad_user_data", null }, { "ad_personalization", null }, { "tcf_string", null },
                    }
                },
            };
            if (tracking != null) update["device"] = tracking;
            return update;
        }

        /// <summary>
        /// POST /v1/events: the batch, with the device clock as it leaves (set again on each
        /// attempt); in anonymous mode every event of it goes marked `anonymous`.
        /// </summary>
        public static JObject Events(IEnumerable<QueuedEvent> batch, string serviceId, DateTime sentAt, bool anonymous)
        {
            return new JObject
            {
                { "sent_at", Iso(sentAt) },
                { "events", new JArray(batch.Select(e => Event(e, serviceId, anonymous, sentAt))) },
            };
        }

        /// <summary>POST /v1/sessions: the sessions in the order they started, with the device clock as it leaves (set again on each attempt).</summary>
        public static JObject Sessions(IEnumerable<QueuedSession> batch, string serviceId, DateTime sentAt)
        {
            return new JObject
            {
                { "sent_at", Iso(sentAt) },
                {
                    "sessions", new JArray(batch.Select(s => new JObject
                    {
                        { "session_id", s.SessionId },
                        { "service_id", serviceId },
                        { "started_at", NotAfter(s.StartedAt, sentAt) },
                    }))
                },
            };
        }

        /// <summary>
        /// The install with only what the service requires: sent once the whole one was refused
        /// for good, so that the install is still recorded and its events are taken.
        /// </summary>
        public static JObject BareInstall(string serviceId, DateTime firstOpen, DateTime sentAt, string os, bool anonymous = false)
        {
            var install = new JObject
            {
                { "service_id", serviceId },
                { "os", os },
                { "sdk_platform", SdkPlatform },
                { "sdk_version", SdkVersion },
                { "first_open_time", Iso(firstOpen) },
                { "sent_at", Iso(sentAt) },
            };
            if (anonymous) install["anonymous"] = true;
            return install;
        }

        /// <summary>One event of POST /v1/events.</summary>
        /// <param name="anonymous">Anonymous mode as the event leaves.</param>
        public static JObject Event(QueuedEvent queued, string serviceId, bool anonymous, DateTime sentAt)
        {
            // Anonymous when taken or as it leaves: no customer user id.
            var sentAnonymous = anonymous || queued.Anonymous;
            var json = new JObject
            {
                { "event_id", queued.EventId },
                { "event_type", queued.EventType },
                { "event_name", queued.EventName },
                { "parameters", queued.Parameters },
                { "event_time", NotAfter(queued.EventTime, sentAt) },
                { "service_id", serviceId },
                { "customer_user_id", sentAnonymous ? null : queued.CustomerUserId },
            };
            // The missing id alone would not tell the service to leave out the install's device
            // ids too; only an anonymous event has the key (sdk/conformance/requests.json).
            if (sentAnonymous) json["anonymous"] = true;
            return json;
        }

        private const string IsoFormat = "yyyy-MM-dd'T'HH:mm:ss.fff'Z'";

        public static string Iso(DateTime time)
        {
            return time.ToUniversalTime().ToString(IsoFormat, CultureInfo.InvariantCulture);
        }

        /// <summary>
        /// An item's time, or the request's <paramref name="sentAt"/> when the item's is after
        /// it. The device clock went back since the item was made (a clock set days ahead, put
        /// right while the item waited offline): it happened before it left, and the service
        /// refuses an item more than 24 hours after its request's `sent_at`, which would lose it.
        /// Kept on the device as made.
        /// </summary>
        internal static string NotAfter(string time, DateTime sentAt)
        {
            DateTime at;
            if (time == null || !DateTime.TryParseExact(
                time, IsoFormat, CultureInfo.InvariantCulture,
                DateTimeStyles.AssumeUniversal | DateTimeStyles.AdjustToUniversal, out at))
            {
                return time;
            }
            return at > sentAt.ToUniversalTime() ? Iso(sentAt) : time;
        }
    }
}
