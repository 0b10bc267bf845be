import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import { contractTouch } from "../adapters/contracts/touch-store.test-support.ts";
import { createReadWriteLock } from "../adapters/duckdb/read-write-lock.ts";
import { createDuckDbReportEngine } from "../adapters/duckdb/reports.ts";
import { openLocalAttributionStore } from "../adapters/local-attributions/attribution-store.ts";
import { createLocalDeliveryStream } from "../adapters/local-stream/delivery-stream.ts";
import { openLocalTouchStore } from "../adapters/local-touches/touch-store.ts";
import { installFacts } from "../attribution/facts.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeRecord } from "../lake/lake-tables.ts";
import type { App } from "../ports/apps.ts";
import type {
  AttributionRecord,
  AttributionResult,
  AttributionStore,
} from "../ports/attributions.ts";
import type { DeletionRequest } from "../ports/deletions.ts";
import type { Install } from "../ports/installs.ts";
import type { Touch } from "../ports/touches.ts";
import type { PostbackTriggers } from "../postbacks/triggers.ts";
import { EXPORT_COLUMNS } from "../record/columns.ts";
import { deviceTag } from "../touches/lookup-keys.ts";
import { type AttributionDeps, createAttributionWorker } from "./attribution-worker.ts";

const APP: App = {
  appId: "com.example.game",
  name: "Game",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};
const INSTALL = storedInstall(APP.appId, "device-1", { maid: null });
/** EUR at 1.1 USD on the install's day. */
const FX = parseEcbRates("Date,USD,\n2026-11-01,1.1,\n");
/** When the service heard of the install, by its clock. */
const RECEIVED = new Date("2026-11-01T10:00:01.000Z");
const AGENT = "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UQ1A.240105.004)";

/** The attributions store as a map, with its conditions, the way the port promises them. */
const memoryAttributions = () => {
  const records = new Map<string, AttributionRecord>();
  const key = (appId: string, serviceId: string) => `${appId}#${serviceId}`;
  const store: AttributionStore & { records: typeof records; resolves: number } = {
    records,
    resolves: 0,
    createPending: async (pending) => {
      if (records.has(key(pending.appId, pending.serviceId))) return false;
      records.set(key(pending.appId, pending.serviceId), { ...pending, state: "pending" });
      return true;
    },
    get: async (appId, serviceId) => records.get(key(appId, serviceId)),
    resolve: async (appId, serviceId, result: AttributionResult, sender) => {
      const found = records.get(key(appId, serviceId));
      if (!found || found.state === "resolved") return false;
      store.resolves++;
      records.set(key(appId, serviceId), {
        state: "resolved",
        appId,
        serviceId,
        result,
        delivered: false,
        sender,
      });
      return true;
    },
    markFailed: async (appId, serviceId) => {
      const found = records.get(key(appId, serviceId));
      if (found?.state === "pending")
        records.set(key(appId, serviceId), { ...found, state: "failed" });
    },
    markDelivered: async (appId, serviceId) => {
      const found = records.get(key(appId, serviceId));
      if (found?.state === "resolved")
        records.set(key(appId, serviceId), { ...found, delivered: true, sender: null });
    },
    listOpen: async () => [],
    delete: async (appId, serviceId) => void records.delete(key(appId, serviceId)),
  };
  return store;
};

