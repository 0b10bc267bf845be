/**
 * Deleting an install's data (the SDKs' deleteUserData) over HTTP: hidden from exports at
 * once, then purged from every store, the lake included, and the request marked completed.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SNAPSHOT_HEADER } from "../../src/export/paging.ts";
import type { ExportRecord } from "../../src/record/columns.ts";
import { installRequest } from "../support/installs.ts";
import { lakeAttribution, lakeEvent } from "../support/records.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.deleting";
const DOOMED = "doomed-device-7f3a9c";
const KEPT = "kept-device-1b2c3d";

type Deletion = {
  request_id: string;
  service_id: string;
  status: string;
  requested_at: string;
  completed_at: string | null;
};

/** How long a purge may take on a busy machine: a flush, then a rewrite of the app's files. */
const PURGE_WAIT = { timeout: 30_000, interval: 100 };
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** Every file under a folder, recursively. */
const filesUnder = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

describe("deleting an install's data", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };

  /** The first page of the export from `since`: a snapshot of the window as it is now. */
  const exportIdsSince = async (since: number) => {
    const response = await rt.get(`/api/v1/export?timestamp=${since}`, keys.serverKey);
    return ((await response.json()) as { data: ExportRecord[] }).data.map((r) => r.service_id);
  };
  const exportIds = () => exportIdsSince(Math.floor(Date.now() / 1000) - 86_400);

  beforeAll(async () => {
    rt = await startTestRuntime({ purgeIntervalMs: 60_000 });
    keys = await rt.createApp(APP, "android");
    await rt.createApp("com.example.other", "android");
    for (const serviceId of [DOOMED, KEPT]) {
      await rt.post(
        "/v1/installs",
        {
          service_id: serviceId,
          os: "android",
          sdk_platform: "kotlin",
          sdk_version: "1.11.0",
          first_open_time: minutesAgo(90),
          customer_user_id: `user-of-${serviceId}`,
        },
        keys.sdkKey,
      );
      const response = await rt.post(
        "/v1/events",
        {
          events: Array.from({ length: 5 }, (_, i) => ({
            event_id: `${serviceId}-${i}`,
            service_id: serviceId,
            event_type: "LEVEL_START",
            event_time: minutesAgo(60 - i),
            customer_user_id: `user-of-${serviceId}`,
          })),
        },
        keys.sdkKey,
      );
      expect(((await response.json()) as { accepted: number }).accepted).toBe(5);
      await rt.streams.attributions.put([
        lakeAttribution({
          app_id: APP,
          service_id: serviceId,
          attributed_at: minutesAgo(89),
          media_source: "meta_ads",
        }),
      ]);
    }
    // The installs' own rows are written by the attribution worker, after their answers.
    await rt.workers.idle();
    await rt.flush();
    // One more event of the doomed install still waits in the stream when the request comes.
    await rt.post(
      "/v1/events",
      {
        events: [
          {
            event_id: `${DOOMED}-late`,
            service_id: DOOMED,
            event_type: "SHARE",
            event_time: minutesAgo(30),
          },
        ],
      },
      keys.sdkKey,
    );
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it("hides the install from exports at once and purges it from every store", async () => {
    // This export's snapshot is made now, before the request, and stays within its TTL.
    const since = Math.floor(Date.now() / 1000) - 86_400 - 5_000;
    const before = await rt.get(`/api/v1/export?timestamp=${since}`, keys.serverKey);
    const snapshot = before.headers.get(SNAPSHOT_HEADER);
    const beforeIds = ((await before.json()) as { data: ExportRecord[] }).data.map(
      (r) => r.service_id,
    );
    expect(beforeIds).toContain(DOOMED);

    const requested = await rt.fetch(`/v1/installs/${DOOMED}`, { method: "DELETE" }, keys.sdkKey);
    expect(requested.status).toBe(202);
    const request = (await requested.json()) as Deletion;
    expect(request).toMatchObject({ service_id: DOOMED, status: "pending", completed_at: null });
    // An SDK's retry answers the same request rather than making another, while it is open.
    const retried = await rt.fetch(`/v1/installs/${DOOMED}`, { method: "DELETE" }, keys.sdkKey);
    const retriedId = ((await retried.json()) as Deletion).request_id;
    if (retriedId === request.request_id) {
      expect((await rt.stores.deletions.listByApp(APP)).length).toBe(1);
    } else {
      // The purge the request began completed it first: the retry is a request of its own.
      expect((await rt.stores.deletions.get(request.request_id))?.status).toBe("completed");
    }

    // Its SDK sends on before the purge has run: nothing more of it is taken in, so nothing of
    // it can reach the lake after the purge.
    const after = await rt.post(
      "/v1/events",
      {
        events: [
          {
            event_id: `${DOOMED}-after`,
            service_id: DOOMED,
            event_type: "LOGIN",
            event_time: minutesAgo(1),
          },
        ],
      },
      keys.sdkKey,
    );
    expect(await after.json()).toMatchObject({
      accepted: 0,
      ignored: [
        {
          index: 0,
          event_id: `${DOOMED}-after`,
          reason: "install_deleted",
          detail: expect.stringMatching(/deleted/),
        },
      ],
    });

    const ids = await exportIds();
    expect(ids).not.toContain(DOOMED);
    expect(ids).toContain(KEPT);
    // The snapshot made before the request is stale: a page naming it is refused, a later page
    // naming none is refused too (its offset counts rows the new snapshot has not), and a new
    // export comes from a new snapshot without the install.
    const named = await rt.get(
      `/api/v1/export?timestamp=${since}&offset=1&snapshot=${snapshot}`,
      keys.serverKey,
    );
    expect(named.status).toBe(422);
    expect(((await named.json()) as { detail: string }).detail).toMatch(/deletion request/);
    const unnamed = await rt.get(`/api/v1/export?timestamp=${since}&offset=1`, keys.serverKey);
    expect(unnamed.status).toBe(422);
    expect(((await unnamed.json()) as { detail: string }).detail).toMatch(
      /^offset: .* deletion request .*; start the export again at offset 0$/,
    );
    const next = await rt.get(`/api/v1/export?timestamp=${since}&offset=0`, keys.serverKey);
    expect(next.headers.get(SNAPSHOT_HEADER)).not.toBe(snapshot);
    const again = ((await next.json()) as { data: ExportRecord[] }).data.map((r) => r.service_id);
    expect(again).not.toContain(DOOMED);
    expect(again).toContain(KEPT);

    let status: Deletion | undefined;
    for (let attempt = 0; attempt < 300 && status?.status !== "completed"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await rt.get(`/v1/deletions/${request.request_id}`, keys.serverKey);
      expect(response.status).toBe(200);
      status = (await response.json()) as Deletion;
    }
    expect(status).toMatchObject({ status: "completed", completed_at: expect.any(String) });

    expect(await rt.stores.installs.get(APP, DOOMED)).toBeUndefined();
    expect(await rt.stores.customerUsers.get(APP, `user-of-${DOOMED}`)).toBeUndefined();
    expect(await rt.stores.installs.get(APP, KEPT)).toMatchObject({ appId: APP, serviceId: KEPT });

    // No file of the lake, its write-ahead files or the export snapshots holds the id: not
    // in any Parquet row (read with DuckDB) and not in any file's raw bytes.
    const files = [
      ...(await filesUnder(join(rt.config.dataDir, "lake"))),
      ...(await filesUnder(join(rt.config.dataDir, "wal"))),
      ...(await filesUnder(join(rt.config.dataDir, "snapshots"))),
    ];
    expect(files.some((f) => f.endsWith(".parquet"))).toBe(true);
    for (const file of files) {
      expect((await readFile(file)).includes(DOOMED), file).toBe(false);
    }
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    const lake = join(rt.config.dataDir, "lake");
    const rows = await connection.runAndReadAll(
      `SELECT count(*)::INTEGER AS doomed FROM read_parquet('${lake}/*/*/*/*.parquet', union_by_name = true)
       WHERE service_id = '${DOOMED}'`,
    );
    const kept = await connection.runAndReadAll(
      `SELECT count(*)::INTEGER AS kept FROM read_parquet('${lake}/events/*/*/*.parquet') WHERE service_id = '${KEPT}'`,
    );
    connection.closeSync();
    duckdb.closeSync();
    expect(rows.getRowObjectsJS()[0]).toEqual({ doomed: 0 });
    // Its five events and its own install event.
    expect(kept.getRowObjectsJS()[0]).toEqual({ kept: 6 });
  });

  it("never takes the deleted install in again, even when its SDK sends it anew", async () => {
    const again = await rt.post(
      "/v1/installs",
      {
        service_id: DOOMED,
        os: "android",
        sdk_platform: "kotlin",
        sdk_version: "1.11.0",
        first_open_time: minutesAgo(90),
      },
      keys.sdkKey,
    );
    expect(again.status).toBe(202);
    expect(await rt.stores.installs.get(APP, DOOMED)).toBeUndefined();
    const response = await rt.post(
      "/v1/events",
      {
        events: [
          { event_id: "after", service_id: DOOMED, event_type: "LOGIN", event_time: minutesAgo(1) },
          {
            event_id: "manual",
            service_id: DOOMED,
            event_type: "INSTALL",
            event_time: minutesAgo(1),
          },
        ],
      },
      keys.sdkKey,
    );
    const answer = (await response.json()) as {
      accepted: number;
      ignored: { index: number; detail: string }[];
      rejected: unknown[];
    };
    expect(answer).toMatchObject({ accepted: 0, rejected: [] });
    // In the order of the batch, whichever reason each has.
    expect(answer.ignored.map((i) => i.index)).toEqual([0, 1]);
    expect(answer.ignored[0]?.detail).toMatch(/deleted/);
  });
});

