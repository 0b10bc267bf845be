using System;
using System.Collections.Generic;
using System.Linq;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// sdk/conformance/remote-config.json against the core: each case's answer of GET /v1/config
    /// read at Configure, and the interval the core then runs with: the refresh's timer, or the
    /// session interval, also as a next launch reads it from the device before any answer comes.
    /// </summary>
    [TestFixture]
    public class RemoteConfigTests
    {
        private static JObject Vectors
        {
            get { return Repo.Vectors("remote-config.json"); }
        }

        public static IEnumerable<TestCaseData> Cases()
        {
            return Vectors["cases"].Cast<JObject>()
                .Select(vector => new TestCaseData(vector).SetName("remote-config.json: " + (string)vector["name"]));
        }

        /// <summary>The case's answer: on, with its field as the case writes it (left out for null).</summary>
        private static JToken AnswerOf(JObject vector)
        {
            var json = vector["json"];
            var field = json.Type == JTokenType.Null ? "" : ",\"" + (string)vector["field"] + "\":" + (string)json;
            return JToken.Parse("{\"enabled\":true" + field + "}");
        }

        [TestCaseSource("Cases")]
        public void TheIntervalTakenIsTheVectors(JObject vector)
        {
            var expected = TimeSpan.FromSeconds((long)vector["seconds"]);
            var store = new MemoryStore();
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("GET /v1/config")
                    ? Tuple.Create(200, AnswerOf(vector))
                    : ScriptedBackend.Usual(key, body),
            };
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", backend, store: store, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.IsFalse(core.IsSdkDisabled, "the rest of the configuration is taken");
            switch ((string)vector["field"])
            {
                case "refresh_interval_seconds":
                    Assert.AreEqual(expected, core.RefreshInterval);
                    CollectionAssert.AreEqual(new[] { expected }, timers.Delays, "the next reading waits the interval taken");
                    break;
                case "session_interval_seconds":
                    Assert.AreEqual(expected, core.SessionInterval);
                    backend.Offline = true;
                    var next = new SdkCore(Setups.For("http://service.test", backend, store: store, scheduler: new ManualTimers()));
                    Assert.AreEqual(expected, next.SessionInterval, "kept on the device for the next launch");
                    break;
                default:
                    Assert.Fail("a field this test does not know: " + vector["field"]);
                    break;
            }
        }

        [Test]
        public void TheDefaultsAreTheCores()
        {
            var defaults = Vectors["defaults"];
            Assert.AreEqual((int)defaults["refresh_interval_seconds"], (int)SdkCore.DefaultRefreshInterval.TotalSeconds);
            Assert.AreEqual((int)defaults["session_interval_seconds"], (int)SessionTracker.DefaultInterval.TotalSeconds);
        }
    }
}
