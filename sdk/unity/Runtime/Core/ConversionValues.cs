using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using Newtonsoft.Json.Linq;

// The app's conversion value schema (remote configuration's `skadnetwork`) evaluated on the
// device, event by event, as the service's reference does (src/skadnetwork/conversion-evaluation.ts;
// sdk/conformance/conversion-values.json holds the cases): the install's first open starts the
// clock, an event falls in the window of its time since then, each window keeps its counts, USD
// revenue and parameters reached, and Apple is asked for an update only when the fine or the
// coarse value rises or the window becomes locked. Values Apple holds cannot go down, so nothing
// here ever lowers one.
namespace Service.Unity
{
    /// <summary>SKAdNetwork's and AdAttributionKit's coarse values, lowest first (the plugin's 0, 1, 2).</summary>
    internal enum CoarseValue
    {
        Low = 0,
        Medium = 1,
        High = 2,
    }

    /// <summary>
    /// One rule of a window: an event, how often it happened in the window, its revenue there in
    /// USD, or a numeric parameter one occurrence reached; what meeting it is worth; whether it
    /// locks the window.
    /// </summary>
    internal sealed class ConversionRule
    {
        /// <summary>The event as the export names it (`service_purchase`).</summary>
        public string Event { get; private set; }
        public int MinCount { get; private set; }
        public bool HasRevenue { get; private set; }
        public double RevenueMin { get; private set; }
        /// <summary>Excluded; null: no upper bound.</summary>
        public double? RevenueMax { get; private set; }
        public string ParameterName { get; private set; }
        public double ParameterAtLeast { get; private set; }
        /// <summary>0 to 63; read in the first window only.</summary>
        public int? Fine { get; private set; }
        public CoarseValue Coarse { get; private set; }
        public bool Lock { get; private set; }

        /// <summary>A rule as the service writes it, its defaults applied; null for one this SDK cannot evaluate.</summary>
        public static ConversionRule Parse(JToken token)
        {
            var rule = token as JObject;
            if (rule == null) return null;
            var name = rule["event"];
            CoarseValue coarse;
            if (name == null || name.Type != JTokenType.String || !ConversionValues.TryCoarse(rule["coarse"], out coarse)) return null;
            var parsed = new ConversionRule { Event = (string)name, Coarse = coarse, MinCount = 1 };
            var count = Present(rule["min_count"]);
            if (count != null)
            {
                if (count.Type != JTokenType.Integer || (long)count < 1) return null;
                parsed.MinCount = (int)Math.Min((long)count, int.MaxValue);
            }
            var revenue = Present(rule["revenue_usd"]);
            if (revenue != null)
            {
                var range = revenue as JObject;
                if (range == null) return null;
                double? min = 0, max = null;
                var low = Present(range["min"]);
                var high = Present(range["max"]);
                if (low != null && !ConversionValues.TryNumber(low, out min)) return null;
                if (high != null && !ConversionValues.TryNumber(high, out max)) return null;
                parsed.HasRevenue = true;
                parsed.RevenueMin = min.Value;
                parsed.RevenueMax = max;
            }
            var parameter = Present(rule["parameter"]);
            if (parameter != null)
            {
                var threshold = parameter as JObject;
                double? atLeast;
                if (threshold == null || threshold["name"] == null || threshold["name"].Type != JTokenType.String
                    || !ConversionValues.TryNumber(threshold["at_least"], out atLeast)) return null;
                parsed.ParameterName = (string)threshold["name"];
                parsed.ParameterAtLeast = atLeast.Value;
            }
            var fine = Present(rule["fine"]);
            if (fine != null)
            {
                if (fine.Type != JTokenType.Integer || (long)fine < 0 || (long)fine > 63) return null;
                parsed.Fine = (int)(long)fine;
            }
            var locks = Present(rule["lock"]);
            if (locks != null)
            {
                if (locks.Type != JTokenType.Boolean) return null;
                parsed.Lock = (bool)locks;
            }
            return parsed;
        }

