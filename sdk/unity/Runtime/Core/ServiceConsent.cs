using System;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>
    /// What the user answered about data use, as the app's consent screen asked it: null where
    /// not asked or not known. Given to <see cref="ServiceSDK.SetConsent"/>; kept across launches.
    /// The IAB TCF values the app's consent platform stored on the device are read beside it.
    /// </summary>
    public sealed class ServiceConsent
    {
        public ServiceConsent(bool? gdprApplies = null, bool? adUserData = null, bool? adPersonalization = null)
        {
            GdprApplies = gdprApplies;
            AdUserData = adUserData;
            AdPersonalization = adPersonalization;
        }

        /// <summary>Whether the GDPR applies to this user; null: the TCF value (IABTCF_gdprApplies) or unknown.</summary>
        public bool? GdprApplies { get; }

        /// <summary>Whether the user agreed that data about them is sent for advertising.</summary>
        public bool? AdUserData { get; }

        /// <summary>Whether the user agreed to personalized advertising.</summary>
        public bool? AdPersonalization { get; }

        public override string ToString()
        {
            return "ServiceConsent(GdprApplies: " + GdprApplies + ", AdUserData: " + AdUserData
                + ", AdPersonalization: " + AdPersonalization + ")";
        }

        internal JObject ToJson()
        {
            return new JObject
            {
                { "gdpr_applies", GdprApplies },
                { "ad_user_data", AdUserData },
                { "ad_personalization", AdPersonalization },
            };
        }

        /// <summary>The consent as <see cref="ToJson"/> wrote it; null for none; a <see cref="FormatException"/> for anything else.</summary>
        internal static ServiceConsent FromJson(string json)
        {
            if (json == null) return null;
            JObject value;
            try
            {
                value = JsonText.ParseObject(json);
            }
            catch (JsonException error)
            {
                throw new FormatException("not a consent: " + error.Message);
            }
            return new ServiceConsent(Answer(value, "gdpr_applies"), Answer(value, "ad_user_data"), Answer(value, "ad_personalization"));
        }

        private static bool? Answer(JObject consent, string name)
        {
            var token = consent[name];
            if (token == null || token.Type == JTokenType.Null) return null;
            if (token.Type != JTokenType.Boolean) throw new FormatException("not a consent: " + name + " is a JSON " + token.Type);
            return (bool)token;
        }
    }

    /// <summary>The IAB TCF values a consent platform stored on the device; null where none.</summary>
    public sealed class TcfValues
    {
        /// <summary>IABTCF_TCString.</summary>
        public string TcString { get; set; }

        /// <summary>IABTCF_gdprApplies: 1 or 0; null when not stored (or another value).</summary>
        public int? GdprApplies { get; set; }
    }
}
