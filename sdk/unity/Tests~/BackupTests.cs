using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// PlayerPrefs restored by a backup (Android's Auto Backup or device transfer, an iCloud or
    /// iTunes backup) to another install of the app: what the old install kept is forgotten, and
    /// the new one starts as a new install. An update, or a platform that gives no fingerprint,
    /// keeps everything.
    /// </summary>
    [TestFixture]
    public class BackupTests
    {
        private const string Restored = "this SDK's data came from a backup of another install of the app: it starts as a new install";
        private const string FirstPhone = "1700000000000";
        private const string NewPhone = "1800000000000";

        /// <summary>The first install: tracked, an event delivered, then anonymous and stopped.</summary>
        private static Rig InstalledAndStopped(string fingerprint)
        {
            var rig = new Rig(new MemoryStore(), fingerprint);
            rig.Configure();
            rig.Core.SetCustomerUserId("user-8812");
            rig.Send(0);
            rig.Settle();
            Assert.AreEqual(1, rig.Backend.To("POST /v1/installs").Count);
            rig.Core.SetAnonymous(true);
            rig.Core.Stop();
            return rig;
        }

        /// <summary>A new process on the same store, with this fingerprint, configured.</summary>
        private static void Relaunch(Rig rig, string fingerprint)
        {
            rig.InstallFingerprint = fingerprint;
            rig.Launch();
            rig.Configure();
        }

        [Test]
        public void DataRestoredToAnotherInstallIsForgottenAndTheInstallIsSentAgainAsANewOne()
        {
            var rig = InstalledAndStopped(FirstPhone);
            var firstId = rig.Core.ServiceId;

            Relaunch(rig, NewPhone);
            Assert.IsFalse(rig.Core.IsStopped, "the old install's stop is not this one's");
            Assert.IsFalse(rig.Core.IsAnonymous);
            Assert.AreEqual(1, rig.Log.At(LogLevel.Info, Restored).Count);
            rig.Send(1);
            rig.Settle();
            var installs = rig.Backend.To("POST /v1/installs");
            Assert.AreEqual(2, installs.Count, "the new install is sent");
            Assert.AreNotEqual(firstId, rig.Core.ServiceId);
            Assert.AreEqual(rig.Core.ServiceId, (string)installs[1].Value["service_id"]);
            Assert.IsNull((string)installs[1].Value["customer_user_id"], "the old install's user is not this one's");
            CollectionAssert.AreEqual(new[] { 0, 1 }, rig.AcceptedNow);

            // The new fingerprint is kept: the next launch of this install goes on with its data.
            var secondId = rig.Core.ServiceId;
            Relaunch(rig, NewPhone);
            rig.Settle();
            Assert.AreEqual(secondId, rig.Core.ServiceId);
            Assert.AreEqual(2, rig.Backend.To("POST /v1/installs").Count);
            Assert.IsEmpty(rig.Log.At(LogLevel.Info, Restored));
        }

        [Test]
        public void ARestoredDeletionDoesNotSilenceTheNewInstall()
        {
            var rig = new Rig(new MemoryStore(), FirstPhone);
            rig.Configure();
            rig.Settle();
            rig.Core.DeleteUserData().Wait();

            Relaunch(rig, NewPhone);
            rig.Send(0);
            rig.Settle();
            Assert.AreEqual(2, rig.Backend.To("POST /v1/installs").Count);
            CollectionAssert.AreEqual(new[] { 0 }, rig.AcceptedNow);
            Assert.AreEqual(2, rig.Backend.To("POST /v1/sessions").Count, "a session for the new install too");
        }

        [Test]
        public void WhatTheNewInstallDoesBeforeConfigureIsKept()
        {
            var rig = new Rig(new MemoryStore(), FirstPhone);
            rig.Configure();
            rig.Settle();

            // Restored; the user stops the SDK before the app configures it.
            rig.InstallFingerprint = NewPhone;
            rig.Launch();
            rig.Core.Stop();
            rig.Configure();
            Assert.IsTrue(rig.Core.IsStopped);
            Relaunch(rig, NewPhone);
            Assert.IsTrue(rig.Core.IsStopped, "the stop was kept for the next launch");
            Assert.AreEqual(1, rig.Backend.To("POST /v1/installs").Count, "stopped: no install yet");
        }

        [Test]
        public void AnUpdateOfTheAppKeepsEverything()
        {
            var rig = InstalledAndStopped(FirstPhone);
            var firstId = rig.Core.ServiceId;

            Relaunch(rig, FirstPhone);
            Assert.IsTrue(rig.Core.IsStopped);
            Assert.IsTrue(rig.Core.IsAnonymous);
            Assert.AreEqual(firstId, rig.Core.ServiceId);
            rig.Core.Start();
            rig.Settle();
            Assert.AreEqual(1, rig.Backend.To("POST /v1/installs").Count, "no second install");
            Assert.IsEmpty(rig.Log.At(LogLevel.Info, Restored));
        }

        [Test]
        public void WithoutAFingerprintNothingIsForgottenNorKept()
        {
            var rig = InstalledAndStopped(FirstPhone);
            var firstId = rig.Core.ServiceId;

            // The platform cannot say (the Editor, a read that failed): no check.
            Relaunch(rig, null);
            Assert.IsTrue(rig.Core.IsStopped);
            Assert.AreEqual(firstId, rig.Core.ServiceId);
            Assert.AreEqual(FirstPhone, rig.Store.Get(SdkCore.InstallFingerprintKey), "the kept one stays");

            // The next launch that can say compares with the one kept before.
            Relaunch(rig, FirstPhone);
            Assert.IsTrue(rig.Core.IsStopped);
            Assert.AreEqual(firstId, rig.Core.ServiceId);
            Assert.IsEmpty(rig.Log.At(LogLevel.Info, Restored));
        }

        [Test]
        public void DataKeptWithoutAFingerprintIsKeptWhenTheFirstOneComes()
        {
            // An install made before the SDK kept one, or on a launch that could not read it.
            var rig = InstalledAndStopped(null);
            var firstId = rig.Core.ServiceId;
            Assert.IsNull(rig.Store.Get(SdkCore.InstallFingerprintKey));

            Relaunch(rig, FirstPhone);
            Assert.IsTrue(rig.Core.IsStopped);
            Assert.AreEqual(firstId, rig.Core.ServiceId);
            Assert.IsEmpty(rig.Log.At(LogLevel.Info, Restored));
            Assert.AreEqual(FirstPhone, rig.Store.Get(SdkCore.InstallFingerprintKey));

            // From now on another one is another install.
            Relaunch(rig, NewPhone);
            Assert.IsFalse(rig.Core.IsStopped);
            Assert.AreNotEqual(firstId, rig.Core.ServiceId);
        }

        [Test]
        public void InPlayerPrefsTheRestoredKeysAreGoneAtTheNextSave()
        {
            // The first install, in PlayerPrefs on the disk as a backup takes them.
            var prefs = new StoredStateTests.Prefs();
            var main = new QueuedMainThread();
            var backend = new ScriptedBackend { Answer = ScriptedBackend.Usual };
            var first = Launch(prefs, main, backend, FirstPhone);
            first.Core.Stop();
            first.Store.SaveOnMainThread();
            var firstId = prefs.OnDisk("service_sdk.service_id");
            Assert.IsNotNull(firstId);
            Assert.AreEqual("true", prefs.OnDisk("service_sdk.stopped"));
            Assert.AreEqual(FirstPhone, prefs.OnDisk(SdkCore.InstallFingerprintKey));

            // Restored to a new phone: the store loads them, the core forgets them.
            var restored = Launch(prefs, main, backend, NewPhone);
            Assert.IsFalse(restored.Core.IsStopped);
            restored.Store.SaveOnMainThread();
            Assert.IsNull(prefs.OnDisk("service_sdk.stopped"));
            Assert.AreNotEqual(firstId, prefs.OnDisk("service_sdk.service_id"));
            Assert.AreEqual(NewPhone, prefs.OnDisk(SdkCore.InstallFingerprintKey));
        }

        private sealed class Launched
        {
            public MainThreadStore Store;
            public SdkCore Core;
        }

        /// <summary>A process as the Unity layer makes it: PlayerPrefs loaded with the core's keys.</summary>
        private static Launched Launch(StoredStateTests.Prefs prefs, QueuedMainThread main, ScriptedBackend backend, string fingerprint)
        {
            var store = new MainThreadStore(prefs, main, SdkCore.StoreKeys);
            var setup = Setups.For("http://service.test", backend, store, scheduler: new ManualTimers(), mainThread: main);
            setup.InstallFingerprint = fingerprint;
            var core = new SdkCore(setup);
            core.Configure("sdk_key", 1, null);
            core.Idle().Wait();
            return new Launched { Store = store, Core = core };
        }
    }
}