        public JObject ToJson()
        {
            var json = new JObject
            {
                { "event", Event },
                { "min_count", MinCount },
                { "coarse", ConversionValues.Name(Coarse) },
                { "lock", Lock },
            };
            if (HasRevenue)
            {
                var range = new JObject { { "min", RevenueMin } };
                if (RevenueMax.HasValue) range["max"] = RevenueMax.Value;
                json["revenue_usd"] = range;
            }
            if (ParameterName != null) json["parameter"] = new JObject { { "name", ParameterName }, { "at_least", ParameterAtLeast } };
            if (Fine.HasValue) json["fine"] = Fine.Value;
            return json;
        }

        private static JToken Present(JToken token)
        {
            return token == null || token.Type == JTokenType.Null ? null : token;
        }
    }

    /// <summary>Remote configuration's `skadnetwork`: its version, the three windows' rules, the USD rates.</summary>
    internal sealed class ConversionSchema
    {
        /// <summary>Made by the service at each save: a new one means new rules, never new values.</summary>
        public long Version { get; private set; }
        public List<List<ConversionRule>> Windows { get; private set; }
        /// <summary>USD of one unit of each currency, by its upper-case ISO 4217 code.</summary>
        public Dictionary<string, double> UsdRates { get; private set; }

        /// <summary>
        /// The schema, or null for none (`null`) and for one this SDK cannot evaluate. The service
        /// checks every schema before it saves it, so the second means a shape newer than this
        /// SDK: nothing is evaluated rather than a part of it.
        /// </summary>
        public static ConversionSchema Parse(JToken token)
        {
            var schema = token as JObject;
            if (schema == null || schema["version"] == null || schema["version"].Type != JTokenType.Integer) return null;
            var windows = ParseWindows(schema["windows"]);
            if (windows == null) return null;
            return new ConversionSchema { Version = (long)schema["version"], Windows = windows, UsdRates = Rates(schema["usd_rates"]) };
        }

        /// <summary>The three windows' rules (`[{"rules": [...]}, {...}, {...}]`), or null.</summary>
        public static List<List<ConversionRule>> ParseWindows(JToken token)
        {
            var list = token as JArray;
            if (list == null || list.Count != ConversionEvaluation.WindowHours.Length) return null;
            var windows = new List<List<ConversionRule>>();
            foreach (var window in list)
            {
                var rules = (window as JObject) == null ? null : window["rules"] as JArray;
                if (rules == null) return null;
                var parsed = rules.Select(ConversionRule.Parse).ToList();
                if (parsed.Any(rule => rule == null)) return null;
                windows.Add(parsed);
            }
            return windows;
        }

        /// <summary>Rates by upper-case code; one that is not a positive number is left out (its revenue adds nothing).</summary>
        public static Dictionary<string, double> Rates(JToken token)
        {
            var rates = new Dictionary<string, double>();
            var map = token as JObject;
            if (map == null) return rates;
            foreach (var rate in map.Properties())
            {
                double? value;
                if (ConversionValues.TryNumber(rate.Value, out value) && value.Value > 0 && !double.IsInfinity(value.Value))
                {
                    rates[rate.Name.ToUpperInvariant()] = value.Value;
                }
            }
            return rates;
        }

        public JObject ToJson()
        {
            var rates = new JObject();
            foreach (var rate in UsdRates) rates[rate.Key] = rate.Value;
            return new JObject
            {
                { "version", Version },
                { "windows", new JArray(Windows.Select(rules => new JObject { { "rules", new JArray(rules.Select(r => r.ToJson())) } })) },
                { "usd_rates", rates },
            };
        }
    }

    /// <summary>An event as the evaluation sees it.</summary>
    internal sealed class ConversionEvent
    {
        private static readonly Regex Decimal = new Regex(@"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$");

        /// <summary>The largest revenue the service takes, either way (src/ingest/limits.ts, maxRevenueAmount).</summary>
        internal const double MaxRevenueAmount = 1000000000000;