const setup = (
  options: {
    touchesFail?: boolean;
    app?: App;
    install?: Install;
    byMaid?: Touch[];
    /** The touch the store holds under its click id. */
    byId?: Touch;
    /** The device each claim of a click names. */
    claimedBy?: (string | null)[];
    /** The event rows' first writes fail. */
    eventWritesFail?: number;
    /** The lake's streams, instead of lists of the rows put. */
    lake?: AttributionDeps["lake"];
    /** The install's deletion requests. */
    deletions?: DeletionRequest[];
  } = {},
) => {
  const install = options.install ?? INSTALL;
  const attributions = memoryAttributions();
  const rows = { attributions: [] as LakeRecord[], events: [] as LakeRecord[] };
  const triggered: Parameters<PostbackTriggers["installResolved"]>[0][] = [];
  let eventWritesFail = options.eventWritesFail ?? 0;
  const worker = createAttributionWorker({
    apps: { get: async () => options.app ?? APP },
    installs: {
      get: async (_app, serviceId) => (serviceId === install.serviceId ? install : undefined),
      withIdfv: async () => [],
    },
    attributions,
    deletions: { listByInstall: async () => options.deletions ?? [] },
    touches: {
      get: async (clickId) => (options.byId?.clickId === clickId ? options.byId : undefined),
      byMaid: async () => options.byMaid ?? [],
      byIp: async (): Promise<Touch[]> => {
        if (options.touchesFail) throw new Error("touch store down");
        return [];
      },
      installsAt: async () => 0,
      claimClick: async ({ device }) => {
        options.claimedBy?.push(device ?? null);
        return "this_install" as const;
      },
      releaseClaim: async () => {},
    },
    lake: options.lake ?? {
      attributions: { put: async (records) => void rows.attributions.push(...records) },
      events: {
        put: async (records) => {
          if (eventWritesFail-- > 0) throw new Error("lake stream down");
          rows.events.push(...records);
        },
      },
    },
    fx: FX,
    postbacks: {
      installResolved: async (resolved) => {
        triggered.push(resolved);
        return 0;
      },
    },
    maxAttempts: 3,
  });
  const job = (attempt = 1) => ({
    id: "m1",
    attempt,
    body: { appId: APP.appId, serviceId: INSTALL.serviceId },
  });
  return { attributions, rows, triggered, worker, job };
};

const pending = async (attributions: AttributionStore, install = INSTALL) => {
  await attributions.createPending({
    appId: APP.appId,
    serviceId: install.serviceId,
    facts: installFacts(install, { ip: "81.2.69.142", userAgent: AGENT, receivedAt: RECEIVED }),
    requestedAt: "2026-11-01T10:00:01.000Z",
  });
};

