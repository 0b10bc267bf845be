using System;
using System.Linq;
using System.Threading;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// AdAttributionKit re-engagement opens (iOS 18), with a recording port in the iOS plugin's
    /// place: a URL whose query names `AdAttributionKitReengagementOpen` makes one update for the
    /// re-engagement (the plugin's ServiceSdkReengageConversion), as the iOS SDK does: at once
    /// once a configuration is applied, at Configure's first configuration when handed before;
    /// once for the same URL handed twice; never while stopped, switched off or deleted; again
    /// for the same URL after it was dropped untold, not after Apple refused it.
    /// </summary>
    [TestFixture]
    public class ReengagementTests
    {
        private const string Open = "https://app.example.com/offer/7?AdAttributionKitReengagementOpen=tag-1";
        private const string Later = "https://app.example.com/offer/7?AdAttributionKitReengagementOpen=tag-2";

        /// <summary>A rig whose configuration switches the SDK on or off, with no schema.</summary>
        private static ConversionRig NewRig(bool enabled = true, IKeyValueStore store = null)
        {
            var config = JObject.Parse("{\"enabled\":" + (enabled ? "true" : "false") + ",\"skadnetwork\":null}");
            return new ConversionRig(config, store);
        }

        [Test]
        public void TheParameterIsAdAttributionKitsReengagementOpenUrlParameter()
        {
            Assert.AreEqual("AdAttributionKitReengagementOpen", SdkCore.ReengagementOpenParameter);
            Assert.IsTrue(SdkCore.IsReengagementOpen(Open));
            // Whatever the scheme, the host and the other parameters; with no value too.
            Assert.IsTrue(SdkCore.IsReengagementOpen("myapp://open?a=1&AdAttributionKitReengagementOpen"));
            Assert.IsTrue(SdkCore.IsReengagementOpen("https://app.example.com/?x=%20&AdAttributionKitReengagementOpen=t#top"));
        }

        [Test]
        public void AReengagementOpenBeforeConfigureIsRegisteredOnceAtConfigure()
        {
            var rig = NewRig();
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(0, rig.Apple.Reengagements, "no configuration applied yet");
            rig.Start();
            Assert.AreEqual(1, rig.Apple.Reengagements);
            // The install's first launch is registered apart, and the open evaluates nothing.
            Assert.AreEqual(1, rig.Apple.Registrations);
            CollectionAssert.IsEmpty(rig.Apple.Calls);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Info, "an AdAttributionKit re-engagement opened the app").Count);
            rig.Core.NoteReengagementOpen(Open);
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Apple.Reengagements, "told already");
        }

        [Test]
        public void AReengagementOpenAfterConfigureIsRegisteredOnce()
        {
            var rig = NewRig();
            rig.Start();
            Assert.AreEqual(0, rig.Apple.Reengagements);
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(1, rig.Apple.Reengagements);
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Apple.Reengagements);
            CollectionAssert.IsEmpty(rig.Apple.Calls);
        }

        [Test]
        public void AnOpenWhileTheFirstConfigurationIsOnItsWayIsRegisteredOnceItIsApplied()
        {
            var rig = NewRig();
            rig.ConfigAnswers.Reset();
            rig.Core.Configure("sdk_key", 0, null);
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(0, rig.Apple.Reengagements);
            rig.ConfigAnswers.Set();
            rig.Core.Idle().Wait();
            Assert.AreEqual(1, rig.Apple.Reengagements);
        }

        [Test]
        public void TheSameReengagementUrlHandedTwiceIsRegisteredOnce()
        {
            var early = NewRig();
            early.Core.NoteReengagementOpen(Open);
            early.Core.NoteReengagementOpen(Open);
            early.Start();
            early.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(1, early.Apple.Reengagements);

            var rig = NewRig();
            rig.Start();
            rig.Core.NoteReengagementOpen(Open);
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(1, rig.Apple.Reengagements);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Debug, "this re-engagement open was told already").Count);
        }

        [Test]
        public void ADifferentLaterReengagementUrlIsRegisteredAgain()
        {
            var rig = NewRig();
            rig.Start();
            rig.Core.NoteReengagementOpen(Open);
            rig.Core.NoteReengagementOpen(Later);
            Assert.AreEqual(2, rig.Apple.Reengagements);
            // The first one back again is another open.
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(3, rig.Apple.Reengagements);
        }

        [Test]
        public void AUrlWithoutTheReengagementParameterRegistersNothing()
        {
            var rig = NewRig();
            rig.Core.NoteReengagementOpen("https://app.example.com/offer/7?campaign=spring");
            rig.Start();
            foreach (var url in new[]
            {
                "https://app.example.com/offer/7?campaign=spring",
                "https://app.example.com/AdAttributionKitReengagementOpen",
                "https://app.example.com/offer/7#AdAttributionKitReengagementOpen=tag-1",
                "https://app.example.com/offer/7?AdAttributionKitReengagementOpenX=tag-1",
                "https://app.example.com/offer/7?tag=AdAttributionKitReengagementOpen",
                "myapp://open?deep_link_path=%2Fshop",
                "not a url",
                "",
                null,
            })
            {
                rig.Core.NoteReengagementOpen(url);
            }
            rig.Core.Idle().Wait();
            Assert.AreEqual(0, rig.Apple.Reengagements);
        }

        [Test]
        public void AStoppedSdkRegistersNoReengagement()
        {
            // Stopped before the open, before Configure.
            var store = new MemoryStore();
            var before = NewRig(store: store);
            before.Core.Stop();
            before.Core.NoteReengagementOpen(Open);
            before.Start();
            Assert.AreEqual(0, before.Apple.Reengagements);

            // Stopped in an earlier launch.
            var next = NewRig(store: store);
            next.Core.NoteReengagementOpen(Open);
            next.Start();
            next.Core.NoteReengagementOpen(Later);
            Assert.AreEqual(0, next.Apple.Reengagements);

            // Opened before Configure, stopped before the configuration came.
            var waiting = NewRig();
            waiting.Core.NoteReengagementOpen(Open);
            waiting.Core.Stop();
            waiting.Start();
            Assert.AreEqual(0, waiting.Apple.Reengagements);

            // Stopped after Configure.
            var running = NewRig();
            running.Start();
            running.Core.Stop();
            running.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(0, running.Apple.Reengagements);
            Assert.AreEqual(1, running.Log.At(LogLevel.Debug, "the SDK is stopped: the AdAttributionKit re-engagement open is not told").Count);
        }

        [Test]
        public void AReengagementOpenDroppedByStopIsRegisteredWhenHandedAgainAfterStart()
        {
            var rig = NewRig();
            rig.Core.NoteReengagementOpen(Open);
            rig.Core.Stop();
            rig.Start();
            rig.Core.Start();
            rig.Core.Idle().Wait();
            Assert.AreEqual(0, rig.Apple.Reengagements, "an open dropped untold is not told later on its own");
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(1, rig.Apple.Reengagements);
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(1, rig.Apple.Reengagements, "told already");
        }

        [Test]
        public void AnOpenDroppedByAConfigurationThatSwitchesTheSdkOffIsRegisteredWhenHandedAgainOnceOn()
        {
            var config = JObject.Parse("{\"enabled\":false,\"skadnetwork\":null}");
            var rig = new ConversionRig(config);
            rig.Core.NoteReengagementOpen(Open);
            rig.Start();
            Assert.AreEqual(0, rig.Apple.Reengagements, "switched off");

            config["enabled"] = true;
            rig.Core.Stop();
            rig.Core.Start();
            rig.Core.Idle().Wait();
            Assert.IsFalse(rig.Core.IsSdkDisabled);
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(1, rig.Apple.Reengagements, "dropped untold, so told now");
        }

        [Test]
        public void ASwitchedOffOrDeletedSdkRegistersNoReengagement()
        {
            var off = NewRig(enabled: false);
            off.Core.NoteReengagementOpen(Open);
            off.Start();
            off.Core.NoteReengagementOpen(Later);
            Assert.AreEqual(0, off.Apple.Reengagements);

            var store = new MemoryStore();
            store.Set("service_sdk.deleted", "true");
            var deleted = NewRig(store: store);
            deleted.Core.NoteReengagementOpen(Open);
            deleted.Start();
            deleted.Core.NoteReengagementOpen(Later);
            Assert.AreEqual(0, deleted.Apple.Reengagements);
        }

        [Test]
        public void AnonymousModeAndConsentDoNotHoldTheReengagementBack()
        {
            // As in the iOS SDK: the update carries nothing of the user, and goes to Apple alone.
            var rig = NewRig();
            rig.Core.SetAnonymous(true);
            rig.Core.SetConsent(new ServiceConsent(gdprApplies: true, adUserData: false, adPersonalization: false));
            rig.Core.NoteReengagementOpen(Open);
            rig.Start();
            Assert.AreEqual(1, rig.Apple.Reengagements);
        }

        [Test]
        public void ARefusedReengagementGoesToTheErrorListenerAndTheSameUrlIsNotRegisteredAgain()
        {
            var rig = NewRig();
            rig.Start();
            rig.Apple.ReengagementRefusal = "AdAttributionKit: the operation couldn't be completed";
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(1, rig.Apple.Reengagements);
            var refused = rig.Heard.Errors.Where(e => e.Kind == ServiceErrorKind.ConversionValue).ToList();
            Assert.AreEqual(1, refused.Count);
            Assert.IsTrue(refused[0].Message.Contains("AdAttributionKit"));
            Assert.AreEqual(1, rig.Log.At(LogLevel.Warn, "conversion value update was refused").Count);

            // Apple was told, and said no: the same URL handed again is not told again, as in
            // the iOS SDK; another re-engagement is.
            rig.Apple.ReengagementRefusal = null;
            rig.Core.NoteReengagementOpen(Open);
            Assert.AreEqual(1, rig.Apple.Reengagements);
            rig.Core.NoteReengagementOpen(Open + "&another=1");
            Assert.AreEqual(2, rig.Apple.Reengagements);
        }

        [Test]
        public void HandleDeepLinkAndHandleUniversalLinkOfAnyHostRegisterTheOpenOnce()
        {
            var apple = new RecordingConversionValues();
            var setup = Setups.For("http://service.test", new ScriptedBackend { Answer = ScriptedBackend.Usual });
            setup.ConversionValues = apple;
            try
            {
                // No platform yet: the link is parsed and nothing else happens.
                ServiceSDK.UsePlatform(null);
                Assert.IsNotNull(ServiceSDK.HandleDeepLink(Open));

                ServiceSDK.UsePlatform(setup);
                // The cold start's URL before Configure, handed to both; a host not allowed still counts.
                Assert.IsNull(ServiceSDK.HandleUniversalLink(Open, new[] { "go.example.com" }));
                Assert.IsNotNull(ServiceSDK.HandleDeepLink(Open));
                ServiceSDK.Configure("sdk_key");
                ServiceSDK.Core.Idle().Wait();
                Assert.AreEqual(1, apple.Reengagements);
                // The same URL from deepLinkActivated once running: told already.
                ServiceSDK.HandleDeepLink(Open);
                Assert.AreEqual(1, apple.Reengagements);
                ServiceSDK.HandleUniversalLink(Later);
                Assert.AreEqual(2, apple.Reengagements);
                ServiceSDK.HandleDeepLink("myapp://open?deep_link_path=%2Fshop");
                Assert.AreEqual(2, apple.Reengagements);
            }
            finally
            {
                ServiceSDK.UsePlatform(null);
            }
        }
    }
}
