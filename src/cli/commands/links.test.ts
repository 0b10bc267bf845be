/**
 * `attribution links create|update|list|disable`: each flag reaches the link as the API's field
 * does, against the embedded stores of a data folder of its own. The rules the link then obeys
 * (the host, the taps, the lake's counts) are the links' and the link host's tests; the CLI
 * driving a running service is test/integration/cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createAppCommand } from "./apps.ts";
import { printedBy, useDataDir } from "./commands.test-support.ts";
import {
  type CreateLinkOptions,
  createLinkCommand,
  listLinksCommand,
  setLinkDisabledCommand,
  type UpdateLinkOptions,
  updateLinkCommand,
} from "./links.ts";

const APP = "com.example.links";

describe("attribution links", () => {
  const folder = useDataDir("links-command-", (dataDir) =>
    createAppCommand({ appId: APP, name: "Links", platform: "android", dataDir }),
  );
  /** What the command printed, one string. */
  const printed = async (run: () => Promise<void>) => (await printedBy(run)).join("\n");
  const created = async (options: Partial<CreateLinkOptions>) =>
    JSON.parse(
      await printed(() =>
        createLinkCommand({
          appId: APP,
          mediaSource: "net_int",
          json: true,
          dataDir: folder.dataDir,
          ...options,
        }),
      ),
    ) as Record<string, unknown>;
  const updated = async (deeplinkId: string, options: Partial<UpdateLinkOptions>) =>
    JSON.parse(
      await printed(() =>
        updateLinkCommand({
          appId: APP,
          deeplinkId,
          json: true,
          dataDir: folder.dataDir,
          ...options,
        }),
      ),
    ) as Record<string, unknown>;

  it("makes a link of every flag", async () => {
    const link = await created({
      campaignId: "c-1",
      campaignName: "Winter",
      adsetId: "s-1",
      adsetName: "Lapsed",
      adId: "a-1",
      adName: "Snow",
      deepLinkPath: "/levels/7",
      param: { promo: "WINTER" },
      androidUrl: "https://play.google.com/store/apps/details?id=com.example.links",
      iosUrl: "https://apps.apple.com/app/id123456789",
      webUrl: "https://links.example.com/winter",
      landingPage: true,
      forwardParams: false,
      previewTitle: "Winter sale",
      previewDescription: "Every level half off",
      previewImageUrl: "https://links.example.com/winter.png",
      costModel: "CPC",
      costValue: "0.25",
      costCurrency: "EUR",
    });
    expect(link).toMatchObject({
      media_source: "net_int",
      campaign_id: "c-1",
      campaign_name: "Winter",
      adset_id: "s-1",
      adset_name: "Lapsed",
      ad_id: "a-1",
      ad_name: "Snow",
      deep_link_path: "/levels/7",
      params: { promo: "WINTER" },
      android_url: "https://play.google.com/store/apps/details?id=com.example.links",
      ios_url: "https://apps.apple.com/app/id123456789",
      web_url: "https://links.example.com/winter",
      disabled: false,
      landing_page: true,
      forward_params: false,
      preview_title: "Winter sale",
      preview_description: "Every level half off",
      preview_image_url: "https://links.example.com/winter.png",
      cost_model: "CPC",
      cost_value: 0.25,
      cost_currency: "EUR",
    });
  });

  it("says what a link costs and that the web gets no tapped parameters", async () => {
    const said = await printed(() =>
      createLinkCommand({
        appId: APP,
        mediaSource: "net_int",
        forwardParams: false,
        costModel: "CPM",
        costValue: "4",
        costCurrency: "USD",
        dataDir: folder.dataDir,
      }),
    );
    expect(said).toMatch(/^Created link \w+ for com\.example\.links \(net_int\):/);
    expect(said).toContain("each thousand impressions costs CPM 4 USD");
    expect(said).toContain("the web destination gets no tapped parameters");
    const plain = await printed(() =>
      createLinkCommand({ appId: APP, mediaSource: "net_int", dataDir: folder.dataDir }),
    );
    expect(plain).not.toContain("costs");
    expect(plain).not.toContain("tapped parameters");
  });

  it("changes what update's flags name and leaves the rest; an empty flag clears its field", async () => {
    const link = await created({
      previewTitle: "Title",
      previewDescription: "Description",
      previewImageUrl: "https://links.example.com/a.png",
      costModel: "CPI",
      costValue: "2",
      costCurrency: "EUR",
    });
    const id = String(link.deeplink_id);
    expect(await updated(id, { landingPage: "on", forwardParams: "off" })).toMatchObject({
      landing_page: true,
      forward_params: false,
      preview_title: "Title",
      cost_model: "CPI",
      cost_value: 2,
    });
    expect(
      await printed(() =>
        updateLinkCommand({
          appId: APP,
          deeplinkId: id,
          previewTitle: "",
          dataDir: folder.dataDir,
        }),
      ),
    ).toBe(
      `Link ${id}: every tap gets its landing page; the web destination as written; preview its own; each install a click of it wins costs CPI 2 EUR.`,
    );
    expect(await updated(id, { forwardParams: "on" })).toMatchObject({
      landing_page: true,
      forward_params: true,
      preview_title: null,
      preview_description: "Description",
      preview_image_url: "https://links.example.com/a.png",
    });
    expect(
      await updated(id, { previewDescription: "", previewImageUrl: "", landingPage: "off" }),
    ).toMatchObject({ preview_description: null, preview_image_url: null, landing_page: false });
    expect(
      await updated(id, { costValue: "2.5", costModel: "CPI", costCurrency: "USD" }),
    ).toMatchObject({ cost_model: "CPI", cost_value: 2.5, cost_currency: "USD" });
    expect(
      await printed(() =>
        updateLinkCommand({
          appId: APP,
          deeplinkId: id,
          costModel: "CPC",
          costValue: "0.1",
          costCurrency: "USD",
          dataDir: folder.dataDir,
        }),
      ),
    ).toMatch(/; each click costs CPC 0\.1 USD\.$/);
    await expect(updated(id, { costModel: "", costCurrency: "EUR" })).rejects.toThrow(/cost/);
    expect(await updated(id, { costModel: "" })).toMatchObject({
      cost_model: null,
      cost_value: null,
      cost_currency: null,
    });
    const said = await printed(() =>
      updateLinkCommand({
        appId: APP,
        deeplinkId: id,
        landingPage: "off",
        dataDir: folder.dataDir,
      }),
    );
    expect(said).toBe(
      `Link ${id}: taps are redirected by platform; the web gets the tapped parameters; preview the app's; no cost.`,
    );
  });

  it("refuses a price that is no number, and a cleared cost given a price, as the API does", async () => {
    await expect(
      created({ costModel: "CPC", costValue: "1,5", costCurrency: "EUR" }),
    ).rejects.toThrow(/--cost-value/);
    // Read as a number it would be 16: the flag is a decimal price, or it is no price.
    await expect(
      created({ costModel: "CPC", costValue: "0x10", costCurrency: "EUR" }),
    ).rejects.toThrow(/--cost-value/);
    const id = String((await created({})).deeplink_id);
    await expect(updated(id, { costModel: "", costValue: "1" })).rejects.toThrow(/cost/);
  });

  it("sends a made link elsewhere with --android-url, --ios-url and --web-url, and back with an empty one", async () => {
    const id = String((await created({})).deeplink_id);
    expect(
      await updated(id, {
        webUrl: "https://game.example.com/spring",
        iosUrl: "https://apps.apple.com/app/id42",
      }),
    ).toMatchObject({
      web_url: "https://game.example.com/spring",
      ios_url: "https://apps.apple.com/app/id42",
      android_url: null,
    });
    expect(await updated(id, { iosUrl: "" })).toMatchObject({
      web_url: "https://game.example.com/spring",
      ios_url: null,
    });
    await expect(updated(id, { androidUrl: "ftp://x.example/" })).rejects.toThrow(
      "--android-url: must be an http or https URL",
    );
  });

  it("names the flag of any field the service refuses, not the API's field", async () => {
    await expect(created({ previewImageUrl: "http://cdn.example.com/a.png" })).rejects.toThrow(
      /^--preview-image-url: /,
    );
    await expect(created({ campaignName: "Win\nter" })).rejects.toThrow(
      "--campaign-name: must not contain control characters",
    );
  });

  it("takes --cost-value as costs import takes an amount, and names the flag when it is none", async () => {
    for (const [text, value] of [
      [".5", 0.5],
      ["2.50", 2.5],
      ["+3", 3],
      ["0", 0],
    ] as const) {
      const link = await created({ costModel: "CPC", costValue: text, costCurrency: "EUR" });
      expect(link.cost_value, text).toBe(value);
    }
    const id = String((await created({})).deeplink_id);
    expect(
      await updated(id, { costModel: "CPM", costValue: ".25", costCurrency: "USD" }),
    ).toMatchObject({ cost_model: "CPM", cost_value: 0.25 });
    for (const text of ["1,5", "0x10", "1e3", "5.", "", "two"]) {
      await expect(
        created({ costModel: "CPC", costValue: text, costCurrency: "EUR" }),
        text,
      ).rejects.toThrow(
        `--cost-value: must be a decimal number, such as 2.50 or .5: ${JSON.stringify(text)}`,
      );
    }
    // What the API refuses of a number is said of the flag too.
    await expect(
      created({ costModel: "CPC", costValue: "-1", costCurrency: "EUR" }),
    ).rejects.toThrow("--cost-value: must be at least 0");
    await expect(updated(id, { costModel: "CPC", costValue: "1" })).rejects.toThrow(
      "--cost-currency: is required with --cost-model",
    );
  });

  it("lists every link with its state, and disables and enables one", async () => {
    const id = String(
      (await created({ campaignName: "Listed", deepLinkPath: "/shop" })).deeplink_id,
    );
    expect(
      await printed(() =>
        setLinkDisabledCommand({
          appId: APP,
          deeplinkId: id,
          disabled: true,
          dataDir: folder.dataDir,
        }),
      ),
    ).toBe(`Link ${id} is disabled: its taps go to the web and are not counted.`);
    const listed = await printed(() => listLinksCommand({ appId: APP, dataDir: folder.dataDir }));
    const row = listed.split("\n").find((line) => line.startsWith(id));
    expect(row).toMatch(new RegExp(`^${id} +0  disabled  net_int · Listed · /shop  https?://`));
    const json = JSON.parse(
      await printed(() => listLinksCommand({ appId: APP, json: true, dataDir: folder.dataDir })),
    );
    expect(json.find((link: { deeplink_id: string }) => link.deeplink_id === id)).toMatchObject({
      disabled: true,
      clicks: 0,
    });
    expect(
      await printed(() =>
        setLinkDisabledCommand({
          appId: APP,
          deeplinkId: id,
          disabled: false,
          dataDir: folder.dataDir,
        }),
      ),
    ).toBe(`Link ${id} is active.`);
  });
});