        /// <summary>The export's `event_name` (`service_purchase`).</summary>
        public string Name { get; set; }
        /// <summary>Hours since the install's first open.</summary>
        public double HoursAfterInstall { get; set; }
        public double? RevenueAmount { get; set; }
        public string RevenueCurrency { get; set; }
        /// <summary>
        /// The service refuses the whole event for its revenue: it never counts there, so it
        /// counts for nothing here either.
        /// </summary>
        public bool Refused { get; set; }
        /// <summary>The event's numeric parameters (booleans, strings and nested values are none).</summary>
        public Dictionary<string, double> Parameters { get; set; } = new Dictionary<string, double>();

        /// <summary>
        /// An event the app sent, as the service will read it: named as the export names it, its
        /// revenue read as the service reads it (<see cref="ReadRevenue"/>). An event timed before
        /// the first open (sent before Configure on the first launch) counts at the first open.
        /// </summary>
        public static ConversionEvent Of(EventType type, string name, IDictionary<string, object> parameters, DateTime time, DateTime firstOpen)
        {
            var conversion = new ConversionEvent
            {
                Name = EventNames.ExportName(type, name),
                HoursAfterInstall = Math.Max(0, (time.ToUniversalTime() - firstOpen.ToUniversalTime()).TotalHours),
            };
            if (parameters == null) return conversion;
            foreach (var parameter in parameters)
            {
                double number;
                if (Number(parameter.Value, out number)) conversion.Parameters[parameter.Key] = number;
            }
            double? amount;
            string currency;
            conversion.Refused = !ReadRevenue(parameters, out amount, out currency);
            conversion.RevenueAmount = amount;
            conversion.RevenueCurrency = currency;
            return conversion;
        }

        /// <summary>
        /// `revenue` and `currency` as the service reads them (readRevenue in
        /// src/ingest/revenue.ts). False when the service refuses the whole event for its revenue:
        /// a value that is no finite number or plain decimal string ("1,000", "$4.99", a boolean),
        /// or one past a trillion either way. Otherwise the amount and the currency as given, or
        /// nulls for no revenue: none, or no currency named as text (a guessed one would be a
        /// wrong figure).
        /// </summary>
        internal static bool ReadRevenue(IDictionary<string, object> parameters, out double? amount, out string currency)
        {
            amount = null;
            currency = null;
            object revenue, code;
            // A null value is never sent: no revenue.
            if (parameters == null || !parameters.TryGetValue("revenue", out revenue) || revenue == null) return true;
            double value;
            if (!Number(revenue, out value))
            {
                var text = revenue as string;
                if (text == null) return false;
                text = ServiceCase.Trim(text);
                if (!Decimal.IsMatch(text) || !double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value)
                    || double.IsInfinity(value)) return false;
            }
            if (Math.Abs(value) > MaxRevenueAmount) return false;
            if (!parameters.TryGetValue("currency", out code) || !(code is string)) return true;
            amount = value;
            currency = (string)code;
            return true;
        }