describe("a purge beside the rest of the service's work", () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    // Purges run when requested only.
    rt = await startTestRuntime({ purgeIntervalMs: 600_000 });
  });

  afterAll(async () => {
    await rt.dispose();
  });

  const completed = async (appKeys: { serverKey: string }, requestId: string) =>
    expect
      .poll(async () => {
        const response = await rt.get(`/v1/deletions/${requestId}`, appKeys.serverKey);
        return ((await response.json()) as Deletion).status;
      }, PURGE_WAIT)
      .toBe("completed");

  /**
   * Holds the purge's next look at the open requests until the answer is called: what is asked
   * meanwhile meets its request still open, however fast the purge the request began would be.
   */
  const holdingPurge = () => {
    const deletions = rt.stores.deletions;
    const listOpen = deletions.listOpen.bind(deletions);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    deletions.listOpen = async () => {
      await released;
      return listOpen();
    };
    return () => {
      deletions.listOpen = listOpen;
      release();
    };
  };

  const lakeRowsOf = async (appId: string, serviceId: string): Promise<number> => {
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    try {
      const lake = join(rt.config.dataDir, "lake");
      const files = (await filesUnder(lake)).filter((file) => file.endsWith(".parquet"));
      if (files.length === 0) return 0;
      const rows = await connection.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM read_parquet([${files.map((f) => `'${f}'`).join(", ")}],
           union_by_name = true, hive_partitioning = true)
         WHERE app_id = '${appId}' AND service_id = '${serviceId}'`,
      );
      return Number(rows.getRowsJS()[0]?.[0]);
    } finally {
      connection.closeSync();
      duckdb.closeSync();
    }
  };

  it("waits for a batch that found the install alive before its deletion, so none of it outlives the purge", async () => {
    const app = "com.example.deleting.race";
    const doomed = "doomed-while-sending";
    const appKeys = await rt.createApp(app, "android");
    const installed = await rt.post(
      "/v1/installs",
      {
        service_id: doomed,
        os: "android",
        sdk_platform: "kotlin",
        sdk_version: "1.11.0",
        first_open_time: minutesAgo(90),
      },
      appKeys.sdkKey,
    );
    expect(installed.status).toBe(202);
    await rt.flush();

    // The batch's check that the install is not deleted is answered, then held: its writes
    // come once the deletion has been requested.
    const deletions = rt.stores.deletions;
    const listByInstall = deletions.listByInstall.bind(deletions);
    let checked: () => void = () => undefined;
    const batchChecked = new Promise<void>((resolve) => {
      checked = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = false;
    deletions.listByInstall = async (appId, serviceId) => {
      const found = await listByInstall(appId, serviceId);
      if (!held && serviceId === doomed) {
        held = true;
        checked();
        await released;
      }
      return found;
    };
    try {
      const batch = rt.post(
        "/v1/events",
        {
          events: [
            {
              event_id: "sent-as-deleted",
              service_id: doomed,
              event_type: "LOGIN",
              event_time: minutesAgo(1),
              customer_user_id: "user-while-deleting",
            },
          ],
        },
        appKeys.sdkKey,
      );
      await batchChecked;
      const requested = await rt.fetch(
        `/v1/installs/${doomed}`,
        { method: "DELETE" },
        appKeys.sdkKey,
      );
      expect(requested.status).toBe(202);
      const { request_id } = (await requested.json()) as Deletion;
      // The purge, begun at the request, waits for the batch: it does not complete meanwhile
      // (it does within a second when it does not wait).
      let whileHeld = "";
      for (let tries = 0; tries < 30 && whileHeld !== "completed"; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const status = await rt.get(`/v1/deletions/${request_id}`, appKeys.serverKey);
        whileHeld = ((await status.json()) as Deletion).status;
      }
      expect(whileHeld).not.toBe("completed");
      release();
      expect(((await (await batch).json()) as { accepted: number }).accepted).toBe(1);
      await completed(appKeys, request_id);
    } finally {
      deletions.listByInstall = listByInstall;
      release();
    }
    await rt.flush();
    expect(await lakeRowsOf(app, doomed)).toBe(0);
    expect(await rt.stores.customerUsers.get(app, "user-while-deleting")).toBeUndefined();
  });

  it("takes a server's events for a user of two devices to the other once the latest one's data is deleted", async () => {
    const app = "com.example.deleting.devices";
    const appKeys = await rt.createApp(app, "android");
    const USER = "two-devices";
    // The person signed in on a tablet, then on a phone: the phone is the latest.
    for (const [serviceId, minutes] of [
      ["tablet", 20],
      ["phone", 10],
    ] as const) {
      const installed = await rt.post(
        "/v1/installs",
        installRequest(serviceId, { os: "android", idfv: null, first_open_time: minutesAgo(60) }),
        appKeys.sdkKey,
      );
      expect(installed.status).toBe(202);
      const used = await rt.post(
        "/v1/events",
        {
          events: [
            {
              event_id: `login-${serviceId}`,
              service_id: serviceId,
              event_type: "LOGIN",
              event_time: minutesAgo(minutes),
              customer_user_id: USER,
            },
          ],
        },
        appKeys.sdkKey,
      );
      expect(await used.json()).toMatchObject({ accepted: 1 });
    }
    const purchase = async (eventId: string) => {
      const response = await rt.post(
        "/v1/s2s/events",
        {
          events: [
            {
              event_id: eventId,
              customer_user_id: USER,
              event_type: "PURCHASE",
              event_time: minutesAgo(1),
              parameters: { revenue: 5, currency: "USD" },
            },
          ],
        },
        appKeys.serverKey,
      );
      return response.json();
    };
    // The phone's data deleted: asked for, then purged.
    const asked = await rt.fetch("/v1/installs/phone", { method: "DELETE" }, appKeys.sdkKey);
    expect(asked.status).toBe(202);
    expect(await purchase("while-asked")).toMatchObject({ accepted: 1, ignored: [] });
    await completed(appKeys, ((await asked.json()) as Deletion).request_id);
    expect(await purchase("after-purge")).toMatchObject({ accepted: 1, ignored: [] });
    await rt.flush();
    const since = Math.floor(Date.now() / 1000) - 3_600;
    const exported = await rt.get(`/api/v1/export?timestamp=${since}`, appKeys.serverKey);
    const { data } = (await exported.json()) as { data: ExportRecord[] };
    expect(
      data
        .filter((row) => ["while-asked", "after-purge"].includes(row.event_id ?? ""))
        .map((row) => [row.event_id, row.service_id]),
    ).toEqual([
      ["while-asked", "tablet"],
      ["after-purge", "tablet"],
    ]);
  });

  it("counts a deleted install's device installing again from the same click as a new install", async () => {
    const app = "com.example.deleting.ios";
    const ios = await rt.createApp(app, "ios");
    const idfa = "3D4A6C2E-8F1B-4E7A-9C5D-2B6E8A4F1C3D";
    const reported = await rt.post(
      "/v1/touches",
      {
        touches: [
          {
            touch_type: "click",
            touch_time: minutesAgo(120),
            media_source: "network_b",
            campaign_name: "Spring",
            maid: idfa,
          },
        ],
      },
      ios.serverKey,
    );
    expect(reported.status).toBe(202);
    const install = async (serviceId: string) => {
      const response = await rt.post(
        "/v1/installs",
        installRequest(serviceId, {
          maid: idfa,
          att_status: "authorized",
          first_open_time: minutesAgo(30),
        }),
        ios.sdkKey,
      );
      expect(response.status).toBe(202);
      expect(await rt.attributionOf(serviceId, ios.sdkKey)).toMatchObject({
        media_source: "network_b",
      });
    };
    const installTypes = async () => {
      await rt.workers.idle();
      await rt.flush();
      const response = await rt.get(
        `/api/v1/export?timestamp=${(Date.now() / 1000 - 7_200) | 0}`,
        ios.serverKey,
      );
      const { data } = (await response.json()) as { data: ExportRecord[] };
      return Object.fromEntries(
        data
          .filter((record) => record.event_name === "service_install")
          .map((record) => [record.service_id, record.install_type]),
      );
    };

    await install("ios-first");
    // The phone installs again while its first install stands: that install holds the click.
    await install("ios-again");
    expect(await installTypes()).toEqual({
      "ios-first": "new_install",
      "ios-again": "reinstall_same_device",
    });

    for (const serviceId of ["ios-first", "ios-again"]) {
      const requested = await rt.fetch(
        `/v1/installs/${serviceId}`,
        { method: "DELETE" },
        ios.sdkKey,
      );
      await completed(ios, ((await requested.json()) as Deletion).request_id);
    }
    // Both gone, as docs/attribution.md says of a deleted install: the phone's next install
    // from the same click is new, and pays the click's price again.
    await install("ios-after");
    expect(await installTypes()).toEqual({ "ios-after": "new_install" });
  });

  it("makes one request of an install's two deletions asked at once, and another once it is completed", async () => {
    const app = await rt.createApp("com.example.deleting.twice", "android");
    const ask = async () => {
      const response = await rt.fetch("/v1/installs/asked-twice", { method: "DELETE" }, app.sdkKey);
      expect(response.status).toBe(202);
      return (await response.json()) as Deletion;
    };
    // An SDK's retry beside its first try, each on its own connection.
    let release = holdingPurge();
    const [first, second] = await Promise.all([ask(), ask()]);
    release();
    expect(second.request_id).toBe(first.request_id);
    expect(
      (await rt.stores.deletions.listByInstall("com.example.deleting.twice", "asked-twice")).map(
        (request) => request.requestId,
      ),
    ).toEqual([first.request_id]);

    await completed(app, first.request_id);
    release = holdingPurge();
    const [third, fourth] = await Promise.all([ask(), ask()]);
    release();
    expect(third.request_id).not.toBe(first.request_id);
    expect(fourth.request_id).toBe(third.request_id);
    await completed(app, third.request_id);
  });

  it("withdraws an export's snapshot once for an install with data, and never for an id the app never had", async () => {
    const app = await rt.createApp("com.example.deleting.paged", "android");
    const since = Math.floor(Date.now() / 1000) - 3_600;
    for (const serviceId of ["paged-a", "paged-b"]) {
      const installed = await rt.post(
        "/v1/installs",
        installRequest(serviceId, { os: "android", first_open_time: minutesAgo(50) }),
        app.sdkKey,
      );
      expect(installed.status).toBe(202);
      const sent = await rt.post(
        "/v1/events",
        {
          events: [0, 1].map((i) => ({
            event_id: `${serviceId}-${i}`,
            service_id: serviceId,
            event_type: "LEVEL_START",
            event_time: minutesAgo(40 - i),
          })),
        },
        app.sdkKey,
      );
      expect(((await sent.json()) as { accepted: number }).accepted).toBe(2);
    }
    await rt.flush();
    const firstPage = async () => {
      const page = await rt.get(`/api/v1/export?timestamp=${since}&limit=1`, app.serverKey);
      expect(page.status).toBe(200);
      await page.arrayBuffer();
      return page.headers.get(SNAPSHOT_HEADER);
    };
    const secondPage = async (snapshot: string | null) => {
      const page = await rt.get(
        `/api/v1/export?timestamp=${since}&limit=1&offset=1&snapshot=${snapshot}`,
        app.serverKey,
      );
      await page.arrayBuffer();
      return page.status;
    };
    const requestDeletion = async (serviceId: string) => {
      const answer = await rt.fetch(`/v1/installs/${serviceId}`, { method: "DELETE" }, app.sdkKey);
      expect(answer.status).toBe(202);
      await answer.arrayBuffer();
    };

    // Anyone with the app's public key may name an id: one the app never had withdraws nothing.
    let snapshot = await firstPage();
    await requestDeletion("never-installed-9d1e");
    await requestDeletion("never-installed-9d1e");
    expect(await secondPage(snapshot)).toBe(200);
    // An install with data withdraws the snapshots made before its request, once: asked again,
    // the request changes nothing.
    await requestDeletion("paged-a");
    expect(await secondPage(snapshot)).toBe(422);
    snapshot = await firstPage();
    await requestDeletion("paged-a");
    expect(await secondPage(snapshot)).toBe(200);
  });

  it("leaves another app's export alone when its install has the deleted install's id", async () => {
    const shared = "device-id-in-two-apps";
    const deleting = await rt.createApp("com.example.deleting.one", "android");
    const other = await rt.createApp("com.example.deleting.two", "android");
    const since = Math.floor(Date.now() / 1000) - 3_600;
    // The deleting app stored the install; the rows below stand for its events.
    const installed = await rt.post(
      "/v1/installs",
      installRequest(shared, { os: "android", first_open_time: minutesAgo(40) }),
      deleting.sdkKey,
    );
    expect(installed.status).toBe(202);
    await rt.streams.events.put(
      ["com.example.deleting.one", "com.example.deleting.two", "com.example.deleting.two"].map(
        (appId, i) =>
          lakeEvent({
            app_id: appId,
            service_id: i < 2 ? shared : "another-device",
            event_time: minutesAgo(30 - i),
          }),
      ),
    );
    await rt.flush();
    // The other app's export pages through its snapshot, which holds a row of the shared id.
    const first = await rt.get(`/api/v1/export?timestamp=${since}&limit=1`, other.serverKey);
    expect(first.status).toBe(200);
    const snapshot = first.headers.get(SNAPSHOT_HEADER);
    await first.arrayBuffer();

    const requested = await rt.fetch(
      `/v1/installs/${shared}`,
      { method: "DELETE" },
      deleting.sdkKey,
    );
    const { request_id } = (await requested.json()) as Deletion;
    await completed(deleting, request_id);

    const next = await rt.get(
      `/api/v1/export?timestamp=${since}&limit=1&offset=1&snapshot=${snapshot}`,
      other.serverKey,
    );
    expect(next.status, await next.clone().text()).toBe(200);
    expect(((await next.json()) as { data: ExportRecord[] }).data).toHaveLength(1);
    expect(await lakeRowsOf("com.example.deleting.two", shared)).toBe(1);
    expect(await lakeRowsOf("com.example.deleting.one", shared)).toBe(0);
  });
});
