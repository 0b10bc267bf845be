/**
 * The README's flow with the real command line: `start` as its own process, `apps create`,
 * `demo` and `export` from other processes, then a restart that keeps apps, keys and events.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { dataPaths, readRuntimeInfo, writeRuntimeInfo } from "../../src/embedded/data-dir.ts";
import {
  AAK_DEVELOPMENT,
  SKAN_4_COARSE,
  SKAN_4_FINE,
} from "../../src/skadnetwork/apple-samples.test-support.ts";
import { PIXEL } from "../support/agents.ts";
import { installRequest } from "../support/installs.ts";
import { clearOfMidnight } from "../support/midnight.ts";
import { startMockNetwork } from "../support/mock-network.ts";
import { cli, cliWithEnv, type Service, startService, stopService } from "../support/service.ts";

/** The longest the cohorts' recount runs: its two waits for the lake, and its reads. */
const RECOUNT_MS = 60_000;

// Each test spawns the command line a dozen times or more, a second or three each on a loaded
// machine: a test's time is the suite's default several times over.
describe("the attribution command line", { timeout: 240_000 }, () => {
  let dataDir: string;
  let service: Service;
  let serverKey: string;
  let duckdb: DuckDBInstance;
  /** What `attribution demo` printed. */
  let demoOutput = "";

  /** `attribution keys create` for the game app; its JSON answer. */
  const createKey = async (kind: "sdk" | "server"): Promise<{ key: string; keyId: string }> =>
    JSON.parse(
      await cli(
        dataDir,
        "keys",
        "create",
        "--app-id",
        "com.example.game",
        "--kind",
        kind,
        "--json",
      ),
    );

  const since = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  const exportAll = async (format: string) => {
    const output = join(dataDir, `export.${format}`);
    const stdout = await cli(
      dataDir,
      "export",
      "--since",
      since,
      "--format",
      format,
      "-o",
      output,
      "--key",
      serverKey,
      "--page-size",
      "700",
      "--no-progress",
    );
    const count = Number(/Wrote (\d+) events/.exec(stdout)?.[1]);
    return { output, count };
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "attribution-cli-"));
    duckdb = await DuckDBInstance.create(":memory:");
    // As `npm start` runs it: the demo's devices each name their own address from loopback,
    // which the service trusts by default.
    service = await startService(dataDir, { ATTRIBUTION_FLUSH_INTERVAL_MS: "200" });
  });

  afterAll(async () => {
    duckdb.closeSync();
    await stopService(service.child);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("creates an app and prints its keys once", async () => {
    const created = JSON.parse(
      await cli(
        dataDir,
        "apps",
        "create",
        "--app-id",
        "com.example.game",
        "--name",
        "Example Game",
        "--platform",
        "android",
        "--json",
      ),
    );
    expect(created.app).toMatchObject({
      appId: "com.example.game",
      platform: "android",
      enabled: true,
    });
    serverKey = created.keys.find((k: { kind: string }) => k.kind === "server").key;
    expect(serverKey).toMatch(/^srv_/);
    await expect(
      cli(
        dataDir,
        "apps",
        "create",
        "--app-id",
        "com.example.game",
        "--name",
        "Again",
        "--platform",
        "android",
      ),
    ).rejects.toThrow(/already exists/);
  });

  it("drives demo traffic through the service, whose matcher makes every attribution", async () => {
    // Three days back from now hold one whole UTC day whose day 1 is over, whatever the hour:
    // the cohorts' retention below needs one (two days back, late in a day, held minutes of it).
    const stdout = await cli(dataDir, "demo", "--days", "3", "--installs", "60");
    demoOutput = stdout;
    // The game's table: what caused each install, and what the service found.
    const game = stdout.slice(
      stdout.indexOf("com.example.game:"),
      stdout.indexOf("com.example.shop:"),
    );
    const row = (cause: string) => {
      const cells = new RegExp(`${cause}\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)`).exec(game);
      // A cause the demo's world drew no install of has no row: zeros.
      const [network = 0, geo = 0, organic = 0, other = 0] = (cells?.slice(1) ?? []).map(Number);
      return { network, geo, organic, other };
    };
    // A tap's click id and a click's advertising id never miss.
    expect(row("link tap")).toEqual({ network: 2, geo: 0, organic: 0, other: 0 });
    // (Counts only above zero: the demo's world is drawn afresh from the clock.)
    const byAdId = row("ad id click");
    expect(byAdId.network).toBeGreaterThan(0);
    expect(byAdId).toMatchObject({ geo: 0, organic: 0, other: 0 });
    // A view of the ad on the advertising id is found too, but a household's tap at the same
    // address, matched by IP and device, takes the install from it: a click beats a view.
    const byAdView = row("ad id view");
    expect(byAdView).toMatchObject({ organic: 0, other: 0 });
    const byAddress = row("ip and device");
    expect(byAddress.geo).toBeGreaterThan(0);
    // An organic install is never credited to a network's touch.
    const organic = row("organic");
    expect(organic.organic).toBeGreaterThan(0);
    expect(organic).toMatchObject({ network: 0, other: 0 });
    // Both installs made now read their link's deep link path back.
    const deferred = [
      ...game.matchAll(/(\d+) new installs? opened at \/\S+ \(its deferred deep link\)/g),
    ];
    expect(deferred.reduce((sum, [, n]) => sum + Number(n), 0)).toBe(2);

    // The export holds one install event per install, attributed as the service answered.
    const installs = async () => {
      const response = await fetch(
        `${service.url}/api/v1/export?timestamp=${Math.floor(Date.now() / 1000) - 3 * 86_400}&format=ndjson`,
        { headers: { authorization: serverKey } },
      );
      return (await response.text())
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((event) => event.event_name === "service_install");
    };
    await expect.poll(async () => (await installs()).length, { timeout: 20_000 }).toBe(62);
    const rows = await installs();
    const count = (type: string | null) => rows.filter((r) => r.matching_type === type).length;
    expect(count("network")).toBe(2 + byAdId.network + byAdView.network);
    expect(count("geo")).toBe(byAddress.geo + byAdView.geo + organic.geo);
    expect(rows.filter((r) => r.media_source === "organic")).toHaveLength(count(null));
    expect(rows.every((r) => r.country !== null)).toBe(true);
  });

  it("reports the demo's cohorts as a recount of the export and the sessions table gives them", {
    timeout: RECOUNT_MS + 70_000,
  }, async () => {
    // The recount's days reached are of `today`, the service's of its own clock at each answer:
    // both the same day only if no midnight (UTC) falls between them.
    await clearOfMidnight(RECOUNT_MS);
    const exported = async () => {
      const response = await fetch(
        `${service.url}/api/v1/export?timestamp=${Date.parse(`${since}T00:00:00Z`) / 1000}&format=ndjson&limit=10000`,
        { headers: { authorization: serverKey } },
      );
      return (await response.text())
        .split("\n")
        .filter(Boolean)
        .map(
          (line) =>
            JSON.parse(line) as {
              service_id: string;
              event_name: string;
              event_time: string;
              revenue_usd: number | null;
              media_source: string | null;
              campaign_id: string | null;
              campaign_name: string | null;
            },
        );
    };
    const today = new Date().toISOString().slice(0, 10);
    const cohortsOf = async () => {
      const response = await fetch(`${service.url}/v1/reports/cohorts?from=${since}&to=${today}`, {
        headers: { authorization: serverKey },
      });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        totals: {
          installs: number;
          cost_usd: number | null;
          ecpi_usd: number | null;
          retention: { d1: number | null };
          roas: { d0: number | null };
        };
        cohorts: {
          day: string;
          installs: number;
          retention: (number | null)[];
          revenue_per_user: (number | null)[];
        }[];
      };
    };
    const sessionsFile = join(
      dataDir,
      "lake",
      "sessions",
      "app_id=com.example.game",
      "*",
      "*.parquet",
    );
    const sessionDays = async () => {
      const connection = await duckdb.connect();
      try {
        const rows = await connection.runAndReadAll(
          `SELECT DISTINCT service_id, strftime(started_at, '%Y-%m-%d') AS day FROM read_parquet('${sessionsFile}')`,
        );
        return rows.getRowObjectsJS() as { service_id: string; day: string }[];
      } catch {
        return [];
      }
    };
    // Every install, each with its first session, is in the lake once the streams flush. Watched
    // through the export, not the cohorts, whose answer the service keeps for a while: asked
    // once all is in, it is of them all.
    await expect
      .poll(
        async () =>
          (await exported()).filter((event) => event.event_name === "service_install").length,
        { timeout: 20_000 },
      )
      .toBe(62);
    await expect
      .poll(async () => new Set((await sessionDays()).map((s) => s.service_id)).size, {
        timeout: 20_000,
      })
      .toBe(62);

    const [report, events, sessions] = await Promise.all([cohortsOf(), exported(), sessionDays()]);
    expect(report.totals.installs).toBe(62);
    // The export holds the spec's events only: no session is one of them.
    expect(events.some((event) => /session/i.test(event.event_name))).toBe(false);
    const installDay = new Map(
      events
        .filter((event) => event.event_name === "service_install")
        .map((event) => [event.service_id, event.event_time.slice(0, 10)]),
    );
    const active = new Set(sessions.map((s) => `${s.service_id} ${s.day}`));
    const plusDays = (day: string, n: number) =>
      new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    const recount = [...new Set(installDay.values())].sort().map((day) => {
      const cohort = [...installDay].filter(([, d]) => d === day).map(([id]) => id);
      const revenueTo = (n: number) =>
        events
          .filter(
            (e) =>
              cohort.includes(e.service_id) &&
              e.event_time.slice(0, 10) <= plusDays(day, n) &&
              e.revenue_usd !== null,
          )
          .reduce((sum, e) => sum + (e.revenue_usd ?? 0), 0);
      // A day since install counts once it is over: today is still under way.
      const retained = (n: number) =>
        plusDays(day, n) >= today
          ? null
          : Math.round(
              (cohort.filter((id) => active.has(`${id} ${plusDays(day, n)}`)).length /
                cohort.length) *
                1e4,
            ) / 1e4;
      const perUser = (n: number) =>
        plusDays(day, n) >= today ? null : Math.round((revenueTo(n) / cohort.length) * 1e6) / 1e6;
      return {
        day,
        installs: cohort.length,
        retention: [0, 1, 2].map(retained),
        revenue_per_user: [0, 1, 2].map(perUser),
      };
    });
    expect(
      report.cohorts.map((c) => ({
        day: c.day,
        installs: c.installs,
        retention: c.retention.slice(0, 3),
        revenue_per_user: c.revenue_per_user
          .slice(0, 3)
          .map((v) => (v === null ? null : Number(v.toFixed(4)))),
      })),
    ).toEqual(
      recount.map((c) => ({
        ...c,
        revenue_per_user: c.revenue_per_user.map((v) => (v === null ? null : Number(v.toFixed(4)))),
      })),
    );
    // Sessions came back on later days, and the demo's networks reported what they cost.
    expect(report.totals.retention.d1).toBeGreaterThan(0);
    expect(report.totals.cost_usd).toBeGreaterThan(0);
    // The demo sent its cost rows twice; each is stored once, and the report counts it once.
    const listed = (await (
      await fetch(`${service.url}/v1/costs?from=${since}&to=${today}`, {
        headers: { authorization: serverKey },
      })
    ).json()) as {
      data: {
        day: string;
        media_source: string;
        campaign_id: string;
        campaign_name: string | null;
        amount_usd: number | null;
      }[];
    };
    const game = demoOutput.slice(
      demoOutput.indexOf("com.example.game:"),
      demoOutput.indexOf("com.example.shop:"),
    );
    const sent = Number(/(\d+) cost rows/.exec(game)?.[1]);
    expect(sent).toBeGreaterThan(0);
    expect(listed.data).toHaveLength(sent);
    expect(report.totals.cost_usd).toBeCloseTo(
      listed.data.reduce((sum, row) => sum + (row.amount_usd ?? 0), 0),
      4,
    );
    // eCPI and ROAS on day 0 over the paid installs (won by a media source other than organic)
    // of the campaigns with a cost in the range (a live install's network may have none),
    // recounted from the export: cost over their number, their install day's revenue over cost
    // (which the demo's random purchases may leave at none). A campaign is a cost row's by its id
    // when both name one, else by its name, whatever its case and spaces.
    const paidWithCost = (to: string) => {
      const costed = listed.data.filter((row) => row.day <= to && (row.amount_usd ?? 0) > 0);
      const named = (a: string | null, b: string | null) =>
        a !== null && b !== null && a.trim().toLowerCase() === b.trim().toLowerCase();
      return new Set(
        events
          .filter(
            (e) =>
              e.event_name === "service_install" &&
              e.media_source !== null &&
              e.media_source !== "organic" &&
              costed.some(
                (row) =>
                  row.media_source === e.media_source &&
                  (e.campaign_id !== null
                    ? row.campaign_id.trim() === e.campaign_id.trim()
                    : named(row.campaign_name, e.campaign_name)),
              ),
          )
          .map((e) => e.service_id),
      );
    };
    const paid = paidWithCost(today);
    expect(paid.size).toBeGreaterThan(0);
    const cost = report.totals.cost_usd ?? Number.NaN;
    expect(report.totals.ecpi_usd).toBeCloseTo(cost / paid.size, 4);
    // ROAS D0 counts the days whose day 0 is over: a window to yesterday holds those alone.
    const yesterday = plusDays(today, -1);
    const closed = (await (
      await fetch(`${service.url}/v1/reports/cohorts?from=${since}&to=${yesterday}`, {
        headers: { authorization: serverKey },
      })
    ).json()) as { totals: { cost_usd: number | null; roas: { d0: number | null } } };
    const paidBefore = paidWithCost(yesterday);
    const paidDayZeroRevenue = events
      .filter(
        (e) =>
          paidBefore.has(e.service_id) &&
          (installDay.get(e.service_id) ?? today) <= yesterday &&
          e.revenue_usd !== null &&
          e.event_time.slice(0, 10) === installDay.get(e.service_id),
      )
      .reduce((sum, e) => sum + (e.revenue_usd ?? 0), 0);
    const closedCost = closed.totals.cost_usd;
    if (closedCost === null || closedCost === 0) expect(closed.totals.roas.d0).toBeNull();
    else expect(closed.totals.roas.d0).toBeCloseTo(paidDayZeroRevenue / closedCost, 4);
    // Today's installs and spend are in the report's totals, and not yet in its ROAS D0.
    expect(report.totals.roas.d0).toBe(closed.totals.roas.d0);
  });

  it("exports the whole window to one parquet file, page by page, in export order", async () => {
    const { output, count } = await exportAll("parquet");
    expect(count).toBeGreaterThan(700);
    const connection = await duckdb.connect();
    const reader = await connection.runAndReadAll(
      `SELECT count(*)::INTEGER AS n, count(DISTINCT event_id)::INTEGER AS ids, bool_and(app_id = 'com.example.game') AS mine FROM read_parquet('${output}')`,
    );
    const ids = await connection.runAndReadAll(`SELECT event_id FROM read_parquet('${output}')`);
    connection.closeSync();
    expect(reader.getRowObjectsJS()[0]).toEqual({ n: count, ids: count, mine: true });
    const timestamp = Date.parse(`${since}T00:00:00Z`) / 1000;
    const whole = await fetch(
      `${service.url}/api/v1/export?timestamp=${timestamp}&format=ndjson&limit=10000`,
      { headers: { authorization: serverKey } },
    );
    const lines = (await whole.text()).trim().split("\n");
    expect(ids.getRowsJS().map(([id]) => id)).toEqual(lines.map((l) => JSON.parse(l).event_id));
  });

  it("exports from no other folder's service: a folder where none runs is said, not guessed", async () => {
    const empty = await mkdtemp(join(tmpdir(), "attribution-cli-none-"));
    try {
      const args = ["--since", since, "-o", join(empty, "out.json"), "--key", serverKey];
      await expect(cli(empty, "export", ...args)).rejects.toThrow(
        new RegExp(`No service runs on ${empty}.*--url`),
      );
      await expect(readdir(empty)).resolves.toEqual([]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("joins pages of csv, tsv and ndjson into the bytes of the window in one page", async () => {
    for (const format of ["csv", "tsv", "ndjson"]) {
      const { output, count } = await exportAll(format);
      // Pages of 700: the window is more than one page, and less than the largest page.
      expect(count).toBeGreaterThan(700);
      expect(count).toBeLessThanOrEqual(10_000);
      const timestamp = Date.parse(`${since}T00:00:00Z`) / 1000;
      const whole = await fetch(
        `${service.url}/api/v1/export?timestamp=${timestamp}&format=${format}&limit=10000`,
        { headers: { authorization: serverKey } },
      );
      expect(whole.headers.get("x-export-snapshot-rows")).toBe(String(count));
      expect(await readFile(output, "utf8")).toBe(await whole.text());
    }
  });

  it("issues, lists and revokes keys; a revoked key stops working at once", async () => {
    const issued = await createKey("server");
    const exportWith = (key: string) =>
      fetch(`${service.url}/api/v1/export?timestamp=0&limit=1`, {
        headers: { authorization: key },
      });
    expect((await exportWith(issued.key)).status).toBe(200);
    const listed = JSON.parse(
      await cli(dataDir, "keys", "list", "--app-id", "com.example.game", "--json"),
    );
    expect(listed.map((k: { keyId: string }) => k.keyId)).toContain(issued.keyId);
    expect(JSON.stringify(listed)).not.toContain(issued.key);
    expect(listed.every((k: Record<string, unknown>) => !("hash" in k))).toBe(true);
    // Named with another app, it is left as it is.
    await cli(
      dataDir,
      "apps",
      "create",
      "--app-id",
      "com.example.other",
      "--name",
      "Other",
      "--platform",
      "ios",
    );
    await expect(
      cli(dataDir, "keys", "revoke", issued.keyId, "--app-id", "com.example.other"),
    ).rejects.toThrow(/is not a key of com\.example\.other: it was not revoked/);
    expect((await exportWith(issued.key)).status).toBe(200);
    await cli(dataDir, "keys", "revoke", issued.keyId, "--app-id", "com.example.game");
    expect((await exportWith(issued.key)).status).toBe(401);
    expect((await exportWith(serverKey)).status).toBe(200);
  });

  it("switches an app off and on, and sealing on, in its remote configuration", async () => {
    const sdkKey = (await createKey("sdk")).key;
    const config = async () =>
      (await fetch(`${service.url}/v1/config`, { headers: { authorization: sdkKey } })).json();
    const ignoredOf = z.object({ ignored: z.array(z.object({ detail: z.string() })) });
    const sendEvent = async () =>
      ignoredOf.parse(
        await (
          await fetch(`${service.url}/v1/events`, {
            method: "POST",
            headers: { authorization: sdkKey, "content-type": "application/json" },
            body: JSON.stringify({
              events: [
                {
                  event_id: "cli-disabled-1",
                  service_id: "cli-install-1",
                  event_type: "LOGIN",
                  event_time: new Date().toISOString(),
                },
              ],
            }),
          })
        ).json(),
      );
    // The service has read the app (and keeps it in memory) before the CLI changes it.
    expect((await sendEvent()).ignored).toEqual([]);
    await cli(dataDir, "apps", "config", "--app-id", "com.example.game", "--disable");
    expect(await config()).toMatchObject({ enabled: false, encryption: { enabled: false } });
    expect((await sendEvent()).ignored[0]?.detail).toMatch(/disabled/);
    expect(
      await cli(
        dataDir,
        "apps",
        "config",
        "--app-id",
        "com.example.game",
        "--enable",
        "--encryption",
        "on",
      ),
    ).toMatch(/enabled for its SDKs; sealing on \(key k[0-9a-f]{16}\)/);
    expect(await config()).toMatchObject({
      enabled: true,
      encryption: {
        enabled: true,
        key_id: expect.stringMatching(/^k/),
        public_key: expect.any(String),
      },
    });
  });

  it("sets link settings, makes a link, and lists it with the clicks tapped on the link host", async () => {
    const configured = await cli(
      dataDir,
      "apps",
      "config",
      "--app-id",
      "com.example.game",
      "--web-url",
      "https://game.example.com/",
      "--android-sha256",
      "14:6d:e9:83:c5:73:06:50:d8:ee:b9:95:2f:34:fc:64:16:a0:83:42:e6:1d:be:a8:8a:04:96:b2:3f:cf:44:e5",
    );
    expect(configured).toMatch(
      /Links: the service's link host; web https:\/\/game\.example\.com\/; 1 Android certificate/,
    );
    await expect(
      cli(dataDir, "apps", "config", "--app-id", "com.example.game", "--apple-team-id", "nope"),
    ).rejects.toThrow(/--apple-team-id: must be 10 letters or digits/);
    const zone = (name: string) =>
      cli(dataDir, "apps", "config", "--app-id", "com.example.game", "--time-zone", name);
    expect(await zone("Asia/Tokyo")).toMatch(/reports in Asia\/Tokyo\./);
    await expect(zone("Mars/Olympus")).rejects.toThrow(
      /--time-zone Mars\/Olympus: must be an IANA time zone/,
    );
    expect(await zone("UTC")).toMatch(/reports in UTC\./);
    // An Android app's package is its id; an iOS app may name its Android build's.
    await expect(
      cli(dataDir, "apps", "config", "--app-id", "com.example.game", "--play-package", "com.x.y"),
    ).rejects.toThrow(
      /--play-package: must not be set: an Android app's Play package is its app id/,
    );
    // An iOS app's bundle id is its id; an Android app may name its iOS build's.
    const bundleId = (id: string) =>
      cli(dataDir, "apps", "config", "--app-id", "com.example.game", "--ios-bundle-id", id);
    expect(await bundleId("com.example.game.ios")).toMatch(/iOS bundle id com\.example\.game\.ios/);
    await expect(bundleId("game ios")).rejects.toThrow(
      /--ios-bundle-id: must be an iOS bundle id, like com\.example\.app/,
    );
    expect(await bundleId("")).not.toMatch(/iOS bundle id/);
    expect(
      await cli(
        dataDir,
        "apps",
        "config",
        "--app-id",
        "com.example.game",
        "--click-window-days",
        "14",
        "--probabilistic-ios",
        "on",
        "--confidence-floor",
        "medium",
        "--deep-link-confidence",
        "high",
      ),
    ).toMatch(
      /Attribution: on; clicks 14 days, impressions 24 hours; probabilistic 6 hours on android and ios, at least medium confidence; deferred deep links from high confidence\./,
    );
    await expect(
      cli(
        dataDir,
        "apps",
        "config",
        "--app-id",
        "com.example.game",
        "--deep-link-confidence",
        "sure",
      ),
    ).rejects.toThrow(/--deep-link-confidence.*low, medium, high/);
    await expect(
      cli(dataDir, "apps", "config", "--app-id", "com.example.game", "--click-window-days", "31"),
    ).rejects.toThrow(/--click-window-days.*from 1 to 30/);

    const created = await cli(
      dataDir,
      "links",
      "create",
      "--app-id",
      "com.example.game",
      "--media-source",
      "facebook_ads",
      "--campaign-id",
      "123",
      "--campaign-name",
      "Winter",
      "--deep-link-path",
      "/levels/7",
      "--param",
      "promo=WINTER",
    );
    const match = /Created link (\w{11}) .*\n\s+(\S+)/.exec(created);
    const [, deeplinkId, url] = match ?? [];
    if (!deeplinkId || !url) throw new Error(`no link in: ${created}`);
    const link = new URL(url);
    expect(link.pathname).toBe(`/${deeplinkId}`);
    expect(link.searchParams.get("deep_link_path")).toBe("/levels/7");
    expect(link.searchParams.get("promo")).toBe("WINTER");
    // Named on the running service's link base, as its API names them, not the CLI shell's.
    const elsewhere = await cliWithEnv(
      { ATTRIBUTION_LINK_BASE_URL: "https://elsewhere.example.test" },
      dataDir,
      "links",
      "create",
      "--app-id",
      "com.example.game",
      "--media-source",
      "facebook_ads",
      "--json",
    );
    expect((JSON.parse(elsewhere) as { url: string }).url).toMatch(
      new RegExp(`^${link.origin}/\\w{11}$`),
    );

    const tapLink = (sub1: string) =>
      fetch(`${url}&sub1=${sub1}`, {
        redirect: "manual",
        headers: {
          "user-agent": PIXEL,
        },
      });
    const tap = await tapLink("abc");
    expect(tap.status).toBe(302);
    expect(tap.headers.get("location")).toMatch(/^https:\/\/play\.google\.com\/.*referrer=/);

    const listed = z.array(z.object({ deeplink_id: z.string(), clicks: z.number().nullable() }));
    const clicks = async () =>
      listed
        .parse(
          JSON.parse(await cli(dataDir, "links", "list", "--app-id", "com.example.game", "--json")),
        )
        .find((entry) => entry.deeplink_id === deeplinkId)?.clicks;
    // Counted from the lake: once the stream has delivered the tap (every 5 s by default).
    const deadline = Date.now() + 90_000;
    while ((await clicks()) !== 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(await clicks()).toBe(1);
    expect(await cli(dataDir, "links", "list", "--app-id", "com.example.game")).toMatch(
      new RegExp(`${deeplinkId}\\s+1\\s+active\\s+facebook_ads · Winter · /levels/7`),
    );
    expect(
      await cli(dataDir, "links", "disable", deeplinkId, "--app-id", "com.example.game"),
    ).toMatch(/is disabled/);
    // The running link host, which read the link for the first tap, sees the change at the
    // next: to the app's web URL, without a click id.
    const afterDisable = await tapLink("def");
    expect(afterDisable.status).toBe(302);
    expect(afterDisable.headers.get("location")).toMatch(/^https:\/\/game\.example\.com\//);

    // A link's cost: the three flags together, changed and cleared by `links update`.
    const costed = JSON.parse(
      await cli(
        dataDir,
        "links",
        "create",
        "--app-id",
        "com.example.game",
        "--media-source",
        "influencer",
        "--cost-model",
        "CPI",
        "--cost-value",
        "2.50",
        "--cost-currency",
        "EUR",
        "--json",
      ),
    );
    expect(costed).toMatchObject({ cost_model: "CPI", cost_value: 2.5, cost_currency: "EUR" });
    const update = (...flags: string[]) =>
      cli(dataDir, "links", "update", costed.deeplink_id, "--app-id", "com.example.game", ...flags);
    expect(
      await update("--cost-model", "CPC", "--cost-value", "0.1", "--cost-currency", "USD"),
    ).toMatch(/each click costs CPC 0\.1 USD\./);
    // CPI is paid per install a click wins, not per click.
    expect(
      await update("--cost-model", "CPI", "--cost-value", "2", "--cost-currency", "EUR"),
    ).toMatch(/each install a click of it wins costs CPI 2 EUR\./);
    // The list says what each link costs.
    expect(await cli(dataDir, "links", "list", "--app-id", "com.example.game")).toMatch(
      new RegExp(`${costed.deeplink_id}\\s+\\S+\\s+active\\s+influencer · CPI 2 EUR`),
    );
    expect(await update("--cost-model", "")).toMatch(/no cost\./);
    await expect(
      cli(
        dataDir,
        "links",
        "create",
        "--app-id",
        "com.example.game",
        "--media-source",
        "influencer",
        "--cost-model",
        "CPI",
      ),
    ).rejects.toThrow(/--cost-value: is required with --cost-model/);
  });

  it("configures a partner and a webhook, sends a test postback, and reads the attempts' log", async () => {
    const mock = await startMockNetwork();
    const APP = "com.example.partners";
    // The mock network is on this machine: the CLI's check and its test sends allow it only
    // under the operator's setting. The service has no such setting: its sends are refused.
    const loopback = { ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK: "true" };
    try {
      const made = JSON.parse(
        await cli(
          dataDir,
          "apps",
          "create",
          "--app-id",
          APP,
          "--name",
          "Partners",
          "--platform",
          "android",
          "--json",
        ),
      );
      const sdkKey = made.keys.find((k: { kind: string }) => k.kind === "sdk").key;
      expect(await cli(dataDir, "partners", "catalog")).toMatch(/google-ads +Google Ads/);

      const template = join(dataDir, "template.json");
      await writeFile(
        template,
        JSON.stringify({
          method: "GET",
          install: { url: `${mock.url}/cli/install?sid={service_id}&key={partner.key}` },
          event: { url: `${mock.url}/cli/event?name={event_name}&revenue={revenue}` },
        }),
      );
      const setArgs = [
        "partners",
        "set",
        "cli-net",
        "--app-id",
        APP,
        "--partner",
        "custom",
        "--template-file",
        template,
        "--installs",
        "all",
        "--secret-value",
        "key=s3cret-cli",
        "--event",
        "service_purchase=buy:revenue",
        "--tcf-vendor-id",
        "755",
      ];
      await expect(cli(dataDir, ...setArgs)).rejects.toThrow(/loopback|https/);
      const saved = JSON.parse(await cliWithEnv(loopback, dataDir, ...setArgs, "--json"));
      expect(saved).toMatchObject({
        id: "cli-net",
        installs: "all",
        sealed_values: ["key"],
        events: { service_purchase: { name: "buy", revenue: true } },
        tcf_vendor_id: 755,
      });
      expect(JSON.stringify(saved)).not.toContain("s3cret-cli");

      const tested = await cliWithEnv(
        loopback,
        dataDir,
        "partners",
        "test",
        "cli-net",
        "--app-id",
        APP,
      );
      expect(tested).toContain("key=***");
      expect(tested).not.toContain("s3cret-cli");
      expect(tested).toMatch(/→ 200: delivered/);
      expect(mock.to("/cli/install")[0]?.query.get("key")).toBe("s3cret-cli");
      const event = await cliWithEnv(
        loopback,
        dataDir,
        "partners",
        "test",
        "cli-net",
        "--app-id",
        APP,
        "--event",
        "service_purchase",
      );
      expect(event).toMatch(/name=buy&revenue=1\.99/);

      const hook = await cliWithEnv(
        loopback,
        dataDir,
        "partners",
        "webhook",
        "backend",
        "--app-id",
        APP,
        "--url",
        `${mock.url}/cli/hook?access_token=tok-cli-hook`,
      );
      expect(hook).toMatch(/Signing secret \(shown once, keep it on your backend\): whsec_/);
      // Its URL's token is masked, as the API shows it, to whoever reads the terminal.
      expect(hook).toContain("/cli/hook?access_token=***");
      expect(hook).not.toContain("tok-cli-hook");

      // An install of the app: the service tries to post it back, and is refused the loopback.
      const installed = await fetch(`${service.url}/v1/installs`, {
        method: "POST",
        headers: { authorization: sdkKey, "content-type": "application/json" },
        body: JSON.stringify(installRequest("cli-partner-install")),
      });
      expect(installed.status).toBe(202);
      let log = "";
      for (let tries = 0; tries < 100 && !log.includes("cli-net"); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        log = await cli(dataDir, "partners", "log", "--app-id", APP);
      }
      expect(log).toMatch(/cli-net +install +try 1 +not sent: .*(loopback|https)/);
      const listed = await cli(dataDir, "partners", "list", "--app-id", APP);
      expect(listed).toMatch(/cli-net +custom +on +0 delivered, 0 retried, 1 failed/);
      expect(listed).toMatch(/backend +webhook +on /);
      expect(listed).not.toContain("whsec_");
      expect(listed).toContain("/cli/hook?access_token=***");
      const listedJson = await cli(dataDir, "partners", "list", "--app-id", APP, "--json");
      expect(JSON.parse(listedJson).webhooks[0].url).toBe(`${mock.url}/cli/hook?access_token=***`);
      for (const shown of [listed, listedJson]) expect(shown).not.toContain("tok-cli-hook");

      await cli(dataDir, "partners", "remove", "backend", "--webhook", "--app-id", APP);
      expect(await cli(dataDir, "partners", "list", "--app-id", APP)).not.toContain("backend");
    } finally {
      await mock.close();
    }
  });

  it("keeps an iOS app's conversion value schema and ad network names, reports and exports Apple's postbacks", async () => {
    // A postback is listed on the day it came: today, at both ends of the test.
    await clearOfMidnight(120_000);
    const APP = "com.example.skan-cli";
    await cli(dataDir, "apps", "create", "--app-id", APP, "--name", "Skan", "--platform", "ios");
    expect(
      await cli(
        dataDir,
        "apps",
        "config",
        "--app-id",
        APP,
        "--app-store-id",
        "525463029",
        "--play-package",
        "com.example.skan_cli",
      ),
    ).toMatch(/App Store id 525463029; Google Play package com\.example\.skan_cli/);
    const linkUrl = (await readRuntimeInfo(dataDir))?.linkUrl ?? "";
    for (const [folder, body] of [
      ["skadnetwork", SKAN_4_FINE],
      ["skadnetwork", SKAN_4_COARSE],
      ["appattribution", AAK_DEVELOPMENT],
      // Anyone may post to the public endpoint: unverified, and a spreadsheet's formula.
      [
        "skadnetwork",
        {
          ...SKAN_4_FINE,
          "ad-network-id": '=HYPERLINK("https://example.com")',
          "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e99",
        },
      ],
    ] as const) {
      const posted = await fetch(`${linkUrl}/.well-known/${folder}/report-attribution/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(posted.status).toBe(200);
    }
    const schemaFile = join(dataDir, "schema.json");
    await writeFile(
      schemaFile,
      JSON.stringify({
        windows: [
          {
            rules: [
              {
                event: "service_purchase",
                revenue_usd: { min: 4.99 },
                fine: 63,
                coarse: "high",
                lock: true,
              },
            ],
          },
          { rules: [{ event: "service_login", min_count: 2, coarse: "low" }] },
          { rules: [] },
        ],
      }),
    );
    expect(
      await cli(dataDir, "skadnetwork", "schema", "set", "--app-id", APP, "--file", schemaFile),
    ).toMatch(
      /Saved version 1 of com\.example\.skan-cli's conversion value schema \(rules per window: 1, 1, 0\)/,
    );
    await writeFile(
      schemaFile,
      JSON.stringify({
        windows: [
          { rules: [{ event: "service_purchase", coarse: "high" }] },
          { rules: [] },
          { rules: [] },
        ],
      }),
    );
    await expect(
      cli(dataDir, "skadnetwork", "schema", "set", "--app-id", APP, "--file", schemaFile),
    ).rejects.toThrow(/body\.windows\[0\]\.rules\[0\]\.fine: is required in the first window/);
    const shown = await cli(dataDir, "skadnetwork", "schema", "show", "--app-id", APP);
    expect(shown).toMatch(/Version 1, saved/);
    expect(shown).toMatch(/63 \(high\) +service_purchase, 4\.99\+ USD, locks/);
    const setNetworks = (name: string) =>
      cli(dataDir, "skadnetwork", "networks", "--app-id", APP, "--set", name);
    expect(await setNetworks("com.example=example_net")).toMatch(
      /cstr6suwn9\.skadnetwork +googleadwords_int/,
    );
    // A second --set replaces the first's names, and says which it dropped.
    expect(await setNetworks("other.skadnetwork=other_net")).toMatch(
      /^No longer named by the app .*: com\.example$/m,
    );
    expect(await setNetworks("com.example=example_net")).toMatch(
      /No longer named by the app .*: other\.skadnetwork$/m,
    );
    const today = new Date().toISOString().slice(0, 10);
    const report = JSON.parse(
      await cli(dataDir, "skadnetwork", "report", "--app-id", APP, "--from", today, "--to", today),
    );
    expect(report.postbacks).toEqual({
      received: 3,
      counted: 2,
      unverified: 1,
      development: 0,
      disputed: 0,
    });
    expect(report.values[0]).toMatchObject({ fine: 63, meaning: ["service_purchase, 4.99+ USD"] });
    const csvFile = join(dataDir, "postbacks.csv");
    expect(
      await cli(
        dataDir,
        "skadnetwork",
        "export",
        "--app-id",
        APP,
        "--from",
        today,
        "--to",
        today,
        "-o",
        csvFile,
      ),
    ).toMatch(/Wrote 3 postbacks/);
    const [header, ...rows] = (await readFile(csvFile, "utf8")).trim().split("\n");
    expect(header?.split(",").slice(0, 5)).toEqual([
      "kind",
      "version",
      "received_at",
      "ad_network_id",
      "media_source",
    ]);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain(",example_net,5239,525463029,");
    // Written as text a spreadsheet shows, never runs (an ad network id is kept in lower case).
    expect(rows[2]).toContain(`,"'=hyperlink(""https://example.com"")",`);
    expect(await cli(dataDir, "skadnetwork", "unknown", "--from", today, "--to", today)).toMatch(
      /10738027756 +1/,
    );
  });

  it("imports a CSV of cost rows through the cost API, a row sent again replacing the first", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const file = join(dataDir, "costs.csv");
    await writeFile(
      file,
      `day,media_source,campaign_id,campaign_name,country,amount,currency,clicks\n${today},examplenet,c1,Winter,DE,120.5,USD,300\n${today},examplenet,c2,,,80,USD,\n`,
    );
    // A dry run checks the file with no key; a send needs one.
    expect(await cli(dataDir, "costs", "import", "--file", file, "--dry-run")).toMatch(
      /2 rows of .*costs\.csv are well formed; nothing sent\./,
    );
    await expect(cli(dataDir, "costs", "import", "--file", file)).rejects.toThrow(
      /required option '--key <key>' not specified/,
    );
    expect(await cli(dataDir, "costs", "import", "--file", file, "--key", serverKey)).toMatch(
      /Imported 2 cost rows \(0 replaced/,
    );
    expect(await cli(dataDir, "costs", "import", "--file", file, "--key", serverKey)).toMatch(
      /Imported 2 cost rows \(2 replaced/,
    );
    const listed = await fetch(`${service.url}/v1/costs?from=${today}&to=${today}`, {
      headers: { authorization: serverKey },
    });
    // The demo's networks reported the app's cost of today too.
    const data = ((await listed.json()) as { data: Record<string, unknown>[] }).data.filter(
      (row) => row.media_source === "examplenet",
    );
    expect(data).toHaveLength(2);
    expect(data).toContainEqual(
      expect.objectContaining({ campaign_id: "c1", country: "DE", amount_usd: 120.5, clicks: 300 }),
    );
    // The lake keeps each row as it was sent, twice here; the latest of each key is the cost.
    const lakeRows = async () => {
      const connection = await duckdb.connect();
      try {
        const read = await connection.runAndReadAll(
          `SELECT campaign_id, count(*)::INTEGER AS sent, max_by(amount_usd, received_at) AS usd
             FROM read_parquet('${join(dataDir, "lake", "costs", "app_id=com.example.game", "*", "*.parquet")}')
            WHERE media_source = 'examplenet' GROUP BY campaign_id ORDER BY campaign_id`,
        );
        return read.getRowObjectsJS();
      } catch {
        return [];
      }
    };
    await expect.poll(lakeRows, { timeout: 20_000 }).toEqual([
      { campaign_id: "c1", sent: 2, usd: 120.5 },
      { campaign_id: "c2", sent: 2, usd: 80 },
    ]);
    await writeFile(
      file,
      `day,media_source,campaign_id,amount,currency\n${today},examplenet,c3,lots,USD\n`,
    );
    await expect(
      cli(dataDir, "costs", "import", "--file", file, "--key", serverKey),
    ).rejects.toThrow(/line 2, amount: must be a number/);
  });

  it("deletes an install's data through the deletion API, and says where the request stands", async () => {
    const { key: sdkKey } = await createKey("sdk");
    const serviceId = "cli-erased-install";
    const installed = await fetch(`${service.url}/v1/installs`, {
      method: "POST",
      headers: { authorization: sdkKey, "content-type": "application/json" },
      body: JSON.stringify(installRequest(serviceId)),
    });
    expect(installed.status).toBe(202);
    const attributionStatus = async () => {
      const answer = await fetch(
        `${service.url}/v1/installs/${serviceId}/attribution?wait_seconds=0`,
        { headers: { authorization: sdkKey } },
      );
      await answer.body?.cancel();
      return answer.status;
    };
    expect(await attributionStatus()).toBe(200);
    const stateOf = async (requestId: string) =>
      JSON.parse(
        await cli(dataDir, "deletions", "status", requestId, "--key", serverKey, "--json"),
      ) as { request_id: string; service_id: string; status: string; completed_at: string | null };

    const said = await cli(
      dataDir,
      "deletions",
      "request",
      "--service-id",
      serviceId,
      "--key",
      serverKey,
    );
    const requestId = /request_id: +(\S+)/.exec(said)?.[1] ?? "";
    expect(said).toContain(`service_id:   ${serviceId}`);
    expect(said).toMatch(/status: +(pending|in_progress|completed)/);
    // Not completed yet: the command that says when, as it runs (the key named, never printed).
    expect(said.includes("next purge")).toBe(!/status: +completed/.test(said));
    if (said.includes("next purge")) {
      expect(said).toContain(
        `\`npx attribution deletions status ${requestId} --key <server key>\``,
      );
    }
    // The purge runs right after a request: the request completes, and the install is gone.
    await expect
      .poll(async () => (await stateOf(requestId)).status, { timeout: 30_000 })
      .toBe("completed");
    expect(await stateOf(requestId)).toMatchObject({ service_id: serviceId });
    expect(await attributionStatus()).toBe(404);

    // The service's refusals, in its words: an SDK key, a request of no such id.
    await expect(
      cli(dataDir, "deletions", "request", "--service-id", serviceId, "--key", sdkKey),
    ).rejects.toThrow(/The service refused it \(401\)/);
    await expect(
      cli(
        dataDir,
        "deletions",
        "status",
        "00000000-0000-8000-8000-000000000000",
        "--key",
        serverKey,
      ),
    ).rejects.toThrow(/The service refused it \(404\)/);
    await expect(cli(dataDir, "deletions", "request", "--service-id", serviceId)).rejects.toThrow(
      /required option '--key <key>' not specified/,
    );
  });

  it("imports newer exchange rates, and refuses a file that is not the ECB's table", async () => {
    const file = join(dataDir, "eurofxref-hist.csv");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(file, "Date,USD,JPY,\n2026-11-22,1.1,161,\n2026-11-21,1.09,160.5,\n");
    expect(await cli(dataDir, "rates", "import", file)).toMatch(
      /Imported rates from 2026-11-21 to 2026-11-22 for 2 currencies\.$/m,
    );
    // A file older than the table (the feed merged later days since it was made) takes none of
    // the table's later days away.
    await writeFile(file, "Date,USD,JPY,\n2026-11-20,1.08,160,\n2026-11-19,1.07,159,\n");
    expect(await cli(dataDir, "rates", "import", file)).toMatch(
      /Imported rates from 2026-11-19 to 2026-11-20 for 2 currencies, keeping the 2 later days the table had \(to 2026-11-22\)\./,
    );
    const table = await readFile(dataPaths(dataDir).fxRates, "utf8");
    expect(table.split("\n").map((line) => line.split(",")[0])).toEqual([
      "Date",
      "2026-11-22",
      "2026-11-21",
      "2026-11-20",
      "2026-11-19",
      "",
    ]);
    // A table the service could not convert with is no source of later days: replaced whole.
    await writeFile(dataPaths(dataDir).fxRates, "Date,USD,\n2026-11-30,abc,\n");
    expect(await cli(dataDir, "rates", "import", file)).toMatch(
      /Imported rates from 2026-11-19 to 2026-11-20 for 2 currencies\.$/m,
    );
    await writeFile(file, "name,age\nx,1\n");
    await expect(cli(dataDir, "rates", "import", file)).rejects.toThrow();
  });

  it("joins the pages of a window still being made by each page's count", async () => {
    const whole = async (format: string, pinned = "") => {
      const timestamp = Date.parse(`${since}T00:00:00Z`) / 1000;
      const response = await fetch(
        `${service.url}/api/v1/export?timestamp=${timestamp}&format=${format}&limit=10000${pinned}`,
        { headers: { authorization: serverKey } },
      );
      return {
        snapshot: response.headers.get("x-export-snapshot"),
        rows: response.headers.get("x-export-snapshot-rows"),
        pageRows: response.headers.get("x-export-page-rows"),
        fileName: response.headers.get("content-disposition"),
        body: Buffer.from(await response.arrayBuffer()),
      };
    };
    const expected = { csv: await whole("csv"), ndjson: await whole("ndjson") };
    expect(expected.csv.rows).toBe(expected.csv.pageRows);
    await stopService(service.child);
    // Every window answered from its first day: the window's size comes later than its pages.
    service = await startService(dataDir, {
      ATTRIBUTION_TRUST_PROXY: "true",
      ATTRIBUTION_FLUSH_INTERVAL_MS: "200",
      ATTRIBUTION_SNAPSHOT_WHOLE_BELOW: "0KB",
    });
    try {
      const first = await whole("csv");
      // The window's size once its snapshot is made, which its first page may not wait for.
      expect([null, expected.csv.rows]).toContain(first.rows);
      expect(first.pageRows).toBe(expected.csv.pageRows);
      // Named by the rows it holds, not by the limit it was asked with.
      expect(first.fileName).toMatch(new RegExp(`_rows-1-${expected.csv.rows}\\.csv"$`));
      // The snapshot made (its first page read to the end), each page of it gives the size.
      for (const format of ["csv", "xml"]) {
        const again = await whole(format, `&snapshot=${first.snapshot}&offset=0`);
        expect(again.snapshot).toBe(first.snapshot);
        expect(again.rows, format).toBe(expected.csv.rows);
      }
      for (const format of ["csv", "ndjson"] as const) {
        const { output, count } = await exportAll(format);
        expect(count).toBe(Number(expected.csv.rows));
        expect(await readFile(output)).toEqual(expected[format].body);
      }
      const { count } = await exportAll("parquet");
      expect(count).toBe(Number(expected.csv.rows));
    } finally {
      await stopService(service.child);
      service = await startService(dataDir, {
        ATTRIBUTION_TRUST_PROXY: "true",
        ATTRIBUTION_FLUSH_INTERVAL_MS: "200",
      });
    }
  });

  it("stops cleanly on Ctrl-C and keeps every app, key and event across a restart (past a stale runtime file), and refuses a second service on the folder", async () => {
    const before = await exportAll("csv");
    expect(await stopService(service.child)).toBe(0);
    // With no service holding it, the CLI opens the data folder's delivery log itself.
    expect(await cli(dataDir, "partners", "log", "--app-id", "com.example.partners")).toMatch(
      /cli-net +install +try 1/,
    );
    // A runtime file left by a service killed outright, naming a process id the system has
    // since given to another program (this one) and an address where nothing answers: stale.
    const freed = createServer();
    await new Promise<void>((resolve) => freed.listen(0, "127.0.0.1", resolve));
    const gone = `http://127.0.0.1:${(freed.address() as AddressInfo).port}`;
    await new Promise((resolve) => freed.close(resolve));
    await writeRuntimeInfo(dataDir, {
      pid: process.pid,
      url: gone,
      linkUrl: gone,
      linkBaseUrl: gone,
      dynamodbEndpoint: gone,
      dynamodbToken: "stale",
      heldStores: { url: gone, token: "stale" },
      trustProxy: false,
      postbacksAllowLoopback: false,
    });
    // As a deployment behind a proxy: the demo's devices each connect from their own address.
    // And one that tries its webhooks on this machine.
    service = await startService(dataDir, {
      ATTRIBUTION_TRUST_PROXY: "true",
      ATTRIBUTION_FLUSH_INTERVAL_MS: "200",
      ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK: "true",
    });
    // The running service's setting reaches the CLI's partners commands, which check and send
    // in their own process: no need to give it to each.
    expect(
      await cli(
        dataDir,
        "partners",
        "webhook",
        "local",
        "--app-id",
        "com.example.partners",
        "--url",
        "http://127.0.0.1:9/hook",
      ),
    ).toMatch(/Signing secret/);
    // Nothing listens there: the test send fails, and says so in its exit code too.
    await expect(
      cli(dataDir, "partners", "test", "local", "--webhook", "--app-id", "com.example.partners"),
    ).rejects.toMatchObject({ code: 1, stdout: expect.stringMatching(/→ no answer/) });
    const apps = JSON.parse(await cli(dataDir, "apps", "list", "--json"));
    expect(apps.map((a: { appId: string }) => a.appId)).toContain("com.example.game");
    const after = await exportAll("csv");
    expect(after.count).toBe(before.count);
    // A second service on the folder is refused, naming the one that holds it.
    await expect(cli(dataDir, "start", "--port", "0", "--link-port", "0")).rejects.toThrow(
      `A service already runs on ${dataDir} (process ${service.child.pid}`,
    );
  });
});
