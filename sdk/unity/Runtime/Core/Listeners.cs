using System;
using System.Collections.Generic;

namespace Service.Unity
{
    /// <summary>
    /// The app's three listeners (<see cref="ServiceSDK.AttributionReceived"/>,
    /// <see cref="ServiceSDK.DeepLinkReceived"/>, <see cref="ServiceSDK.ErrorOccurred"/>), each
    /// called through the platform's main thread (<see cref="IMainThread"/>): the Unity layer's
    /// behaviour runs them in its Update, tests drain them. A direct or deferred deep link that
    /// comes before any deep-link listener waits for the first one.
    /// </summary>
    internal sealed class SdkListeners
    {
        /// <summary>Direct deep links kept while no deep-link listener is set: the most recent, oldest dropped.</summary>
        internal const int MaxPendingDirectLinks = 10;

        private readonly object gate = new object();
        private Action<Dictionary<string, object>> attribution;
        private Action<ServiceDeepLink> deepLink;
        private Action<ServiceError> error;
        private readonly List<ServiceDeepLink> pendingLinks = new List<ServiceDeepLink>();
        private IMainThread mainThread;
        private ILog log;
        private SdkCore core;

        /// <summary>Where listeners run and where what they throw is logged.</summary>
        public void Use(IMainThread thread, ILog errors)
        {
            List<ServiceDeepLink> waiting = null;
            Action<ServiceDeepLink> handlers;
            lock (gate)
            {
                mainThread = thread;
                log = errors;
                handlers = deepLink;
                if (handlers != null && thread != null && pendingLinks.Count > 0)
                {
                    waiting = new List<ServiceDeepLink>(pendingLinks);
                    pendingLinks.Clear();
                }
            }
            if (waiting != null) foreach (var link in waiting) Post(handlers, link);
        }

        /// <summary>The app's handlers, the deep links waiting for one and the core, all forgotten.</summary>
        public void Clear()
        {
            lock (gate)
            {
                attribution = null;
                deepLink = null;
                error = null;
                pendingLinks.Clear();
                core = null;
            }
        }

        /// <summary>A new platform, a new SDK: deep links that waited for a listener are forgotten.</summary>
        public void ForgetPending()
        {
            lock (gate) pendingLinks.Clear();
        }

        /// <summary>The core a new attribution listener asks for the stored attribution.</summary>
        public void Attach(SdkCore owner)
        {
            lock (gate) core = owner;
        }

        public bool WantsAttribution
        {
            get { lock (gate) return attribution != null || deepLink != null; }
        }

        public void AddAttribution(Action<Dictionary<string, object>> handler)
        {
            if (handler == null) return;
            SdkCore owner;
            lock (gate)
            {
                owner = core;
                // No core yet: its Configure tells every handler there.
                if (owner == null)
                {
                    attribution += handler;
                    return;
                }
            }
            // The core adds it, in one step with what it keeps (AttributionListenerAdded).
            owner.AttributionListenerAdded(handler);
        }

        /// <summary>The core's side of <see cref="AddAttribution"/>.</summary>
        internal void AddAttributionHandler(Action<Dictionary<string, object>> handler)
        {
            lock (gate) attribution += handler;
        }

        /// <summary>The attribution listeners now; null when there is none.</summary>
        public Action<Dictionary<string, object>> AttributionHandlers
        {
            get { lock (gate) return attribution; }
        }

        public void RemoveAttribution(Action<Dictionary<string, object>> handler)
        {
            lock (gate) attribution -= handler;
        }

        public void AddDeepLink(Action<ServiceDeepLink> handler)
        {
            if (handler == null) return;
            List<ServiceDeepLink> waiting = null;
            SdkCore owner;
            lock (gate)
            {
                deepLink += handler;
                owner = core;
                if (mainThread != null && pendingLinks.Count > 0)
                {
                    waiting = new List<ServiceDeepLink>(pendingLinks);
                    pendingLinks.Clear();
                }
            }
            if (waiting != null) foreach (var link in waiting) Post(handler, link);
            // A deferred deep link comes with the attribution: read it if nobody has.
            if (owner != null) owner.DeepLinkListenerAdded();
        }

        public void RemoveDeepLink(Action<ServiceDeepLink> handler)
        {
            lock (gate) deepLink -= handler;
        }

        public void AddError(Action<ServiceError> handler)
        {
            if (handler == null) return;
            lock (gate) error += handler;
        }

        public void RemoveError(Action<ServiceError> handler)
        {
            lock (gate) error -= handler;
        }

        /// <summary>These attribution listeners, each with a copy of the map.</summary>
        public void RaiseAttributionTo(Action<Dictionary<string, object>> handlers, Dictionary<string, object> parameters)
        {
            foreach (Action<Dictionary<string, object>> handler in handlers.GetInvocationList())
            {
                Post(handler, new Dictionary<string, object>(parameters));
            }
        }

        /// <summary>To every deep-link listener; kept for the first one when there is none yet.</summary>
        public void RaiseDeepLink(ServiceDeepLink link)
        {
            Action<ServiceDeepLink> handlers;
            lock (gate)
            {
                handlers = deepLink;
                if (handlers == null || mainThread == null)
                {
                    // The most recent direct links, as every SDK keeps them (listeners.json's
                    // maxPendingDirectLinks): a link that cold-started the app is not lost to a
                    // second one tapped before the app listens, and memory stays bounded.
                    if (link.Kind == ServiceDeepLinkKind.Direct)
                    {
                        var direct = pendingLinks.FindAll(l => l.Kind == ServiceDeepLinkKind.Direct);
                        for (var i = 0; i <= direct.Count - MaxPendingDirectLinks; i++) pendingLinks.Remove(direct[i]);
                    }
                    pendingLinks.Add(link);
                    return;
                }
            }
            Post(handlers, link);
        }

        /// <summary>
        /// To every deep-link listener; false, and nothing kept, when there is none yet (or no
        /// main thread): the caller keeps the link until one is set. <paramref name="ran"/> runs
        /// on the main thread once the listeners' call returned (a listener that threw had the
        /// link too), never before: a process that ends with the call still posted has not
        /// delivered the link, so the caller marks it delivered only then.
        /// </summary>
        public bool TryRaiseDeepLink(ServiceDeepLink link, Action ran = null)
        {
            Action<ServiceDeepLink> handlers;
            lock (gate)
            {
                handlers = deepLink;
                if (handlers == null || mainThread == null) return false;
            }
            return Post(handlers, link, ran);
        }

        public void RaiseError(ServiceError problem)
        {
            Action<ServiceError> handlers;
            lock (gate) handlers = error;
            if (handlers != null) Post(handlers, problem);
        }

        /// <summary>
        /// Each handler on the main thread, one's exception logged and the next still called; then
        /// <paramref name="ran"/>, if given. False when there is no main thread to post to.
        /// </summary>
        private bool Post<T>(Action<T> handlers, T value, Action ran = null)
        {
            IMainThread thread;
            ILog errors;
            lock (gate)
            {
                thread = mainThread;
                errors = log;
            }
            if (thread == null) return false;
            thread.Post(() =>
            {
                foreach (Action<T> handler in handlers.GetInvocationList())
                {
                    try
                    {
                        handler(value);
                    }
                    catch (Exception failure)
                    {
                        if (errors != null) errors.Write(LogLevel.Error, "a ServiceSDK listener threw: " + failure);
                    }
                }
                if (ran != null) ran();
            });
            return true;
        }
    }
}
