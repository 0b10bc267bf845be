// The README's C# snippets, each line as the README has it, in a MonoBehaviour as an app writes
// one: with `using UnityEngine;`, whose EventType (IMGUI's) has the SDK's enum's name. test.sh
// compiles this file against the UnityEngine declarations (UnityStubs~), which declare that
// EventType too, so a snippet that would not compile in an app's script fails the run; the
// package checks (Tools~/check-package.mjs) find every line of the README's snippets here, in order.
using System.Collections.Generic;
using Service.Unity;
using UnityEngine;
// UnityEngine has an EventType of its own (IMGUI's): in a script that uses both namespaces,
// this line says which one EventType is, or the compiler stops at the ambiguity (CS0104).
using EventType = Service.Unity.EventType;

namespace ReadmeUsage
{
    /// <summary>The app's own navigation, which the snippets call.</summary>
    internal static class Router
    {
        public static void Open(string path) { }

        public static void Open(string path, IReadOnlyDictionary<string, string> parameters) { }
    }

    public sealed class Startup : MonoBehaviour
    {
        private void Use()
        {
            ServiceSDK.BaseUrl = "https://attribution.example.com"; // where the service runs
            ServiceSDK.Configure("<SDK key>");                        // once, at startup
            ServiceSDK.SendEvent(EventType.LEVEL_COMPLETE);           // the first event
        }

        private async void More()
        {
            ServiceSDK.SendEvent(EventType.PURCHASE, null, new Dictionary<string, object> {
                { "revenue", 9.99 }, { "currency", "EUR" },
            });
            ServiceSDK.SendEvent(EventType.CUSTOM, "boss_defeated");
            ServiceSDK.SetCustomerUserId("user-8812");

            ServiceSDK.GetAttributionParams(
                parameters => {
                    object path;
                    if (parameters.TryGetValue("deep_link_path", out path)) Router.Open((string)path);
                },
                error => Debug.LogWarning(error));

            Application.deepLinkActivated += url => {
                var link = ServiceSDK.HandleUniversalLink(url, new[] { "go.example.com" });
            };

            await ServiceSDK.DeleteUserData();
        }

        private void Listeners()
        {
            ServiceSDK.AttributionReceived += attribution =>           // once resolved, then at every start
                Debug.Log("attributed: " + attribution["service_match_status"]);
            ServiceSDK.DeepLinkReceived += link => {                    // direct taps and the deferred link
                if (link.Path != null) Router.Open(link.Path, link.Params);
            };
            ServiceSDK.ErrorOccurred += error => {
                if (error.Kind == ServiceErrorKind.Configuration)          // the message says what stopped
                    Debug.LogError("SDK key or address? " + error.Code + " " + error.Message);
                else if (error.Kind == ServiceErrorKind.EventsDropped)
                    Debug.LogWarning(error.Count + " events dropped: " + (error.ReasonName ?? "damaged queue"));
                else Debug.LogWarning("conversion value refused: " + error.Message);   // ConversionValue, iOS
            };
            // Any scheme (myapp://… and myapp:… too); a link of the service also through HandleUniversalLink, which
            // hands it to DeepLinkReceived as well: give each URL to one of the two.
            Application.deepLinkActivated += url => ServiceSDK.HandleDeepLink(url);
            // The link the app was opened with: Application.absoluteURL, but none when Android's recent apps
            // relaunched the app, whose intent carries again the link that first opened it.
            if (ServiceSDK.LaunchUrl != null) ServiceSDK.HandleDeepLink(ServiceSDK.LaunchUrl);

            ServiceSDK.SetConsent(new ServiceConsent(gdprApplies: true, adUserData: true, adPersonalization: false));
            ServiceSDK.SetAnonymous(true);         // no advertising id, IDFV or customer user id leaves the device
            ServiceSDK.Stop();                     // the user opted out: nothing is sent or queued, across launches
            ServiceSDK.Start();
            long dropped = ServiceSDK.GetDroppedEventCount();
        }

        private void WaitForTheAttAnswer()
        {
            ServiceSDK.WaitForTrackingAuthorization(60);               // iOS: the first install waits up to 60 s
            ServiceSDK.Configure("<SDK key>");
        }
    }
}
