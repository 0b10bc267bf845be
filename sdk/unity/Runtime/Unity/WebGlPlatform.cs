#if UNITY_WEBGL && !UNITY_EDITOR
using System;
using System.Collections.Generic;
using System.Text;
using System.Threading.Tasks;
using UnityEngine;
using UnityEngine.Networking;

namespace Service.Unity
{
    /// <summary>
    /// A WebGL build has no sockets and no threads: requests go through UnityWebRequest (the
    /// browser's fetch) and every piece of the SDK's work runs on the main thread, continuing
    /// when an answer or a delay comes back, which the behaviour's Update hands on.
    /// </summary>
    internal sealed class UnityWebRequestTransport : IHttpTransport
    {
        public Task<HttpAnswer> Send(string method, string url, string authorization, string jsonBody)
        {
            var request = new UnityWebRequest(url, method)
            {
                downloadHandler = new DownloadHandlerBuffer(),
                // A long poll for attribution waits up to 20 s on the service's side.
                timeout = 30,
            };
            request.SetRequestHeader("Authorization", authorization);
            if (jsonBody != null)
            {
                request.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(jsonBody));
                request.SetRequestHeader("Content-Type", "application/json");
            }
            var answer = new TaskCompletionSource<HttpAnswer>();
            request.SendWebRequest().completed += _ =>
            {
                using (request)
                {
                    if (request.result == UnityWebRequest.Result.ConnectionError)
                    {
                        answer.SetException(new InvalidOperationException(request.error));
                        return;
                    }
                    answer.SetResult(new HttpAnswer((int)request.responseCode, request.downloadHandler.text, request.GetResponseHeader("Retry-After")));
                }
            };
            return answer.Task;
        }
    }

    /// <summary>Work runs where it starts, the main thread; a delay ends in a later frame.</summary>
    internal sealed class MainThreadScheduler : IScheduler
    {
        private readonly List<KeyValuePair<float, Action>> due = new List<KeyValuePair<float, Action>>();

        public Task Start(Func<Task> work)
        {
            return work();
        }

        public void After(TimeSpan delay, Action action)
        {
            due.Add(new KeyValuePair<float, Action>(Time.realtimeSinceStartup + (float)delay.TotalSeconds, action));
        }

        /// <summary>Runs what is due; the behaviour calls it every frame.</summary>
        public void Tick()
        {
            var now = Time.realtimeSinceStartup;
            var ready = due.FindAll(entry => entry.Key <= now);
            due.RemoveAll(entry => entry.Key <= now);
            foreach (var entry in ready) entry.Value();
        }
    }
}
#endif
