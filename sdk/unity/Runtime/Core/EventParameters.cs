using System;
using System.Collections;
using System.Collections.Generic;

namespace Service.Unity
{
    /// <summary>
    /// An event's parameters as JSON takes them, or an <see cref="ArgumentException"/> before
    /// anything is queued. Strings, booleans, finite numbers, nested string-keyed dictionaries
    /// and arrays or lists go as they are; a null value leaves out its own key (nulls inside a
    /// list are kept). Anything else (a NaN, a DateTime, an object of the app's) throws: the
    /// caller converts it, a DateTime to an ISO 8601 string say.
    /// </summary>
    internal static class EventParameters
    {
        private static readonly object LeftOut = new object();

        /// <summary>
        /// The service's bound on nesting, the parameters themselves being level 1
        /// (src/ingest/limits.ts, maxParameterDepth): deeper is refused there, and a list or
        /// dictionary that holds itself would otherwise recurse until the player crashes.
        /// </summary>
        internal const int MaxDepth = 5;

        /// <summary>Null when there is nothing to send.</summary>
        public static Dictionary<string, object> Check(IDictionary<string, object> parameters)
        {
            if (parameters == null) return null;
            var cleaned = Map(new Dictionary<string, object>(parameters), "parameters", 1);
            return cleaned.Count == 0 ? null : cleaned;
        }

        private static Dictionary<string, object> Map(IDictionary map, string path, int level)
        {
            var cleaned = new Dictionary<string, object>();
            foreach (DictionaryEntry entry in map)
            {
                var key = entry.Key as string;
                if (key == null) throw new ArgumentException(path + " must have string keys", "parameters");
                var value = Value(entry.Value, path + "." + key, false, level);
                if (!ReferenceEquals(value, LeftOut)) cleaned[key] = value;
            }
            return cleaned;
        }

        private static object Value(object value, string path, bool inList, int level)
        {
            if (value == null) return inList ? null : LeftOut;
            if (value is string || value is bool) return value;
            if (value is double || value is float)
            {
                var number = Convert.ToDouble(value);
                if (double.IsNaN(number) || double.IsInfinity(number))
                {
                    throw new ArgumentException(path + " must be a finite number", "parameters");
                }
                return value;
            }
            // Json.NET writes an integer through a long: a larger ulong would throw at each save
            // of the queue, which would then never reach the disk. As a decimal it is written whole.
            if (value is ulong && (ulong)value > long.MaxValue) return (decimal)(ulong)value;
            if (value is int || value is long || value is short || value is byte || value is sbyte
                || value is uint || value is ulong || value is ushort || value is decimal)
            {
                return value;
            }
            var dictionary = value as IDictionary;
            var list = value as IList;
            if ((dictionary != null || list != null) && level >= MaxDepth)
            {
                throw new ArgumentException(
                    path + " nests deeper than " + MaxDepth + " levels (the parameters being the first), "
                    + "which the service refuses: a list or dictionary that holds itself does too",
                    "parameters");
            }
            if (dictionary != null) return Map(dictionary, path, level + 1);
            if (list != null)
            {
                var cleaned = new List<object>();
                for (var i = 0; i < list.Count; i++) cleaned.Add(Value(list[i], path + "[" + i + "]", true, level + 1));
                return cleaned;
            }
            throw new ArgumentException(
                path + " is a " + value.GetType().Name + ", which JSON cannot hold: convert it first "
                + "(a DateTime to an ISO 8601 string, say)",
                "parameters");
        }
    }
}
