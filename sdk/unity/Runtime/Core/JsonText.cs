using System.Globalization;
using System.IO;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>
    /// Every JSON text the SDK reads (the service's answers, what it kept on the device) is read
    /// here, with strings kept as strings. Newtonsoft's own parse turns a string that looks like a
    /// date ("2024-05-01T10:00:00.000+02:00") into a DateTime, which is written back in the device's
    /// time zone and without its fraction: an event parameter queued in one process would leave the
    /// next one changed, and an attribution or deep link value would reach the app as a DateTime.
    /// </summary>
    internal static class JsonText
    {
        /// <summary>For turning parsed JSON into the SDK's own types, with the same rule.</summary>
        public static readonly JsonSerializer Serializer = JsonSerializer.Create(new JsonSerializerSettings
        {
            DateParseHandling = DateParseHandling.None,
        });

        /// <summary>
        /// A value as JSON text, by <see cref="Serializer"/>: never by JsonConvert, which applies the
        /// app's own JsonConvert.DefaultSettings (camel-cased names, $type keys), so a game's global
        /// settings would change what is sent and what is kept.
        /// </summary>
        public static string Write(object value)
        {
            using (var writer = new StringWriter(CultureInfo.InvariantCulture))
            {
                Serializer.Serialize(writer, value);
                return writer.ToString();
            }
        }

        /// <summary>A reader of the text that leaves date-like strings alone.</summary>
        public static JsonTextReader Reader(string text)
        {
            return new JsonTextReader(new StringReader(text)) { DateParseHandling = DateParseHandling.None };
        }

        /// <summary>The text's one JSON value; a <see cref="JsonException"/> when it is not JSON, or has more after it.</summary>
        public static JToken Parse(string text)
        {
            using (var reader = Reader(text))
            {
                var token = JToken.ReadFrom(reader);
                // As JToken.Parse does: anything but a comment after the value is an error, which
                // the reader throws as it reads on.
                while (reader.Read())
                {
                }
                return token;
            }
        }

        /// <summary>The text's JSON object; a <see cref="JsonException"/> when it is not one.</summary>
        public static JObject ParseObject(string text)
        {
            var token = Parse(text);
            var json = token as JObject;
            if (json == null) throw new JsonReaderException("a JSON " + token.Type + " where an object was expected");
            return json;
        }
    }
}
