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

        internal static ServiceConsent FromJson(string json)
        {
            if (json == null) return null;
            var value = JObject.Parse(json);
            return new ServiceConsent(
                value.Value<bool?>("gdpr_applies"), value.Value<bool?>("ad_user_data"), value.Value<bool?>("ad_personalization"));
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
