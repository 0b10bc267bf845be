/**
 * The click benchmark's breakdown of the link host's latency: the link host's own recorder
 * (`createClickRecorder`, what decides a tap's answer and makes its click) behind a plain
 * `node:http` server, with the link and its app in memory, as the PostgreSQL reference keeps its
 * link, and nothing else in the process. With `RECORDER_KEEP=log` each click goes to the real
 * click log in `RECORDER_LOG_DIR`, synced before the answer as the link host's is (and applied
 * to nothing: the touch store and the lake are the service's); with `RECORDER_KEEP=none` it is
 * kept nowhere. Between them and the service, what the sync costs and what the rest of the
 * service in the same process costs. Countries are not looked up.
 */
import { createServer } from "node:http";
import { createLocalClickLog } from "../src/adapters/local-click-log/click-log.ts";
import { testLink } from "../src/links/link.test-support.ts";
import type { App } from "../src/ports/apps.ts";
import { createClickRecorder } from "../src/touches/clicks.ts";
import { serve } from "./serve.mjs";

const keep = process.env.RECORDER_KEEP;
if (keep !== "log" && keep !== "none") throw new Error("RECORDER_KEEP must be log or none");
const appId = process.env.RECORDER_APP ?? "";
const deeplinkId = process.env.REFERENCE_LINK ?? "";

const createdAt = new Date().toISOString();
const app: App = { appId, name: "Bench", platform: "android", enabled: true, createdAt };
const link = testLink({
  deeplinkId,
  appId,
  url: `http://127.0.0.1/${deeplinkId}`,
  mediaSource: "bench",
  createdAt,
});

const log =
  keep === "log"
    ? await createLocalClickLog({
        dir: process.env.RECORDER_LOG_DIR ?? "",
        apply: async () => undefined,
      })
    : undefined;

const tap = createClickRecorder({
  links: { get: async (id) => (id === deeplinkId ? link : undefined) },
  apps: { get: async (id) => (id === appId ? app : undefined) },
  allApps: async () => [app],
  clicks: { record: async (click) => log?.append(click) },
  countries: { countryOf: () => null },
  onRecordFailure: (error) => console.error("click not recorded", error),
});

const server = createServer((req, res) => {
  req.resume();
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  // The bench's taps stand for many devices through X-Forwarded-For, as the service trusts it.
  const sourceIp = headers["x-forwarded-for"]?.split(",")[0]?.trim() ?? null;
  tap({
    deeplinkId: url.pathname.slice(1),
    query: Object.fromEntries(url.searchParams),
    sourceIp,
    headers,
  }).then(
    (answer) => {
      if (answer.kind === "redirect") {
        res.writeHead(302, { location: answer.location, "cache-control": "no-store" });
      } else {
        res.writeHead(404, { "cache-control": "no-store" });
      }
      res.end();
    },
    (error: unknown) => {
      console.error("tap failed", error);
      res.writeHead(500);
      res.end();
    },
  );
});

serve(server);
