/**
 * Sends an app's demo traffic to a running service the way the outside world would: the app
 * owner creates links (`POST /v1/links`), ad networks report touches server to server
 * (`POST /v1/touches`), people tap links on the link host, and the SDK reports installs
 * (`POST /v1/installs`), events (`POST /v1/events`) and sessions (`POST /v1/sessions`) from each
 * device's own address, and the networks report what the paid installs cost (`POST /v1/costs`). Then
 * it reads every install's attribution as the SDK would, so the lake holds only what the
 * pipeline made, and every attribution in it is one the matcher found.
 */
import { request } from "node:http";
import * as z from "zod";
import { COST_LIMITS } from "../costs/cost-rows.ts";
import { linkOf, type Touch } from "./campaigns.ts";
import { sdkUserAgent } from "./devices.ts";
import type { AppTraffic, DemoInstall, LinkTap } from "./generate.ts";
import type { Cause, NetworkTouch } from "./install.ts";
import { installBody, touchBody } from "./requests.ts";

export interface DemoTarget {
  readonly apiUrl: string;
  /**
   * The link host's own address. Taps go there whatever host a link names (an app's own
   * domain, or the service's link base behind a proxy), with that host in `Host`, as a proxy
   * or a CDN in front of the link host passes it on.
   */
  readonly linkHostUrl: string;
  readonly sdkKey: string;
  readonly serverKey: string;
}

/**
 * How the demo meant an install to be found, and what the service made of it. A network's
 * touch on the advertising id is a click or a view of the ad: a click it names wins, a view
 * only when no method finds a click (a household's tap at the same address, matched by IP and
 * device, takes it).
 */
export type Planned = "link tap" | "ad id click" | "ad id view" | "ip and device" | "organic";
export type Found = "network" | "geo" | "organic" | "other";

export interface AppOutcome {
  readonly installs: number;
  readonly events: number;
  readonly touches: number;
  readonly taps: number;
  /** Crawlers' fetches of its links for a preview, which count no click. */
  readonly previews: number;
  readonly sessions: number;
  readonly costRows: number;
  /** Planned cause → what the service found → installs. */
  readonly matrix: ReadonlyMap<Planned, ReadonlyMap<Found, number>>;
  /** Deep link paths the SDK read back for installs made now, after a tap. */
  readonly deferredDeepLinks: ReadonlyMap<string, number>;
}

const TOUCH_BATCH = 1_000;
const EVENT_BATCH = 100;
const CONCURRENCY = 8;

/** Runs `work` on every item, at most `limit` at a time. */
const eachLimited = async <T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> => {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++];
      if (item !== undefined) await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
};

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  );

const linkAnswer = z.object({ deeplink_id: z.string(), url: z.string() });
const verdicts = z.object({ rejected: z.array(z.unknown()) });
const attributionParams = z.record(z.string(), z.string());

const plannedOf = (cause: Cause): Planned =>
  cause.kind === "organic"
    ? "organic"
    : cause.kind === "tap"
      ? "link tap"
      : cause.touch.maid
        ? cause.touch.touchType === "click"
          ? "ad id click"
          : "ad id view"
        : "ip and device";

/** The service's API as the demo's devices, ad networks and app owner call it. */
const apiClient = (target: DemoTarget) => {
  const call = async <T>(
    method: "GET" | "POST",
    path: string,
    answer: z.ZodType<T>,
    options: { key: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<T> => {
    const response = await fetch(`${target.apiUrl}${path}`, {
      method,
      headers: {
        authorization: options.key,
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return answer.parse(JSON.parse(text));
  };
  /** Sends a batch of touches or events; any one refused is a bug in the demo. */
  const sendBatch = async (path: string, key: string, body: unknown, headers = {}) => {
    const { rejected } = await call("POST", path, verdicts, { key, body, headers });
    if (rejected.length > 0) throw new Error(`${path} refused one: ${JSON.stringify(rejected[0])}`);
  };

  return { call, sendBatch };
};

/** A device's own request: its address (the service trusts X-Forwarded-For) and agent. */
const fromDevice = (install: DemoInstall, appName: string) => ({
  "x-forwarded-for": install.profile.ip,
  "user-agent": sdkUserAgent(install.profile.device, appName),
});

/** Counts what the service found for each planned cause, and the deep links read back. */
const tally = () => {
  const matrix = new Map<Planned, Map<Found, number>>();
  const deferredDeepLinks = new Map<string, number>();
  const add = (cause: Cause, params: Readonly<Record<string, string>>) => {
    const status = params.service_match_status;
    const found: Found =
      status === "organic"
        ? "organic"
        : status === "matched" || status === "matched_no_params"
          ? params.matching_type === "geo"
            ? "geo"
            : "network"
          : "other";
    const planned = plannedOf(cause);
    const row = matrix.get(planned) ?? new Map<Found, number>();
    row.set(found, (row.get(found) ?? 0) + 1);
    matrix.set(planned, row);
    const path = params.deep_link_path;
    if (cause.kind === "tap" && path)
      deferredDeepLinks.set(path, (deferredDeepLinks.get(path) ?? 0) + 1);
  };
  return { matrix, deferredDeepLinks, add };
};

/** A GET of a link on the link host at `linkHostUrl`, naming the link's own host. */
const tapOn = (linkHostUrl: string, link: URL, headers: Record<string, string>) =>
  new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
    const sent = request(
      new URL(`${link.pathname}${link.search}`, linkHostUrl),
      { headers: { ...headers, host: link.host } },
      (response) => {
        response.on("error", reject);
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, location: response.headers.location }),
        );
        response.resume();
      },
    );
    sent.on("error", (error) =>
      reject(new Error(`a tap on ${link} at the link host ${linkHostUrl}: ${error.message}`)),
    );
    sent.end();
  });

