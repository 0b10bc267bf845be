/**
 * `attribution apps config`: each flag reaches the app as stored, what it prints of the app, and
 * a flag given wrong named as the flag, against the embedded stores of a data folder of its own.
 * The rules behind the settings are the links' and attribution's (their tests); the CLI driving a
 * running service is test/integration/cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { withAdminStores } from "../admin-stores.ts";
import { type ConfigureAppOptions, configureAppCommand, createAppCommand } from "./apps.ts";
import { printedBy, useDataDir } from "./commands.test-support.ts";

const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, "0"))
  .join(":")
  .toUpperCase();

describe("attribution apps config", () => {
  const folder = useDataDir("apps-config-", async (dataDir) => {
    await createAppCommand({ appId: "com.example.one", name: "One", platform: "ios", dataDir });
    await createAppCommand({ appId: "com.example.two", name: "Two", platform: "ios", dataDir });
  });

  /** What `apps config` printed, one line each. */
  const configured = (options: Partial<ConfigureAppOptions>, appId = "com.example.one") =>
    printedBy(() => configureAppCommand({ appId, dataDir: folder.dataDir, ...options }));
  const stored = (appId = "com.example.one") =>
    withAdminStores(folder.dataDir, async (stores) => {
      const app = await stores.apps.get(appId);
      if (!app) throw new Error(`no ${appId}`);
      return app;
    });

  it("sets the link settings of its flags, lists split at commas", async () => {
    const [, links] = await configured({
      appStoreId: "123456789",
      webUrl: "https://one.example.com/",
      linkHosts: " go.one.example.com , ,links.one.example.com",
      appleTeamId: "ABCDE12345",
      androidSha256: FINGERPRINT,
      languages: "de, fr",
      previewTitle: "One",
      previewDescription: "The one game",
      previewImageUrl: "https://one.example.com/card.png",
    });
    expect(links).toBe(
      'Links: link hosts go.one.example.com, links.one.example.com; App Store id 123456789; web https://one.example.com/; Apple team ABCDE12345; 1 Android certificate(s); landing pages in de, fr; preview title "One"; a preview description; preview image https://one.example.com/card.png.',
    );
    expect((await stored()).links).toMatchObject({
      hosts: ["go.one.example.com", "links.one.example.com"],
      appStoreId: "123456789",
      androidSha256Fingerprints: [FINGERPRINT],
      languages: ["de", "fr"],
    });
    // A flag not given leaves its setting; an empty list clears one.
    const [, after] = await configured({ linkHosts: "" });
    expect(after).toBe(
      'Links: the service\'s link host; App Store id 123456789; web https://one.example.com/; Apple team ABCDE12345; 1 Android certificate(s); landing pages in de, fr; preview title "One"; a preview description; preview image https://one.example.com/card.png.',
    );
  });

  it("renames the app, as the dashboard's settings do, and refuses a name of none or too long", async () => {
    await configured({ name: "  One, renamed " });
    expect((await stored()).name).toBe("One, renamed");
    await expect(configured({ name: " " })).rejects.toThrow("name must not be empty.");
    await expect(configured({ name: "n".repeat(201) })).rejects.toThrow(
      "name must be at most 200 characters.",
    );
    expect((await stored()).name).toBe("One, renamed");
  });

  it("names the flag, not the field, of a setting given wrong", async () => {
    await expect(configured({ appleTeamId: "nope" })).rejects.toThrow(/^--apple-team-id: /);
    await expect(configured({ languages: "xx-not-one" })).rejects.toThrow(/--languages\[0\]/);
    await expect(configured({ clickWindowDays: 31 })).rejects.toThrow(/^--click-window-days: /);
    await expect(configured({ timeZone: "Mars/Olympus" })).rejects.toThrow(
      "--time-zone Mars/Olympus: must be an IANA time zone of a place, such as America/Los_Angeles, or UTC",
    );
    await expect(configured({ enable: true, disable: true })).rejects.toThrow(
      "Give --enable or --disable, not both.",
    );
    expect((await stored()).timeZone).toBeUndefined();
  });

  it("refuses an App Store id another app has; shares a link host between the operator's apps", async () => {
    await configured({ appStoreId: "987654321" }, "com.example.two");
    await expect(configured({ appStoreId: "987654321" })).rejects.toThrow(/987654321/);
    expect((await stored()).links?.appStoreId).toBe("123456789");
    await configured({ linkHosts: "go.shared.example.com" }, "com.example.two");
    // Two iOS builds on one host: the file lists neither, which the command says.
    const shared = await configured({ linkHosts: "go.shared.example.com" });
    expect(shared).toContain(
      "Note: go.shared.example.com also carries com.example.two, of another iOS build: its apple-app-site-association lists none of them, so a tap there opens no app. Give each app a host of its own (--link-hosts).",
    );
    expect((await stored()).links?.hosts).toEqual(["go.shared.example.com"]);
    const own = new URL(
      await withAdminStores(folder.dataDir, async (stores) => stores.linkBaseUrl()),
    );
    await expect(configured({ linkHosts: own.host })).rejects.toThrow(
      /is the service's own link host/,
    );
    // Alone on the service's host again: nothing to note.
    expect((await configured({ linkHosts: "" })).join("\n")).not.toContain("Note:");
  });

  it("switches the app, its sealing and its attribution, and prints each", async () => {
    const [off, , attribution] = await configured({
      disable: true,
      timeZone: "Asia/Tokyo",
      attribution: "off",
    });
    expect(off).toBe("com.example.one: disabled for its SDKs; sealing off; reports in Asia/Tokyo.");
    expect(attribution).toBe("Attribution: off (every install is skipped).");
    const [still] = await configured({ previewTitle: "Still off" });
    expect(still).toMatch(/: disabled for its SDKs;/);
    const [sealed, , on] = await configured({
      enable: true,
      encryption: "on",
      attribution: "on",
      viewWindowHours: 12,
      probabilisticWindowHours: 6,
      probabilisticAndroid: "on",
      probabilisticIos: "off",
      confidenceFloor: "medium",
      deepLinkConfidence: "high",
    });
    const keyId = (await stored()).encryptionKeys?.[0]?.keyId;
    expect(keyId).toBeTruthy();
    expect(sealed).toBe(
      `com.example.one: enabled for its SDKs; sealing on (key ${keyId}); reports in Asia/Tokyo.`,
    );
    expect(on).toMatch(
      /^Attribution: on; clicks \d+ days, impressions 12 hours; probabilistic 6 hours on android, at least medium confidence; deferred deep links from high confidence\.$/,
    );
    // One OS's switch leaves the other's.
    const [, , ios] = await configured({ probabilisticIos: "on" });
    expect(ios).toMatch(/probabilistic 6 hours on android and ios,/);
    const [, , none] = await configured({ probabilisticAndroid: "off", probabilisticIos: "off" });
    expect(none).toMatch(/probabilistic 6 hours on no OS,/);
    const [unsealed] = await configured({ encryption: "off" });
    expect(unsealed).toContain("sealing off;");
    // A change of nothing changes nothing, on an app whose attribution was never set either.
    for (const appId of ["com.example.one", "com.example.two"]) {
      const before = await stored(appId);
      await configured({}, appId);
      expect(await stored(appId)).toEqual(before);
    }
    expect((await stored("com.example.two")).attribution).toBeUndefined();
  });
});
