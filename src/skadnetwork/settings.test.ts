/** An app's SKAdNetwork settings over an in-memory app store: its ad networks, its postbacks. */
import { describe, expect, it } from "vitest";
import type { StoredApplePostback } from "../ports/apple-postbacks.ts";
import type { App } from "../ports/apps.ts";
import { AD_NETWORKS } from "./ad-networks.ts";
import { SAMPLE_APP, SKAN_4_FINE } from "./apple-samples.test-support.ts";
import { readPostback } from "./postbacks.ts";
import { createSkadnetworkSettings } from "./settings.ts";

const APP = SAMPLE_APP;

const memoryApps = () => {
  let app = APP;
  return {
    get: async (appId: string) => (appId === app.appId ? app : undefined),
    update: async (_appId: string, change: (stored: App) => App | Promise<App>) => {
      app = await change(app);
      return app;
    },
  };
};

const GOOGLE = "cstr6suwn9.skadnetwork";

describe("an app's ad networks", () => {
  it("names an id the catalog has by the app's own media source, whatever the id's case", async () => {
    const settings = createSkadnetworkSettings({ apps: memoryApps() });
    const listed = await settings.saveNetworks(APP.appId, {
      networks: { [GOOGLE.toUpperCase()]: "my_google", "own123.skadnetwork": "own_net" },
    });
    expect(listed.filter((network) => network.own)).toEqual([
      { ad_network_id: GOOGLE, media_source: "my_google", own: true },
      { ad_network_id: "own123.skadnetwork", media_source: "own_net", own: true },
    ]);
    // One row an id, the catalog's others as the catalog names them.
    expect(listed).toHaveLength(AD_NETWORKS.length + 1);
    const other = AD_NETWORKS.find((network) => network.id !== GOOGLE);
    expect(listed.find((network) => network.ad_network_id === other?.id)).toEqual({
      ad_network_id: other?.id,
      media_source: other?.mediaSource,
      own: false,
    });
    // `{}` clears them.
    const cleared = await settings.saveNetworks(APP.appId, { networks: {} });
    expect(cleared.filter((network) => network.own)).toEqual([]);
  });

  it("takes any media source a link takes, so a link's source can name an ad network id too", async () => {
    const settings = createSkadnetworkSettings({ apps: memoryApps() });
    const named = await settings.saveNetworks(APP.appId, {
      networks: { "own123.skadnetwork": "My Network!", "own456.skadnetwork": "Réseau 東京" },
    });
    expect(named.filter((network) => network.own).map((network) => network.media_source)).toEqual([
      "My Network!",
      "Réseau 東京",
    ]);
  });

  it("refuses what is no map of ad network ids to media sources, saving nothing", async () => {
    const settings = createSkadnetworkSettings({ apps: memoryApps() });
    const refusal = (body: unknown) =>
      settings.saveNetworks(APP.appId, body).then(
        () => "",
        (error: Error) => error.message,
      );
    expect(await refusal({ networks: [] })).toBe(
      "body.networks: must be an object of ad network id to media source",
    );
    expect(await refusal({})).toBe(
      "body.networks: must be an object of ad network id to media source",
    );
    expect(await refusal({ networks: { "no-dot": "x" } })).toBe(
      "body.networks: no-dot is not an ad network id (<id>.skadnetwork)",
    );
    const long = `${"a".repeat(90)}.skadnetwork`;
    expect(await refusal({ networks: { [long]: "x" } })).toBe(
      `body.networks: ${long} is not an ad network id (<id>.skadnetwork)`,
    );
    const rule =
      "must be a media source of 1 to 200 characters, not blank, without control characters";
    for (const source of ["", "  ", "tab\there", "x".repeat(201), 7]) {
      expect(await refusal({ networks: { "own123.skadnetwork": source } })).toBe(
        `body.networks.own123.skadnetwork: ${rule}`,
      );
    }
    // An id and a media source both wrong: both said at once.
    expect(await refusal({ networks: { "no-dot": "" } })).toBe(
      `body.networks: no-dot is not an ad network id (<id>.skadnetwork); body.networks.no-dot: ${rule}`,
    );
    // One id spelt twice: kept in lower case, one spelling's media source would be lost.
    expect(
      await refusal({ networks: { [GOOGLE.toUpperCase()]: "my_google", [GOOGLE]: "google" } }),
    ).toBe(
      `body.networks: ${GOOGLE.toUpperCase()} and ${GOOGLE} are one ad network id, whatever its case`,
    );
    const many = Object.fromEntries(
      Array.from({ length: 501 }, (_, n) => [`net${n}.skadnetwork`, "x"]),
    );
    expect(await refusal({ networks: many })).toBe("body.networks: at most 500 ids");
    expect((await settings.networks(APP.appId)).filter((network) => network.own)).toEqual([]);
  });
});

describe("an app's SKAdNetwork report read from the stored postbacks", () => {
  it("reads every page of them", async () => {
    const read = readPostback("skadnetwork", SKAN_4_FINE);
    if (!read.ok) throw new Error(read.problem);
    const postbacks: StoredApplePostback[] = Array.from({ length: 1_500 }, (_, n) => ({
      ...read.postback,
      transactionId: `t-${n}`,
      appId: APP.appId,
      receivedAt: "2026-11-02T00:00:00.000Z",
      valuesDisputed: false,
    }));
    const asked: (string | undefined)[] = [];
    const settings = createSkadnetworkSettings({
      apps: memoryApps(),
      postbacks: {
        listByApp: async (_appId, _range, page) => {
          asked.push(page.after);
          const start = page.after === undefined ? 0 : Number(page.after);
          const end = start + page.limit;
          return {
            postbacks: postbacks.slice(start, end),
            next: end < postbacks.length ? String(end) : null,
          };
        },
        listUnclaimed: async () => ({ postbacks: [], next: null }),
      },
    });
    const report = await settings.report(APP.appId, {
      from: new Date("2026-11-01T00:00:00.000Z"),
      to: new Date("2026-11-03T00:00:00.000Z"),
    });
    expect(asked).toEqual([undefined, "1000"]);
    expect(report.postbacks.received).toBe(1_500);
  });
});