        /// <summary>
        /// A finite number the app passed (any numeric type); booleans are none. A float is read
        /// as the decimal it prints as, which is what goes on the wire: widened as it is, 9.99f
        /// is 9.989999771118164, below a rule at 9.99 that the service, reading 9.99, finds met.
        /// </summary>
        internal static bool Number(object value, out double number)
        {
            number = 0;
            if (value is float)
            {
                var single = (float)value;
                if (float.IsNaN(single) || float.IsInfinity(single)) return false;
                number = double.Parse(single.ToString("R", CultureInfo.InvariantCulture), NumberStyles.Float, CultureInfo.InvariantCulture);
                return true;
            }
            if (value is double || value is int || value is long || value is short || value is byte
                || value is sbyte || value is uint || value is ulong || value is ushort || value is decimal)
            {
                number = Convert.ToDouble(value, CultureInfo.InvariantCulture);
                return !double.IsNaN(number) && !double.IsInfinity(number);
            }
            return false;
        }
    }

    /// <summary>One update to ask Apple for: the window the event fell in, its values, whether to lock it.</summary>
    internal sealed class ConversionCall : IEquatable<ConversionCall>
    {
        public ConversionCall(int window, int? fine, CoarseValue coarse, bool locks)
        {
            Window = window;
            Fine = fine;
            Coarse = coarse;
            Lock = locks;
        }

        public int Window { get; }
        /// <summary>The first window's fine value; null in later windows, where Apple reads the coarse one.</summary>
        public int? Fine { get; }
        public CoarseValue Coarse { get; }
        public bool Lock { get; }

        public bool Equals(ConversionCall other)
        {
            return other != null && other.Window == Window && other.Fine == Fine && other.Coarse == Coarse && other.Lock == Lock;
        }

        public override bool Equals(object other)
        {
            return Equals(other as ConversionCall);
        }

        public override int GetHashCode()
        {
            return Window * 1000 + (Fine ?? -1) * 10 + (int)Coarse + (Lock ? 5000 : 0);
        }

        public override string ToString()
        {
            return "window " + Window + ", fine " + (Fine.HasValue ? Fine.Value.ToString(CultureInfo.InvariantCulture) : "none")
                + ", coarse " + ConversionValues.Name(Coarse) + (Lock ? ", window locked" : "");
        }
    }

    /// <summary>What one window has seen, and the values it set.</summary>
    internal sealed class ConversionWindowState
    {
        public Dictionary<string, long> Counts = new Dictionary<string, long>();
        public Dictionary<string, double> RevenueUsd = new Dictionary<string, double>();
        /// <summary>Per event name, the highest value each numeric parameter reached.</summary>
        public Dictionary<string, Dictionary<string, double>> Parameters = new Dictionary<string, Dictionary<string, double>>();
        public int? Fine;
        public CoarseValue? Coarse;
        public bool Locked;

        public ConversionWindowState Clone()
        {
            return new ConversionWindowState
            {
                Counts = new Dictionary<string, long>(Counts),
                RevenueUsd = new Dictionary<string, double>(RevenueUsd),
                Parameters = Parameters.ToDictionary(p => p.Key, p => new Dictionary<string, double>(p.Value)),
                Fine = Fine,
                Coarse = Coarse,
                Locked = Locked,
            };
        }
    }

    /// <summary>The install's evaluation, kept in the store with the SDK's other state.</summary>
    internal sealed class ConversionState
    {
        public ConversionWindowState[] Windows = ConversionEvaluation.WindowHours.Select(_ => new ConversionWindowState()).ToArray();
        /// <summary>Apple was told of the install's first launch (or given a value, which tells it too).</summary>
        public bool Registered;

        public ConversionState Clone()
        {
            return new ConversionState { Windows = Windows.Select(w => w.Clone()).ToArray(), Registered = Registered };
        }

        public string ToJson()
        {
            var windows = new JArray();
            foreach (var window in Windows)
            {
                var counts = new JObject();
                foreach (var count in window.Counts) counts[count.Key] = count.Value;
                var revenue = new JObject();
                foreach (var usd in window.RevenueUsd) revenue[usd.Key] = usd.Value;
                var parameters = new JObject();
                foreach (var reached in window.Parameters)
                {
                    var values = new JObject();
                    foreach (var value in reached.Value) values[value.Key] = value.Value;
                    parameters[reached.Key] = values;
                }
                var json = new JObject
                {
                    { "counts", counts },
                    { "revenue_usd", revenue },
                    { "parameters", parameters },
                    { "locked", window.Locked },
                };
                if (window.Fine.HasValue) json["fine"] = window.Fine.Value;
                if (window.Coarse.HasValue) json["coarse"] = ConversionValues.Name(window.Coarse.Value);
                windows.Add(json);
            }
            return new JObject { { "registered", Registered }, { "windows", windows } }.ToString(Newtonsoft.Json.Formatting.None);
        }

        /// <summary>The state as ToJson wrote it; a fresh one for anything else.</summary>
        public static ConversionState Parse(string text)
        {
            var state = new ConversionState();
            if (text == null) return state;
            JObject json;
            try
            {
                json = JsonText.ParseObject(text);
            }
            catch (Newtonsoft.Json.JsonException)
            {
                return state;
            }
            var windows = json["windows"] as JArray;
            if (windows == null || windows.Count != state.Windows.Length) return state;
            state.Registered = json["registered"] != null && json["registered"].Type == JTokenType.Boolean && (bool)json["registered"];
            for (var i = 0; i < windows.Count; i++)
            {
                var window = windows[i] as JObject;
                if (window == null) continue;
                var parsed = state.Windows[i];
                foreach (var count in Members(window["counts"])) parsed.Counts[count.Name] = (long)count.Value;
                foreach (var usd in Members(window["revenue_usd"])) parsed.RevenueUsd[usd.Name] = (double)usd.Value;
                foreach (var reached in Members(window["parameters"]))
                {
                    parsed.Parameters[reached.Name] = Members(reached.Value).ToDictionary(p => p.Name, p => (double)p.Value);
                }
                if (window["fine"] != null && window["fine"].Type == JTokenType.Integer) parsed.Fine = (int)window["fine"];
                CoarseValue coarse;
                if (ConversionValues.TryCoarse(window["coarse"], out coarse)) parsed.Coarse = coarse;
                parsed.Locked = window["locked"] != null && window["locked"].Type == JTokenType.Boolean && (bool)window["locked"];
            }
            return state;
        }

        private static IEnumerable<JProperty> Members(JToken token)
        {
            var map = token as JObject;
            return map == null ? Enumerable.Empty<JProperty>() : map.Properties();
        }
    }

    /// <summary>The evaluation's one step, which the SDK repeats on every event it takes.</summary>
    internal static class ConversionEvaluation
    {
        /// <summary>Apple's three conversion windows, in hours since the install's first open: [from, to).</summary>
        public static readonly double[][] WindowHours = { new double[] { 0, 48 }, new double[] { 48, 168 }, new double[] { 168, 840 } };

        /// <summary>The window of an event this many hours after the first open; null past the last.</summary>
        public static int? WindowOf(double hours)
        {
            for (var i = 0; i < WindowHours.Length; i++)
            {
                if (hours >= WindowHours[i][0] && hours < WindowHours[i][1]) return i;
            }
            return null;
        }

        /// <summary>
        /// The update the event asks Apple for (null when none), and in <paramref name="next"/> the
        /// state after it. Every rule the window now meets counts: the fine value is the highest of
        /// theirs, the coarse value the highest, and a lock rule among them locks the window.
        /// </summary>
        public static ConversionCall Evaluate(
            IList<List<ConversionRule>> rules, ConversionState state, ConversionEvent conversion,
            IDictionary<string, double> rates, out ConversionState next)
        {
            next = state;
            if (conversion.Refused) return null;
            var index = WindowOf(conversion.HoursAfterInstall);
            if (index == null) return null;
            var before = state.Windows[index.Value];
            // A locked window takes nothing more: its postback is on its way.
            if (before.Locked) return null;

            var current = before.Clone();
            long count;
            current.Counts.TryGetValue(conversion.Name, out count);
            current.Counts[conversion.Name] = count + 1;
            double usd = 0, rate, revenue;
            // The code as the service records it, trimmed and in upper case: " usd " is USD.
            if (conversion.RevenueAmount.HasValue && conversion.RevenueCurrency != null
                && rates.TryGetValue(ServiceCase.Trim(conversion.RevenueCurrency).ToUpperInvariant(), out rate))
            {
                usd = conversion.RevenueAmount.Value * rate;
            }
            current.RevenueUsd.TryGetValue(conversion.Name, out revenue);
            current.RevenueUsd[conversion.Name] = revenue + usd;
            if (conversion.Parameters.Count > 0)
            {
                Dictionary<string, double> reached;
                if (!current.Parameters.TryGetValue(conversion.Name, out reached))
                {
                    reached = new Dictionary<string, double>();
                    current.Parameters[conversion.Name] = reached;
                }
                foreach (var parameter in conversion.Parameters)
                {
                    double highest;
                    reached[parameter.Key] = reached.TryGetValue(parameter.Key, out highest) ? Math.Max(highest, parameter.Value) : parameter.Value;
                }
            }

            var met = (index.Value < rules.Count ? rules[index.Value] : new List<ConversionRule>()).Where(rule => Meets(rule, current)).ToList();
            var fine = before.Fine;
            var coarse = before.Coarse;
            foreach (var rule in met)
            {
                if (index.Value == 0 && rule.Fine.HasValue && (!fine.HasValue || rule.Fine.Value > fine.Value)) fine = rule.Fine;
                if (!coarse.HasValue || rule.Coarse > coarse.Value) coarse = rule.Coarse;
            }
            var locks = met.Any(rule => rule.Lock);
            var rose = fine != before.Fine || coarse != before.Coarse;
            current.Fine = fine;
            current.Coarse = coarse;
            current.Locked = locks;
            next = state.Clone();
            next.Windows[index.Value] = current;
            if ((!rose && !locks) || !coarse.HasValue) return null;
            next.Registered = true;
            return new ConversionCall(index.Value, index.Value == 0 ? fine : null, coarse.Value, locks);
        }

        private static bool Meets(ConversionRule rule, ConversionWindowState window)
        {
            long count;
            window.Counts.TryGetValue(rule.Event, out count);
            if (count < rule.MinCount) return false;
            if (rule.HasRevenue)
            {
                double revenue;
                window.RevenueUsd.TryGetValue(rule.Event, out revenue);
                if (revenue < rule.RevenueMin) return false;
                if (rule.RevenueMax.HasValue && revenue >= rule.RevenueMax.Value) return false;
            }
            if (rule.ParameterName != null)
            {
                Dictionary<string, double> reached;
                double value;
                if (!window.Parameters.TryGetValue(rule.Event, out reached) || !reached.TryGetValue(rule.ParameterName, out value)
                    || value < rule.ParameterAtLeast) return false;
            }
            return true;
        }
    }

    /// <summary>Shared readings of the schema's JSON.</summary>
    internal static class ConversionValues
    {
        public static string Name(CoarseValue value)
        {
            switch (value)
            {
                case CoarseValue.Low: return "low";
                case CoarseValue.Medium: return "medium";
                default: return "high";
            }
        }

        public static bool TryCoarse(JToken token, out CoarseValue value)
        {
            value = CoarseValue.Low;
            if (token == null || token.Type != JTokenType.String) return false;
            switch ((string)token)
            {
                case "low": value = CoarseValue.Low; return true;
                case "medium": value = CoarseValue.Medium; return true;
                case "high": value = CoarseValue.High; return true;
                default: return false;
            }
        }

        public static bool TryNumber(JToken token, out double? value)
        {
            value = null;
            if (token == null || (token.Type != JTokenType.Integer && token.Type != JTokenType.Float)) return false;
            value = (double)token;
            return true;
        }
    }

    /// <summary>
    /// The export's `event_name` of an event (sdk/conformance/event-types.json), which the
    /// schema's rules name: `service_` and the type in lower snake case, a custom event's own name
    /// for CUSTOM. The service's rule (src/domain/event-types.ts): letters and digits of every
    /// script kept, a lower-case letter or digit followed by a capital split, every other run of
    /// characters one `_`, NFC first.
    /// </summary>
    internal static class EventNames
    {
        private static readonly Regex CaseBreak = new Regex(@"([\p{Ll}\p{N}])(\p{Lu})");
        private static readonly Regex Separators = new Regex(@"[^\p{L}\p{M}\p{N}]+");
        private static readonly Regex Edges = new Regex("^_+|_+$");

        public static string ExportName(EventType type, string name)
        {
            if (type == EventType.CUSTOM && !string.IsNullOrEmpty(name)) return "service_" + SnakeCase(name);
            return "service_" + SnakeCase(type.ToString());
        }

        public static string SnakeCase(string value)
        {
            var text = value.Normalize(NormalizationForm.FormC).Trim();
            text = CaseBreak.Replace(text, "$1_$2");
            text = Separators.Replace(text, "_");
            text = Edges.Replace(text, "");
            return ServiceCase.Lower(text);
        }
    }
}
