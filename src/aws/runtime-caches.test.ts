/**
 * The caches of a warm function on AWS: an app that takes the host a tap came on reaches taps
 * within the time the README states for a changed link.
 */
import { afterEach, expect, it, vi } from "vitest";
import { testLink } from "../links/link.test-support.ts";
import type { App, AppStore } from "../ports/apps.ts";
import type { LinkStore } from "../ports/links.ts";
import { createClickRecorder } from "../touches/clicks.ts";
import { AWS_RUNTIME } from "./lambda.ts";

afterEach(() => vi.useRealTimers());

it("sees another app's claim of the tapped host within 5 seconds on AWS", async () => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date("2026-11-01T00:00:00Z"));
  const mk = (appId: string, hosts?: string[]): App => ({
    appId,
    name: appId,
    platform: "android",
    enabled: true,
    createdAt: "2026-11-01T00:00:00.000Z",
    ...(hosts ? { links: { hosts } } : {}),
  });
  const apps = new Map<string, App>([
    ["com.example.b", mk("com.example.b")],
    ["com.example.a", mk("com.example.a")],
  ]);
  const appStore = {
    get: async (id: string) => apps.get(id),
    list: async () => [...apps.values()],
    save: async (app: App) => void apps.set(app.appId, app),
  } as unknown as AppStore;
  const link = testLink({ appId: "com.example.b", url: "https://go.service.example/Kx3v9QpZ2aQ" });
  const linkStore = {
    get: async (id: string) => (id === link.deeplinkId ? link : undefined),
  } as unknown as LinkStore;
  const tap = createClickRecorder({
    links: AWS_RUNTIME.hotLinks(linkStore),
    apps: AWS_RUNTIME.hotApps(appStore),
    allApps: AWS_RUNTIME.allApps(appStore),
    clicks: { record: async () => {} },
    countries: { countryOf: () => null },
    onRecordFailure: () => {},
  });
  const request = {
    deeplinkId: link.deeplinkId,
    query: {},
    sourceIp: "81.2.69.142",
    headers: {
      host: "go.service.example",
      "user-agent":
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
    },
  };
  expect((await tap(request)).kind).toBe("redirect");
  // App A names the tapped host as its own: B's links there are the 404 page (docs/api.md).
  apps.set("com.example.a", mk("com.example.a", ["go.service.example"]));
  vi.setSystemTime(new Date("2026-11-01T00:00:06Z"));
  expect((await tap(request)).kind).toBe("not-found");
});
