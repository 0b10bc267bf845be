using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>Device signals as the service's install schema takes them, one rule at a time.</summary>
    [TestFixture]
    public class FieldsTests
    {
        [TestCase("de-DE", "de-DE")]
        [TestCase("en_US", "en_US")]
        [TestCase("zh-Hant-TW", "zh-Hant-TW")]
        [TestCase("", null)]
        [TestCase("  ", null)]
        [TestCase(null, null)]
        [TestCase("English (United States)", null)]
        [TestCase("en-US-aaaaaaaaa", null)]
        [TestCase(" de-DE ", "de-DE")]
        public void ALocaleIsABcp47TagOrLeftOut(string given, string sent)
        {
            Assert.AreEqual(sent, Fields.LocaleTag(given));
        }

        [Test]
        public void ALocaleLongerThanTheServiceTakesIsLeftOutAtItsBound()
        {
            var longest = "en" + string.Concat(Enumerable.Repeat("-abcdefgh", 3)) + "-abcde";
            Assert.AreEqual(Fields.MaxLocaleLength, longest.Length);
            Assert.AreEqual(longest, Fields.LocaleTag(longest));
            Assert.IsNull(Fields.LocaleTag(longest + "g"));
        }

        [Test]
        public void UnixSecondsPastTheYear9999AreUnknown()
        {
            Assert.AreEqual(Fields.MaxUnixSeconds, Fields.UnixSeconds(Fields.MaxUnixSeconds));
            Assert.IsNull(Fields.UnixSeconds(Fields.MaxUnixSeconds + 1));
            Assert.IsNull(Fields.UnixSeconds(-1));
        }

        [Test]
        public void TheInvariantCulturesEmptyNameIsLeftOut()
        {
            Assert.IsNull(Fields.LocaleTag(System.Globalization.CultureInfo.InvariantCulture.Name));
        }

        [TestCase("Europe/Berlin", "Europe/Berlin")]
        [TestCase("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires")]
        [TestCase("Etc/GMT+5", "Etc/GMT+5")]
        [TestCase("W. Europe Standard Time", "Europe/Berlin")]
        [TestCase("Pacific Standard Time", "America/Los_Angeles")]
        [TestCase("India Standard Time", "Asia/Kolkata")]
        [TestCase("UTC-11", "Etc/GMT+11")]
        [TestCase("UTC", "Etc/UTC")]
        [TestCase("Local", null)]
        [TestCase("Mars Standard Time", null)]
        [TestCase("GMT+01:00", null)]
        [TestCase("", null)]
        [TestCase(null, null)]
        public void ATimeZoneIsAnIanaNameOrLeftOut(string given, string sent)
        {
            Assert.AreEqual(sent, Fields.TimeZoneName(given));
        }

        [TestCase("6F9619FF-8B86-D011-B42D-00CF4FC964FF", "6F9619FF-8B86-D011-B42D-00CF4FC964FF")]
        [TestCase("00000000-0000-0000-0000-000000000000", null)]
        [TestCase("not-an-id", null)]
        [TestCase("", null)]
        [TestCase(" 6F9619FF-8B86-D011-B42D-00CF4FC964FF\n", "6F9619FF-8B86-D011-B42D-00CF4FC964FF")]
        public void ADeviceIdIsAUuidOrLeftOut(string given, string sent)
        {
            Assert.AreEqual(sent, Fields.DeviceIdentifier(given));
        }

        [TestCase("Android OS 14 / API-34 (UP1A.231005.007/10754064)", "14")]
        [TestCase("iOS 17.4", "17.4")]
        [TestCase("iPadOS 17.4.1", "17.4.1")]
        [TestCase("Windows 11  (10.0.22631) 64bit", "11")]
        [TestCase(" Haiku ", "Haiku")]
        public void TheOsVersionIsReadFromTheOsDescription(string description, string version)
        {
            Assert.AreEqual(version, Fields.OsVersion(description));
        }

        [Test]
        public void DeviceTextIsTrimmedAndCutToTheServicesLimit()
        {
            Assert.AreEqual(64, Fields.Text(new string('x', 100), Fields.MaxDeviceFieldLength).Length);
            Assert.AreEqual("Pixel 8", Fields.Text("  Pixel 8 ", Fields.MaxDeviceFieldLength));
            Assert.IsNull(Fields.Text("   ", Fields.MaxDeviceFieldLength));
            // Never half of a surrogate pair at the cut.
            var emoji = new string('x', 63) + "\U0001F600";
            Assert.AreEqual(63, Fields.Text(emoji, Fields.MaxDeviceFieldLength).Length);
            // Half a pair alone is no text: U+FFFD, as UTF-8 would send it; a whole pair stays.
            Assert.AreEqual("Pixel\uFFFD 8", Fields.Text("Pixel\ud800 8", Fields.MaxDeviceFieldLength));
            Assert.AreEqual("a\uFFFDX \U0001F600", Fields.Text("a\ud83dX \U0001F600", Fields.MaxDeviceFieldLength));
        }

        [Test]
        public void AnAnonymousInstallCarriesNoDeviceIdNorCustomerUserIdAndSaysSoBareToo()
        {
            var device = new DeviceSignals
            {
                Os = "ios", Idfv = "6F9619FF-8B86-D011-B42D-00CF4FC964FF", AdvertisingId = "6D92078A-8246-4BA4-AE5B-76104861E7DC", AttStatus = "authorized",
            };
            var now = new DateTime(2026, 11, 29, 12, 0, 0, DateTimeKind.Utc);
            var install = Requests.Install("sid", now, now, device, "user-1", anonymous: true);
            Assert.IsNull((string)install["idfv"]);
            Assert.IsNull((string)install["maid"]);
            Assert.IsNull((string)install["customer_user_id"]);
            Assert.AreEqual(true, (bool)install["anonymous"]);
            Assert.AreEqual("6F9619FF-8B86-D011-B42D-00CF4FC964FF", (string)Requests.Install("sid", now, now, device, "user-1")["idfv"]);
            Assert.AreEqual(true, (bool)Requests.BareInstall("sid", now, now, "ios", anonymous: true)["anonymous"]);
            Assert.IsNull(Requests.BareInstall("sid", now, now, "ios")["anonymous"]);
        }

        [Test]
        public void TheInstallReferrersVersionIsFittedToTheServicesLimit()
        {
            var device = new DeviceSignals
            {
                Os = "android", InstallReferrer = new InstallReferrer { Referrer = "utm_source=x", InstallVersion = " " + new string('v', 80) },
            };
            var now = new DateTime(2026, 11, 29, 12, 0, 0, DateTimeKind.Utc);
            Assert.AreEqual(new string('v', Fields.MaxDeviceFieldLength), (string)Requests.Install("sid", now, now, device, null)["install_referrer"]["install_version"]);
        }

        [TestCase(1, true)]
        [TestCase(0, false)]
        [TestCase(-1, null)]
        [TestCase(2, null)]
        public void TheConsentPlatformsGdprAppliesCountsOnlyAsOneOrZero(int stored, bool? applies)
        {
            var consent = Requests.Consent(null, new TcfValues { GdprApplies = stored, TcString = "CQF0" });
            Assert.AreEqual(applies, (bool?)consent["gdpr_applies"]);
        }

        [TestCase("")]
        [TestCase("   ")]
        public void ABlankTcfStringIsNone(string tcString)
        {
            Assert.IsNull(Requests.Consent(null, new TcfValues { GdprApplies = -1, TcString = tcString }));
            Assert.IsNull((string)Requests.Consent(new ServiceConsent(adUserData: true), new TcfValues { TcString = tcString })["tcf_string"]);
        }

        [Test]
        public void AValueKeptWholeOrNotAtAllIsLeftOutEmptyTooLongOrNotUnicode()
        {
            Assert.AreEqual("https://go.example.com/\U0001F600", Fields.Bounded("https://go.example.com/\U0001F600", Fields.MaxReferrerLength));
            Assert.IsNull(Fields.Bounded("", Fields.MaxReferrerLength));
            Assert.IsNull(Fields.Bounded(new string('a', Fields.MaxReferrerLength + 1), Fields.MaxReferrerLength));
            Assert.AreEqual(Fields.MaxReferrerLength, Fields.Bounded(new string('a', Fields.MaxReferrerLength), Fields.MaxReferrerLength).Length);
            Assert.IsNull(Fields.Bounded("https://go.example.com/\ud800", Fields.MaxReferrerLength));
        }

        [Test]
        public void ACustomerUserIdHasOneTo256Characters()
        {
            Assert.IsNull(Fields.CustomerUserIdProblem(new string('u', 256)));
            StringAssert.Contains("257 characters", Fields.CustomerUserIdProblem(new string('u', 257)));
            Assert.IsNotNull(Fields.CustomerUserIdProblem("user-\ud800"));
        }
    }

    /// <summary>The install, the customer user id and remote configuration, against a scripted backend.</summary>
    [TestFixture]
    public class InstallTests
    {
        private static Tuple<int, JToken> Answer(int status, string json)
        {
            return Tuple.Create(status, json == null ? null : JToken.Parse(json));
        }

        private static JToken Install(ScriptedBackend backend)
        {
            return backend.Requests.First(r => r.Key == "POST /v1/installs").Value;
        }

        [Test]
        public void TheInstallsLimitsAreTheServicesInstallSchemas()
        {
            var install = Repo.OpenApi()["components"]["schemas"]["InstallRequest"]["properties"];
            var referrer = install["install_referrer"]["properties"];
            Func<JToken, int> longest = property => (int)property["maxLength"];
            foreach (var field in new[] { install["os_version"], install["device_model"], install["app_version"], referrer["install_version"] })
            {
                Assert.AreEqual(longest(field), Fields.MaxDeviceFieldLength);
            }
            Assert.AreEqual(longest(referrer["referrer"]), Fields.MaxReferrerLength);
            Assert.AreEqual(longest(install["open_url"]), Fields.MaxReferrerLength);
            Assert.AreEqual(longest(install["platform_ads_token"]), Fields.MaxAdsTokenLength);
            Assert.AreEqual(longest(install["customer_user_id"]), Fields.MaxCustomerUserIdLength);
            Assert.AreEqual(longest(install["consent"]["properties"]["tcf_string"]), Fields.MaxTcfStringLength);
            Assert.AreEqual(longest(install["locale"]), Fields.MaxLocaleLength);
            Assert.AreEqual(longest(install["timezone"]), Fields.MaxTimezoneLength);
            Assert.AreEqual((long)referrer["click_timestamp"]["maximum"], Fields.MaxUnixSeconds);
            // What the service's patterns take, the SDK sends; what they refuse, it leaves out.
            var locale = new System.Text.RegularExpressions.Regex((string)install["locale"]["pattern"]);
            foreach (var tag in new[] { "de-DE", "de_DE", "sr_Latn_RS", "zh-Hant-TW", "en-US-u-ca-gregory", "x", "1a", "en--US", "en-", "abcd", "de-DE.UTF-8" })
            {
                Assert.AreEqual(locale.IsMatch(tag), Fields.LocaleTag(tag) != null, tag);
            }
            var zone = new System.Text.RegularExpressions.Regex((string)install["timezone"]["pattern"]);
            foreach (var name in new[] { "Europe/Berlin", "Etc/GMT+9", "Etc/GMT-14", "America/Port-au-Prince", "America/Argentina/Buenos_Aires", "UTC", "/Berlin", "Europe//Berlin", "Europe/Berlin/", "1Europe", "Europe/Berlin time" })
            {
                Assert.AreEqual(zone.IsMatch(name), Fields.TimeZoneName(name) != null, name);
            }
        }

        [Test]
        public void SignalsTheServiceWouldRefuseAreFittedOrLeftOut()
        {
            var device = new FixedDevice();
            device.Signals.Locale = "";
            device.Signals.Timezone = "W. Europe Standard Time";
            device.Signals.DeviceModel = new string('m', 80);
            device.Signals.Idfv = "not-a-uuid";
            device.Signals.AttStatus = "maybe";
            device.Signals.OpenUrl = "https://go.example.com/" + new string('a', 3000);
            device.Signals.InstallReferrer = new InstallReferrer { Referrer = "utm_source=x", ClickTimestampSeconds = -1, InstallBeginTimestampSeconds = 1789552760 };
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend, device: device));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            var install = Install(backend);
            Assert.AreEqual(JTokenType.Null, install["locale"].Type);
            Assert.AreEqual("Europe/Berlin", (string)install["timezone"]);
            Assert.AreEqual(64, ((string)install["device_model"]).Length);
            Assert.AreEqual(JTokenType.Null, install["idfv"].Type);
            Assert.AreEqual(JTokenType.Null, install["att_status"].Type);
            Assert.AreEqual(JTokenType.Null, install["open_url"].Type);
            Assert.AreEqual(JTokenType.Null, install["install_referrer"]["click_timestamp"].Type);
            Assert.AreEqual(1789552760, (long)install["install_referrer"]["install_begin_timestamp"]);
        }

        private const string OpenedWith = "https://go.example.com/Kx3v9QpZ2aQ?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d";

        [Test]
        public void TheFirstLinkHandedToHandleUniversalLinkBeforeConfigureIsTheInstallsOpenUrl()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            ServiceSDK.UsePlatform(Setups.For("http://service.test", backend));
            try
            {
                // The app's own scheme is no link of the link host: not noted.
                Assert.IsNotNull(ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=%2Fshop"));
                // A host the app does not allow gives no link: not noted either.
                Assert.IsNull(ServiceSDK.HandleUniversalLink("https://elsewhere.example.com/Zz?service_click_id=aaaaaaaaaaaaaaaaaaaaaa", new[] { "go.example.com" }));
                Assert.IsNotNull(ServiceSDK.HandleUniversalLink(OpenedWith, new[] { "go.example.com" }));
                // Later links, either way, do not replace the one that opened the app.
                ServiceSDK.HandleUniversalLink("https://go.example.com/Second00001?service_click_id=bbbbbbbbbbbbbbbbbbbbbb");
                ServiceSDK.HandleDeepLink("https://go.example.com/Third000001?service_click_id=cccccccccccccccccccccc");
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.Core.Idle().Wait();
                Assert.AreEqual(OpenedWith, (string)Install(backend)["open_url"]);
            }
            finally
            {
                ServiceSDK.UsePlatform(null);
            }
        }

        [Test]
        public void ANewPlaySessionInTheEditorForgetsTheLastOnesHandlersSdkAndBaseUrl()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var last = new List<string>();
            var next = new List<string>();
            Action<ServiceDeepLink> lastHandler = link => last.Add(link.Path);
            Action<ServiceDeepLink> nextHandler = link => next.Add(link.Path);
            try
            {
                ServiceSDK.UsePlatform(Setups.For(null, backend));
                ServiceSDK.BaseUrl = "http://service.test";
                ServiceSDK.DeepLinkReceived += lastHandler;
                ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=%2Fshop");
                CollectionAssert.AreEqual(new[] { "/shop" }, last);

                // Domain reload off: the statics outlive the session; the next one starts.
                ServiceSDK.ForgetPlaySession();
                Assert.IsNull(ServiceSDK.BaseUrl);
                ServiceSDK.UsePlatform(Setups.For(null, backend));
                ServiceSDK.DeepLinkReceived += nextHandler;
                ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=%2Flevels%2F7");
                CollectionAssert.AreEqual(new[] { "/shop" }, last, "the last session's handler is not called");
                CollectionAssert.AreEqual(new[] { "/levels/7" }, next);
            }
            finally
            {
                ServiceSDK.ForgetPlaySession();
                ServiceSDK.UsePlatform(null);
            }
        }

        [Test]
        public void TheLastPlaySessionsSdkIsRetiredItsRetryDoesNothingAndItTellsTheNewSessionNothing()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual, Offline = true };
            var timers = new ManualTimers();
            var next = new List<ServiceError>();
            try
            {
                ServiceSDK.UsePlatform(Setups.For("http://service.test", backend, scheduler: timers));
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.SendEvent(EventType.LOGIN);
                var last = ServiceSDK.Core;
                last.Idle().Wait();
                Assert.IsNotEmpty(timers.Delays, "offline: a retry waits");

                // Domain reload off: the next session starts; the network is back.
                ServiceSDK.ForgetPlaySession();
                ServiceSDK.ErrorOccurred += next.Add;
                backend.Offline = false;
                timers.FireAll();
                last.Idle().Wait();
                Assert.IsEmpty(backend.Requests, "the retired SDK's retry sends nothing");
                // What it would still tell goes to its own handlers, emptied, not the new session's.
                last.Listeners.RaiseError(new ServiceError(ServiceErrorKind.EventsDropped, ServiceDropReason.QueueFull, null, 1, "the last session's"));
                Assert.IsEmpty(next);
            }
            finally
            {
                ServiceSDK.ForgetPlaySession();
                ServiceSDK.UsePlatform(null);
            }
        }

        [Test]
        public void AnHttpsLinkHandedToHandleDeepLinkIsTheOpenUrlAndACustomSchemeNever()
        {
            var web = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            ServiceSDK.UsePlatform(Setups.For("http://service.test", web));
            try
            {
                ServiceSDK.HandleDeepLink("myapp://open?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d");
                ServiceSDK.HandleDeepLink(OpenedWith);
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.Core.Idle().Wait();
                Assert.AreEqual(OpenedWith, (string)Install(web)["open_url"]);

                var custom = new ScriptedBackend { Answer = ScriptedBackend.Usual };
                ServiceSDK.UsePlatform(Setups.For("http://service.test", custom));
                ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=%2Fshop&service_click_id=4fQx0ZsR8kT2mB7nW1cY9d");
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.Core.Idle().Wait();
                Assert.AreEqual(JTokenType.Null, Install(custom)["open_url"].Type);
            }
            finally
            {
                ServiceSDK.UsePlatform(null);
            }
        }

        [Test]
        public void AnHttpLinkOfTheEmbeddedLinkHostIsTheOpenUrl()
        {
            const string Local = "http://127.0.0.1:8788/Kx3v9QpZ2aQ?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d";
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend));
            core.NoteOpenUrl(Local);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.AreEqual(Local, (string)Install(backend)["open_url"]);
        }

        [Test]
        public void ALinkOpenedOnceTheInstallIsRecordedIsNotTheOpenUrlOfTheInstallSentAgain()
        {
            var lost = false;
            var backend = new ScriptedBackend();
            backend.Answer = (key, body) => lost && key.EndsWith("/consent")
                ? Tuple.Create(409, (JToken)new JObject { { "error", "Conflict" }, { "detail", "no such install" } })
                : ScriptedBackend.Usual(key, body);
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", backend, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            core.NoteOpenUrl(OpenedWith);
            // The service lost the install: the next consent update is a 409, and the install goes again.
            lost = true;
            core.SetConsent(new ServiceConsent(adUserData: false));
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            lost = false;
            Assert.AreEqual(1, timers.Fire(TimeSpan.FromMilliseconds(100)), "the retry that sends the install again");
            core.Idle().Wait();
            var installs = backend.Requests.Where(r => r.Key == "POST /v1/installs").Select(r => r.Value).ToList();
            Assert.AreEqual(2, installs.Count);
            Assert.AreEqual(JTokenType.Null, installs[1]["open_url"].Type, "a link of a later open did not bring the install");
        }

        [Test]
        public void ALinkNotedAfterAFailedTryGoesWithTheInstallAndTheDevicesOwnLinkWins()
        {
            var store = new MemoryStore();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual, Offline = true };
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", backend, store, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            core.NoteOpenUrl(OpenedWith);
            backend.Offline = false;
            timers.FireUpTo(TimeSpan.FromMinutes(1));
            core.Idle().Wait();
            Assert.AreEqual(OpenedWith, (string)Install(backend)["open_url"]);

            // The device's own link, had it one, is the install's.
            var device = new FixedDevice();
            device.Signals.OpenUrl = "https://go.example.com/FromDevice1";
            var other = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var withDevice = new SdkCore(Setups.For("http://service.test", other, device: device));
            withDevice.NoteOpenUrl(OpenedWith);
            withDevice.Configure("sdk_key", 1, null);
            withDevice.Idle().Wait();
            Assert.AreEqual("https://go.example.com/FromDevice1", (string)Install(other)["open_url"]);
        }

        /// <summary>
        /// An iPhone whose AdServices token the app may ask for (EnablePlatformAdsAttribution,
        /// which the Unity layer reads as <see cref="PlatformAds.Enabled"/>): a new token at each read.
        /// </summary>
        private sealed class AdServicesPhone : IDevice, IPlatformAdsToken
        {
            public volatile bool Asked;
            public int Reads;

            public DeviceSignals Read()
            {
                return new DeviceSignals
                {
                    Os = "ios", OsVersion = "17.4", DeviceModel = "iPhone15,2", AppVersion = "1.0", Locale = "en-US",
                    Timezone = "Europe/Berlin", AttStatus = "denied",
                };
            }

            /// <summary>Reads that fail first, as AdServices' when it cannot make a token now.</summary>
            public int Failing;

            public string ReadPlatformAdsToken()
            {
                if (Interlocked.Decrement(ref Failing) >= 0) throw new InvalidOperationException("AAAttributionErrorCodeInternalError");
                return Asked ? "token-" + Interlocked.Increment(ref Reads) : null;
            }
        }

        [TestCase(2, "token-1")]
        [TestCase(3, null)]
        public void AnAdServicesTokenThatFailsIsReadAgainAtTheInstallsRetriesBeforeTheInstallGoesWithoutIt(int failing, string sent)
        {
            var phone = new AdServicesPhone { Asked = true, Failing = failing };
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", backend, device: phone, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.AreEqual(0, backend.To("POST /v1/installs").Count, "the install waits for the token");
            for (var retry = 0; retry < 5 && backend.To("POST /v1/installs").Count == 0; retry++)
            {
                timers.FireUpTo(TimeSpan.FromMinutes(1));
                core.Idle().Wait();
            }
            Assert.AreEqual(1, backend.To("POST /v1/installs").Count);
            Assert.AreEqual(sent, (string)Install(backend)["platform_ads_token"]);
        }

        [Test]
        public void PlatformAdsAttributionEnabledAfterConfigureReachesTheInstallsNextTryWithATokenReadThen()
        {
            // The spec has Configure first: the app asks for Apple Ads attribution after it, once
            // the install's first try went (offline) without the token.
            var phone = new AdServicesPhone();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual, Offline = true };
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", backend, device: phone, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            phone.Asked = true;
            // A second try, still offline, reads a token; the one that goes reads its own.
            timers.FireUpTo(TimeSpan.FromMinutes(1));
            core.Idle().Wait();
            backend.Offline = false;
            timers.FireUpTo(TimeSpan.FromMinutes(1));
            core.Idle().Wait();
            Assert.AreEqual("token-2", (string)Install(backend)["platform_ads_token"], "the token read as the install went");
            Assert.AreEqual(2, phone.Reads);
        }

        /// <summary>Google Play's referrer service: it cannot answer the first times asked, then answers.</summary>
        private sealed class PlayStore : IInstallReferrerSource
        {
            public int Busy;
            public InstallReferrer Referrer;
            public int Reads;

            public InstallReferrer Read()
            {
                Interlocked.Increment(ref Reads);
                if (Interlocked.Decrement(ref Busy) >= 0) throw new ReferrerUnavailableException("the Play Store answered SERVICE_UNAVAILABLE (1)");
                return Referrer;
            }
        }

        private static SdkCore WithPlayStore(PlayStore play, ScriptedBackend backend, ManualTimers timers, out SdkSetup setup)
        {
            setup = Setups.For("http://service.test", backend, scheduler: timers);
            setup.InstallReferrer = play;
            return new SdkCore(setup);
        }

        [Test]
        public void TheInstallWaitsForAPlayStoreThatCannotAnswerYetAndAsksAgainAtEachRetry()
        {
            var play = new PlayStore { Busy = 2, Referrer = new InstallReferrer { Referrer = "utm_source=x&click_id=c1", InstallBeginTimestampSeconds = 1789552760 } };
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var timers = new ManualTimers();
            SdkSetup setup;
            var core = WithPlayStore(play, backend, timers, out setup);
            core.Configure("sdk_key", 1, null);
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            Assert.AreEqual(1, play.Reads);
            Assert.IsEmpty(backend.To("POST /v1/installs"), "the install waits for the referrer");

            // The SDK's retry delay, doubling: asked again at each.
            Assert.AreEqual(1, timers.Fire(setup.RetryDelay));
            core.Idle().Wait();
            Assert.AreEqual(2, play.Reads);
            Assert.IsEmpty(backend.To("POST /v1/installs"));
            Assert.AreEqual(1, timers.Fire(TimeSpan.FromTicks(setup.RetryDelay.Ticks * 2)));
            core.Idle().Wait();

            Assert.AreEqual(3, play.Reads);
            Assert.AreEqual(1, backend.To("POST /v1/installs").Count);
            Assert.AreEqual("utm_source=x&click_id=c1", (string)Install(backend)["install_referrer"]["referrer"]);
            Assert.AreEqual(1, backend.To("POST /v1/events").Count, "the events after it");
            Assert.IsEmpty(((ListLog)setup.Log).At(LogLevel.Warn, "referrer"));
        }

        [Test]
        public void AfterThreeAnswersOfAPlayStoreThatCannotAnswerTheInstallGoesWithoutItWithOneWarning()
        {
            var play = new PlayStore { Busy = int.MaxValue };
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var timers = new ManualTimers();
            SdkSetup setup;
            var core = WithPlayStore(play, backend, timers, out setup);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            for (var retry = 0; retry < 5 && backend.To("POST /v1/installs").Count == 0; retry++)
            {
                timers.FireUpTo(TimeSpan.FromMinutes(1));
                core.Idle().Wait();
            }
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();

            Assert.AreEqual(SdkCore.MaxReferrerTries, play.Reads, "not asked again once given up on");
            Assert.AreEqual(1, backend.To("POST /v1/installs").Count);
            Assert.AreEqual(JTokenType.Null, Install(backend)["install_referrer"].Type);
            Assert.AreEqual(1, ((ListLog)setup.Log).At(LogLevel.Warn, "referrer was not available 3 times").Count);
        }

        [Test]
        public void AFinalAnswerOfThePlayStoreSendsTheInstallAtOnceWithoutAReferrer()
        {
            // FEATURE_NOT_SUPPORTED, DEVELOPER_ERROR, PERMISSION_ERROR: none to give, for good.
            var play = new PlayStore();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            SdkSetup setup;
            var core = WithPlayStore(play, backend, new ManualTimers(), out setup);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.AreEqual(1, play.Reads);
            Assert.AreEqual(JTokenType.Null, Install(backend)["install_referrer"].Type);
            Assert.IsEmpty(((ListLog)setup.Log).At(LogLevel.Warn, "referrer"));
        }

        [TestCase("authorized", true)]
        [TestCase("denied", false)]
        [TestCase("restricted", false)]
        [TestCase("not_determined", false)]
        [TestCase(null, false)]
        public void OnIosTheAdvertisingIdGoesOnlyWhenTrackingIsAuthorized(string attStatus, bool sent)
        {
            var device = new FixedDevice();
            device.Signals.Os = "ios";
            device.Signals.AttStatus = attStatus;
            device.Signals.AdvertisingId = "6F9619FF-8B86-D011-B42D-00CF4FC964FE";
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var core = new SdkCore(Setups.For("http://service.test", backend, device: device));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.AreEqual(sent ? "6F9619FF-8B86-D011-B42D-00CF4FC964FE" : null, (string)Install(backend)["maid"]);
        }

        [Test]
        public void TheCustomerUserIdIsKeptAcrossLaunchesAndClearedByNull()
        {
            var store = new MemoryStore();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var first = new SdkCore(Setups.For("http://service.test", backend, store));
            first.Configure("sdk_key", 1, null);
            first.SetCustomerUserId("user-8812");
            first.Idle().Wait();

            var second = new SdkCore(Setups.For("http://service.test", backend, store));
            second.Configure("sdk_key", 1, null);
            second.SendEvent(EventType.LOGIN, null, null);
            second.Idle().Wait();
            second.SetCustomerUserId(null);
            second.SendEvent(EventType.SHARE, null, null);
            second.Idle().Wait();

            var third = new SdkCore(Setups.For("http://service.test", backend, store));
            third.Configure("sdk_key", 1, null);
            third.SendEvent(EventType.SEARCH, null, null);
            third.Idle().Wait();

            var events = backend.Requests.Where(r => r.Key == "POST /v1/events").SelectMany(r => r.Value["events"]).ToList();
            Assert.AreEqual("user-8812", (string)events.Single(e => (string)e["event_type"] == "LOGIN")["customer_user_id"]);
            Assert.IsNull((string)events.Single(e => (string)e["event_type"] == "SHARE")["customer_user_id"]);
            Assert.IsNull((string)events.Single(e => (string)e["event_type"] == "SEARCH")["customer_user_id"]);
        }

        [Test]
        public void ACustomerUserIdOverTheLimitIsRefusedWithAnErrorAndNotSent()
        {
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var setup = Setups.For("http://service.test", backend);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 3, new string('u', 300));
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();
            core.SetCustomerUserId("user-1");
            core.SendEvent(EventType.SHARE, null, null);
            core.Idle().Wait();
            core.SetCustomerUserId(new string('v', 257));
            core.SendEvent(EventType.SEARCH, null, null);
            core.Idle().Wait();

            var log = (ListLog)setup.Log;
            Assert.AreEqual(1, log.At(LogLevel.Error, "300 characters").Count);
            Assert.AreEqual(1, log.At(LogLevel.Error, "257 characters").Count);
            Assert.AreEqual(JTokenType.Null, Install(backend)["customer_user_id"].Type);
            var events = backend.Requests.Where(r => r.Key == "POST /v1/events").SelectMany(r => r.Value["events"]).ToList();
            Assert.IsNull((string)events.Single(e => (string)e["event_type"] == "LOGIN")["customer_user_id"]);
            Assert.AreEqual("user-1", (string)events.Single(e => (string)e["event_type"] == "SHARE")["customer_user_id"]);
            // Not the user before: no id at all.
            Assert.IsNull((string)events.Single(e => (string)e["event_type"] == "SEARCH")["customer_user_id"]);
            Assert.IsNull(setup.Store.Get("service_sdk.customer_user_id"));
        }

        [Test]
        [TestCase("android")]
        [TestCase("ios")]
        public void AnInstallRefusedForGoodIsLoggedOnceAndReportedWithItsRequiredFieldsOnly(string os)
        {
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key == "POST /v1/installs" && body["locale"] != null
                    ? Answer(422, "{\"error\":\"Unprocessable Entity\",\"detail\":\"body.device_model: no\"}")
                    : ScriptedBackend.Usual(key, body),
            };
            var device = new FixedDevice();
            device.Signals.Os = os;
            var setup = Setups.For("http://service.test", backend, device: device);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, "user-1");
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();

            Assert.AreEqual(1, ((ListLog)setup.Log).At(LogLevel.Error, "refused the install").Count);
            var installs = backend.Requests.Where(r => r.Key == "POST /v1/installs").Select(r => (JObject)r.Value).ToList();
            Assert.AreEqual(2, installs.Count);
            CollectionAssert.AreEquivalent(
                new[] { "service_id", "os", "sdk_platform", "sdk_version", "first_open_time", "sent_at" },
                installs[1].Properties().Select(p => p.Name));
            Assert.AreEqual(os, (string)installs[1]["os"]);
            Assert.AreEqual(0, core.Queued);
            Assert.AreEqual("LOGIN", (string)backend.Requests.Single(r => r.Key == "POST /v1/events").Value["events"][0]["event_type"]);
        }

        [Test]
        public void RemoteConfigurationIsReadAgainAtTheIntervalItNames()
        {
            var enabled = true;
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("GET /v1/config")
                    ? Answer(200, "{\"enabled\":" + (Volatile.Read(ref enabled) ? "true" : "false") + ",\"refresh_interval_seconds\":600}")
                    : ScriptedBackend.Usual(key, body),
            };
            var timers = new ManualTimers();
            var setup = Setups.For("http://service.test", backend, scheduler: timers);
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.AreEqual(TimeSpan.FromSeconds(600), core.RefreshInterval);
            CollectionAssert.Contains(timers.Delays, TimeSpan.FromSeconds(600));

            Volatile.Write(ref enabled, false);
            Assert.AreEqual(1, timers.Fire(TimeSpan.FromSeconds(600)));
            core.Idle().Wait();
            Assert.IsTrue(core.IsSdkDisabled, "switched off while the app runs");
            core.SendEvent(EventType.LOGIN, null, null);
            core.Idle().Wait();

            Volatile.Write(ref enabled, true);
            Assert.AreEqual(1, timers.Fire(TimeSpan.FromSeconds(600)), "read again while off");
            core.Idle().Wait();
            Assert.IsFalse(core.IsSdkDisabled, "switched on again");
            core.SendEvent(EventType.SHARE, null, null);
            core.Idle().Wait();

            Assert.AreEqual(3, backend.Requests.Count(r => r.Key.StartsWith("GET /v1/config")));
            var sent = backend.Requests.Where(r => r.Key == "POST /v1/events").SelectMany(r => r.Value["events"])
                .Select(e => (string)e["event_type"]).ToList();
            CollectionAssert.AreEqual(new[] { "SHARE" }, sent);
        }

        [TestCase("600", 600)]
        [TestCase("5000000", 86400)]
        [TestCase("9007199254740991", 86400)]
        [TestCase("100000000000000000000", 3600)]
        [TestCase("1e300", 3600)]
        [TestCase("0", 3600)]
        [TestCase("-60", 3600)]
        public void AnIntervalIsKeptWithinADayOrIsTheDefaultWhenTheContractRefusesItAndItsConfigurationTaken(string named, int seconds)
        {
            // 5,000,000 s is past a timer's 49.7 days, and 2^53 - 1, the contract's largest, past
            // a TimeSpan: a day. 1e20 (past a long), 1e300, 0 and -60 are no integer the contract
            // allows: the default, as when none is named (remote-config.json).
            var backend = new ScriptedBackend
            {
                Answer = (key, body) => key.StartsWith("GET /v1/config")
                    ? Answer(200, "{\"enabled\":false,\"refresh_interval_seconds\":" + named + "}")
                    : ScriptedBackend.Usual(key, body),
            };
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", backend, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.IsTrue(core.IsSdkDisabled, "the configuration it came with is taken");
            Assert.AreEqual(TimeSpan.FromSeconds(seconds), core.RefreshInterval);
            CollectionAssert.AreEqual(new[] { TimeSpan.FromSeconds(seconds) }, timers.Delays);
        }

        [Test]
        public void TheLongestIntervalIsOneTheTimerTakes()
        {
            Assert.DoesNotThrow(() => new ThreadPoolScheduler().After(SdkCore.MaxRefreshInterval, () => { }));
        }

        [Test]
        public void WithoutAnIntervalRemoteConfigurationIsReadAgainHourly()
        {
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual }, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            CollectionAssert.AreEqual(new[] { TimeSpan.FromHours(1) }, timers.Delays);
        }

        [Test]
        public void ARejectedKeyEndsTheReading()
        {
            var timers = new ManualTimers();
            var backend = new ScriptedBackend { Answer = (key, body) => Answer(401, "{\"error\":\"Unauthorized\",\"detail\":\"x\"}") };
            var core = new SdkCore(Setups.For("http://service.test", backend, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Assert.IsTrue(core.IsSdkDisabled);
            CollectionAssert.IsEmpty(timers.Delays);
        }

        [Test]
        public void OfflineTheReadingGoesOnAtTheLastInterval()
        {
            var offline = false;
            var backend = new ScriptedBackend
            {
                Answer = (key, body) =>
                {
                    if (Volatile.Read(ref offline)) throw new System.Net.Http.HttpRequestException("network unreachable");
                    return key.StartsWith("GET /v1/config")
                        ? Answer(200, "{\"enabled\":true,\"refresh_interval_seconds\":60}")
                        : ScriptedBackend.Usual(key, body);
                },
            };
            var timers = new ManualTimers();
            var core = new SdkCore(Setups.For("http://service.test", backend, scheduler: timers));
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            Volatile.Write(ref offline, true);
            Assert.AreEqual(1, timers.Fire(TimeSpan.FromSeconds(60)));
            core.Idle().Wait();
            Assert.IsFalse(core.IsSdkDisabled);
            CollectionAssert.Contains(timers.Delays, TimeSpan.FromSeconds(60));
        }
    }
}
