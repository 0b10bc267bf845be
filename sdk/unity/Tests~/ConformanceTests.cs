using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>Every shared vector (sdk/conformance) that names Unity, run against the SDK's own code.</summary>
    [TestFixture]
    public class ConformanceTests
    {
        private static IEnumerable<TestCaseData> Cases(string file, string list, Func<JObject, bool> applies)
        {
            return Repo.Vectors(file)[list].Cast<JObject>().Where(applies)
                .Select(vector => new TestCaseData(vector).SetName(file + ": " + (string)vector["name"]));
        }

        private static bool ForUnity(JObject vector)
        {
            var platforms = vector["platforms"] as JArray;
            if (platforms != null) return platforms.Any(p => (string)p == "unity");
            var expect = vector["expect"] as JObject;
            return expect == null || expect["unity"] == null || expect["unity"].Type != JTokenType.Null;
        }

        public static IEnumerable<TestCaseData> EventTypes()
        {
            return Repo.Vectors("event-types.json")["eventTypes"].Cast<JObject>()
                .Select(vector => new TestCaseData(vector).SetName("event-types.json: " + (string)vector["wire"]));
        }

        [TestCaseSource("EventTypes")]
        public void EventTypeCaseIsTheWireValue(JObject vector)
        {
            var type = (EventType)Enum.Parse(typeof(EventType), (string)vector["wire"]);
            Assert.AreEqual((string)vector["wire"], type.ToString());
        }

        [Test]
        public void EventTypeHasNoCaseBeyondTheList()
        {
            var wire = Repo.Vectors("event-types.json")["eventTypes"].Select(v => (string)v["wire"]).ToArray();
            CollectionAssert.AreEqual(wire, Enum.GetNames(typeof(EventType)));
        }

        public static IEnumerable<TestCaseData> Parameters()
        {
            return Cases("parameters.json", "cases", v => v["expect"]["unity"] != null && v["expect"]["unity"].Type != JTokenType.Null);
        }

        /// <summary>A vector's stand-in for a value JSON cannot hold, as a C# value.</summary>
        private static object Native(JToken value)
        {
            var map = value as JObject;
            if (map != null && map["$special"] != null)
            {
                switch ((string)map["$special"])
                {
                    case "nan": return double.NaN;
                    case "infinity": return double.PositiveInfinity;
                    case "negativeInfinity": return double.NegativeInfinity;
                    case "dateTime": return new DateTime(2026, 11, 24, 0, 0, 0, DateTimeKind.Utc);
                    case "uri": return new Uri("https://example.com/");
                    case "set": return new HashSet<string> { "a", "b" };
                    case "bytes": return new byte[] { 1, 2 };
                    case "object": return new AppObject();
                    case "intKeyedMap": return new Dictionary<int, string> { { 1, "a" } };
                    default: throw new ArgumentException("unknown special value " + map["$special"]);
                }
            }
            if (map != null) return map.Properties().ToDictionary(p => p.Name, p => Native(p.Value));
            var list = value as JArray;
            if (list != null) return list.Select(Native).ToList();
            return value == null || value.Type == JTokenType.Null ? null : ((JValue)value).Value;
        }

        private sealed class AppObject { }

        [Test]
        public void SendEventRefusesParametersNestedPastTheServicesBoundAndOnesThatHoldThemselves()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            // Level 5 may still be a list or dictionary: parameters.a.b.c.d.
            Func<int, Dictionary<string, object>> nested = levels =>
            {
                var inner = new Dictionary<string, object> { { "x", 1 } };
                for (var i = 1; i < levels; i++) inner = new Dictionary<string, object> { { "k" + i, inner } };
                return inner;
            };
            Assert.DoesNotThrow(() => core.SendEvent(EventType.LEVEL_START, null, nested(5)));
            var deeper = Assert.Throws<ArgumentException>(() => core.SendEvent(EventType.LEVEL_START, null, nested(6)));
            StringAssert.Contains("deeper than 5 levels", deeper.Message);
            // A list that holds itself: refused, not a stack overflow that ends the player.
            var loop = new List<object> { 1 };
            loop.Add(loop);
            Assert.Throws<ArgumentException>(() => core.SendEvent(EventType.LEVEL_START, null, new Dictionary<string, object> { { "loop", loop } }));
            core.Idle().Wait();
            Assert.AreEqual(1, backend.Requests.Where(r => r.Key.StartsWith("POST /v1/events")).SelectMany(r => r.Value["events"]).Count());
        }

        [Test]
        public void EveryNumericTypeOfCSharpIsSentAndARefusalNamesTheParametersPath()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            core.SendEvent(EventType.VIEW_ITEM, null, new Dictionary<string, object>
            {
                { "f", 9.5f }, { "m", 9.99m }, { "us", (ushort)3 }, { "sb", (sbyte)-1 }, { "ul", ulong.MaxValue },
            });
            core.Idle().Wait();
            var sent = backend.Requests.Where(r => r.Key.StartsWith("POST /v1/events")).SelectMany(r => r.Value["events"]).Single()["parameters"];
            Assert.AreEqual(9.5, (double)sent["f"]);
            Assert.AreEqual(9.99m, (decimal)sent["m"]);
            Assert.AreEqual(3, (int)sent["us"]);
            Assert.AreEqual(-1, (int)sent["sb"]);
            // A JSON number, as the service reads any: a double.
            Assert.AreEqual((double)ulong.MaxValue, (double)sent["ul"]);

            var nan = Assert.Throws<ArgumentException>(() => core.SendEvent(EventType.VIEW_ITEM, null, new Dictionary<string, object> { { "f", float.NaN } }));
            StringAssert.Contains("parameters.f must be a finite number", nan.Message);
            var date = Assert.Throws<ArgumentException>(() => core.SendEvent(EventType.VIEW_ITEM, null, new Dictionary<string, object>
            {
                { "m", new Dictionary<string, object> { { "l", new List<object> { 1, DateTime.UtcNow } } } },
            }));
            StringAssert.Contains("parameters.m.l[1] is a DateTime", date.Message);
            Assert.IsNull(EventParameters.Check(new Dictionary<string, object> { { "a", null } }), "nothing to send");
        }

        [TestCaseSource("Parameters")]
        public void SendEventFollowsTheParameterRules(JObject vector)
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            var input = vector["input"];
            var type = (EventType)Enum.Parse(typeof(EventType), (string)input["eventType"]);
            var parameters = Native(input["parameters"]) as Dictionary<string, object>;
            var expected = (JObject)vector["expect"]["unity"];
            Action send = () => core.SendEvent(type, (string)input["eventName"], parameters);
            if (expected["throws"] != null)
            {
                Assert.Throws(Is.InstanceOf<ArgumentException>(), () => send());
                Assert.AreEqual(0, core.Queued);
                return;
            }
            send();
            core.Idle().Wait();
            var events = backend.Requests.Where(r => r.Key.StartsWith("POST /v1/events"))
                .SelectMany(r => r.Value["events"]).ToList();
            if (expected["dropped"] != null)
            {
                Assert.IsEmpty(events);
                return;
            }
            var sent = (JObject)expected["sent"];
            var actual = (JObject)events.Single();
            Assert.AreEqual((string)sent["event_type"], (string)actual["event_type"]);
            Assert.AreEqual((string)sent["event_name"], (string)actual["event_name"]);
            Assert.IsTrue(
                JToken.DeepEquals(Normalized(sent["parameters"]), Normalized(actual["parameters"])),
                "parameters: " + actual["parameters"]);
        }

        public static IEnumerable<TestCaseData> CustomerUserIds()
        {
            return Cases("customer-user-ids.json", "cases", v => true);
        }

        /// <summary>customer-user-ids.json: the ids kept, those refused on the device, the blank ones that are none.</summary>
        [TestCaseSource("CustomerUserIds")]
        public void ACustomerUserIdIsKeptRefusedOrNone(JObject vector)
        {
            var raw = vector["value"];
            var value = raw.Type == JTokenType.String
                ? (string)raw
                : string.Concat(Enumerable.Repeat((string)raw["repeat"], (int)raw["times"]));
            var name = (string)vector["name"];
            switch ((string)vector["outcome"])
            {
                case "kept":
                    Assert.IsNull(Fields.CustomerUserIdProblem(value), name);
                    Assert.IsFalse(string.IsNullOrWhiteSpace(value), name);
                    break;
                case "refused":
                    Assert.IsNotNull(Fields.CustomerUserIdProblem(value), name);
                    break;
                default:
                    Assert.IsTrue(string.IsNullOrWhiteSpace(value), name);
                    break;
            }
        }

        public static IEnumerable<TestCaseData> MatchingParameters()
        {
            return Cases("pii.json", "cases", v => true);
        }

        /// <summary>
        /// pii.json's cases with sealing off, which is how Unity sends them always: each matching
        /// parameter hashed or left out before the queue, so neither the queue on the device nor
        /// the request holds it in clear.
        /// </summary>
        [TestCaseSource("MatchingParameters")]
        public void SendEventHashesTheMatchingParameters(JObject vector)
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var store = new MemoryStore();
            var setup = Setups.For("http://service.test", backend, store: store);
            var core = new SdkCore(setup);
            var parameters = (JObject)vector["parameters"];
            // Queued before Configure, so it waits in the store.
            core.SendEvent(EventType.CUSTOM, "sign_up", (Dictionary<string, object>)Native(parameters));
            var clearValues = Pii.Keys.Where(key => parameters[key] != null && parameters[key].Type == JTokenType.String)
                .Select(key => (string)parameters[key])
                .Where(value => !value.StartsWith("sha256:") && value.Length != 64).ToList();
            foreach (var clear in clearValues)
            {
                Assert.IsFalse(store.Values().Any(stored => stored.Contains(Newtonsoft.Json.JsonConvert.ToString(clear))), "kept in clear: " + clear);
            }
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            var sent = (JObject)backend.Requests.Where(r => r.Key.StartsWith("POST /v1/events"))
                .SelectMany(r => r.Value["events"]).Single();
            Assert.IsTrue(JToken.DeepEquals(vector["encryptionOff"], sent["parameters"]), "parameters: " + sent["parameters"]);
            var leftOut = Pii.Keys.Where(key => parameters[key] != null && vector["encryptionOff"][key] == null).ToList();
            var warned = ((ListLog)setup.Log).At(LogLevel.Warn, "matching parameters with no usable value were left out");
            if (leftOut.Count == 0) Assert.IsEmpty(warned);
            else StringAssert.EndsWith(string.Join(", ", leftOut), warned.Single());
        }

        [Test]
        public void AMatchingParameterGivenAsANumberIsKeptInClearNowhereOnTheDevice()
        {
            var store = new MemoryStore();
            var setup = Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }, store: store);
            var core = new SdkCore(setup);
            // Before the first Configure: the event waits on the device, queued and for the
            // conversion values (the first open and the first configuration not known yet).
            core.SendEvent(EventType.CUSTOM, "sign_up", new Dictionary<string, object>
            {
                { "phone_number", 4915112345678L }, { "date_of_birth", 19900131 }, { "level", 3 },
            });
            foreach (var clear in new[] { "4915112345678", "19900131" })
            {
                Assert.IsFalse(store.Values().Any(stored => stored.Contains(clear)), "kept in clear: " + clear);
            }
        }

        [Test]
        public void HashingLeavesTheAppsOwnParametersAsTheyWere()
        {
            var parameters = new Dictionary<string, object> { { "email", "Ada@Example.com" }, { "level", 3 } };
            List<string> dropped;
            var queued = Pii.Protect(parameters, out dropped);
            Assert.AreEqual("Ada@Example.com", parameters["email"], "the app's dictionary, which it may use again");
            Assert.AreEqual(Pii.Sha256Marked("ada@example.com"), queued["email"]);
            Assert.AreEqual(3, queued["level"]);
            Assert.IsEmpty(dropped);
        }

        [Test]
        public void AnEventWhoseParametersWereAllLeftOutHasNone()
        {
            List<string> dropped;
            Assert.IsNull(Pii.Protect(new Dictionary<string, object> { { "date_of_birth", "sometime" }, { "gender", " " } }, out dropped));
            CollectionAssert.AreEqual(new[] { "date_of_birth", "gender" }, dropped);
        }

        [Test]
        public void OnlyAValueOf64HexDigitsIsTakenAsHashedAlready()
        {
            var hex = new string('A', 64);
            List<string> dropped;
            Assert.AreEqual("sha256:" + new string('a', 64), Pii.Protect(new Dictionary<string, object> { { "email", hex } }, out dropped)["email"]);
            Assert.AreEqual(Pii.Sha256Marked(hex.ToLowerInvariant() + "@x"),
                Pii.Protect(new Dictionary<string, object> { { "email", hex + "@x" } }, out dropped)["email"]);
        }

        [Test]
        public void APhoneNumberOfAnyIntegerTypeIsHashedAsItsDigits()
        {
            List<string> dropped;
            var expected = Pii.Sha256Marked("4915112345678");
            foreach (var number in new object[] { 4915112345678L, 4915112345678UL, 4915112345678d, 4915112345678m })
            {
                Assert.AreEqual(expected, Pii.Protect(new Dictionary<string, object> { { "phone_number", number } }, out dropped)["phone_number"], number.GetType().Name);
                CollectionAssert.IsEmpty(dropped);
            }
        }

        [TestCase(" 1990-01-31 ", "19900131")]
        [TestCase("1990.01.31", "19900131")]
        [TestCase("1990/01/31", "19900131")]
        [TestCase("1990-02-30", null)]
        public void ADateOfBirthIsNormalisedAsTheServiceDoes(string given, string normalised)
        {
            Assert.AreEqual(normalised, Pii.Normalise("date_of_birth", given));
        }

        /// <summary>No parameters may be null, absent or an empty map (the vectors' description).</summary>
        private static JToken Normalized(JToken parameters)
        {
            if (parameters == null || parameters.Type == JTokenType.Null) return JValue.CreateNull();
            var map = parameters as JObject;
            return map != null && !map.HasValues ? (JToken)JValue.CreateNull() : parameters;
        }

        public static IEnumerable<TestCaseData> Links()
        {
            return Cases("links.json", "cases", v => true);
        }

        [TestCaseSource("Links")]
        public void HandleUniversalLinkParsesTheLink(JObject vector)
        {
            var expected = (JObject)((vector["platforms"] != null ? vector["platforms"]["unity"] : null) ?? vector["expect"]);
            var hosts = vector["allowedHosts"] is JArray ? vector["allowedHosts"].Select(h => (string)h).ToArray() : null;
            var url = (string)vector["url"];
            if (expected["throws"] != null)
            {
                Assert.Throws(Is.InstanceOf<ArgumentException>(), () => ServiceSDK.HandleUniversalLink(url, hosts));
                return;
            }
            var result = ServiceSDK.HandleUniversalLink(url, hosts);
            var want = expected["result"] as JObject;
            if (want == null)
            {
                Assert.IsNull(result);
                return;
            }
            Assert.IsNotNull(result);
            Assert.AreEqual((string)want["deeplinkId"], result.DeeplinkId);
            CollectionAssert.AreEquivalent(
                ((JObject)want["queryParams"]).Properties().ToDictionary(p => p.Name, p => (string)p.Value),
                result.QueryParams);
            Assert.AreEqual(url, result.Url);
        }

        [Test]
        public void ANullAllowedHostIsRefusedAsABlankOneIs()
        {
            // C# alone lets the array hold a null; links.json's blank entries throw.
            Assert.Throws<ArgumentException>(() => ServiceSDK.HandleUniversalLink("https://go.example.com/abc", new[] { "go.example.com", null }));
        }

        [Test]
        public void SpacesAroundALinkAreNoPartOfItsLastValue()
        {
            var result = ServiceSDK.HandleUniversalLink("  https://go.example.com/abc?x=1&y=2 \n");
            Assert.AreEqual("abc", result.DeeplinkId);
            Assert.AreEqual("2", result.QueryParams["y"]);
            var custom = ServiceSDK.HandleDeepLink(" myapp://open?deep_link_path=/levels/7 ");
            Assert.AreEqual("/levels/7", custom.Path);
        }

        [Test]
        public void HandleDeepLinkReadsASchemeWrittenInUpperCaseAsTheLinkHostsLink()
        {
            var link = ServiceSDK.HandleDeepLink("HTTPS://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Fx");
            Assert.AreEqual("Kx3v9QpZ2aQ", link.DeeplinkId);
            Assert.AreEqual("/x", link.Path);
            Assert.AreEqual("/x", ServiceSDK.HandleDeepLink("MyApp://open?deep_link_path=%2Fx").Path);
        }

        [Test]
        public void ConfigureTakesTheLogLevelsAndRefusesTheOthers()
        {
            var levels = Repo.Vectors("log-levels.json");
            foreach (var level in levels["levels"])
            {
                var core = new SdkCore(Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }));
                core.Configure("sdk_key", (int)level["value"], null);
                Assert.IsTrue(core.IsConfigured);
            }
            foreach (var invalid in levels["invalid"])
            {
                var core = new SdkCore(Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }));
                Assert.Throws(Is.InstanceOf<ArgumentException>(), () => core.Configure("sdk_key", (int)invalid, null));
                Assert.IsFalse(core.IsConfigured);
            }
            var defaultLevel = typeof(ServiceSDK).GetMethod("Configure").GetParameters()[1].DefaultValue;
            Assert.AreEqual((int)levels["default"]["unity"], defaultLevel);
        }

        public static IEnumerable<TestCaseData> Installs()
        {
            return Cases("requests.json", "installs", ForUnity);
        }

        [TestCaseSource("Installs")]
        public void TheInstallRequestIsTheVectors(JObject vector)
        {
            var input = vector["input"];
            var device = input["device"].ToObject<DeviceSignals>();
            device.InstallReferrer = input["installReferrer"].Type == JTokenType.Null ? null : input["installReferrer"].ToObject<InstallReferrer>();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            // The device gives no link of its own: the one that opened the app comes as an app
            // hands it over, through HandleUniversalLink before Configure.
            ServiceSDK.UsePlatform(Setups.For("http://service.test", backend, device: new FixedDevice { Signals = device }, tcf: Tcf(input["tcf"])));
            try
            {
                var openUrl = (string)input["openUrl"];
                if (openUrl != null) Assert.IsNotNull(ServiceSDK.HandleUniversalLink(openUrl));
                var core = ServiceSDK.Core;
                if (input["consent"] is JObject) core.SetConsent(Consent(input["consent"]));
                if (input.Value<bool?>("anonymous") == true) core.SetAnonymous(true);
                core.Configure("sdk_key", 1, (string)input["customerUserId"]);
                core.Idle().Wait();
                var install = backend.Requests.Single(r => r.Key == "POST /v1/installs");
                AssertMatches(OwnPlatform(vector, vector["request"]["body"]), install.Value, core.ServiceId);
            }
            finally
            {
                ServiceSDK.UsePlatform(null);
            }
        }

        /// <summary>
        /// A case shared by several SDKs shows the first one's sdk_platform and sdk_version: this
        /// SDK sends its own, every other field as the case has it.
        /// </summary>
        private static JToken OwnPlatform(JObject vector, JToken body)
        {
            var platforms = vector["platforms"] as JArray;
            if (platforms == null || platforms.Count < 2 || (string)body["sdk_platform"] == Requests.SdkPlatform) return body;
            var own = (JObject)body.DeepClone();
            own["sdk_platform"] = Requests.SdkPlatform;
            own["sdk_version"] = Requests.SdkVersion;
            return own;
        }

        private static ServiceConsent Consent(JToken consent)
        {
            return new ServiceConsent(
                consent.Value<bool?>("gdprApplies"), consent.Value<bool?>("adUserData"), consent.Value<bool?>("adPersonalization"));
        }

        private static FixedTcf Tcf(JToken tcf)
        {
            if (!(tcf is JObject)) return null;
            return new FixedTcf
            {
                Values = new TcfValues { TcString = (string)tcf["IABTCF_TCString"], GdprApplies = tcf.Value<int?>("IABTCF_gdprApplies") },
            };
        }

        /// <summary>The consent updates a consent the app sets makes (its input names one).</summary>
        public static IEnumerable<TestCaseData> ConsentUpdates()
        {
            return Cases("requests.json", "other", v => ForUnity(v) && ((string)v["request"]["path"]).EndsWith("/consent")
                && v["input"]["consent"] is JObject);
        }

        /// <summary>The consent updates the device's tracking makes at a later start (its input names it at the install and now).</summary>
        public static IEnumerable<TestCaseData> TrackingUpdates()
        {
            return Cases("requests.json", "other", v => ForUnity(v) && ((string)v["request"]["path"]).EndsWith("/consent")
                && v["input"]["deviceAtInstall"] is JObject);
        }

        /// <summary>
        /// A vector's device tracking as the platform layer reads it: on iOS when the case names
        /// iOS (with ATT's status), else on Android.
        /// </summary>
        private static FixedDevice TrackingDevice(JObject vector, JToken tracking)
        {
            var ios = ((JArray)vector["platforms"]).Any(p => (string)p == "ios");
            var device = new FixedDevice();
            device.Signals.Os = ios ? "ios" : "android";
            device.Signals.Idfv = ios ? "6F9619FF-8B86-D011-B42D-00CF4FC964FF" : null;
            device.Signals.AdvertisingId = (string)tracking["advertisingId"];
            device.Signals.AttStatus = (string)tracking["attStatus"];
            return device;
        }

        [TestCaseSource("TrackingUpdates")]
        public void TheTrackingUpdateAtALaterStartIsTheVectors(JObject vector)
        {
            var input = vector["input"];
            var store = new MemoryStore();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            // The install, with the tracking the device had then.
            var first = new SdkCore(Setups.For("http://service.test", backend, store, TrackingDevice(vector, input["deviceAtInstall"])));
            first.Configure("sdk_key", 1, null);
            first.Idle().Wait();
            var install = backend.Requests.Single(r => r.Key == "POST /v1/installs").Value;
            Assert.AreEqual((string)input["deviceAtInstall"]["advertisingId"], (string)install["maid"]);
            Assert.AreEqual((string)input["deviceAtInstall"]["attStatus"], (string)install["att_status"]);
            Assert.AreEqual(0, backend.Requests.Count(r => r.Key.EndsWith("/consent")), "the install told the tracking it had");

            // A later start, with the tracking the device has now.
            var second = new SdkCore(Setups.For("http://service.test", backend, store, TrackingDevice(vector, input["deviceNow"])));
            if (input["consent"] is JObject) second.SetConsent(Consent(input["consent"]));
            second.Configure("sdk_key", 1, null);
            second.Idle().Wait();
            var update = backend.Requests.Single(r => r.Key.EndsWith("/consent"));
            Assert.AreEqual(
                ((string)vector["request"]["method"]) + " " + ((string)vector["request"]["path"]).Replace("{{service_id}}", second.ServiceId),
                update.Key);
            AssertMatches(vector["request"]["body"], update.Value, second.ServiceId);
            Assert.AreEqual(1, backend.Requests.Count(r => r.Key == "POST /v1/installs"), "the install is not reported again");

            // The launch after, with the same tracking: nothing to send.
            var third = new SdkCore(Setups.For("http://service.test", backend, store, TrackingDevice(vector, input["deviceNow"])));
            third.Configure("sdk_key", 1, null);
            third.Idle().Wait();
            Assert.AreEqual(1, backend.Requests.Count(r => r.Key.EndsWith("/consent")));
        }

        [TestCaseSource("ConsentUpdates")]
        public void TheConsentUpdateAfterSetConsentIsTheVectors(JObject vector)
        {
            // The install recorded first; then the app sets its consent.
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend, tcf: Tcf(vector["input"]["tcf"])));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.AreEqual(0, backend.Requests.Count(r => r.Key.EndsWith("/consent")), "nothing changed since the install");
            core.SetConsent(Consent(vector["input"]["consent"]));
            core.Idle().Wait();
            var update = backend.Requests.Single(r => r.Key.EndsWith("/consent"));
            Assert.AreEqual(
                ((string)vector["request"]["method"]) + " " + ((string)vector["request"]["path"]).Replace("{{service_id}}", core.ServiceId),
                update.Key);
            AssertMatches(vector["request"]["body"], update.Value, core.ServiceId);
            // The same consent again sends nothing.
            core.SetConsent(Consent(vector["input"]["consent"]));
            core.Idle().Wait();
            Assert.AreEqual(1, backend.Requests.Count(r => r.Key.EndsWith("/consent")));
        }

        [TestCaseSource("ConsentUpdates")]
        public void TheConsentUpdateAtAStartWithANewTcfStringIsTheVectors(JObject vector)
        {
            // The first launch with the app's consent and no TCF string; the next one finds one.
            var store = new MemoryStore();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var first = new SdkCore(Setups.For("http://service.test", backend, store));
            first.SetConsent(Consent(vector["input"]["consent"]));
            first.Configure("sdk_key", 1, null);
            first.Idle().Wait();
            Assert.AreEqual(JTokenType.Null, backend.Requests.Single(r => r.Key == "POST /v1/installs").Value["consent"]["tcf_string"].Type);

            var second = new SdkCore(Setups.For("http://service.test", backend, store, tcf: Tcf(vector["input"]["tcf"])));
            second.Configure("sdk_key", 1, null);
            second.Idle().Wait();
            var update = backend.Requests.Single(r => r.Key.EndsWith("/consent"));
            AssertMatches(vector["request"]["body"], update.Value, second.ServiceId);

            // The launch after, with the same string: nothing to send.
            var third = new SdkCore(Setups.For("http://service.test", backend, store, tcf: Tcf(vector["input"]["tcf"])));
            third.Configure("sdk_key", 1, null);
            third.Idle().Wait();
            Assert.AreEqual(1, backend.Requests.Count(r => r.Key.EndsWith("/consent")));
        }

        public static IEnumerable<TestCaseData> EventBatches()
        {
            return Cases("requests.json", "events", ForUnity);
        }

        [TestCaseSource("EventBatches")]
        public void TheEventRequestsAreTheVectors(JObject vector)
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            if (vector["input"].Value<bool?>("anonymous") == true) core.SetAnonymous(true);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            foreach (JObject step in vector["input"]["steps"])
            {
                var userId = step["setCustomerUserId"];
                if (userId != null)
                {
                    core.SetCustomerUserId(userId is JObject ? (string)userId["customerUserId"] : (string)userId);
                    continue;
                }
                var call = step["sendEvent"];
                core.SendEvent(
                    (EventType)Enum.Parse(typeof(EventType), (string)call["eventType"]),
                    (string)call["eventName"],
                    Native(call["parameters"]) as Dictionary<string, object>);
                core.Idle().Wait();
            }
            var requests = backend.Requests.Where(r => r.Key == "POST /v1/events").Select(r => (JObject)r.Value).ToList();
            CollectionAssert.IsNotEmpty(requests);
            // Each request as the case's body shows it, apart from its own events.
            var envelope = (JObject)vector["request"]["body"].DeepClone();
            envelope.Remove("events");
            foreach (var request in requests)
            {
                var own = (JObject)request.DeepClone();
                own.Remove("events");
                AssertMatches(envelope, own, core.ServiceId);
            }
            var sent = new JArray(requests.SelectMany(r => r["events"]));
            AssertMatches(vector["request"]["body"]["events"], sent, core.ServiceId);
        }

        /// <summary>Equal as JSON, placeholders by their format, a field shown null also when left out.</summary>
        internal static void AssertMatches(JToken expected, JToken actual, string serviceId)
        {
            var problem = Mismatch(expected, actual, serviceId, "body");
            Assert.IsNull(problem, problem + "\nsent: " + actual);
        }

        private static string Mismatch(JToken expected, JToken actual, string serviceId, string path)
        {
            if (expected.Type == JTokenType.String)
            {
                var text = (string)expected;
                var value = actual == null || actual.Type == JTokenType.Null ? null : actual.ToString();
                if (text == "{{service_id}}") return value == serviceId ? null : path + ": not the service id";
                if (text == "{{event_id}}") return value != null && Regex.IsMatch(value, "^[A-Za-z0-9._:-]{1,128}$") ? null : path + ": no event id";
                if (text == "{{time}}")
                {
                    var raw = actual != null && actual.Type == JTokenType.Date ? ((DateTime)actual).ToString("o") : value;
                    return raw != null && Regex.IsMatch(raw, @"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d") ? null : path + ": no time";
                }
            }
            if (expected.Type == JTokenType.Null) return actual == null || actual.Type == JTokenType.Null ? null : path + ": should be null";
            if (expected is JObject)
            {
                var actualObject = actual as JObject;
                if (actualObject == null) return path + ": not an object";
                foreach (var property in ((JObject)expected).Properties())
                {
                    var problem = Mismatch(property.Value, actualObject[property.Name], serviceId, path + "." + property.Name);
                    if (problem != null) return problem;
                }
                var extra = actualObject.Properties().Select(p => p.Name).Except(((JObject)expected).Properties().Select(p => p.Name)).ToList();
                return extra.Count == 0 ? null : path + ": unexpected " + string.Join(", ", extra);
            }
            if (expected is JArray)
            {
                var actualArray = actual as JArray;
                if (actualArray == null || actualArray.Count != ((JArray)expected).Count) return path + ": another length";
                for (var i = 0; i < actualArray.Count; i++)
                {
                    var problem = Mismatch(expected[i], actualArray[i], serviceId, path + "[" + i + "]");
                    if (problem != null) return problem;
                }
                return null;
            }
            return JToken.DeepEquals(expected, actual) ? null : path + ": " + actual + " instead of " + expected;
        }
    }
}
