import { describe, expect, it } from "vitest";
import type { App } from "../../ports/apps.ts";
import { appsOfHost } from "./link-host.ts";

const app = (appId: string, hosts?: string[]): App => ({
  appId,
  name: appId,
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
  ...(hosts ? { links: { hosts } } : {}),
});

describe("appsOfHost", () => {
  const apps = [app("own", ["go.example.com"]), app("plain"), app("other", ["links.other.com"])];

  it("gives the apps that name the host asked, whatever its case", () => {
    expect(appsOfHost(apps, "Go.Example.com").map((a) => a.appId)).toEqual(["own"]);
  });

  it("gives the apps naming no host on the service's own host", () => {
    expect(appsOfHost(apps, "127.0.0.1:8788").map((a) => a.appId)).toEqual(["plain"]);
    expect(appsOfHost(apps, undefined).map((a) => a.appId)).toEqual(["plain"]);
  });
});