export const createDemoDriver = (target: DemoTarget, onProgress: (step: number) => void) => {
  const { call, sendBatch } = apiClient(target);
  return async (traffic: AppTraffic): Promise<AppOutcome> => {
    const { app } = traffic;
    // One link per ad, as an app owner makes them for a campaign; networks' clicks and
    // people's taps go through it.
    const links = new Map<string, { deeplinkId: string; url: string }>();
    const linkFor = async (touch: Touch) => {
      const key = JSON.stringify(touch);
      const known = links.get(key);
      if (known) return known;
      const answer = await call("POST", "/v1/links", linkAnswer, {
        key: target.serverKey,
        body: { ...touch, ...linkOf(app.platform, touch) },
      });
      const made = { deeplinkId: answer.deeplink_id, url: answer.url };
      links.set(key, made);
      return made;
    };

    const networkTouches: NetworkTouch[] = [
      ...traffic.installs.flatMap(({ profile }) =>
        profile.cause.kind === "network" ? [profile.cause.touch] : [],
      ),
      ...traffic.strays,
    ].sort((a, b) => a.time - b.time);
    for (const batch of chunks(networkTouches, TOUCH_BATCH)) {
      const touches = [];
      for (const touch of batch) {
        // Impressions are views of the ad, not visits of its link.
        const link = touch.touchType === "click" ? await linkFor(touch.touch) : null;
        touches.push(touchBody(touch, link?.deeplinkId ?? null));
      }
      await sendBatch("/v1/touches", target.serverKey, { touches });
    }

    /** A tap or a crawler's fetch; for a tap sent to the Play Store, its referrer. */
    const tap = async ({ touch, ip, userAgent }: LinkTap): Promise<string | null> => {
      const { url } = await linkFor(touch);
      const answer = await tapOn(target.linkHostUrl, new URL(url), {
        "user-agent": userAgent,
        "x-forwarded-for": ip,
      });
      // A chat's crawler gets the link's preview page (200), and counts no click.
      if (answer.status === 200) return null;
      if (answer.status !== 302) throw new Error(`a tap on ${url} answered ${answer.status}`);
      return answer.location ? new URL(answer.location).searchParams.get("referrer") : null;
    };

    let events = 0;
    let sessions = 0;
    /** An install and its events; a live one opens now, with the Play referrer of its tap. */
    const send = async (install: DemoInstall, live?: { referrer: string | null }) => {
      const { profile } = install;
      const headers = fromDevice(install, app.appName);
      await call("POST", "/v1/installs", z.unknown(), {
        key: target.sdkKey,
        headers,
        body: installBody(
          profile,
          live ? { firstOpen: Date.now(), referrer: live.referrer } : undefined,
        ),
      });
      for (const batch of chunks(install.events, EVENT_BATCH)) {
        await sendBatch("/v1/events", target.sdkKey, { events: batch }, headers);
        events += batch.length;
      }
      const opened = live
        ? [
            {
              session_id: `${profile.serviceId}.0`,
              service_id: profile.serviceId,
              started_at: new Date().toISOString(),
            },
          ]
        : install.sessions;
      for (const batch of chunks(opened, EVENT_BATCH)) {
        await sendBatch("/v1/sessions", target.sdkKey, { sessions: batch }, headers);
        sessions += batch.length;
      }
      onProgress(1);
    };
    await eachLimited(traffic.installs, CONCURRENCY, (install) => send(install));
    // Now: taps on the app's links, some followed by the install they caused.
    await eachLimited(traffic.live, CONCURRENCY, async (install) => {
      const { profile } = install;
      if (profile.cause.kind !== "tap") throw new Error("a live install is caused by a tap");
      const { touch, userAgent } = profile.cause;
      const referrer = await tap({ touch, ip: profile.ip, userAgent });
      await send(install, { referrer });
    });
    await eachLimited([...traffic.strayTaps, ...traffic.previews], CONCURRENCY, async (stray) => {
      await tap(stray);
    });

    // What the networks report the paid installs cost; sent twice, as a network's cost API
    // sends a day again once its figures are final, and the second replaces the first.
    for (let round = 0; round < 2; round++) {
      for (const batch of chunks(traffic.costs, COST_LIMITS.maxRows)) {
        await call("POST", "/v1/costs", z.unknown(), {
          key: target.serverKey,
          body: { rows: batch },
        });
      }
    }

    // What the SDKs read: every install's attribution, once the matcher has resolved it.
    const found = tally();
    const installs = [...traffic.installs, ...traffic.live];
    await eachLimited(installs, CONCURRENCY * 2, async ({ profile }) => {
      const params = await call(
        "GET",
        `/v1/installs/${profile.serviceId}/attribution?wait_seconds=20`,
        attributionParams,
        { key: target.sdkKey },
      );
      found.add(profile.cause, params);
    });
    return {
      installs: installs.length,
      events,
      touches: networkTouches.length,
      sessions,
      costRows: traffic.costs.length,
      taps: traffic.live.length + traffic.strayTaps.length,
      previews: traffic.previews.length,
      matrix: found.matrix,
      deferredDeepLinks: found.deferredDeepLinks,
    };
  };
};
