using System;
using System.Collections.Generic;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;

namespace Service.Unity
{
    /// <summary>
    /// The matching parameters (sdk/conformance/pii.json) never leave the device in clear, nor
    /// reach its disk: <c>SendEvent</c> replaces each by <c>sha256:</c> and the lower-case hex
    /// SHA-256 of its value, normalised as the service normalises a clear one (src/ingest/pii.ts),
    /// so the hash equals the service's and an ad network's. A value the app hashed already (64
    /// hex digits, bare or after <c>sha256:</c>) is kept in that one marked form. A value that is
    /// not a string or a number, is no date for <c>date_of_birth</c>, or is empty once normalised
    /// is left out with its key, as the service would leave it out.
    ///
    /// Hashed, never sealed: the Kotlin and iOS SDKs seal these to the app's key when its remote
    /// configuration turns sealing on, with platform cryptography (AES-GCM) that Unity's Mono and
    /// IL2CPP do not all offer. The service takes a hash either way; only the app's owner could
    /// have opened a sealed value, and no one opens a hash.
    /// </summary>
    internal static class Pii
    {
        public static readonly string[] Keys = { "email", "name", "phone_number", "date_of_birth", "gender" };
        public const string HashMarker = "sha256:";

        private static readonly Regex PreHashed = new Regex("^(?:sha256:)?([0-9a-fA-F]{64})\\z", RegexOptions.CultureInvariant);
        private static readonly Regex Date = new Regex("^([0-9]{4})[-/.]?([0-9]{2})[-/.]?([0-9]{2})(?:T.*)?\\z", RegexOptions.CultureInvariant);
        private static readonly Regex NotDigits = new Regex("[^0-9]+", RegexOptions.CultureInvariant);

        /// <summary>
        /// The parameters to queue: <paramref name="parameters"/> itself when it holds no matching
        /// parameter, else a copy with each hashed or left out; the keys left out go to
        /// <paramref name="dropped"/> (empty when none).
        /// </summary>
        public static Dictionary<string, object> Protect(Dictionary<string, object> parameters, out List<string> dropped)
        {
            dropped = new List<string>();
            if (parameters == null) return null;
            Dictionary<string, object> protectedParameters = null;
            foreach (var key in Keys)
            {
                object raw;
                if (!parameters.TryGetValue(key, out raw)) continue;
                if (protectedParameters == null) protectedParameters = new Dictionary<string, object>(parameters);
                var hashed = ProtectOne(key, raw);
                if (hashed == null)
                {
                    protectedParameters.Remove(key);
                    dropped.Add(key);
                }
                else protectedParameters[key] = hashed;
            }
            if (protectedParameters == null) return parameters;
            return protectedParameters.Count == 0 ? null : protectedParameters;
        }

        private static string ProtectOne(string key, object raw)
        {
            var value = raw as string ?? NumberText(raw);
            if (value == null) return null;
            var preHashed = PreHashed.Match(value);
            if (preHashed.Success) return HashMarker + preHashed.Groups[1].Value.ToLowerInvariant();
            var normalised = Normalise(key, value);
            return string.IsNullOrEmpty(normalised) ? null : Sha256Marked(normalised);
        }

        /// <summary>
        /// A number as the service reads it from the JSON the SDK would send (JavaScript's
        /// <c>String(n)</c>): a whole number without a fraction, so a phone number given as a
        /// double keeps only its own digits. Null for what is no number.
        /// </summary>
        private static string NumberText(object raw)
        {
            if (raw is double || raw is float || raw is decimal)
            {
                var number = Convert.ToDouble(raw, CultureInfo.InvariantCulture);
                if (Math.Floor(number) == number && Math.Abs(number) < 9007199254740992d)
                {
                    return ((long)number).ToString(CultureInfo.InvariantCulture);
                }
                return number.ToString("R", CultureInfo.InvariantCulture);
            }
            if (raw is int || raw is long || raw is short || raw is byte || raw is sbyte
                || raw is uint || raw is ulong || raw is ushort)
            {
                return Convert.ToString(raw, CultureInfo.InvariantCulture);
            }
            return null;
        }

        /// <summary>The service's normalisation; null for a value that is no date.</summary>
        public static string Normalise(string key, string value)
        {
            switch (key)
            {
                case "email":
                    return ServiceCase.Lower(ServiceCase.Trim(value));
                case "phone_number":
                    // Digits only, and no leading zero: a country code never starts with one.
                    return NotDigits.Replace(value, "").TrimStart('0');
                case "name":
                    // NFC, so a composed and a decomposed "é" hash alike; accents are kept.
                    return ServiceCase.Lower(ServiceCase.Trim(value).Normalize(NormalizationForm.FormC));
                case "date_of_birth":
                    return DateOfBirth(value);
                case "gender":
                    var lowered = ServiceCase.Lower(ServiceCase.Trim(value));
                    if (lowered == "m" || lowered == "male") return "m";
                    if (lowered == "f" || lowered == "female") return "f";
                    return lowered;
                default:
                    return value;
            }
        }

        /// <summary>YYYYMMDD from 1990-01-31, 19900131, 1990/01/31, 1990.01.31 or an ISO date-time.</summary>
        private static string DateOfBirth(string value)
        {
            var match = Date.Match(ServiceCase.Trim(value));
            if (!match.Success) return null;
            int year = int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture);
            int month = int.Parse(match.Groups[2].Value, CultureInfo.InvariantCulture);
            int day = int.Parse(match.Groups[3].Value, CultureInfo.InvariantCulture);
            // 31 February or month 13 is no date, nor a year before 100, which the service's are not.
            if (year < 100 || month < 1 || month > 12 || day < 1 || day > DateTime.DaysInMonth(year, month)) return null;
            return match.Groups[1].Value + match.Groups[2].Value + match.Groups[3].Value;
        }

        public static string Sha256Marked(string value)
        {
            byte[] digest;
            // Made by its type, not by name through CryptoConfig (SHA256.Create), which code
            // stripping in a player build can leave without the class it looks up.
            using (var sha = new SHA256Managed()) digest = sha.ComputeHash(Encoding.UTF8.GetBytes(value));
            var hex = new StringBuilder(HashMarker, HashMarker.Length + 64);
            foreach (var b in digest) hex.Append(b.ToString("x2", CultureInfo.InvariantCulture));
            return hex.ToString();
        }
    }
}
