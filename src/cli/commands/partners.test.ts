/**
 * `attribution partners set`: the API's body its flags describe, over a `--from-file` body when
 * one is given. What the service then does with the body is the postback routes' (their tests);
 * here, that each flag lands where the API reads it and a flag given wrong is said before
 * anything is stored.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attemptEntry } from "../../adapters/local-delivery-log/replaced-attempts.test-support.ts";
import { ValidationError } from "../../domain/errors.ts";
import { withAdminStores } from "../admin-stores.ts";
import { createAppCommand } from "./apps.ts";
import { printedBy, useDataDir } from "./commands.test-support.ts";
import {
  listPostbacksCommand,
  partnerBodyOf,
  postbackLogCommand,
  type SetPartnerOptions,
  setPartnerCommand,
  setWebhookCommand,
} from "./partners.ts";

describe("attribution partners set: the body of its flags", () => {
  let dir: string;
  const base = (options: Partial<SetPartnerOptions>): SetPartnerOptions => ({
    appId: "com.example.app",
    configId: "net",
    dataDir: dir,
    ...options,
  });
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "partner-body-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("puts each flag where the API reads it", async () => {
    const template = { method: "GET", install: { url: "https://net.example/i?k={partner.key}" } };
    const body = await partnerBodyOf(
      base({
        partner: "custom",
        templateFile: await file("template.json", JSON.stringify(template)),
        mediaSource: ["net_int", "net_web"],
        value: { account: "a-1" },
        secretValue: { key: "s3cret" },
        installs: "won",
        event: ["service_purchase=buy:revenue", "service_level_up=level"],
        eventWindowDays: 7,
        tcfVendorId: null,
        enabled: "off",
      }),
    );
    expect(body).toEqual({
      partner: "custom",
      template,
      media_sources: ["net_int", "net_web"],
      values: { account: "a-1", key: "s3cret" },
      secret_values: ["key"],
      installs: "won",
      events: {
        service_purchase: { name: "buy", revenue: true },
        service_level_up: { name: "level", revenue: false },
      },
      event_window_days: 7,
      tcf_vendor_id: null,
      enabled: false,
    });
  });

  it("leaves out what no flag gives, so that the catalog's defaults and what is stored stand", async () => {
    expect(await partnerBodyOf(base({ partner: "generic" }))).toEqual({
      partner: "generic",
      values: {},
    });
    expect(await partnerBodyOf(base({ partner: "generic", enabled: "on" }))).toEqual({
      partner: "generic",
      values: {},
      enabled: true,
    });
  });

  it("changes a --from-file body by its flags: values and events added to, secrets joined", async () => {
    const fromFile = await file(
      "body.json",
      JSON.stringify({
        partner: "generic",
        values: { account: "a-1", key: "old", region: "eu" },
        secret_values: ["key"],
        events: { service_purchase: { name: "purchase", revenue: true } },
        installs: "all",
      }),
    );
    const body = await partnerBodyOf(
      base({
        fromFile,
        value: { account: "a-2" },
        secretValue: { token: "t0k", key: "new" },
        event: ["service_tutorial_completion=tutorial"],
      }),
    );
    expect(body).toEqual({
      partner: "generic",
      values: { account: "a-2", key: "new", region: "eu", token: "t0k" },
      secret_values: ["key", "token"],
      events: {
        service_purchase: { name: "purchase", revenue: true },
        service_tutorial_completion: { name: "tutorial", revenue: false },
      },
      installs: "all",
    });
    const partnerOnly = await partnerBodyOf(base({ fromFile, partner: "custom" }));
    expect(partnerOnly).toMatchObject({ partner: "custom", secret_values: ["key"] });
  });

  it("says what is wrong with a flag or a file before anything is stored", async () => {
    const refusal = (options: Partial<SetPartnerOptions>) =>
      partnerBodyOf(base(options)).then(
        () => undefined,
        (error: unknown) => {
          expect(error).toBeInstanceOf(ValidationError);
          return (error as Error).message;
        },
      );
    expect(await refusal({})).toBe("--partner is required (or a --from-file naming one).");
    for (const mapping of ["service_purchase", "=buy", "service_purchase=", "a=b:cost"]) {
      expect(await refusal({ partner: "generic", event: [mapping] })).toBe(
        `--event ${mapping}: must be ours=theirs or ours=theirs:revenue`,
      );
    }
    const notJson = await file("not.json", "{ partner: generic");
    expect(await refusal({ fromFile: notJson })).toMatch(
      new RegExp(`^--from-file ${notJson}: .*JSON`),
    );
    const missing = join(dir, "missing.json");
    expect(await refusal({ partner: "custom", templateFile: missing })).toMatch(
      new RegExp(`^--template-file ${missing}: ENOENT`),
    );
    const notTheApis = await file("other.json", JSON.stringify({ partner: "generic", url: "x" }));
    expect(await refusal({ fromFile: notTheApis })).toMatch(/url/);
  });
});

describe("attribution partners set and webhook: a stored configuration changed by its flags", () => {
  const APP = "com.example.partner-set";
  const folder = useDataDir("partners-set-", (dataDir) =>
    createAppCommand({ appId: APP, name: "Set", platform: "android", dataDir }),
  );
  const stored = () =>
    withAdminStores(folder.dataDir, async (stores) => {
      const { configs } = stores.postbacks();
      return configs.listByApp(APP);
    });
  const set = (options: Partial<SetPartnerOptions>) =>
    printedBy(() =>
      setPartnerCommand({ appId: APP, configId: "net", dataDir: folder.dataDir, ...options }),
    );

  it("keeps what no flag gives: a partner switched off stays off, its events stay", async () => {
    await set({
      partner: "unity-ads",
      value: { game_id: "500001" },
      event: ["service_purchase=purchase:revenue"],
      eventWindowDays: 7,
      enabled: "off",
    });
    await set({ value: { game_id: "500002" } });
    const [config] = (await stored()).partners;
    expect(config).toMatchObject({
      partner: "unity-ads",
      values: { game_id: "500002" },
      events: { service_purchase: { name: "purchase", revenue: true } },
      eventWindowDays: 7,
      enabled: false,
    });
    // Another partner under the same id starts from its catalog's defaults, not the old one's.
    // (Switched off: saving it on would resolve Snap's host, which tests never reach.)
    await set({
      partner: "snapchat",
      value: { snap_app_id: "snap-1" },
      secretValue: { access_token: "t" },
      enabled: "off",
    });
    expect((await stored()).partners[0]).toMatchObject({
      partner: "snapchat",
      events: {},
      eventWindowDays: 180,
    });
  });

  it("saves `partners list --json`'s answer of a configuration back as it is, from a file", async () => {
    const listed = JSON.parse(
      (
        await printedBy(() =>
          listPostbacksCommand({ appId: APP, json: true, dataDir: folder.dataDir }),
        )
      ).join("\n"),
    );
    const path = join(folder.dataDir, "net.json");
    await writeFile(path, JSON.stringify(listed.partners[0]));
    const before = (await stored()).partners[0];
    await set({ fromFile: path, enabled: "off" });
    expect((await stored()).partners[0]).toMatchObject({
      partner: before?.partner,
      values: before?.values,
      enabled: false,
    });
  });

  it("says how to send to this machine when a URL on it is refused, naming --url", async () => {
    const refusal = await setWebhookCommand({
      appId: APP,
      configId: "local",
      url: "http://127.0.0.1:9000/hooks",
      dataDir: folder.dataDir,
    }).then(
      () => "",
      (error: unknown) => (error as Error).message,
    );
    expect(refusal).toMatch(/^--url: http:\/\/127\.0\.0\.1:9000\/hooks must be https/);
    expect(refusal).toContain("start the service with ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK=true");
    // A URL elsewhere is refused without the hint.
    const elsewhere = await setWebhookCommand({
      appId: APP,
      configId: "local",
      url: "http://backend.example.com/hooks",
      dataDir: folder.dataDir,
    }).then(
      () => "",
      (error: unknown) => (error as Error).message,
    );
    expect(elsewhere).toBe("--url: http://backend.example.com/hooks must be https");
    // A custom partner's own template on this machine: the usual mock partner.
    const mock = join(folder.dataDir, "mock.json");
    await writeFile(
      mock,
      JSON.stringify({ method: "GET", install: { url: "http://127.0.0.1:9/in?id={service_id}" } }),
    );
    await expect(
      setPartnerCommand({
        appId: APP,
        configId: "mock",
        partner: "custom",
        templateFile: mock,
        mediaSource: ["mock_int"],
        dataDir: folder.dataDir,
      }),
    ).rejects.toThrow(/ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK=true/);
  });

  it("keeps a paused webhook paused when its secret is rotated, its URL given or not", async () => {
    const hook = (options: { url?: string; rotateSecret?: boolean; enabled?: "on" | "off" }) =>
      printedBy(() =>
        setWebhookCommand({ appId: APP, configId: "backend", dataDir: folder.dataDir, ...options }),
      );
    await expect(hook({ rotateSecret: true })).rejects.toThrow(
      "--url is required: the app has no webhook backend.",
    );
    await hook({ url: "https://backend.example.com/hooks", enabled: "off" });
    const printed = await hook({ rotateSecret: true });
    expect(printed.join("\n")).toMatch(/Signing secret \(shown once/);
    expect((await stored()).webhooks[0]).toMatchObject({
      url: "https://backend.example.com/hooks",
      enabled: false,
    });
  });
});

describe("attribution partners log: a page at a time, as the API's", () => {
  const APP = "com.example.partner-log";
  const folder = useDataDir("partners-log-", async (dataDir) => {
    await createAppCommand({ appId: APP, name: "Log", platform: "android", dataDir });
    await withAdminStores(dataDir, async (stores) => {
      const { log } = stores.postbacks();
      // Three attempts, a minute apart, within the log's 30 days.
      for (const [i, sendId] of ["snd_a", "snd_b", "snd_c"].entries()) {
        const time = new Date(Date.now() - (3 - i) * 60_000).toISOString();
        await log.append(
          attemptEntry(APP, { sendId, time, verdict: "delivered", status: 200, final: true }),
        );
      }
    });
  });
  const logged = (options: { limit?: number; cursor?: string; json?: boolean }) =>
    printedBy(() => postbackLogCommand({ appId: APP, dataDir: folder.dataDir, ...options }));

  it("says how to read the next page, reads it with --cursor, and says when none is left", async () => {
    const first = await logged({ limit: 2 });
    expect(first).toHaveLength(3);
    const next = /--cursor (\S+)/.exec(first[2] ?? "")?.[1] ?? "";
    expect(first[2]).toBe(
      // The test's folder is not the one the command finds by itself: named.
      `More attempts: npx attribution partners log --app-id ${APP} --limit 2 --data-dir ${JSON.stringify(folder.dataDir)} --cursor ${next}`,
    );
    const second = await logged({ limit: 2, cursor: next });
    expect(second).toHaveLength(1);
    expect([...first.slice(0, 2), ...second].map((line) => line.split(/\s+/)[0])).toEqual(
      [...first.slice(0, 2), ...second]
        .map((line) => line.split(/\s+/)[0])
        .sort()
        .reverse(),
    );
  });

  it("prints the API's page with --json: the attempts and the next page's cursor", async () => {
    const page = JSON.parse((await logged({ limit: 2, json: true })).join("\n"));
    expect(Object.keys(page)).toEqual(["data", "next_cursor"]);
    expect(page.data).toHaveLength(2);
    expect(page.next_cursor).toEqual(expect.any(String));
    const last = JSON.parse(
      (await logged({ limit: 2, cursor: page.next_cursor, json: true })).join("\n"),
    );
    expect(last).toEqual({
      data: [expect.objectContaining({ config_id: "cfg" })],
      next_cursor: null,
    });
  });

  it("names --cursor when it is not a page's", async () => {
    for (const cursor of ["not-a-cursor", ""]) {
      await expect(logged({ cursor }), cursor).rejects.toThrow(/^--cursor: must /);
    }
  });
});
