using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>Apple's side of the conversion values: every call the core made, in order.</summary>
    internal sealed class RecordingConversionValues : IConversionValues
    {
        public readonly List<ConversionCall> Calls = new List<ConversionCall>();
        public int Registrations;
        /// <summary>The re-engagement updates (fine value 0, `[.reengagement]`) the core asked for.</summary>
        public int Reengagements;
        /// <summary>Set: Apple refuses each call with this message.</summary>
        public string Refusal;
        /// <summary>Set: Apple refuses each re-engagement update with this message.</summary>
        public string ReengagementRefusal;

        public void Register(Action<string> failed)
        {
            lock (this) Registrations++;
            if (Refusal != null) failed(Refusal);
        }

        public void Update(ConversionCall call, Action<string> failed)
        {
            lock (this) Calls.Add(call);
            if (Refusal != null) failed(Refusal);
        }

        public void Reengage(Action<string> failed)
        {
            lock (this) Reengagements++;
            var refusal = ReengagementRefusal ?? Refusal;
            if (refusal != null) failed(refusal);
        }
    }

    /// <summary>
    /// Apple's side with a gate where a call reaches it: the first call (made on the thread that
    /// applies the configuration) is held there until a second call comes, or for
    /// <see cref="Hold"/>, and Apple takes each call as it gets past the gate. A second call made
    /// while the first is held overtakes it, as a call made outside the core's lock can overtake
    /// one still on its way to Apple; one the lock holds back comes once the first returns, so the
    /// hold runs out.
    /// </summary>
    internal sealed class GatedConversionValues : IConversionValues
    {
        /// <summary>Short: with the calls made under the lock, every run waits it out once.</summary>
        public static readonly TimeSpan Hold = TimeSpan.FromSeconds(1);
        /// <summary>What Apple took, in order: a registration as <see cref="Registration"/>, an update as its call.</summary>
        public readonly List<object> Taken = new List<object>();
        public const string Registration = "registration";
        /// <summary>Set once the first call is held at the gate.</summary>
        public readonly ManualResetEventSlim FirstHeld = new ManualResetEventSlim(false);
        /// <summary>The thread the first call was made on.</summary>
        public volatile int FirstThread;
        private readonly ManualResetEventSlim secondCame = new ManualResetEventSlim(false);
        private int calls;

        private void Reach(object call)
        {
            if (Interlocked.Increment(ref calls) == 1)
            {
                FirstThread = Thread.CurrentThread.ManagedThreadId;
                FirstHeld.Set();
                secondCame.Wait(Hold);
                lock (Taken) Taken.Add(call);
            }
            else
            {
                // Taken before the first is let go: one that overtook it is always ahead of it.
                lock (Taken) Taken.Add(call);
                secondCame.Set();
            }
        }

        public void Register(Action<string> failed)
        {
            Reach(Registration);
        }

        public void Update(ConversionCall call, Action<string> failed)
        {
            Reach(call);
        }

        public void Reengage(Action<string> failed)
        {
            Reach("reengagement");
        }
    }

    /// <summary>
    /// A core whose conversion values go to a recording port, its GET /v1/config answered with
    /// the configuration given, and held back while <see cref="ConfigAnswers"/> is reset.
    /// </summary>
    internal sealed class ConversionRig
    {
        public readonly ScriptedBackend Backend;
        public readonly SdkSetup Setup;
        public readonly SdkCore Core;
        public readonly RecordingConversionValues Apple = new RecordingConversionValues();
        public readonly Heard Heard;
        /// <summary>Reset: GET /v1/config waits for it to be set.</summary>
        public readonly ManualResetEventSlim ConfigAnswers = new ManualResetEventSlim(true);
        /// <summary>Set once GET /v1/config has been asked.</summary>
        public readonly ManualResetEventSlim ConfigAsked = new ManualResetEventSlim(false);

        /// <param name="configStatus">GET /v1/config's status (401: the key rejected).</param>
        /// <param name="scheduler">The timers (null: real ones).</param>
        public ConversionRig(JObject config, IKeyValueStore store = null, SettableClock clock = null, int configStatus = 200, IScheduler scheduler = null)
        {
            Backend = new ScriptedBackend
            {
                Answer = (key, body) =>
                {
                    if (!key.StartsWith("GET /v1/config")) return ScriptedBackend.Usual(key, body);
                    ConfigAsked.Set();
                    ConfigAnswers.Wait(Patience.Bound);
                    return Tuple.Create(configStatus, (JToken)config);
                },
            };
            Setup = Setups.For("http://service.test", Backend, store, clock: clock, scheduler: scheduler);
            Setup.ConversionValues = Apple;
            Core = new SdkCore(Setup);
            Heard = Heard.ErrorsOf(Core.Listeners);
        }

        public void Start()
        {
            Core.Configure("sdk_key", 0, null);
            Core.Idle().Wait();
        }

        /// <summary>Configure, with <paramref name="meanwhile"/> run while its first reading is on its way; then the reading answers.</summary>
        public void StartWhileTheReadingWaits(Action meanwhile)
        {
            ConfigAnswers.Reset();
            Core.Configure("sdk_key", 0, null);
            Assert.IsTrue(ConfigAsked.Wait(Patience.Bound));
            meanwhile();
            ConfigAnswers.Set();
            Core.Idle().Wait();
        }

        public ListLog Log
        {
            get { return (ListLog)Setup.Log; }
        }
    }

    /// <summary>
    /// The conversion value schema in the C# core: every case of sdk/conformance/conversion-values.json
    /// against the evaluation and again through what the app hands SendEvent, the export names
    /// the rules use (event-types.json), and the core with a recording port in the iOS plugin's
    /// place: the schema from remote configuration, the windows kept across launches, a new
    /// version's rules, the first launch registered once, events sent before Configure, Apple's
    /// refusals on the error listener.
    /// </summary>
    [TestFixture]
    public class ConversionValueTests
    {
        private static JObject File()
        {
            return Repo.Vectors("conversion-values.json");
        }

        public static IEnumerable<TestCaseData> Cases()
        {
            return File()["cases"].Cast<JObject>()
                .Select(vector => new TestCaseData(vector).SetName("conversion-values.json: " + (string)vector["name"]));
        }

        private static ConversionCall Expected(JToken call)
        {
            if (call == null || call.Type == JTokenType.Null) return null;
            CoarseValue coarse;
            Assert.IsTrue(ConversionValues.TryCoarse(call["coarse"], out coarse));
            var fine = call["fine"];
            return new ConversionCall((int)call["window"], fine.Type == JTokenType.Null ? (int?)null : (int)fine, coarse, (bool)call["lock"]);
        }

        /// <summary>Runs one case; <paramref name="evaluate"/> gives each event's call from the state before it.</summary>
        private static void Run(JObject vector, Func<List<List<ConversionRule>>, ConversionState, JObject, Tuple<ConversionCall, ConversionState>> evaluate)
        {
            var rules = ConversionSchema.ParseWindows(File()["schemas"][(string)vector["schema"]]["windows"]);
            Assert.IsNotNull(rules);
            var events = (JArray)vector["events"];
            var calls = (JArray)vector["calls"];
            Assert.AreEqual(calls.Count, events.Count);
            var state = new ConversionState();
            for (var i = 0; i < events.Count; i++)
            {
                var step = evaluate(rules, state, (JObject)events[i]);
                Assert.AreEqual(Expected(calls[i]), step.Item1, "event " + i);
                // Kept in the store and read back at the next launch, the state gives the same.
                Assert.AreEqual(step.Item2.ToJson(), ConversionState.Parse(step.Item2.ToJson()).ToJson(), "event " + i);
                state = step.Item2;
            }
        }

        [TestCaseSource("Cases")]
        public void EveryCaseOfTheVectors(JObject vector)
        {
            var rates = ConversionSchema.Rates(File()["rates"]);
            Run(vector, (rules, state, json) =>
            {
                var revenue = json["revenue"] as JObject;
                var conversion = new ConversionEvent
                {
                    Name = (string)json["name"],
                    HoursAfterInstall = (double)json["hours_after_install"],
                };
                if (revenue != null)
                {
                    // The amount as the app passes it (a number or a string), read as the service reads it.
                    double? amount;
                    string currency;
                    conversion.Refused = !ConversionEvent.ReadRevenue(
                        new Dictionary<string, object> { { "revenue", ((JValue)revenue["amount"]).Value }, { "currency", (string)revenue["currency"] } },
                        out amount, out currency);
                    conversion.RevenueAmount = amount;
                    conversion.RevenueCurrency = currency;
                }
                var parameters = json["parameters"] as JObject;
                if (parameters != null)
                {
                    // ConversionEvent's parameters are the numeric ones alone, as ConversionEvent.Of keeps them.
                    foreach (var parameter in parameters.Properties())
                    {
                        if (parameter.Value.Type == JTokenType.Integer || parameter.Value.Type == JTokenType.Float)
                            conversion.Parameters[parameter.Name] = (double)parameter.Value;
                    }
                }
                ConversionState next;
                var call = ConversionEvaluation.Evaluate(rules, state, conversion, rates, out next);
                return Tuple.Create(call, next);
            });
        }

        /// <summary>
        /// The same cases through what the app hands SendEvent: a standard type where the export
        /// name is one, CUSTOM otherwise; revenue and currency as parameters; the event's time that
        /// many hours after the first open.
        /// </summary>
        [TestCaseSource("Cases")]
        public void EveryCaseThroughTheEventsTheAppSends(JObject vector)
        {
            var rates = ConversionSchema.Rates(File()["rates"]);
            var firstOpen = new DateTime(2026, 9, 1, 12, 0, 0, DateTimeKind.Utc);
            Run(vector, (rules, state, json) =>
            {
                var exported = (string)json["name"];
                var standard = Enum.GetValues(typeof(EventType)).Cast<EventType>()
                    .Where(candidate => candidate != EventType.CUSTOM && EventNames.ExportName(candidate, null) == exported).ToList();
                var parameters = new Dictionary<string, object>();
                var given = json["parameters"] as JObject;
                if (given != null)
                {
                    foreach (var parameter in given.Properties()) parameters[parameter.Name] = ((JValue)parameter.Value).Value;
                }
                var revenue = json["revenue"] as JObject;
                if (revenue != null)
                {
                    parameters["revenue"] = ((JValue)revenue["amount"]).Value;
                    parameters["currency"] = (string)revenue["currency"];
                }
                var type = standard.Count == 1 ? standard[0] : EventType.CUSTOM;
                var name = type == EventType.CUSTOM ? exported.Substring("service_".Length) : null;
                var conversion = ConversionEvent.Of(type, name, parameters, firstOpen.AddHours((double)json["hours_after_install"]), firstOpen);
                Assert.AreEqual(exported, conversion.Name);
                ConversionState next;
                var call = ConversionEvaluation.Evaluate(rules, state, conversion, rates, out next);
                return Tuple.Create(call, next);
            });
        }

        [Test]
        public void TheWindowsAreApplesInHoursSinceTheFirstOpen()
        {
            Assert.AreEqual(0, ConversionEvaluation.WindowOf(0));
            Assert.AreEqual(0, ConversionEvaluation.WindowOf(47.99));
            Assert.AreEqual(1, ConversionEvaluation.WindowOf(48));
            Assert.AreEqual(2, ConversionEvaluation.WindowOf(168));
            Assert.AreEqual(2, ConversionEvaluation.WindowOf(839.99));
            Assert.IsNull(ConversionEvaluation.WindowOf(840));
        }

        [Test]
        public void RevenueIsReadAsTheServiceReadsIt()
        {
            var at = DateTime.UtcNow;
            Func<Dictionary<string, object>, ConversionEvent> read = parameters => ConversionEvent.Of(EventType.PURCHASE, null, parameters, at, at);
            var euros = read(new Dictionary<string, object> { { "revenue", 9.99 }, { "currency", "EUR" } });
            Assert.AreEqual(9.99, euros.RevenueAmount);
            Assert.AreEqual("EUR", euros.RevenueCurrency);
            Assert.AreEqual(4.5, read(new Dictionary<string, object> { { "revenue", "4.50" }, { "currency", "USD" } }).RevenueAmount);
            Assert.AreEqual(3.0, read(new Dictionary<string, object> { { "revenue", 3 }, { "currency", "usd" } }).RevenueAmount);
            // No currency, no revenue: a guessed one would be a wrong figure.
            Assert.IsNull(read(new Dictionary<string, object> { { "revenue", 9.99 } }).RevenueAmount);
            Assert.IsNull(read(new Dictionary<string, object> { { "revenue", "1,000" }, { "currency", "USD" } }).RevenueAmount);
            Assert.IsNull(read(new Dictionary<string, object> { { "revenue", "1e3" }, { "currency", "USD" } }).RevenueAmount);
            // Booleans are no numeric parameter.
            CollectionAssert.AreEqual(new[] { "level" }, read(new Dictionary<string, object> { { "level", 4 }, { "vip", true } }).Parameters.Keys);
        }

        [Test]
        public void RevenueNeedsACurrencyNamedAsTextAndAFiniteAmount()
        {
            var at = DateTime.UtcNow;
            Func<Dictionary<string, object>, ConversionEvent> read = parameters => ConversionEvent.Of(EventType.PURCHASE, null, parameters, at, at);
            Assert.IsNull(read(new Dictionary<string, object> { { "revenue", 9.99 }, { "currency", 978 } }).RevenueAmount);
            Assert.IsNull(read(new Dictionary<string, object> { { "revenue", new string('9', 400) }, { "currency", "USD" } }).RevenueAmount);
        }

        [Test]
        public void AnEventWhoseRevenueTheServiceRefusesIsRefusedWholeAsTheServiceRefusesIt()
        {
            // readRevenue in src/ingest/revenue.ts: the service refuses the whole event for a
            // revenue that is no finite number or plain decimal string, or past a trillion either
            // way, with a currency or without; a revenue it reads needs a currency to count.
            var at = DateTime.UtcNow;
            Func<object, object, ConversionEvent> read = (revenue, currency) =>
            {
                var parameters = new Dictionary<string, object> { { "revenue", revenue } };
                if (currency != null) parameters["currency"] = currency;
                return ConversionEvent.Of(EventType.PURCHASE, null, parameters, at, at);
            };
            foreach (var refused in new object[]
            {
                "1,000", "$4.99", "4,99", "1e3", "", " ", "0x10", "Infinity", "NaN", "\u0661", new string('9', 400), true,
                new List<object> { 1 }, new Dictionary<string, object> { { "amount", 1 } },
                1000000000000.001, -2000000000000L, "1000000000001", 2e12m,
            })
            {
                Assert.IsTrue(read(refused, "USD").Refused, "revenue " + refused);
                Assert.IsTrue(read(refused, null).Refused, "revenue " + refused + " without a currency");
                Assert.IsTrue(read(refused, 978).Refused, "revenue " + refused + " with a currency that is no text");
            }
            foreach (var taken in new object[]
            {
                9.99, 3, "4.50", " 4.50 ", "\uFEFF4.50\u00A0", "+1.", ".5", "-1", 1000000000000L, -1e12, "1000000000000", 9.99f, 9.99m,
            })
            {
                var conversion = read(taken, "USD");
                Assert.IsFalse(conversion.Refused, "revenue " + taken);
                Assert.IsNotNull(conversion.RevenueAmount, "revenue " + taken);
                Assert.IsFalse(read(taken, null).Refused, "revenue " + taken + " without a currency");
                Assert.IsNull(read(taken, null).RevenueAmount, "revenue " + taken + " without a currency");
            }
            Assert.IsFalse(ConversionEvent.Of(EventType.PURCHASE, null, new Dictionary<string, object> { { "currency", "USD" } }, at, at).Refused);

            // A refused event counts nothing, though it alone would meet the rules.
            var windows = ConversionSchema.ParseWindows(File()["schemas"]["game"]["windows"]);
            var rates = new Dictionary<string, double> { { "USD", 1 } };
            var state = new ConversionState();
            for (var i = 0; i < 3; i++)
            {
                ConversionState next;
                Assert.IsNull(ConversionEvaluation.Evaluate(windows, state, read("1,000", "USD"), rates, out next));
                Assert.AreSame(state, next);
            }
            Assert.IsEmpty(state.Windows[0].Counts);
        }

        [Test]
        public void TheLargestRevenueIsTheServices()
        {
            var limits = System.IO.File.ReadAllText(System.IO.Path.Combine(Repo.Root, "src", "ingest", "limits.ts"));
            var bound = System.Text.RegularExpressions.Regex.Match(limits, @"maxRevenueAmount:\s*([0-9_]+)");
            Assert.IsTrue(bound.Success, "src/ingest/limits.ts names no maxRevenueAmount");
            Assert.AreEqual(double.Parse(bound.Groups[1].Value.Replace("_", ""), System.Globalization.CultureInfo.InvariantCulture), ConversionEvent.MaxRevenueAmount);
        }

        [Test]
        public void ACurrencyIsTrimmedAsTheServiceTrimsIt()
        {
            var windows = ConversionSchema.ParseWindows(File()["schemas"]["ranges"]["windows"]);
            var rates = new Dictionary<string, double> { { "USD", 1 } };
            var at = DateTime.UtcNow;
            // JavaScript's trim(): the byte order mark is a space to it, U+0085 is not.
            foreach (var currency in new[] { "USD", "usd", " usd ", "\tUSD\n", "\uFEFFUSD\u00A0", "\u3000usd\u2029" })
            {
                var purchase = ConversionEvent.Of(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 2 }, { "currency", currency } }, at, at);
                ConversionState next;
                Assert.AreEqual(new ConversionCall(0, 10, CoarseValue.Low, false), ConversionEvaluation.Evaluate(windows, new ConversionState(), purchase, rates, out next), currency);
            }
            var unknown = ConversionEvent.Of(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 2 }, { "currency", "\u0085USD" } }, at, at);
            ConversionState after;
            Assert.IsNull(ConversionEvaluation.Evaluate(windows, new ConversionState(), unknown, rates, out after));
        }

        [Test]
        public void AnEventsHoursAreCountedFromTheFirstOpenWhateverZoneEitherTimeIsIn()
        {
            var firstOpen = new DateTime(2026, 9, 1, 12, 0, 0, DateTimeKind.Utc);
            var local = firstOpen.AddHours(5).ToLocalTime();
            Assert.AreEqual(5.0, ConversionEvent.Of(EventType.PURCHASE, null, null, local, firstOpen).HoursAfterInstall, 1e-9);
            Assert.AreEqual(5.0, ConversionEvent.Of(EventType.PURCHASE, null, null, firstOpen.AddHours(5), firstOpen.ToLocalTime()).HoursAfterInstall, 1e-9);
        }

        [Test]
        public void OnlyACustomEventIsNamedByItsOwnName()
        {
            Assert.AreEqual("service_purchase", EventNames.ExportName(EventType.PURCHASE, "Level Up"));
            Assert.AreEqual("service_level_up", EventNames.ExportName(EventType.CUSTOM, "Level Up"));
        }

        private static JObject SchemaWith(JObject rule)
        {
            var empty = new JObject { { "rules", new JArray() } };
            return new JObject
            {
                { "version", 3 },
                { "windows", new JArray(new JObject { { "rules", new JArray(rule) } }, empty, (JObject)empty.DeepClone()) },
                { "usd_rates", new JObject { { "USD", 1 } } },
            };
        }

        [Test]
        public void ASchemaWithARuleOfAShapeThisSdkDoesNotKnowIsNone()
        {
            Assert.IsNotNull(ConversionSchema.Parse(SchemaWith(JObject.Parse(@"{""event"": ""service_purchase"", ""coarse"": ""low""}"))));
            foreach (var rule in new[]
            {
                @"{""event"": ""service_purchase"", ""coarse"": ""low"", ""revenue_usd"": 10}",
                @"{""event"": ""service_purchase"", ""coarse"": ""low"", ""revenue_usd"": {""min"": ""1""}}",
                @"{""event"": ""service_purchase"", ""coarse"": ""low"", ""revenue_usd"": {""max"": ""2""}}",
                @"{""event"": ""service_level_achieved"", ""coarse"": ""low"", ""parameter"": {""name"": 5, ""at_least"": 1}}",
            })
            {
                Assert.IsNull(ConversionSchema.Parse(SchemaWith(JObject.Parse(rule))), rule);
            }
            var unversioned = SchemaWith(JObject.Parse(@"{""event"": ""service_purchase"", ""coarse"": ""low""}"));
            unversioned["version"] = "3";
            Assert.IsNull(ConversionSchema.Parse(unversioned));
        }

        [Test]
        public void AMinimumCountPastWhatTheSdkCountsIsNeverMet()
        {
            var schema = ConversionSchema.Parse(SchemaWith(JObject.Parse(@"{""event"": ""service_login"", ""coarse"": ""low"", ""min_count"": 1099511627776}")));
            Assert.IsNotNull(schema);
            ConversionState next;
            var call = ConversionEvaluation.Evaluate(schema.Windows, new ConversionState(),
                new ConversionEvent { Name = "service_login", HoursAfterInstall = 1 }, schema.UsdRates, out next);
            Assert.IsNull(call);
        }

        [Test]
        public void ASchemaKeptOnTheDeviceReadsBackTheSame()
        {
            var schema = ConversionSchema.Parse(SchemaWith(JObject.Parse(
                @"{""event"": ""service_purchase"", ""coarse"": ""high"", ""fine"": 40, ""lock"": true, ""min_count"": 2,
                   ""revenue_usd"": {""min"": 0.99, ""max"": 4.99}, ""parameter"": {""name"": ""items"", ""at_least"": 3}}")));
            Assert.IsNotNull(schema);
            var kept = ConversionSchema.Parse(JObject.Parse(schema.ToJson().ToString()));
            Assert.IsNotNull(kept);
            Assert.AreEqual(schema.ToJson().ToString(), kept.ToJson().ToString());
            Assert.AreEqual(4.99, kept.Windows[0][0].RevenueMax);
        }

        [Test]
        public void RatesThatAreNoFinitePositiveNumberAreLeftOut()
        {
            // The JSON reader takes the literal Infinity, which no JSON number gives.
            var rates = ConversionSchema.Rates(JsonText.ParseObject(@"{""usd"": 1, ""EUR"": 1.1, ""GBP"": 0, ""JPY"": -1, ""XAU"": Infinity, ""ABC"": ""2""}"));
            CollectionAssert.AreEquivalent(new[] { "USD", "EUR" }, rates.Keys);
        }

        [Test]
        public void AKeptStateOfAnotherNumberOfWindowsIsReadAsFresh()
        {
            var state = new ConversionState();
            state.Windows[0].Counts["service_login"] = 2;
            state.Registered = true;
            var json = JObject.Parse(state.ToJson());
            Assert.AreEqual(2L, (long)ConversionState.Parse(json.ToString()).Windows[0].Counts["service_login"]);
            ((JArray)json["windows"]).RemoveAt(2);
            var read = ConversionState.Parse(json.ToString());
            Assert.IsFalse(read.Registered);
            Assert.IsEmpty(read.Windows[0].Counts);
        }

        [Test]
        public void AFloatIsReadAsTheDecimalItPrintsAsAndADecimalAsItIs()
        {
            var at = DateTime.UtcNow;
            Func<Dictionary<string, object>, ConversionEvent> read = parameters => ConversionEvent.Of(EventType.PURCHASE, null, parameters, at, at);
            // Widened as it is, 9.99f would be 9.989999771118164; the wire, and the service, say 9.99.
            Assert.AreEqual(9.99, read(new Dictionary<string, object> { { "revenue", 9.99f }, { "currency", "USD" } }).RevenueAmount);
            Assert.AreEqual(9.99, read(new Dictionary<string, object> { { "revenue", 9.99m }, { "currency", "USD" } }).RevenueAmount);
            Assert.AreEqual(0.1, read(new Dictionary<string, object> { { "score", 0.1f } }).Parameters["score"]);
            Assert.AreEqual(0.1, read(new Dictionary<string, object> { { "score", 0.1m } }).Parameters["score"]);
            Assert.AreEqual(16777217.0, read(new Dictionary<string, object> { { "score", 16777217m } }).Parameters["score"]);
            Assert.IsEmpty(read(new Dictionary<string, object> { { "score", float.NaN } }).Parameters);
        }

        [Test]
        public void ARuleAtARevenueOrParameterOf9Point99IsMetByAFloatOrADecimalOf9Point99()
        {
            var windows = ConversionSchema.ParseWindows(JArray.Parse(@"[
                {""rules"": [
                    {""event"": ""service_purchase"", ""revenue_usd"": {""min"": 9.99}, ""fine"": 10, ""coarse"": ""medium""},
                    {""event"": ""service_level_complete"", ""parameter"": {""name"": ""score"", ""at_least"": 9.99}, ""fine"": 20, ""coarse"": ""high""}
                ]},
                {""rules"": []},
                {""rules"": []}
            ]"));
            Assert.IsNotNull(windows);
            var rates = new Dictionary<string, double> { { "USD", 1 } };
            var at = DateTime.UtcNow;
            foreach (var amount in new object[] { 9.99f, 9.99m })
            {
                var purchase = ConversionEvent.Of(EventType.PURCHASE, null,
                    new Dictionary<string, object> { { "revenue", amount }, { "currency", "USD" } }, at, at);
                ConversionState next;
                var call = ConversionEvaluation.Evaluate(windows, new ConversionState(), purchase, rates, out next);
                Assert.AreEqual(new ConversionCall(0, 10, CoarseValue.Medium, false), call, "revenue " + amount + " (" + amount.GetType().Name + ")");

                var level = ConversionEvent.Of(EventType.LEVEL_COMPLETE, null, new Dictionary<string, object> { { "score", amount } }, at, at);
                call = ConversionEvaluation.Evaluate(windows, new ConversionState(), level, rates, out next);
                Assert.AreEqual(new ConversionCall(0, 20, CoarseValue.High, false), call, "score " + amount + " (" + amount.GetType().Name + ")");
            }
        }

        /// <summary>A schema of one window-one rule, the others empty; `rule` as JSON.</summary>
        private static JObject SchemaWith(string rule, int windows = 3)
        {
            var list = new JArray(Enumerable.Range(0, windows).Select(i => new JObject { { "rules", new JArray() } }));
            ((JArray)list[0]["rules"]).Add(JToken.Parse(rule));
            return new JObject { { "version", 1 }, { "windows", list }, { "usd_rates", new JObject { { "USD", 1 } } } };
        }

        [TestCase(@"{""event"": ""service_purchase"", ""coarse"": ""low"", ""min_count"": 1, ""fine"": 0}", true)]
        [TestCase(@"{""event"": ""service_purchase"", ""coarse"": ""low"", ""fine"": 63, ""lock"": true}", true)]
        [TestCase(@"{""event"": ""service_purchase"", ""coarse"": ""low"", ""min_count"": 0}", false)]
        [TestCase(@"{""event"": ""service_purchase"", ""coarse"": ""low"", ""fine"": 64}", false)]
        [TestCase(@"{""event"": ""service_purchase"", ""coarse"": ""low"", ""fine"": -1}", false)]
        [TestCase(@"{""event"": ""service_purchase"", ""coarse"": ""low"", ""lock"": ""yes""}", false)]
        [TestCase(@"{""event"": ""service_purchase"", ""coarse"": ""lowest""}", false)]
        public void ASchemaWithARuleThisSdkCannotEvaluateIsNone(string rule, bool evaluated)
        {
            Assert.AreEqual(evaluated, ConversionSchema.Parse(SchemaWith(rule)) != null);
        }

        [Test]
        public void ASchemaOfAnotherNumberOfWindowsIsNone()
        {
            const string Rule = @"{""event"": ""service_purchase"", ""coarse"": ""low""}";
            Assert.IsNotNull(ConversionSchema.Parse(SchemaWith(Rule)));
            Assert.IsNull(ConversionSchema.Parse(SchemaWith(Rule, 2)));
            Assert.IsNull(ConversionSchema.Parse(SchemaWith(Rule, 4)));
        }

        [Test]
        public void ARateThatIsNoPositiveNumberIsLeftOutAndACurrencyIsReadInAnyCase()
        {
            var rates = ConversionSchema.Rates(JObject.Parse(@"{""eur"": 1.1, ""GBP"": 0, ""JPY"": -0.01, ""CHF"": ""1.1"", ""USD"": 1}"));
            CollectionAssert.AreEquivalent(new[] { "EUR", "USD" }, rates.Keys);
            var windows = ConversionSchema.ParseWindows(SchemaWith(@"{""event"": ""service_purchase"", ""revenue_usd"": {""min"": 10}, ""coarse"": ""high""}")["windows"]);
            var at = DateTime.UtcNow;
            var purchase = ConversionEvent.Of(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 10 }, { "currency", "eur" } }, at, at);
            ConversionState next;
            Assert.AreEqual(new ConversionCall(0, null, CoarseValue.High, false), ConversionEvaluation.Evaluate(windows, new ConversionState(), purchase, rates, out next));
        }

        [Test]
        public void OnlyTheFirstWindowHasAFineValue()
        {
            var windows = ConversionSchema.ParseWindows(JArray.Parse(@"[
                {""rules"": []},
                {""rules"": [{""event"": ""service_purchase"", ""fine"": 12, ""coarse"": ""medium""}]},
                {""rules"": []}
            ]"));
            var installed = new DateTime(2026, 11, 1, 0, 0, 0, DateTimeKind.Utc);
            var purchase = ConversionEvent.Of(EventType.PURCHASE, null, null, installed.AddHours(50), installed);
            ConversionState next;
            Assert.AreEqual(new ConversionCall(1, null, CoarseValue.Medium, false),
                ConversionEvaluation.Evaluate(windows, new ConversionState(), purchase, new Dictionary<string, double>(), out next));
        }

        [Test]
        public void ABooleanParameterIsNoNumber()
        {
            var at = DateTime.UtcNow;
            var conversion = ConversionEvent.Of(EventType.LEVEL_COMPLETE, null, new Dictionary<string, object> { { "won", true }, { "score", 3 } }, at, at);
            CollectionAssert.AreEquivalent(new[] { "score" }, conversion.Parameters.Keys);
        }

        [Test]
        public void ExportNamesAreTheVectorsAndTheServices()
        {
            var vectors = Repo.Vectors("event-types.json");
            foreach (JObject type in vectors["eventTypes"])
            {
                var wire = (EventType)Enum.Parse(typeof(EventType), (string)type["wire"]);
                Assert.AreEqual((string)type["exportEventName"], EventNames.ExportName(wire, null), (string)type["wire"]);
            }
            foreach (JObject custom in vectors["customNames"])
            {
                Assert.AreEqual((string)custom["exportEventName"], EventNames.ExportName(EventType.CUSTOM, (string)custom["name"]));
            }
            // The service's own cases (src/domain/event-types.test.ts).
            Assert.AreEqual("service_gems_bought", EventNames.ExportName(EventType.CUSTOM, "  --Gems  bought!! "));
            Assert.AreEqual("service_caf\u00e9_visit", EventNames.ExportName(EventType.CUSTOM, "Cafe\u0301 Visit"));
            Assert.AreEqual("service_\u00e9tape_finie", EventNames.ExportName(EventType.CUSTOM, "\u00c9tapeFinie"));
            Assert.AreEqual("service_stra\u00dfe", EventNames.ExportName(EventType.CUSTOM, "Stra\u00dfe"));
            Assert.AreEqual("service_\u8cfc\u5165_\u5b8c\u4e86_1", EventNames.ExportName(EventType.CUSTOM, "\u8cfc\u5165 \u5b8c\u4e86 1"));
        }

        // ---- the core ----

        /// <summary>GET /v1/config's answer with the vectors' `game` schema (or <paramref name="windows"/>) at <paramref name="version"/>.</summary>
        private static JObject Config(long version, JToken windows = null)
        {
            return new JObject
            {
                { "enabled", true },
                {
                    "skadnetwork", new JObject
                    {
                        { "version", version },
                        { "windows", windows ?? File()["schemas"]["game"]["windows"].DeepClone() },
                        { "usd_rates", new JObject { { "EUR", 1.1 }, { "USD", 1 } } },
                    }
                },
            };
        }

        private static readonly Dictionary<string, object> None = null;

        [Test]
        public void EventsMakeTheSchemasUpdatesAndTheWindowsSurviveALaunch()
        {
            var store = new MemoryStore();
            var clock = new SettableClock();
            var rig = new ConversionRig(Config(1), store, clock);
            rig.Start();
            Assert.AreEqual(1, rig.Apple.Registrations);
            rig.Core.SendEvent(EventType.CUSTOM, "Tutorial Completion", None);
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, rig.Apple.Calls);
            // 3 EUR is 3.30 USD: the range 0.99 to 4.99.
            rig.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 3 }, { "currency", "EUR" } });
            Assert.AreEqual(new ConversionCall(0, 20, CoarseValue.Medium, false), rig.Apple.Calls.Last());
            // A value lower than the one set makes no call.
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            Assert.AreEqual(2, rig.Apple.Calls.Count);
            rig.Core.Idle().Wait();
            Assert.AreEqual(3, rig.Backend.To("POST /v1/events").Sum(r => ((JArray)r.Value["events"]).Count));

            // The next launch goes on from what the first one saw: 3.30 + 2 USD is past 4.99.
            var next = new ConversionRig(Config(1), store, clock);
            next.Start();
            Assert.AreEqual(0, next.Apple.Registrations, "registered once per install");
            next.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", "2" }, { "currency", "USD" } });
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 40, CoarseValue.High, false) }, next.Apple.Calls);
            // The third purchase locks the first window; nothing more goes to it.
            next.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 1 }, { "currency", "USD" } });
            Assert.AreEqual(new ConversionCall(0, 63, CoarseValue.High, true), next.Apple.Calls.Last());
            next.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 100 }, { "currency", "USD" } });
            Assert.AreEqual(2, next.Apple.Calls.Count);
            // Two days after the first open, the second window: its own counts, coarse values alone.
            clock.Offset = TimeSpan.FromHours(50);
            next.Core.SendEvent(EventType.LOGIN, null, None);
            next.Core.SendEvent(EventType.LOGIN, null, None);
            Assert.AreEqual(new ConversionCall(1, null, CoarseValue.Low, false), next.Apple.Calls.Last());
            // Past 35 days, nothing.
            clock.Offset = TimeSpan.FromHours(840);
            var before = store.Get("service_sdk.conversion_values");
            next.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 100 }, { "currency", "USD" } });
            Assert.AreEqual(3, next.Apple.Calls.Count);
            Assert.AreEqual(before, store.Get("service_sdk.conversion_values"));
            next.Core.Idle().Wait();
        }

        [Test]
        public void WhatAppleIsToldIsOnTheDiskAsItIsTold()
        {
            // No save timer runs here: a crash a moment after Apple is told finds the state saved.
            var store = new DiskStore();
            var rig = new ConversionRig(Config(1), store, scheduler: new ManualTimers());
            rig.Start();
            Assert.AreEqual(1, rig.Apple.Registrations);
            StringAssert.Contains("\"registered\":true", store.OnDisk("service_sdk.conversion_values"));
            rig.Core.SendEvent(EventType.CUSTOM, "Tutorial Completion", None);
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, rig.Apple.Calls);
            var after = new ConversionRig(Config(1), store.AfterCrash(), scheduler: new ManualTimers());
            after.Start();
            Assert.AreEqual(0, after.Apple.Registrations, "registered once per install");
            after.Core.SendEvent(EventType.CUSTOM, "Tutorial Completion", None);
            Assert.IsEmpty(after.Apple.Calls, "the value Apple holds is known: it is not given again, nor a lower one");
            rig.Core.Idle().Wait();
            after.Core.Idle().Wait();
        }

        /// <summary>
        /// Configure with the first reading held back, <paramref name="before"/> run meanwhile;
        /// then the reading answers, and this returns once the thread applying it made its first
        /// call to Apple, which the port holds.
        /// </summary>
        private static GatedConversionValues FirstCallHeld(ConversionRig rig, Action before)
        {
            var apple = new GatedConversionValues();
            rig.Setup.ConversionValues = apple;
            rig.ConfigAnswers.Reset();
            rig.Core.Configure("sdk_key", 0, null);
            Assert.IsTrue(rig.ConfigAsked.Wait(Patience.Bound));
            before();
            rig.ConfigAnswers.Set();
            Assert.IsTrue(apple.FirstHeld.Wait(Patience.Bound), "the reading made no call to Apple");
            // Apple's call came from the reading's thread: the game's thread is free to race it.
            Assert.AreNotEqual(Thread.CurrentThread.ManagedThreadId, apple.FirstThread);
            return apple;
        }

        [Test]
        public void AnUpdateTheConfigurationsThreadWorkedOutReachesAppleBeforeAHigherOneTheGamesThreadWorkedOutSince()
        {
            // The tutorial waits for the first configuration; the thread that reads it works out
            // fine 1 and calls Apple, and the call is held on its way. The game's thread sends a
            // purchase meanwhile, worth fine 20. Apple keeps the last value it is given, so the
            // purchase's update must not reach it first: made under the lock, it waits for the
            // tutorial's to return.
            var rig = new ConversionRig(Config(1), scheduler: new ManualTimers());
            var apple = FirstCallHeld(rig, () => rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None));
            rig.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 3 }, { "currency", "EUR" } });
            rig.Core.Idle().Wait();
            lock (apple.Taken)
            {
                CollectionAssert.AreEqual(new object[] { new ConversionCall(0, 1, CoarseValue.Low, false), new ConversionCall(0, 20, CoarseValue.Medium, false) }, apple.Taken,
                    "Apple holds the last value it took: fine 1 after fine 20 leaves it the lower one");
            }
            Assert.AreEqual(20, ConversionState.Parse(rig.Setup.Store.Get("service_sdk.conversion_values")).Windows[0].Fine);
        }

        [Test]
        public void NoEventsValueReachesAppleBeforeTheFirstLaunchsRegistration()
        {
            // Nothing waited for the first configuration: the thread that reads it registers the
            // first launch, and the call is held on its way. The game's thread sends the tutorial
            // meanwhile (the install is registered on the device by then), worth fine 1. The
            // registration gives Apple 0, so it must not reach Apple after the tutorial's update.
            var rig = new ConversionRig(Config(1), scheduler: new ManualTimers());
            var apple = FirstCallHeld(rig, () => { });
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            rig.Core.Idle().Wait();
            lock (apple.Taken)
            {
                CollectionAssert.AreEqual(new object[] { GatedConversionValues.Registration, new ConversionCall(0, 1, CoarseValue.Low, false) }, apple.Taken,
                    "a registration after the update gives Apple 0 in place of fine 1");
            }
        }

        [Test]
        public void ANewVersionKeepsTheWindowsButEvaluatesWithItsRules()
        {
            var store = new MemoryStore();
            var clock = new SettableClock();
            var first = new ConversionRig(Config(1), store, clock);
            first.Start();
            clock.Offset = TimeSpan.FromHours(50);
            first.Core.SendEvent(EventType.LOGIN, null, None);
            CollectionAssert.IsEmpty(first.Apple.Calls);
            first.Core.Idle().Wait();

            // Version 2: one login in the second window is worth medium.
            var windows = (JArray)File()["schemas"]["game"]["windows"].DeepClone();
            windows[1] = JObject.Parse("{\"rules\":[{\"event\":\"service_login\",\"coarse\":\"medium\"}]}");
            var next = new ConversionRig(Config(2, windows), store, clock);
            next.Start();
            Assert.AreEqual(1, next.Log.At(LogLevel.Info, "conversion value schema version 2").Count);
            // The login seen under version 1 still counts: this one is the second.
            next.Core.SendEvent(EventType.LOGIN, null, None);
            CollectionAssert.AreEqual(new[] { new ConversionCall(1, null, CoarseValue.Medium, false) }, next.Apple.Calls);
            Assert.AreEqual(2L, ConversionState.Parse(store.Get("service_sdk.conversion_values")).Windows[1].Counts["service_login"]);
            next.Core.Idle().Wait();
        }

        [Test]
        public void EventsSentBeforeConfigureOnTheFirstLaunchAreEvaluatedOnceTheSchemaIsRead()
        {
            var rig = new ConversionRig(Config(1));
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial_completion", None);
            CollectionAssert.IsEmpty(rig.Apple.Calls);
            rig.Start();
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, rig.Apple.Calls);
            // That update told Apple of the first launch: no registration besides.
            Assert.AreEqual(0, rig.Apple.Registrations);
        }

        [Test]
        public void ApplesRefusalsGoToTheErrorListenerAndTheEventsGoOn()
        {
            var rig = new ConversionRig(Config(1));
            rig.Apple.Refusal = "SKAdNetwork: the operation couldn't be completed";
            rig.Start();
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            rig.Core.Idle().Wait();
            var refused = rig.Heard.Errors.Where(e => e.Kind == ServiceErrorKind.ConversionValue).ToList();
            Assert.AreEqual(2, refused.Count, "the registration and the update");
            Assert.IsTrue(refused.All(e => e.Count == 1 && e.Reason == null && e.Code == null && e.KindName == "conversion_value"
                && e.Message.Contains("SKAdNetwork")));
            Assert.AreEqual(2, rig.Log.At(LogLevel.Warn, "conversion value update was refused").Count);
            Assert.AreEqual(1, rig.Backend.To("POST /v1/events").Sum(r => ((JArray)r.Value["events"]).Count));
            Assert.AreEqual(0, rig.Core.DroppedEventCount);
        }

        [Test]
        public void ARefusedUpdateIsAskedForAgainByTheWindowsNextEventOnce()
        {
            var rig = new ConversionRig(Config(1));
            rig.Start();
            var tutorial = new ConversionCall(0, 1, CoarseValue.Low, false);
            rig.Apple.Refusal = "SKAdNetwork: the operation couldn't be completed";
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            Assert.IsNull(ConversionState.Parse(rig.Setup.Store.Get("service_sdk.conversion_values")).Windows[0].Fine,
                "the device holds no value Apple refused");
            // Apple still refuses: the next event asks once, and no more.
            rig.Core.SendEvent(EventType.LOGIN, null, None);
            CollectionAssert.AreEqual(new[] { tutorial, tutorial }, rig.Apple.Calls);
            // Apple takes it now: asked again by the window's next event, whatever it is, then held.
            rig.Apple.Refusal = null;
            rig.Core.SendEvent(EventType.LOGIN, null, None);
            rig.Core.SendEvent(EventType.LOGIN, null, None);
            CollectionAssert.AreEqual(new[] { tutorial, tutorial, tutorial }, rig.Apple.Calls);
            Assert.AreEqual(1, ConversionState.Parse(rig.Setup.Store.Get("service_sdk.conversion_values")).Windows[0].Fine);
        }

        [Test]
        public void ARefusedLockLeavesTheWindowOpenWithTheValuesAppleTook()
        {
            var rig = new ConversionRig(Config(1));
            rig.Start();
            Action<double> purchase = revenue => rig.Core.SendEvent(EventType.PURCHASE, null,
                new Dictionary<string, object> { { "revenue", revenue }, { "currency", "USD" } });
            purchase(1);
            var medium = new ConversionCall(0, 20, CoarseValue.Medium, false);
            var locked = new ConversionCall(0, 63, CoarseValue.High, true);
            CollectionAssert.AreEqual(new[] { medium }, rig.Apple.Calls);
            // The third purchase locks the first window: refused, the window stays open, and
            // Apple's value stays the one it took.
            rig.Apple.Refusal = "SKAdNetwork: the window is locked";
            purchase(0.5);
            purchase(0.5);
            var state = ConversionState.Parse(rig.Setup.Store.Get("service_sdk.conversion_values"));
            Assert.IsFalse(state.Windows[0].Locked);
            Assert.AreEqual(20, state.Windows[0].Fine);
            Assert.AreEqual(3L, state.Windows[0].Counts["service_purchase"]);
            rig.Apple.Refusal = null;
            rig.Core.SendEvent(EventType.LOGIN, null, None);
            rig.Core.SendEvent(EventType.LOGIN, null, None);
            CollectionAssert.AreEqual(new[] { medium, locked, locked }, rig.Apple.Calls);
            Assert.IsTrue(ConversionState.Parse(rig.Setup.Store.Get("service_sdk.conversion_values")).Windows[0].Locked);
        }

        [Test]
        public void ARefusedRegistrationIsMadeAgainAtTheNextLaunchUnlessAnUpdateWasMadeSince()
        {
            var store = new MemoryStore();
            var timers = new ManualTimers();
            var first = new ConversionRig(Config(1), store, scheduler: timers);
            first.Apple.Refusal = "SKAdNetwork: the operation couldn't be completed";
            first.Start();
            Assert.AreEqual(1, first.Apple.Registrations);
            Assert.IsFalse(ConversionState.Parse(store.Get("service_sdk.conversion_values")).Registered);
            // Not at each reading of the launch: at the next launch.
            Assert.AreEqual(1, timers.Fire(first.Core.RefreshInterval));
            first.Core.Idle().Wait();
            Assert.AreEqual(1, first.Apple.Registrations);

            var next = new ConversionRig(Config(1), store);
            next.Start();
            Assert.AreEqual(1, next.Apple.Registrations);
            Assert.AreEqual(1, first.Heard.Errors.Count(e => e.Kind == ServiceErrorKind.ConversionValue));

            // An update Apple takes registers the install too: no registration after it.
            var other = new MemoryStore();
            var refused = new ConversionRig(Config(1), other);
            refused.Apple.Refusal = "SKAdNetwork: the operation couldn't be completed";
            refused.Start();
            refused.Apple.Refusal = null;
            refused.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, refused.Apple.Calls);
            var later = new ConversionRig(Config(1), other);
            later.Start();
            Assert.AreEqual(0, later.Apple.Registrations);
        }

        [Test]
        public void WithoutASchemaTheFirstLaunchIsRegisteredAndNothingMore()
        {
            var rig = new ConversionRig(JObject.Parse("{\"enabled\":true,\"skadnetwork\":null}"));
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            rig.Start();
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            // Apple makes no postback for an install that never called it: the registration goes
            // out with no schema, and no event makes an update.
            CollectionAssert.IsEmpty(rig.Apple.Calls);
            Assert.AreEqual(1, rig.Apple.Registrations);
            Assert.AreEqual("null", rig.Setup.Store.Get("service_sdk.skadnetwork"));
            Assert.IsTrue(ConversionState.Parse(rig.Setup.Store.Get("service_sdk.conversion_values")).Registered);
        }

        [Test]
        public void AFirstLaunchThatReadsNoConfigurationIsRegisteredAllTheSame()
        {
            // Apple makes no postback for an install that never registered: a game whose first two
            // days pass with no reading (offline, the service out of reach) is registered at its
            // first launch all the same, as the iOS SDK registers it.
            var store = new MemoryStore();
            var timers = new ManualTimers();
            var rig = new ConversionRig(Config(1), store, scheduler: timers);
            rig.Backend.Offline = true;
            rig.Start();
            Assert.AreEqual(1, rig.Apple.Registrations);
            CollectionAssert.IsEmpty(rig.Apple.Calls);
            Assert.IsNull(store.Get("service_sdk.skadnetwork"), "no configuration was read");
            Assert.IsTrue(ConversionState.Parse(store.Get("service_sdk.conversion_values")).Registered);

            // Online again: the next reading (asked again at the retries' first step, as none was
            // read) registers nothing more, and an event makes its update.
            rig.Backend.Offline = false;
            Assert.AreEqual(2, timers.Fire(rig.Setup.RetryDelay), "the configuration's read and the install's retry");
            rig.Core.Idle().Wait();
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            Assert.AreEqual(1, rig.Apple.Registrations);
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, rig.Apple.Calls);

            // Nor does a later launch, online or not.
            var next = new ConversionRig(Config(1), store);
            next.Start();
            var offline = new ConversionRig(Config(1), store);
            offline.Backend.Offline = true;
            offline.Start();
            Assert.AreEqual(0, next.Apple.Registrations + offline.Apple.Registrations);
        }

        [Test]
        public void AFirstLaunchThatReadsNoConfigurationRegistersNothingStoppedDeletedOrPastTheFirstWindow()
        {
            // Stopped: nothing, not even the reading; a Start in the first window registers.
            var rig = new ConversionRig(Config(1));
            rig.Backend.Offline = true;
            rig.Core.Stop();
            rig.Start();
            Assert.AreEqual(0, rig.Apple.Registrations);
            rig.Core.Start();
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Apple.Registrations);

            // The install's data deleted: Apple is told nothing of it.
            var deleted = new ConversionRig(Config(1));
            deleted.Core.Stop();
            deleted.Start();
            deleted.Core.DeleteUserData().Wait();
            deleted.Backend.Offline = true;
            deleted.Core.Start();
            deleted.Core.Idle().Wait();
            Assert.AreEqual(0, deleted.Apple.Registrations);

            // Three days on, the first window is over: the registration is for it alone.
            var clock = new SettableClock();
            var late = new ConversionRig(Config(1), clock: clock);
            late.Backend.Offline = true;
            late.Core.Stop();
            late.Start();
            clock.Offset = TimeSpan.FromHours(72);
            late.Core.Start();
            late.Core.Idle().Wait();
            Assert.AreEqual(0, late.Apple.Registrations);
        }

        [Test]
        public void AnEventWhoseRevenueTheServiceRefusesCountsForNothing()
        {
            // Three purchases would lock the first window (fine 63); the service refuses each of
            // these for its revenue, so Apple is told nothing of them.
            var rig = new ConversionRig(Config(1));
            rig.Start();
            foreach (var revenue in new object[] { "1,000", "$4.99", 2e12 })
            {
                rig.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", revenue }, { "currency", "USD" } });
            }
            CollectionAssert.IsEmpty(rig.Apple.Calls);
            Assert.AreEqual(3, rig.Log.At(LogLevel.Info, "its revenue is one the service refuses").Count);
            rig.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", "1.50" }, { "currency", "USD" } });
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 20, CoarseValue.Medium, false) }, rig.Apple.Calls);

            // Events that wait on the device for the first configuration, read back at the next
            // launch: a revenue of another kind (a boolean, a list) is refused as well.
            var store = new MemoryStore();
            var first = new ConversionRig(Config(1), store);
            first.Backend.Offline = true;
            first.Core.Configure("sdk_key", 0, null);
            foreach (var revenue in new object[] { true, new List<object> { 1 }, "1e3" })
            {
                first.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", revenue }, { "currency", "USD" } });
            }
            first.Core.Idle().Wait();
            var next = new ConversionRig(Config(1), store);
            next.Start();
            CollectionAssert.IsEmpty(next.Apple.Calls);
            Assert.IsFalse(ConversionState.Parse(store.Get("service_sdk.conversion_values")).Windows[0].Counts.ContainsKey("service_purchase"));
        }

        [Test]
        public void AnAppTheServiceSwitchesOffStillRegistersItsFirstLaunchWithApple()
        {
            // Apple sends the ad networks no postback for an install that never registered: the
            // service's switch (remote configuration, a rejected key) stops what the service is
            // sent, not what Apple is told.
            var offConfig = Config(3);
            offConfig["enabled"] = false;
            var off = new ConversionRig(offConfig);
            off.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            off.Start();
            off.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            Assert.AreEqual(1, off.Apple.Registrations);
            CollectionAssert.IsEmpty(off.Apple.Calls, "no event of a switched-off app is evaluated");
            CollectionAssert.IsEmpty(off.Backend.To("POST /v1/events"));

            var rejected = new ConversionRig(JObject.Parse("{\"error\":\"unauthorized\"}"), configStatus: 401);
            rejected.Start();
            Assert.AreEqual(1, rejected.Apple.Registrations);
            Assert.AreEqual(1, rejected.Heard.Errors.Count(e => e.Code == 401));

            // The app's own Stop keeps it back: made before Configure, or while the first
            // configuration is on its way (its answer then reaches the registration).
            var stopped = new ConversionRig(Config(3));
            stopped.Core.Stop();
            stopped.Start();
            Assert.AreEqual(0, stopped.Apple.Registrations);
            var stoppedMeanwhile = new ConversionRig(offConfig);
            stoppedMeanwhile.StartWhileTheReadingWaits(() => stoppedMeanwhile.Core.Stop());
            Assert.AreEqual(0, stoppedMeanwhile.Apple.Registrations);
        }

        [Test]
        public void AnEventTheGameSendsAsTheFirstReadingSwitchesTheAppOffIsNeverEvaluated()
        {
            // README: "Nothing is evaluated while stopped or switched off". The first reading
            // says off. The thread applying it takes the schema it brings, registers the first
            // launch with Apple and saves, then switches the SDK off: a thread of the game's
            // sends the tutorial in between (after the save, here), and an event sent before
            // Configure waits too. The switch-off drops both: neither is evaluated, so Apple is
            // given no value for an event the service never receives. (Configure's own thread
            // evaluates what waited once it is done, at any moment of that reading too.)
            var store = new SaveHook();
            var config = Config(3);
            config["enabled"] = false;
            var rig = new ConversionRig(config, store);
            var registeredOn = -1;
            rig.Setup.ConversionValues = new OnRegistration(rig.Apple, () => registeredOn = Thread.CurrentThread.ManagedThreadId);
            Thread game = null;
            store.Then = () =>
            {
                // The save right after the registration, on the thread applying the reading.
                if (Thread.CurrentThread.ManagedThreadId != registeredOn) return false;
                game = new Thread(() => rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None));
                game.Start();
                game.Join(Patience.Bound);
                return true;
            };
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            rig.Start();
            Assert.IsNotNull(game, "the game sent its event as the reading was applied");
            Assert.IsTrue(game.Join(Patience.Bound), "SendEvent returned");
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            Assert.AreEqual(1, rig.Apple.Registrations);
            CollectionAssert.IsEmpty(rig.Apple.Calls, "no event a switch-off drops is evaluated");
            Assert.AreEqual(2, rig.Heard.Dropped(ServiceDropReason.Disabled).Sum(e => e.Count), "both dropped as disabled, and told");
            CollectionAssert.IsEmpty(rig.Backend.To("POST /v1/events"));
        }

        /// <summary>PlayerPrefs in memory whose saves run <see cref="Then"/> until it answers true.</summary>
        private sealed class SaveHook : IDiskStore
        {
            private readonly MemoryStore values = new MemoryStore();
            public Func<bool> Then;

            public string Get(string key)
            {
                return values.Get(key);
            }

            public void Set(string key, string value)
            {
                values.Set(key, value);
            }

            public void Remove(string key)
            {
                values.Remove(key);
            }

            public void Save()
            {
                var then = Then;
                if (then != null && then()) Then = null;
            }
        }

        /// <summary>Apple's side as <see cref="RecordingConversionValues"/>, with <c>registered</c> run at the registration.</summary>
        private sealed class OnRegistration : IConversionValues
        {
            private readonly RecordingConversionValues apple;
            private readonly Action registered;

            public OnRegistration(RecordingConversionValues apple, Action registered)
            {
                this.apple = apple;
                this.registered = registered;
            }

            public void Register(Action<string> failed)
            {
                registered();
                apple.Register(failed);
            }

            public void Update(ConversionCall call, Action<string> failed)
            {
                apple.Update(call, failed);
            }

            public void Reengage(Action<string> failed)
            {
                apple.Reengage(failed);
            }
        }

        [Test]
        public void ALaunchAfterOneSwitchedOffEvaluatesNothingBeforeItsFirstReading()
        {
            // README: "Nothing is evaluated while stopped or switched off", and at a launch after
            // one the app was switched off in, events sent before the first reading wait for it
            // and are dropped as `disabled` if it says off. Apple must not be given a value for
            // an event the service never receives.
            var store = new MemoryStore();
            var offConfig = Config(1);
            offConfig["enabled"] = false;
            new ConversionRig(offConfig, store).Start();

            var next = new ConversionRig(offConfig, store);
            next.ConfigAnswers.Reset();
            // Before Configure, and after it while the first reading is on its way.
            next.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            next.Core.Configure("sdk_key", 0, null);
            Assert.IsTrue(next.ConfigAsked.Wait(Patience.Bound));
            next.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 3 }, { "currency", "EUR" } });
            next.ConfigAnswers.Set();
            next.Core.Idle().Wait();
            CollectionAssert.IsEmpty(next.Backend.To("POST /v1/events"));
            Assert.AreEqual(2, next.Core.DroppedEventCount, "both dropped as disabled");
            CollectionAssert.IsEmpty(next.Apple.Calls, "no event of a switched-off app is evaluated");
        }

        [Test]
        public void ALaunchAfterOneSwitchedOffEvaluatesWhatWaitedOnceItsFirstReadingSaysOn()
        {
            var store = new MemoryStore();
            var offConfig = Config(1);
            offConfig["enabled"] = false;
            new ConversionRig(offConfig, store).Start();

            var next = new ConversionRig(Config(1), store);
            next.StartWhileTheReadingWaits(() =>
            {
                next.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
                CollectionAssert.IsEmpty(next.Apple.Calls, "off as kept: it waits for the reading");
            });
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, next.Apple.Calls);
        }

        [Test]
        public void AFirstLaunchsEventsAreEvaluatedAtTheNextLaunchWhenItEndedBeforeItsConfiguration()
        {
            // The first launch offline: its tutorial is queued (and delivered later), its
            // conversion value waits for a schema. The process ends (killed) before one is read.
            var store = new MemoryStore();
            var clock = new SettableClock();
            var first = new ConversionRig(Config(1), store, clock);
            first.Backend.Offline = true;
            first.Core.Configure("sdk_key", 0, null);
            first.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            // Kept for the evaluation with only what it reads: no other value in clear on the device.
            first.Core.SendEvent(EventType.LOGIN, null, new Dictionary<string, object> { { "email", "player@example.com" }, { "level", 3 } });
            first.Core.Idle().Wait();
            CollectionAssert.IsEmpty(first.Apple.Calls);
            foreach (var key in SdkCore.StoreKeys)
            {
                StringAssert.DoesNotContain("player@example.com", store.Get(key) ?? "", key);
            }

            // The next launch, an hour on, reads the schema: the tutorial is worth fine 1, low.
            clock.Offset = TimeSpan.FromHours(1);
            var next = new ConversionRig(Config(1), store, clock);
            next.Start();
            Assert.AreEqual(2, next.Backend.To("POST /v1/events").Sum(r => ((JArray)r.Value["events"]).Count), "the events themselves are delivered");
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, next.Apple.Calls,
                "the event the first launch queued is never evaluated: its conversion value is lost");
        }

        [Test]
        public void AnEventEvaluatedOnceItsWindowHasClosedMakesNoCallForTheWindowTheInstallIsInNow()
        {
            // Apple's update names no window: it lands in the window the install is in when it is
            // made. An event of the first day evaluated on the third (the first configuration read
            // only then) must not lock or set the second window with the first window's rules.
            var clock = new SettableClock();
            var rig = new ConversionRig(Config(1), null, clock);
            rig.StartWhileTheReadingWaits(() =>
            {
                clock.Offset = TimeSpan.FromHours(1);
                for (var i = 0; i < 3; i++)
                {
                    rig.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 1 }, { "currency", "USD" } });
                }
                clock.Offset = TimeSpan.FromHours(60);
            });
            CollectionAssert.IsEmpty(rig.Apple.Calls.Where(c => c.Window == 0).ToList(),
                "first-window updates made at hour 60 reach Apple's second window (the third purchase's locks it)");
        }

        [Test]
        public void EventsAStopDroppedAreNotEvaluatedOnceTheSchemaIsRead()
        {
            // The first launch: a tutorial before the first configuration is read, then the user
            // opts out (Stop drops what waits). Apple must get no value for it: not when the
            // configuration asked before the Stop answers, nor after a later Start.
            var rig = new ConversionRig(Config(1));
            rig.StartWhileTheReadingWaits(() =>
            {
                rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
                rig.Core.Stop();
            });
            CollectionAssert.IsEmpty(rig.Apple.Calls, "evaluated while stopped");
            rig.Core.Start();
            rig.Core.Idle().Wait();
            CollectionAssert.IsEmpty(rig.Backend.To("POST /v1/events"), "the Stop dropped the event");
            CollectionAssert.IsEmpty(rig.Apple.Calls, "an event the Stop dropped is evaluated after Start");
        }

        [Test]
        public void EventsAStopDroppedAreNotEvaluatedWhenAStartComesBeforeTheSchema()
        {
            var rig = new ConversionRig(Config(1));
            rig.StartWhileTheReadingWaits(() =>
            {
                rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
                rig.Core.Stop();
                rig.Core.Start();
            });
            CollectionAssert.IsEmpty(rig.Apple.Calls, "an event the Stop dropped is evaluated once the schema is read");
        }

        /// <summary>
        /// When a Stop says it stopped (still under way: it has not forgotten what waits yet), a
        /// thread of the game's starts the SDK again and sends the tutorial, then
        /// <paramref name="then"/> runs; what is returned says whether that thread returned.
        /// </summary>
        private static Func<bool> StartAndSendTheTutorialAsTheStopSaysItStopped(ConversionRig rig, Action then = null)
        {
            var returned = false;
            rig.Setup.Log = new DeliveryTests.LineHook(rig.Setup.Log, "the SDK is stopped: nothing is sent", () =>
            {
                var other = new Thread(() =>
                {
                    rig.Core.Start();
                    rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
                });
                other.Start();
                returned = other.Join(Patience.Bound);
                if (then != null) then();
            });
            return () => returned;
        }

        [Test]
        public void AnEventSentAfterAStartThatFollowsAStopStillUnderWayIsEvaluatedOnceTheSchemaIsRead()
        {
            // The first launch: a purchase waits for the first configuration. The user opts out,
            // and a thread of the game's starts the SDK again and sends the tutorial while that
            // Stop is still under way (it says it in the log), before it forgot what waits. The
            // Stop forgets the purchase, which it dropped, and not the tutorial, sent after the
            // Start: once the schema is read, Apple gets the tutorial's value, and only it.
            var rig = new ConversionRig(Config(1));
            var startReturned = StartAndSendTheTutorialAsTheStopSaysItStopped(rig);
            rig.StartWhileTheReadingWaits(() =>
            {
                rig.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 3 }, { "currency", "EUR" } });
                rig.Core.Stop();
            });
            Assert.IsTrue(startReturned(), "the other thread's Start and SendEvent returned while the Stop was under way");
            Assert.IsFalse(rig.Core.IsStopped);
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, rig.Apple.Calls,
                "the tutorial sent after the Start, and not the purchase the Stop dropped");
        }

        [Test]
        public void AnEventAStopStillUnderWayDroppedIsNotEvaluatedByAReadingAfterAStartOnAnotherThread()
        {
            // As above, but the configuration is read, and what waits evaluated, while the Stop is
            // still under way, after the other thread's Start: the purchase the Stop dropped is
            // not evaluated with the tutorial, though the Stop has not come to forget it yet.
            var rig = new ConversionRig(Config(1));
            var startReturned = StartAndSendTheTutorialAsTheStopSaysItStopped(rig, () =>
            {
                rig.ConfigAnswers.Set();
                rig.Core.Idle().Wait();
            });
            rig.ConfigAnswers.Reset();
            rig.Core.Configure("sdk_key", 0, null);
            Assert.IsTrue(rig.ConfigAsked.Wait(Patience.Bound));
            rig.Core.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> { { "revenue", 3 }, { "currency", "EUR" } });
            rig.Core.Stop();
            rig.Core.Idle().Wait();
            Assert.IsTrue(startReturned(), "the other thread's Start and SendEvent returned while the Stop was under way");
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, rig.Apple.Calls,
                "the tutorial sent after the Start, and not the purchase the Stop dropped");
        }

        [Test]
        public void EventsAReadingWithNoSchemaFoundWaitingAreNotEvaluatedByALaterSchema()
        {
            var store = new MemoryStore();
            var none = new ConversionRig(JObject.Parse("{\"enabled\":true,\"skadnetwork\":null}"), store);
            none.StartWhileTheReadingWaits(() => none.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None));
            CollectionAssert.IsEmpty(none.Apple.Calls);

            var next = new ConversionRig(Config(1), store);
            next.Start();
            CollectionAssert.IsEmpty(next.Apple.Calls, "evaluated with rules that were not the app's when it was sent");
        }

        [Test]
        public void ADeviceClockPutBackBeforeTheFirstOpenIsStillTheFirstWindow()
        {
            var clock = new SettableClock();
            var rig = new ConversionRig(Config(1), clock: clock);
            rig.Start();
            clock.Offset = TimeSpan.FromHours(-1);
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, rig.Apple.Calls);
        }

        [Test]
        public void AFirstReadingPastTheFirstWindowRegistersNothing()
        {
            // The first launch stopped by the user for three days: the registration is for the
            // first window alone.
            var store = new MemoryStore();
            var clock = new SettableClock();
            var first = new ConversionRig(Config(1), store, clock);
            first.Core.Stop();
            first.Start();
            clock.Offset = TimeSpan.FromHours(72);
            first.Core.Start();
            first.Core.Idle().Wait();
            Assert.AreEqual(0, first.Apple.Registrations);
        }

        [Test]
        public void AnInstallDeletedBeforeItsFirstReadingRegistersNothing()
        {
            var rig = new ConversionRig(Config(1));
            rig.Core.Stop();
            rig.Start();
            rig.Core.DeleteUserData().Wait();
            rig.Core.Start();
            rig.Core.Idle().Wait();
            Assert.AreEqual(0, rig.Apple.Registrations, "Apple is told nothing of a deleted install");
        }

        [Test]
        public void EventsASwitchOffDroppedAreNotEvaluatedOnceOnAgain()
        {
            var timers = new ManualTimers();
            var config = Config(1);
            config["enabled"] = false;
            var rig = new ConversionRig(config, scheduler: timers);
            rig.StartWhileTheReadingWaits(() => rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None));
            Assert.AreEqual(1, rig.Core.DroppedEventCount, "dropped as disabled");

            config["enabled"] = true;
            Assert.AreEqual(1, timers.Fire(rig.Core.RefreshInterval));
            rig.Core.Idle().Wait();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            CollectionAssert.IsEmpty(rig.Apple.Calls, "an event the switch-off dropped is evaluated once on again");
        }

        [Test]
        public void AnEventTakenAsASwitchOffRunsIsNotKeptForAReadingThatSaysOnAgain()
        {
            // A thread of the game's sends the tutorial as the first reading comes in: SendEvent
            // has found the SDK on (it says it in the log, as the event's email is blank) when
            // the reading switches it off, drops what waits and is done. The event is not queued
            // after that switch-off (said not sent, as any event while off): it is not kept in
            // the queue of an SDK switched off, to leave, and be evaluated, once a reading says on.
            var timers = new ManualTimers();
            var config = Config(1);
            config["enabled"] = false;
            var rig = new ConversionRig(config, scheduler: timers);
            var log = rig.Log;
            var checkedOn = new ManualResetEventSlim(false);
            var goOn = new ManualResetEventSlim(false);
            rig.Setup.Log = new DeliveryTests.LineHook(log, "matching parameters with no usable value were left out", () =>
            {
                checkedOn.Set();
                goOn.Wait(Patience.Bound);
            });
            rig.ConfigAnswers.Reset();
            rig.Core.Configure("sdk_key", 0, null);
            Assert.IsTrue(rig.ConfigAsked.Wait(Patience.Bound));
            var game = new Thread(() => rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", new Dictionary<string, object> { { "email", "" } }));
            game.Start();
            Assert.IsTrue(checkedOn.Wait(Patience.Bound), "SendEvent found the SDK on");
            rig.ConfigAnswers.Set();
            rig.Core.Idle().Wait();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            goOn.Set();
            Assert.IsTrue(game.Join(Patience.Bound), "SendEvent returned");
            Assert.AreEqual(0, rig.Core.Queued, "nothing queued once switched off");
            Assert.AreEqual(1, log.At(LogLevel.Info, "the SDK is switched off: CUSTOM is not sent").Count, "said not sent");

            config["enabled"] = true;
            timers.Fire(rig.Core.RefreshInterval);
            rig.Core.Idle().Wait();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            CollectionAssert.IsEmpty(rig.Backend.To("POST /v1/events"), "the event taken as the switch-off ran is sent once on again");
            CollectionAssert.IsEmpty(rig.Apple.Calls, "the event taken as the switch-off ran is evaluated once on again");
        }

        [Test]
        public void AnEventASwitchOffDroppedBeforeItCameToBeEvaluatedIsNotEvaluatedOnceOnAgain()
        {
            // The queue is full (events an earlier launch kept) when a thread of the game's sends
            // the tutorial: it is queued, the oldest making room, and that drop is told (in the
            // log too) before the event is evaluated. The first reading switches the SDK off
            // then, dropping the tutorial with the queue and forgetting what waited for its
            // value, before the tutorial came to wait. A reading that says on again evaluates
            // nothing: Apple is told nothing of what the switch-off dropped.
            var store = new MemoryStore();
            var kept = new JArray();
            for (var n = 0; n < EventQueue.Capacity; n++)
            {
                kept.Add(new JObject { { "EventId", "kept-" + n }, { "EventType", "LOGIN" }, { "EventTime", "2026-01-01T00:00:00.000Z" } });
            }
            store.Set(EventQueue.Key, kept.ToString(Newtonsoft.Json.Formatting.None));
            var timers = new ManualTimers();
            var config = Config(1);
            config["enabled"] = false;
            var rig = new ConversionRig(config, store, scheduler: timers);
            Assert.AreEqual(EventQueue.Capacity, rig.Core.Queued);
            var queued = new ManualResetEventSlim(false);
            var goOn = new ManualResetEventSlim(false);
            rig.Setup.Log = new DeliveryTests.LineHook(rig.Setup.Log, "dropped (queue_full)", () =>
            {
                queued.Set();
                goOn.Wait(Patience.Bound);
            });
            rig.ConfigAnswers.Reset();
            rig.Core.Configure("sdk_key", 0, null);
            Assert.IsTrue(rig.ConfigAsked.Wait(Patience.Bound));
            var game = new Thread(() => rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None));
            game.Start();
            Assert.IsTrue(queued.Wait(Patience.Bound), "the tutorial is queued");
            rig.ConfigAnswers.Set();
            rig.Core.Idle().Wait();
            Assert.IsTrue(rig.Core.IsSdkDisabled);
            goOn.Set();
            Assert.IsTrue(game.Join(Patience.Bound), "SendEvent returned");
            Assert.AreEqual(0, rig.Core.Queued);
            CollectionAssert.AreEqual(new long[] { EventQueue.Capacity }, rig.Heard.Dropped(ServiceDropReason.Disabled).Select(e => e.Count),
                "the tutorial and the kept events but the oldest, told once");

            config["enabled"] = true;
            timers.Fire(rig.Core.RefreshInterval);
            rig.Core.Idle().Wait();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            CollectionAssert.IsEmpty(rig.Apple.Calls, "an event the switch-off dropped is evaluated once on again");
        }

        [Test]
        public void EventsALaunchWithNoUsableAddressDroppedAreNotEvaluatedByALaterLaunch()
        {
            // The first launch is offline: its tutorial is queued and waits, kept on the device,
            // for the first configuration, which it never reads.
            var store = new MemoryStore();
            var first = new ConversionRig(Config(1), store, scheduler: new ManualTimers());
            first.Backend.Offline = true;
            first.Core.Configure("sdk_key", 0, null);
            first.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            first.Core.Idle().Wait();
            Assert.AreEqual(1, first.Core.Queued);
            CollectionAssert.IsEmpty(first.Apple.Calls, "it waits for the first configuration");

            // The next launch's Configure finds no service address: the SDK is off for it, and
            // the tutorial is dropped with the queue, told as `disabled`.
            var off = new ConversionRig(Config(1), store, scheduler: new ManualTimers());
            off.Setup.BaseUrl = null;
            off.Start();
            Assert.IsTrue(off.Core.IsSdkDisabled);
            Assert.AreEqual(0, off.Core.Queued);
            CollectionAssert.AreEqual(new long[] { 1 }, off.Heard.Dropped(ServiceDropReason.Disabled).Select(e => e.Count), "the tutorial, told once");
            Assert.IsEmpty(off.Backend.Requests, "no request at all");

            // A launch after it has its address and reads a schema that switches the SDK on: the
            // tutorial dropped is never evaluated, Apple is given no value for an event the
            // service never receives. One sent now is.
            var next = new ConversionRig(Config(1), store, scheduler: new ManualTimers());
            next.Start();
            Assert.IsFalse(next.Core.IsSdkDisabled);
            Assert.IsNotNull(store.Get("service_sdk.skadnetwork"), "the schema was read");
            CollectionAssert.IsEmpty(next.Backend.To("POST /v1/events"), "the dropped tutorial is not sent");
            CollectionAssert.IsEmpty(next.Apple.Calls, "an event the launch with no usable address dropped is evaluated");
            next.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, next.Apple.Calls);
        }

        [Test]
        public void AStoppedSdkEvaluatesNothing()
        {
            var rig = new ConversionRig(Config(1));
            rig.Start();
            rig.Core.Stop();
            rig.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            CollectionAssert.IsEmpty(rig.Apple.Calls);
        }

        [Test]
        public void TheSchemaIsKeptForALaunchOffline()
        {
            var store = new MemoryStore();
            new ConversionRig(Config(7), store).Start();
            var offline = new ConversionRig(Config(7), store);
            offline.Backend.Offline = true;
            offline.Core.Configure("sdk_key", 0, null);
            offline.Core.SendEvent(EventType.CUSTOM, "tutorial completion", None);
            CollectionAssert.AreEqual(new[] { new ConversionCall(0, 1, CoarseValue.Low, false) }, offline.Apple.Calls);
            Assert.AreEqual(7L, (long)JObject.Parse(store.Get("service_sdk.skadnetwork"))["version"]);
            offline.Core.Stop();
        }

        [Test]
        public void TheStoreKeysIncludeTheConversionValues()
        {
            CollectionAssert.IsSubsetOf(new[] { "service_sdk.skadnetwork", "service_sdk.conversion_values" }, SdkCore.StoreKeys);
        }
    }
}
