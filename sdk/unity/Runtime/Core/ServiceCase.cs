using System.Globalization;
using System.Text;

namespace Service.Unity
{
    /// <summary>
    /// Text in lower case as the service lowers it (JavaScript's <c>toLowerCase()</c>, as the
    /// Kotlin and iOS SDKs do): the invariant culture's mapping, and the two places where
    /// Unicode's full mapping differs from the character-by-character one .NET and Mono apply. A
    /// capital sigma that ends a word is the final ς ("ΝΙΚΟΣ" is "νικος"), and the capital I with
    /// a dot is an i with a combining dot above. Otherwise a hash made of such a name would never
    /// equal the service's.
    /// </summary>
    internal static class ServiceCase
    {
        private const char CapitalSigma = '\u03A3';
        private const char FinalSigma = '\u03C2';
        private const char CapitalIWithDot = '\u0130';

        /// <summary>
        /// The text without the spaces around it, as the service trims it (JavaScript's
        /// <c>trim()</c>): Unicode's space separators, tab, the line ends, vertical tab, form feed
        /// and the byte order mark. .NET's <c>Trim()</c> keeps the byte order mark and takes
        /// U+0085, so a value copied with either would hash to what the service's never equals.
        /// </summary>
        public static string Trim(string text)
        {
            int start = 0, end = text.Length;
            while (start < end && IsServiceSpace(text[start])) start++;
            while (end > start && IsServiceSpace(text[end - 1])) end--;
            return text.Substring(start, end - start);
        }

        private static bool IsServiceSpace(char c)
        {
            switch (c)
            {
                case '\t':
                case '\n':
                case '\u000B':
                case '\u000C':
                case '\r':
                case '\uFEFF':
                case '\u2028':
                case '\u2029':
                    return true;
                default:
                    return char.GetUnicodeCategory(c) == UnicodeCategory.SpaceSeparator;
            }
        }

        public static string Lower(string text)
        {
            // The invariant mapping keeps the text's length, so its characters line up with the original's.
            var lowered = text.ToLowerInvariant();
            if (text.IndexOf(CapitalSigma) < 0 && text.IndexOf(CapitalIWithDot) < 0) return lowered;
            var lower = new StringBuilder(text.Length + 1);
            for (int i = 0; i < text.Length; i++)
            {
                if (text[i] == CapitalSigma && EndsWord(text, i)) lower.Append(FinalSigma);
                else if (text[i] == CapitalIWithDot) lower.Append("i\u0307");
                else lower.Append(lowered[i]);
            }
            return lower.ToString();
        }

        /// <summary>
        /// Unicode's Final_Sigma condition: a cased letter before the sigma and none after it, the
        /// case-ignorable characters between (an apostrophe, a combining mark) passed over.
        /// </summary>
        private static bool EndsWord(string text, int index)
        {
            int before = index - 1;
            while (before >= 0 && IsCaseIgnorable(text, before)) before--;
            if (before < 0 || !IsCased(text, before)) return false;
            int after = index + 1;
            while (after < text.Length && IsCaseIgnorable(text, after)) after++;
            return after == text.Length || !IsCased(text, after);
        }

        private static bool IsCased(string text, int index)
        {
            switch (CharUnicodeInfo.GetUnicodeCategory(text, index))
            {
                case UnicodeCategory.UppercaseLetter:
                case UnicodeCategory.LowercaseLetter:
                case UnicodeCategory.TitlecaseLetter:
                    return true;
                default:
                    return false;
            }
        }

        private static bool IsCaseIgnorable(string text, int index)
        {
            switch (text[index])
            {
                // Unicode's MidLetter, MidNumLet and Single_Quote word-break characters.
                case '\'': case '.': case ':': case '\u00B7': case '\u0387': case '\u05F4':
                case '\u2018': case '\u2019': case '\u2024': case '\u2027': case '\uFE13':
                case '\uFE52': case '\uFE55': case '\uFF07': case '\uFF0E': case '\uFF1A':
                    return true;
            }
            switch (CharUnicodeInfo.GetUnicodeCategory(text, index))
            {
                case UnicodeCategory.NonSpacingMark:
                case UnicodeCategory.EnclosingMark:
                case UnicodeCategory.Format:
                case UnicodeCategory.ModifierLetter:
                case UnicodeCategory.ModifierSymbol:
                    return true;
                default:
                    return false;
            }
        }
    }
}
