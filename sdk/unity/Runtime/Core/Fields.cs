using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Service.Unity
{
    /// <summary>
    /// The install's fields as POST /v1/installs takes them (the service's install schema and its
    /// limits): a device signal the service would refuse is fitted or left out, so that it costs
    /// only itself and never the install. The customer user id has the service's 1 to 256
    /// characters.
    /// </summary>
    internal static class Fields
    {
        public const int MaxCustomerUserIdLength = 256;
        public const int MaxDeviceFieldLength = 64;
        public const int MaxReferrerLength = 2048;
        public const int MaxAdsTokenLength = 8192;
        public const int MaxLocaleLength = 35;
        public const int MaxTimezoneLength = 64;
        /// <summary>`consent.tcf_string`, in UTF-16 code units as the service counts them: a longer one it refuses (422).</summary>
        public const int MaxTcfStringLength = 4096;
        /// <summary>The latest Unix second before the year 10000, as the service bounds them.</summary>
        public const long MaxUnixSeconds = 253402300799;

        private static readonly Regex Locale = new Regex(@"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$");
        private static readonly Regex Timezone = new Regex(@"^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*$");
        private static readonly Regex DeviceId = new Regex(@"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
        private static readonly Regex ZeroId = new Regex(@"^[0-]+$");
        private static readonly HashSet<string> AttStatuses = new HashSet<string>
        {
            "authorized", "denied", "restricted", "not_determined",
        };

        /// <summary>
        /// Why a customer user id cannot be sent, or null when it can. Null and blank are no id
        /// (they clear it) and are not checked here.
        /// </summary>
        public static string CustomerUserIdProblem(string value)
        {
            if (HasLoneSurrogate(value)) return "the customer user id is not Unicode text (it holds a lone surrogate)";
            // Characters as the service counts them: an emoji (a surrogate pair) is one.
            var characters = value.Length;
            for (var i = 0; i < value.Length; i++)
            {
                if (char.IsHighSurrogate(value[i])) characters--;
            }
            if (characters > MaxCustomerUserIdLength)
            {
                return "the customer user id has " + characters + " characters; the service takes 1 to "
                    + MaxCustomerUserIdLength;
            }
            for (var i = 0; i < value.Length; i++)
            {
                if (char.IsControl(value[i]))
                {
                    return "the customer user id holds a control character (U+" + ((int)value[i]).ToString("X4", CultureInfo.InvariantCulture)
                        + "), which the service refuses";
                }
            }
            return null;
        }

        /// <summary>Trimmed, at most <paramref name="max"/> characters; null when empty.</summary>
        public static string Text(string value, int max)
        {
            if (value == null) return null;
            var trimmed = Clean(value).Trim();
            if (trimmed.Length == 0) return null;
            if (trimmed.Length > max)
            {
                trimmed = trimmed.Substring(0, max);
                // Not half of a pair at the cut.
                if (char.IsHighSurrogate(trimmed[max - 1])) trimmed = trimmed.Substring(0, max - 1);
            }
            return trimmed;
        }

        /// <summary>Kept whole when at most <paramref name="max"/> characters, else left out.</summary>
        public static string Bounded(string value, int max)
        {
            return value == null || value.Length == 0 || value.Length > max || HasLoneSurrogate(value) ? null : value;
        }

        /// <summary>
        /// A BCP 47 tag, or null: the invariant culture's empty name, and anything that is not
        /// one, is left out.
        /// </summary>
        public static string LocaleTag(string value)
        {
            if (value == null) return null;
            var tag = value.Trim();
            return tag.Length <= MaxLocaleLength && Locale.IsMatch(tag) ? tag : null;
        }

        /// <summary>
        /// An IANA time zone name, or null. A Windows id ("W. Europe Standard Time", which .NET
        /// gives on Windows) becomes its IANA name where it is one of Windows' own zones; Mono's
        /// "Local", which names no zone, is left out.
        /// </summary>
        public static string TimeZoneName(string value)
        {
            if (value == null) return null;
            var id = value.Trim();
            string iana;
            if (WindowsZones.TryGetValue(id, out iana)) return iana;
            if (id == "Local" || id.Length > MaxTimezoneLength || !Timezone.IsMatch(id)) return null;
            return id;
        }

        /// <summary>A UUID-shaped id (IDFV, IDFA, GAID), or null; the all-zero id is none.</summary>
        public static string DeviceIdentifier(string value)
        {
            if (value == null) return null;
            var id = value.Trim();
            return DeviceId.IsMatch(id) && !ZeroId.IsMatch(id) ? id : null;
        }

        public static string AttStatus(string value)
        {
            return value != null && AttStatuses.Contains(value) ? value : null;
        }

        /// <summary>Unix seconds as the service takes them; else unknown.</summary>
        public static long? UnixSeconds(long? value)
        {
            return value.HasValue && value.Value >= 0 && value.Value <= MaxUnixSeconds ? value : null;
        }

        /// <summary>The version in an OS description: "Android OS 14 / API-34 (…)" is "14", "iOS 17.4" is "17.4".</summary>
        public static string OsVersion(string description)
        {
            if (description == null) return null;
            var match = Regex.Match(description, @"\d+(?:\.\d+)*");
            return match.Success ? match.Value : Text(description, MaxDeviceFieldLength);
        }

        private static bool HasLoneSurrogate(string value)
        {
            for (var i = 0; i < value.Length; i++)
            {
                if (char.IsHighSurrogate(value[i]) && i + 1 < value.Length && char.IsLowSurrogate(value[i + 1]))
                {
                    i++;
                    continue;
                }
                if (char.IsSurrogate(value[i])) return true;
            }
            return false;
        }

        /// <summary>A lone surrogate becomes U+FFFD, as UTF-8 would send it anyway.</summary>
        private static string Clean(string value)
        {
            if (!HasLoneSurrogate(value)) return value;
            var chars = value.ToCharArray();
            for (var i = 0; i < chars.Length; i++)
            {
                if (char.IsHighSurrogate(chars[i]) && i + 1 < chars.Length && char.IsLowSurrogate(chars[i + 1]))
                {
                    i++;
                    continue;
                }
                if (char.IsSurrogate(chars[i])) chars[i] = '\uFFFD';
            }
            return new string(chars);
        }

        /// <summary>
        /// Windows' time zone ids and the IANA zone of each, as the Unicode CLDR's windowsZones
        /// table maps them for the world ("001"). Unity's .NET profile has no
        /// TimeZoneInfo.TryConvertWindowsIdToIanaId.
        /// </summary>
        private static readonly Dictionary<string, string> WindowsZones = new Dictionary<string, string>
        {
            { "Dateline Standard Time", "Etc/GMT+12" },
            { "UTC-11", "Etc/GMT+11" },
            { "Aleutian Standard Time", "America/Adak" },
            { "Hawaiian Standard Time", "Pacific/Honolulu" },
            { "Marquesas Standard Time", "Pacific/Marquesas" },
            { "Alaskan Standard Time", "America/Anchorage" },
            { "UTC-09", "Etc/GMT+9" },
            { "Pacific Standard Time (Mexico)", "America/Tijuana" },
            { "UTC-08", "Etc/GMT+8" },
            { "Pacific Standard Time", "America/Los_Angeles" },
            { "US Mountain Standard Time", "America/Phoenix" },
            { "Mountain Standard Time (Mexico)", "America/Mazatlan" },
            { "Mountain Standard Time", "America/Denver" },
            { "Yukon Standard Time", "America/Whitehorse" },
            { "Central America Standard Time", "America/Guatemala" },
            { "Central Standard Time", "America/Chicago" },
            { "Easter Island Standard Time", "Pacific/Easter" },
            { "Central Standard Time (Mexico)", "America/Mexico_City" },
            { "Canada Central Standard Time", "America/Regina" },
            { "SA Pacific Standard Time", "America/Bogota" },
            { "Eastern Standard Time (Mexico)", "America/Cancun" },
            { "Eastern Standard Time", "America/New_York" },
            { "Haiti Standard Time", "America/Port-au-Prince" },
            { "Cuba Standard Time", "America/Havana" },
            { "US Eastern Standard Time", "America/Indiana/Indianapolis" },
            { "Turks And Caicos Standard Time", "America/Grand_Turk" },
            { "Paraguay Standard Time", "America/Asuncion" },
            { "Atlantic Standard Time", "America/Halifax" },
            { "Venezuela Standard Time", "America/Caracas" },
            { "Central Brazilian Standard Time", "America/Cuiaba" },
            { "SA Western Standard Time", "America/La_Paz" },
            { "Pacific SA Standard Time", "America/Santiago" },
            { "Newfoundland Standard Time", "America/St_Johns" },
            { "Tocantins Standard Time", "America/Araguaina" },
            { "E. South America Standard Time", "America/Sao_Paulo" },
            { "SA Eastern Standard Time", "America/Cayenne" },
            { "Argentina Standard Time", "America/Argentina/Buenos_Aires" },
            { "Greenland Standard Time", "America/Nuuk" },
            { "Montevideo Standard Time", "America/Montevideo" },
            { "Magallanes Standard Time", "America/Punta_Arenas" },
            { "Saint Pierre Standard Time", "America/Miquelon" },
            { "Bahia Standard Time", "America/Bahia" },
            { "UTC-02", "Etc/GMT+2" },
            { "Azores Standard Time", "Atlantic/Azores" },
            { "Cape Verde Standard Time", "Atlantic/Cape_Verde" },
            { "UTC", "Etc/UTC" },
            { "GMT Standard Time", "Europe/London" },
            { "Greenwich Standard Time", "Atlantic/Reykjavik" },
            { "Sao Tome Standard Time", "Africa/Sao_Tome" },
            { "Morocco Standard Time", "Africa/Casablanca" },
            { "W. Europe Standard Time", "Europe/Berlin" },
            { "Central Europe Standard Time", "Europe/Budapest" },
            { "Romance Standard Time", "Europe/Paris" },
            { "Central European Standard Time", "Europe/Warsaw" },
            { "W. Central Africa Standard Time", "Africa/Lagos" },
            { "Jordan Standard Time", "Asia/Amman" },
            { "GTB Standard Time", "Europe/Bucharest" },
            { "Middle East Standard Time", "Asia/Beirut" },
            { "Egypt Standard Time", "Africa/Cairo" },
            { "E. Europe Standard Time", "Europe/Chisinau" },
            { "Syria Standard Time", "Asia/Damascus" },
            { "West Bank Standard Time", "Asia/Hebron" },
            { "South Africa Standard Time", "Africa/Johannesburg" },
            { "FLE Standard Time", "Europe/Kiev" },
            { "Israel Standard Time", "Asia/Jerusalem" },
            { "South Sudan Standard Time", "Africa/Juba" },
            { "Kaliningrad Standard Time", "Europe/Kaliningrad" },
            { "Sudan Standard Time", "Africa/Khartoum" },
            { "Libya Standard Time", "Africa/Tripoli" },
            { "Namibia Standard Time", "Africa/Windhoek" },
            { "Arabic Standard Time", "Asia/Baghdad" },
            { "Turkey Standard Time", "Europe/Istanbul" },
            { "Arab Standard Time", "Asia/Riyadh" },
            { "Belarus Standard Time", "Europe/Minsk" },
            { "Russian Standard Time", "Europe/Moscow" },
            { "E. Africa Standard Time", "Africa/Nairobi" },
            { "Volgograd Standard Time", "Europe/Volgograd" },
            { "Iran Standard Time", "Asia/Tehran" },
            { "Arabian Standard Time", "Asia/Dubai" },
            { "Astrakhan Standard Time", "Europe/Astrakhan" },
            { "Azerbaijan Standard Time", "Asia/Baku" },
            { "Russia Time Zone 3", "Europe/Samara" },
            { "Mauritius Standard Time", "Indian/Mauritius" },
            { "Saratov Standard Time", "Europe/Saratov" },
            { "Georgian Standard Time", "Asia/Tbilisi" },
            { "Caucasus Standard Time", "Asia/Yerevan" },
            { "Afghanistan Standard Time", "Asia/Kabul" },
            { "West Asia Standard Time", "Asia/Tashkent" },
            { "Ekaterinburg Standard Time", "Asia/Yekaterinburg" },
            { "Pakistan Standard Time", "Asia/Karachi" },
            { "Qyzylorda Standard Time", "Asia/Qyzylorda" },
            { "India Standard Time", "Asia/Kolkata" },
            { "Sri Lanka Standard Time", "Asia/Colombo" },
            { "Nepal Standard Time", "Asia/Kathmandu" },
            { "Central Asia Standard Time", "Asia/Almaty" },
            { "Bangladesh Standard Time", "Asia/Dhaka" },
            { "Omsk Standard Time", "Asia/Omsk" },
            { "Myanmar Standard Time", "Asia/Yangon" },
            { "SE Asia Standard Time", "Asia/Bangkok" },
            { "Altai Standard Time", "Asia/Barnaul" },
            { "W. Mongolia Standard Time", "Asia/Hovd" },
            { "North Asia Standard Time", "Asia/Krasnoyarsk" },
            { "N. Central Asia Standard Time", "Asia/Novosibirsk" },
            { "Tomsk Standard Time", "Asia/Tomsk" },
            { "China Standard Time", "Asia/Shanghai" },
            { "North Asia East Standard Time", "Asia/Irkutsk" },
            { "Singapore Standard Time", "Asia/Singapore" },
            { "W. Australia Standard Time", "Australia/Perth" },
            { "Taipei Standard Time", "Asia/Taipei" },
            { "Ulaanbaatar Standard Time", "Asia/Ulaanbaatar" },
            { "Aus Central W. Standard Time", "Australia/Eucla" },
            { "Transbaikal Standard Time", "Asia/Chita" },
            { "Tokyo Standard Time", "Asia/Tokyo" },
            { "North Korea Standard Time", "Asia/Pyongyang" },
            { "Korea Standard Time", "Asia/Seoul" },
            { "Yakutsk Standard Time", "Asia/Yakutsk" },
            { "Cen. Australia Standard Time", "Australia/Adelaide" },
            { "AUS Central Standard Time", "Australia/Darwin" },
            { "E. Australia Standard Time", "Australia/Brisbane" },
            { "AUS Eastern Standard Time", "Australia/Sydney" },
            { "West Pacific Standard Time", "Pacific/Port_Moresby" },
            { "Tasmania Standard Time", "Australia/Hobart" },
            { "Vladivostok Standard Time", "Asia/Vladivostok" },
            { "Lord Howe Standard Time", "Australia/Lord_Howe" },
            { "Bougainville Standard Time", "Pacific/Bougainville" },
            { "Russia Time Zone 10", "Asia/Srednekolymsk" },
            { "Magadan Standard Time", "Asia/Magadan" },
            { "Norfolk Standard Time", "Pacific/Norfolk" },
            { "Sakhalin Standard Time", "Asia/Sakhalin" },
            { "Central Pacific Standard Time", "Pacific/Guadalcanal" },
            { "Russia Time Zone 11", "Asia/Kamchatka" },
            { "New Zealand Standard Time", "Pacific/Auckland" },
            { "UTC+12", "Etc/GMT-12" },
            { "UTC+13", "Etc/GMT-13" },
            { "Fiji Standard Time", "Pacific/Fiji" },
            { "Kamchatka Standard Time", "Asia/Kamchatka" },
            { "Chatham Islands Standard Time", "Pacific/Chatham" },
            { "Tonga Standard Time", "Pacific/Tongatapu" },
            { "Samoa Standard Time", "Pacific/Apia" },
            { "Line Islands Standard Time", "Pacific/Kiritimati" },
        };
    }
}
