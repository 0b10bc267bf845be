// Quick start: starts the SDK with the app, from the first scene.
//
// Add this component to an object of the first scene, fill in the SDK key and the service's
// address in the Inspector, and list the link hosts of the app's links. It subscribes to the
// SDK's listeners before Configure (as they must be, to hear the first attribution and the
// deferred deep link), hands every link that opens the app to the SDK, and keeps itself across
// scenes. Route the deep links to your screens in OpenScreen; the rest is the SDK's.
using System;
using System.Collections.Generic;
using Service.Unity;
using UnityEngine;

namespace Service.Unity.Samples
{
    public sealed class ServiceAttributionStartup : MonoBehaviour
    {
        [Tooltip("The app's SDK key, from the dashboard's Keys page.")]
        [SerializeField]
        private string sdkKey = "";

        [Tooltip("Where the service runs, https://attribution.example.com.")]
        [SerializeField]
        private string baseUrl = "";

        [Tooltip("The hosts of the app's links (go.example.com): their links are read by HandleUniversalLink, any other by HandleDeepLink.")]
        [SerializeField]
        private string[] linkHosts = new string[0];

        [Tooltip("iOS: how long (1 to 360 seconds) the first install waits for the user's App Tracking Transparency answer; 0 does not wait.")]
        [Range(0, 360)]
        [SerializeField]
        private int waitForTrackingSeconds = 0;

        [Tooltip("The SDK's log level.")]
        [SerializeField]
        private LogLevel logLevel = LogLevel.Info;

        private static bool started;

        // With the Editor's domain reload off, statics outlive a play session while the SDK
        // starts each one afresh: the next Play configures it again.
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        private static void ForgetLastPlaySession()
        {
            started = false;
        }

        private void Awake()
        {
            // One SDK per process: a second copy of this object (the first scene loaded again)
            // goes away, as Configure would change nothing.
            if (started)
            {
                Destroy(gameObject);
                return;
            }
            started = true;
            DontDestroyOnLoad(gameObject);

            ServiceSDK.AttributionReceived += OnAttribution;
            ServiceSDK.DeepLinkReceived += OnDeepLink;
            ServiceSDK.ErrorOccurred += OnError;
            Application.deepLinkActivated += OnLinkOpened;

            if (waitForTrackingSeconds > 0) ServiceSDK.WaitForTrackingAuthorization(Math.Min(waitForTrackingSeconds, 360));
            ServiceSDK.BaseUrl = baseUrl;
            ServiceSDK.Configure(sdkKey, (int)logLevel);

            // The link the app was launched with, if one was: deepLinkActivated tells only of
            // those that come while it runs. LaunchUrl rather than Application.absoluteURL: after
            // a relaunch from Android's recent apps, it gives none, where absoluteURL holds again
            // the link that first opened the app.
            if (ServiceSDK.LaunchUrl != null) OnLinkOpened(ServiceSDK.LaunchUrl);
        }

        private void OnDestroy()
        {
            ServiceSDK.AttributionReceived -= OnAttribution;
            ServiceSDK.DeepLinkReceived -= OnDeepLink;
            ServiceSDK.ErrorOccurred -= OnError;
            Application.deepLinkActivated -= OnLinkOpened;
        }

        /// <summary>Each link to one of the two: a link of the app's link hosts, or any other (myapp://…).</summary>
        private void OnLinkOpened(string url)
        {
            // As the SDK reads them: trimmed, in lower case, a blank entry none.
            var hosts = new List<string>();
            foreach (var host in linkHosts)
            {
                if (!string.IsNullOrWhiteSpace(host)) hosts.Add(host.Trim().ToLowerInvariant());
            }
            Uri uri;
            var ofTheService = Uri.TryCreate(url, UriKind.Absolute, out uri)
                && hosts.Contains(uri.Host.ToLowerInvariant());
            if (ofTheService) ServiceSDK.HandleUniversalLink(url, hosts.ToArray());
            else ServiceSDK.HandleDeepLink(url);
        }

        private void OnAttribution(Dictionary<string, object> attribution)
        {
            object status;
            attribution.TryGetValue("service_match_status", out status);
            object source;
            attribution.TryGetValue("media_source", out source);
            Debug.Log("Attribution: " + status + ", media source " + (source ?? "none"));
        }

        private void OnDeepLink(ServiceDeepLink link)
        {
            // A direct link (one that opened the app) or the deferred one (the link that brought
            // the install, once): the same path and parameters either way.
            if (link.Path != null) OpenScreen(link.Path, link.Params);
        }

        private void OnError(ServiceError error)
        {
            switch (error.Kind)
            {
                case ServiceErrorKind.Configuration:
                    // Not always off: the install or a route the service refused (401, 403, 404)
                    // holds back what it names, the events kept queued. The message says which.
                    Debug.LogError("Attribution SDK configuration error " + error.Code + " (SDK key or address?): " + error.Message);
                    break;
                case ServiceErrorKind.EventsDropped:
                    // No reason: the queue kept on the device could not all be read back.
                    Debug.LogWarning("Attribution SDK: " + error.Count + " events dropped: " + (error.ReasonName ?? "damaged queue"));
                    break;
                default:
                    // ConversionValue (iOS): Apple refused a conversion value update; no event is lost.
                    Debug.LogWarning("Attribution SDK: conversion value refused: " + error.Message);
                    break;
            }
        }

        /// <summary>Where the app's own navigation goes: open the screen the link's path names.</summary>
        private void OpenScreen(string path, IReadOnlyDictionary<string, string> parameters)
        {
            Debug.Log("Deep link to " + path + " with " + parameters.Count + " parameters");
        }
    }
}
