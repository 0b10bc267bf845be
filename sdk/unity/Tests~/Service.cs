using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Threading;
using Newtonsoft.Json.Linq;

namespace Service.Unity.Tests
{
    /// <summary>
    /// The real embedded service that test.sh started (SERVICE_URL, SERVICE_DATA_DIR): its CLI for
    /// apps and links, its export, its link host and its server-to-server API.
    /// </summary>
    internal sealed class TestApp
    {
        public string AppId;
        public string SdkKey;
        public string ServerKey;
    }

    internal static class Service
    {
        private static readonly HttpClient Http = new HttpClient(new HttpClientHandler { AllowAutoRedirect = false });
        private static int apps;

        public static string Url
        {
            get { return Require("SERVICE_URL"); }
        }

        private static string Require(string name)
        {
            var value = Environment.GetEnvironmentVariable(name);
            if (string.IsNullOrEmpty(value)) throw new InvalidOperationException(name + " is not set: run sdk/unity/test.sh");
            return value;
        }

        /// <summary>`attribution …` against the service's data folder; its standard output.</summary>
        public static string Cli(params string[] args)
        {
            return Node(Path.Combine(Repo.Root, "bin", "attribution.js"),
                args.Concat(new[] { "--data-dir", Require("SERVICE_DATA_DIR") }).ToArray());
        }

        /// <summary>
        /// The parameters the service stored in its lake for an event ("stored"), and the same with
        /// every sealed value opened with the app's keys ("opened"): sdk/stored-parameters.mjs.
        /// </summary>
        public static JObject StoredParameters(string appId, string eventId)
        {
            return JObject.Parse(Node(Path.Combine(Repo.Root, "sdk", "stored-parameters.mjs"),
                Require("SERVICE_DATA_DIR"), appId, eventId));
        }

        private static string Node(string script, params string[] args)
        {
            var start = new ProcessStartInfo("node")
            {
                Arguments = string.Join(" ", new[] { script }.Concat(args)
                    .Select(arg => "\"" + arg.Replace("\"", "\\\"") + "\"")),
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            using (var process = Process.Start(start))
            {
                var output = process.StandardOutput.ReadToEnd();
                var errors = process.StandardError.ReadToEnd();
                process.WaitForExit();
                if (process.ExitCode != 0) throw new InvalidOperationException(Path.GetFileName(script) + " " + string.Join(" ", args) + ": " + errors);
                return output;
            }
        }

        /// <summary>A fresh app, Android unless named, with its SDK key and server key.</summary>
        public static TestApp NewApp(string platform = "android")
        {
            // A Google Play package name (each part begins with a letter): an Android app's taps
            // go to its Play page only when its id can be one.
            var appId = "com.example.unity" + Interlocked.Increment(ref apps) + ".t" + Guid.NewGuid().ToString("N").Substring(0, 6);
            var created = JObject.Parse(Cli("apps", "create", "--app-id", appId, "--name", "Unity Test", "--platform", platform, "--json"));
            var keys = (JArray)created["keys"];
            return new TestApp
            {
                AppId = appId,
                SdkKey = (string)keys.First(k => (string)k["kind"] == "sdk")["key"],
                ServerKey = (string)keys.First(k => (string)k["kind"] == "server")["key"],
            };
        }

        /// <summary>
        /// The export from `since`, each poll a second further back: the service keeps one
        /// snapshot per window for a while, so the same window would show the same rows.
        /// </summary>
        public static JArray Export(string serverKey, int attempt)
        {
            var since = DateTimeOffset.UtcNow.ToUnixTimeSeconds() - 3600 - attempt;
            var request = new HttpRequestMessage(HttpMethod.Get, Url + "/api/v1/export?timestamp=" + since + "&format=json");
            request.Headers.TryAddWithoutValidation("Authorization", serverKey);
            var answer = Http.SendAsync(request).Result;
            var text = answer.Content.ReadAsStringAsync().Result;
            if (!answer.IsSuccessStatusCode) throw new InvalidOperationException("export: " + text);
            return (JArray)JObject.Parse(text)["data"];
        }

        /// <summary>
        /// Polls the export until `done` holds (or <see cref="Patience.Bound"/> passes: a loaded
        /// machine's service takes its time to flush); the last rows seen.
        /// </summary>
        public static JArray ExportUntil(string serverKey, Func<JArray, bool> done)
        {
            var deadline = DateTime.UtcNow + Patience.Bound;
            for (var attempt = 0; ; attempt++)
            {
                var rows = Export(serverKey, attempt);
                if (done(rows) || DateTime.UtcNow > deadline) return rows;
                Thread.Sleep(200);
            }
        }

        /// <summary>A link of the app, made with the CLI; its URL on the link host.</summary>
        public static string NewLink(string appId, string deepLinkPath)
        {
            var link = JObject.Parse(Cli("links", "create", "--app-id", appId, "--media-source", "facebook_ads",
                "--campaign-name", "Winter", "--deep-link-path", deepLinkPath, "--param", "promo=WINTER", "--json"));
            return (string)link["url"];
        }

        /// <summary>A tap on the link in an Android phone's browser: the Play referrer it hands on.</summary>
        public static string Tap(string linkUrl)
        {
            var request = new HttpRequestMessage(HttpMethod.Get, linkUrl);
            request.Headers.TryAddWithoutValidation(
                "User-Agent",
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36");
            var answer = Http.SendAsync(request).Result;
            var location = answer.Headers.Location;
            if ((int)answer.StatusCode != 302 || location == null) throw new InvalidOperationException("the tap answered " + answer.StatusCode);
            var query = location.Query.TrimStart('?').Split('&').Select(p => p.Split(new[] { '=' }, 2))
                .FirstOrDefault(p => p[0] == "referrer");
            return query == null ? null : Uri.UnescapeDataString(query[1]);
        }

        /// <summary>An event from the app's own server, naming the user by customer_user_id.</summary>
        public static void ServerEvent(string serverKey, string customerUserId, string eventType)
        {
            var body = new JObject
            {
                {
                    "events", new JArray(new JObject
                    {
                        { "event_id", Guid.NewGuid().ToString("N") },
                        { "event_type", eventType },
                        { "event_time", DateTime.UtcNow.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'") },
                        { "customer_user_id", customerUserId },
                    })
                },
            };
            var request = new HttpRequestMessage(HttpMethod.Post, Url + "/v1/s2s/events")
            {
                Content = new StringContent(body.ToString(), Encoding.UTF8, "application/json"),
            };
            request.Headers.TryAddWithoutValidation("Authorization", serverKey);
            var answer = Http.SendAsync(request).Result;
            if (!answer.IsSuccessStatusCode) throw new InvalidOperationException("s2s events: " + answer.Content.ReadAsStringAsync().Result);
        }
    }
}
