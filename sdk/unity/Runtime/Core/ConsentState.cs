using System;
using System.Threading.Tasks;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Service.Unity
{
    /// <summary>
    /// The user's consent: what the app set (kept across launches), the consent platform's TCF
    /// values, the body the service gets, what was last sent, and the consent route that sends
    /// it again whenever it differs; with it the device's tracking the service was last told of,
    /// which the route sends too, as it now stands, whenever it differs.
    /// </summary>
    internal sealed class ConsentState
    {
        public const string Key = "service_sdk.consent";
        public const string SentKey = "service_sdk.consent_sent";
        /// <summary>The device's tracking (`maid`, `att_status`) the install or the last consent update told the service.</summary>
        public const string TrackingSentKey = "service_sdk.tracking_sent";
        private readonly IKeyValueStore store;
        private readonly ITcfSource tcfSource;
        private readonly IClock clock;
        private readonly SdkListeners listeners;
        private readonly Action<LogLevel, string> write;
        private readonly Action installMissing;
        private readonly object tcfGate = new object();
        private TcfValues tcf;
        /// <summary>The unreadable consent kept on the device that was last logged: one error for each.</summary>
        private string unreadable;
        private readonly object unreadableGate = new object();
        /// <summary>The TCF string too long to send that was last warned of: one warning for each.</summary>
        private string warnedTcString;
        // Set once the consent route refused the update with 401, 403 or 404: not sent again in
        // this process, and no event waits on it.
        private bool held;

        /// <param name="write">The core's log, at the level the app set.</param>
        /// <param name="installMissing">The service has no install of this id: the core sends it again.</param>
        public ConsentState(
            IKeyValueStore store, ITcfSource tcfSource, IClock clock, SdkListeners listeners, Action<LogLevel, string> write, Action installMissing)
        {
            this.store = store;
            this.tcfSource = tcfSource;
            this.clock = clock;
            this.listeners = listeners;
            this.write = write;
            this.installMissing = installMissing;
        }

        /// <summary>
        /// The consent set with SetConsent (null when none). One kept on the device that cannot be
        /// read (a damaged value) counts as none, with an error in the log once: read on every
        /// request that may carry it, it would otherwise fail each of them, the install first, for ever.
        /// </summary>
        public ServiceConsent App
        {
            get
            {
                var kept = store.Get(Key);
                try
                {
                    return ServiceConsent.FromJson(kept);
                }
                catch (FormatException error)
                {
                    lock (unreadableGate)
                    {
                        if (kept == unreadable) return null;
                        unreadable = kept;
                    }
                    write(LogLevel.Error, "the consent kept on the device cannot be read, so none is sent until ServiceSDK.SetConsent sets one: " + error.Message);
                    return null;
                }
            }
        }

        public void Set(ServiceConsent consent)
        {
            if (consent == null) store.Remove(Key);
            else store.Set(Key, consent.ToJson().ToString(Formatting.None));
        }

        /// <summary>
        /// The consent platform's values, read again before each request that may carry them (off
        /// the main thread): a user who answers the consent platform while the app runs is heard
        /// at the next send. Unreadable, the last values read stand.
        /// </summary>
        private void ReadTcf()
        {
            if (tcfSource == null) return;
            TcfValues read;
            try
            {
                read = tcfSource.Read();
            }
            catch (Exception error)
            {
                write(LogLevel.Warn, "the consent platform's TCF values were not read: " + error.Message);
                return;
            }
            lock (tcfGate)
            {
                tcf = read;
                if (!Requests.TcStringTooLong(read) || read.TcString == warnedTcString) return;
                warnedTcString = read.TcString;
            }
            write(LogLevel.Warn, "the consent platform's TCF string is " + read.TcString.Length + " characters, more than the "
                + Fields.MaxTcfStringLength + " the service takes: it is left out of the consent sent");
        }

        /// <summary>The consent object the service gets now: the app's and the TCF values, read now.</summary>
        public JObject Current()
        {
            ReadTcf();
            TcfValues values;
            lock (tcfGate) values = tcf;
            return Requests.Consent(App, values);
        }

        /// <summary>The consent and the device's tracking went with the install.</summary>
        public void SentWithInstall(JObject consent, JObject tracking)
        {
            store.Set(SentKey, Text(consent));
            store.Set(TrackingSentKey, Text(tracking));
        }

        /// <summary>
        /// The install went with its required fields only: no consent, which the consent route
        /// sends next, and no tracking, which it sends if the device has any.
        /// </summary>
        public void NoneSent()
        {
            store.Remove(SentKey);
            store.Set(TrackingSentKey, Text(Requests.Tracking(new DeviceSignals(), false)));
        }

        /// <summary>
        /// POST /v1/installs/{service_id}/consent when the consent now (the app's and the TCF
        /// values) differs from what was last sent, or the device's tracking now
        /// (<paramref name="tracking"/>, <see cref="Requests.Tracking"/>) from what the install or
        /// the last update told: each update carries both as they now stand. A tracking never
        /// kept (the app stopped between recording the install and keeping what it sent) counts
        /// as changed, so one update tells it; one not known now (null: the device could not say) is neither compared nor sent. A
        /// refusal of the route itself (401, 403, 404: a service without it, or a key it no longer
        /// takes) is reported once and holds back no event, which meets its own answer. A 409 (the
        /// service has no install of this id) sends the install again at the core's retry,
        /// holding the consent and the tracking now, before what waits.
        /// </summary>
        public async Task SendIfChanged(ApiClient api, string serviceId, JObject tracking)
        {
            if (held) return;
            var consent = Current();
            var text = Text(consent);
            var trackingText = tracking == null ? null : Text(tracking);
            var trackingChanged = tracking != null && trackingText != store.Get(TrackingSentKey);
            if (text == (store.Get(SentKey) ?? Text(null)) && !trackingChanged) return;
            try
            {
                await api.Send("POST", "/v1/installs/" + Uri.EscapeDataString(serviceId) + "/consent",
                    Requests.ConsentUpdate(consent, tracking, clock.UtcNow), ApiClient.AnObject);
                store.Set(SentKey, text);
                if (tracking != null) store.Set(TrackingSentKey, trackingText);
                write(LogLevel.Debug, "consent sent: " + text + (trackingChanged ? ", with the device's tracking changed since the service was last told" : ""));
            }
            catch (ServiceHttpException error) when (error.Code == 409)
            {
                // The service holds no install of this id (never recorded, or lost): as its answer
                // asks, the install is sent again, and it carries the consent; sent again as it is,
                // the update would meet the same 409 for ever, the events held behind it.
                write(LogLevel.Warn, "the consent update: the service has no install " + serviceId + ": the install is sent again");
                installMissing();
                throw new InvalidOperationException("the install is sent again before the consent: " + error.Message);
            }
            catch (ServiceHttpException error) when (error.IsConfiguration)
            {
                Refused(error.Code);
            }
            catch (ServiceHttpException error) when (error.IsRefusedForGood)
            {
                // Sent again as it is it would be refused again: kept as sent, the next change goes.
                write(LogLevel.Error, "the service refused the consent update for good: " + error.Message);
                store.Set(SentKey, text);
                if (tracking != null) store.Set(TrackingSentKey, trackingText);
            }
        }

        private static string Text(JObject consent)
        {
            return consent == null ? "null" : consent.ToString(Formatting.None);
        }

        private void Refused(int code)
        {
            held = true;
            var message = "the service refused the consent update with " + code
                + ": it is sent again when the app starts again; events go on";
            write(LogLevel.Error, message);
            listeners.RaiseError(new ServiceError(ServiceErrorKind.Configuration, null, code, 1, message));
        }
    }
}