describe("the attribution worker", () => {
  it("attributes an install once however many jobs run for it, side by side or again", async () => {
    const { attributions, rows, worker, job } = setup();
    await pending(attributions);
    await Promise.all([worker(job()), worker(job()), worker(job())]);
    await worker(job());
    expect(attributions.resolves).toBe(1);
    const record = await attributions.get(APP.appId, INSTALL.serviceId);
    expect(record).toMatchObject({
      state: "resolved",
      delivered: true,
      result: { status: "organic" },
    });
    // The lake rows come from the stored result: a repeat writes the same rows, if any.
    expect(new Set(rows.events.map((row) => row.event_id)).size).toBe(1);
    expect(new Set(rows.attributions.map((row) => row.attributed_at)).size).toBe(1);
  });

  it("names the install's address and agent in postbacks made again after a stop before delivery", async () => {
    const { attributions, rows, triggered, worker, job } = setup({ eventWritesFail: 1 });
    await pending(attributions);
    await expect(worker(job())).rejects.toThrow("lake stream down");
    expect(await attributions.get(APP.appId, INSTALL.serviceId)).toMatchObject({
      state: "resolved",
      delivered: false,
    });
    expect(triggered).toEqual([]);

    await worker(job(2));
    expect(rows.events).toHaveLength(1);
    expect(triggered).toEqual([
      expect.objectContaining({
        ip: "81.2.69.142",
        userAgent: AGENT,
        serviceId: INSTALL.serviceId,
      }),
    ]);
    // Forgotten once sent on.
    expect(await attributions.get(APP.appId, INSTALL.serviceId)).toMatchObject({
      delivered: true,
      sender: null,
    });
  });

  it("names no address or agent in the postbacks of an install reported in anonymous mode", async () => {
    const anonymous = { ...INSTALL, anonymous: true };
    const { attributions, triggered, worker, job } = setup({ install: anonymous });
    await pending(attributions, anonymous);
    await worker(job());
    expect(triggered).toEqual([
      expect.objectContaining({ ip: null, userAgent: null, serviceId: INSTALL.serviceId }),
    ]);
  });

  it("marks the install failed on its last try, and a later run resolves it", async () => {
    const failing = setup({ touchesFail: true });
    await pending(failing.attributions);
    await expect(failing.worker(failing.job(2))).rejects.toThrow("touch store down");
    expect((await failing.attributions.get(APP.appId, INSTALL.serviceId))?.state).toBe("pending");
    await expect(failing.worker(failing.job(3))).rejects.toThrow("touch store down");
    expect((await failing.attributions.get(APP.appId, INSTALL.serviceId))?.state).toBe("failed");
  });

  it("skips an install of a disabled app, and writes its install event all the same", async () => {
    const { attributions, rows, worker, job } = setup({ app: { ...APP, enabled: false } });
    await pending(attributions);
    await worker(job());
    expect(await attributions.get(APP.appId, INSTALL.serviceId)).toMatchObject({
      result: { status: "skipped", mediaSource: null },
    });
    // Its attribution row says skipped, and exports nothing: every exported field null, as an
    // install with no row exports them.
    expect(rows.attributions).toEqual([
      expect.objectContaining({ service_id: INSTALL.serviceId, match_status: "skipped" }),
    ]);
    const exported = EXPORT_COLUMNS.filter((column) => column.source === "attribution");
    expect(exported.length).toBeGreaterThan(0);
    for (const { name } of exported) expect(rows.attributions[0]?.[name], name).toBeNull();
    expect(rows.events).toEqual([expect.objectContaining({ event_name: "service_install" })]);
  });

  it("leaves an install of an app with attribution off skipped in the overview, not pending", async () => {
    const dir = await mkdtemp(join(tmpdir(), "attribution-worker-"));
    const duckdb = await DuckDBInstance.create(":memory:");
    try {
      const lakeDir = join(dir, "lake");
      const stream = (table: typeof EVENTS_TABLE | typeof ATTRIBUTIONS_TABLE) =>
        createLocalDeliveryStream({ table, duckdb, lakeDir, walDir: join(dir, "wal") });
      const lake = {
        attributions: await stream(ATTRIBUTIONS_TABLE),
        events: await stream(EVENTS_TABLE),
      };
      const { attributions, worker, job } = setup({
        app: { ...APP, attribution: { enabled: false } },
        lake,
      });
      await pending(attributions);
      await worker(job());
      await Promise.all([lake.attributions.close(), lake.events.close()]);
      const engine = createDuckDbReportEngine({
        duckdb,
        lakeDir,
        lakeFiles: createReadWriteLock(),
      });
      const report = await engine.overview({
        appId: APP.appId,
        from: "2026-11-01",
        to: "2026-11-01",
        excludeServiceIds: [],
      });
      expect(report.match_status).toEqual([{ status: "skipped", installs: 1 }]);
      expect(report.match_method).toEqual([{ method: "skipped", installs: 1 }]);
    } finally {
      duckdb.closeSync();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("stops asking Apple about a token older than its 24 hours", async () => {
    const asked: string[] = [];
    const attributions = memoryAttributions();
    const worker = createAttributionWorker({
      apps: { get: async () => ({ ...APP, platform: "ios" }) },
      installs: {
        get: async (_app, serviceId) => ({ ...INSTALL, serviceId, os: "ios", idfv: null }),
        withIdfv: async () => [],
      },
      attributions,
      deletions: { listByInstall: async () => [] },
      touches: {
        get: async () => undefined,
        byMaid: async () => [],
        byIp: async () => [],
        installsAt: async () => 0,
        claimClick: async () => "this_install" as const,
        releaseClaim: async () => {},
      },
      searchAds: {
        resolve: async (token) => {
          asked.push(token);
          throw new Error("Apple unreachable");
        },
      },
      lake: { attributions: { put: async () => {} }, events: { put: async () => {} } },
      fx: FX,
      now: () => new Date("2026-11-02T10:00:02.000Z"),
    });
    await attributions.createPending({
      appId: APP.appId,
      serviceId: INSTALL.serviceId,
      facts: {
        ...installFacts(
          { ...INSTALL, os: "ios" },
          { ip: null, platformAdsToken: "token-1", receivedAt: RECEIVED },
        ),
      },
      requestedAt: "2026-11-01T10:00:01.000Z",
    });
    await worker({
      id: "m1",
      attempt: 1,
      body: { appId: APP.appId, serviceId: INSTALL.serviceId },
    });
    expect(asked).toEqual([]);
    expect(await attributions.get(APP.appId, INSTALL.serviceId)).toMatchObject({
      result: { status: "organic" },
    });
  });

  it("names no advertising id in the claims of an install whose user refused ad user data", async () => {
    const clickId = "C1ick1dC1ick1dC1ick1d0";
    const tapped = contractTouch(APP.appId, Date.parse("2026-11-01T09:55:00.000Z"), { clickId });
    const referred = (consent: Install["consent"], serviceId: string) =>
      storedInstall(APP.appId, serviceId, {
        consent,
        installReferrer: {
          referrer: `service_click_id=${clickId}`,
          clickTimestamp: null,
          installBeginTimestamp: null,
          clickServerTimestamp: null,
          installBeginServerTimestamp: null,
          installVersion: null,
        },
      });
    const claimedBy: (string | null)[] = [];
    for (const [install, adUserData] of [
      [referred(null, "consenting"), true],
      [
        referred(
          {
            gdprApplies: true,
            adUserData: false,
            adPersonalization: false,
            tcfString: null,
            updatedAt: "2026-11-01T10:00:00.000Z",
          },
          "refusing",
        ),
        false,
      ],
    ] as const) {
      const { attributions, worker } = setup({ install, byId: tapped, claimedBy });
      await pending(attributions, install);
      await worker({
        id: "m1",
        attempt: 1,
        body: { appId: APP.appId, serviceId: install.serviceId },
      });
      expect(claimedBy.at(-1) === null, `ad user data ${adUserData}`).toBe(!adUserData);
    }
  });

  it("does nothing for an install whose data was deleted since its job was queued", async () => {
    const { attributions, rows, worker, job } = setup();
    await worker(job());
    expect(attributions.resolves).toBe(0);
    expect(rows.events).toEqual([]);
  });

  it("does nothing for an install whose deletion was asked, its pending record not purged yet", async () => {
    const { attributions, rows, triggered, worker, job } = setup({
      deletions: [
        {
          requestId: "r1",
          appId: APP.appId,
          serviceId: INSTALL.serviceId,
          status: "pending",
          requestedAt: "2026-11-01T11:00:00.000Z",
          completedAt: null,
        },
      ],
    });
    await pending(attributions);
    await worker(job());
    expect(attributions.resolves).toBe(0);
    expect(rows).toEqual({ attributions: [], events: [] });
    expect(triggered).toEqual([]);
  });

  it("ends the job of a pending install the installs table no longer holds, resolving nothing", async () => {
    const { attributions, rows, worker, job } = setup({
      install: storedInstall(APP.appId, "device-2", { maid: null }),
    });
    await pending(attributions);
    await expect(worker(job())).resolves.toBeUndefined();
    expect(attributions.resolves).toBe(0);
    expect(rows).toEqual({ attributions: [], events: [] });
  });

  it("lets go of the click it claimed for an install whose data was purged as it matched", async () => {
    // The purge lets go of the click an install holds once its attribution names it; one that
    // ran while the job matched found it pending, and deleted it. The claim the job then made
    // would make the same phone's next install from the click a reinstall, with no price.
    const gaid = "38400000-8cf0-11bd-b23e-10b96e40000d";
    const install = storedInstall(APP.appId, "deleted-device-1", { maid: gaid });
    const dir = await mkdtemp(join(tmpdir(), "worker-purged-"));
    const touches = await openLocalTouchStore(join(dir, "touches"));
    const attributions = await openLocalAttributionStore(join(dir, "attributions"));
    try {
      const click = contractTouch(APP.appId, Date.parse(install.firstOpenTime) - 10 * 60_000, {
        maid: gaid,
        source: "network",
        cost: { model: "CPI", value: 2, currency: "EUR" },
      });
      await touches.put([click]);
      await pending(attributions, install);
      const deletions: DeletionRequest[] = [];
      // src/deletion/deletions.ts's steps for the install, as the purge takes them.
      const purge = async () => {
        deletions.push({
          requestId: "r1",
          appId: APP.appId,
          serviceId: install.serviceId,
          status: "in_progress",
          requestedAt: new Date().toISOString(),
          completedAt: null,
        });
        const record = await attributions.get(APP.appId, install.serviceId);
        if (record?.state === "resolved" && record.result.clickId && record.result.touchTime) {
          await touches.releaseClaim({
            appId: APP.appId,
            clickId: record.result.clickId,
            serviceId: install.serviceId,
            touchTime: record.result.touchTime,
          });
        }
        await attributions.delete(APP.appId, install.serviceId);
      };
      let purged = false;
      const rows: LakeRecord[] = [];
      const worker = createAttributionWorker({
        apps: { get: async () => APP },
        installs: {
          get: async (_app, serviceId) => (serviceId === install.serviceId ? install : undefined),
          withIdfv: async () => [],
        },
        attributions,
        deletions: { listByInstall: async () => [...deletions] },
        touches: {
          get: (id) => touches.get(id),
          byIp: (ip, window) => touches.byIp(ip, window),
          installsAt: (ip, window, cap) => touches.installsAt(ip, window, cap),
          claimClick: (claim) => touches.claimClick(claim),
          releaseClaim: (claim) => touches.releaseClaim(claim),
          // The user's deletion is purged while the job reads the advertising id's touches.
          byMaid: async (maid, window) => {
            const found = await touches.byMaid(maid, window);
            if (!purged) {
              purged = true;
              await purge();
            }
            return found;
          },
        },
        lake: {
          attributions: { put: async (records) => void rows.push(...records) },
          events: { put: async (records) => void rows.push(...records) },
        },
        fx: FX,
        maxAttempts: 3,
      });
      await worker({
        id: "m1",
        attempt: 1,
        body: { appId: APP.appId, serviceId: install.serviceId },
      });
      expect(purged).toBe(true);
      expect(await attributions.get(APP.appId, install.serviceId)).toBeUndefined();
      expect(rows).toEqual([]);
      // The same phone installs again from the click: a new install, not the deleted one's device.
      const holder = await touches.claimClick({
        appId: APP.appId,
        clickId: click.clickId,
        serviceId: "deleted-device-2",
        touchTime: click.touchTime,
        device: deviceTag(APP.appId, gaid),
        own: true,
      });
      expect(holder).toBe("this_install");
    } finally {
      await touches.close();
      await attributions.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("puts a CPI touch's cost on the attribution row of the install it wins, in USD; a CPC touch's not", async () => {
    const GAID = "38400000-8cf0-11bd-b23e-10b96e40000d";
    const install = { ...INSTALL, maid: GAID };
    const tapped = Date.parse(INSTALL.firstOpenTime) - 10 * 60_000;
    const rowOf = async (cost: Touch["cost"]) => {
      const touch = contractTouch(APP.appId, tapped, { maid: GAID, cost });
      const { attributions, rows, worker, job } = setup({ install, byMaid: [touch] });
      await pending(attributions, install);
      await worker(job());
      expect(rows.attributions).toHaveLength(1);
      return rows.attributions[0];
    };
    expect(await rowOf({ model: "CPI", value: 2.5, currency: "EUR" })).toMatchObject({
      match_method: "advertising_id",
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "EUR",
      cost_usd: 2.75,
    });
    expect(await rowOf({ model: "CPC", value: 0.3, currency: "EUR" })).toMatchObject({
      match_method: "advertising_id",
      cost_model: null,
      cost_usd: null,
    });
  });
});
