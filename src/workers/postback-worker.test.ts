/**
 * The postback worker's decisions, over the real outbox and configuration stores (on dynalite), the
 * embedded delivery log, and a sender that records what it is asked: one attempt however often a
 * message comes, a busy configuration's message set aside while another's goes, an event decided
 * once its install is attributed, the next attempt queued again when its message was lost, and a
 * send skipped when its configuration went or its install was deleted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import {
  type LocalDeliveryLog,
  openLocalDeliveryLog,
} from "../adapters/local-delivery-log/delivery-log.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import type { Consent } from "../domain/consent.ts";
import {
  type DynamoConnection,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
} from "../embedded/local-dynamodb.ts";
import { logger } from "../logging/logger.ts";
import type { App } from "../ports/apps.ts";
import type { AttributionRecord, AttributionResult } from "../ports/attributions.ts";
import type { DeletionRequest } from "../ports/deletions.ts";
import type { Install } from "../ports/installs.ts";
import type { OutgoingRequest, SendOutcome } from "../ports/postbacks.ts";
import type { WorkMessage } from "../ports/work-queue.ts";
import { parsePartnerConfig } from "../postbacks/config.ts";
import type { PostbackJob } from "../postbacks/delivery.ts";
import {
  createPartnerSlots,
  type PartnerSlots,
  SLOW_REQUEST_MS,
} from "../postbacks/partner-slots.ts";
import { sealPartnerConfig, sealWebhookConfig } from "../postbacks/secrets.ts";
import { newWebhookSecret } from "../postbacks/signing.ts";
import { createPostbackTriggers } from "../postbacks/triggers.ts";
import {
  BUSY_DELAY_SECONDS,
  createPostbackWorker,
  PENDING_DELAY_SECONDS,
  postbackSlotsOn,
  SLOW_PER_CONFIGURATION,
  slowPerConfiguration,
} from "./postback-worker.ts";
import { POSTBACK_WORKER } from "./workers.ts";

const APP = "com.example.worker";
const T0 = Date.parse("2026-11-24T12:00:00.000Z");
const MINUTE = 60_000;
/** How long a test waits for the worker to get somewhere: ample on a loaded machine. */
const WAIT = { timeout: 10_000 };

const result = (
  status: AttributionResult["status"],
  mediaSource: string | null,
): AttributionResult => ({
  mediaSource,
  status,
  method: null,
  clickId: null,
  deeplinkId: null,
  matchingType: null,
  confidence: null,
  clickToFirstOpenHours: null,
  installType: "new_install",
  reinstall: false,
  repeatsClick: false,
  otherCandidates: 0,
  params: {},
  cost: null,
  touchTime: null,
  touchType: null,
  networkClickId: null,
  urlParams: {},
  attributedAt: new Date(T0).toISOString(),
  campaignId: null,
  campaignName: null,
  adsetId: null,
  adsetName: null,
  adId: null,
  adName: null,
});

describe("the postback worker", () => {
  let dir: string;
  let dynamo: DynamoConnection;
  let deliveryLog: LocalDeliveryLog;
  let stores: ReturnType<typeof createDynamoStores>;
  let wrapper: KeyWrapper;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "postback-worker-"));
    dynamo = await startLocalDynamoDb(join(dir, "dynamodb"));
    // The embedded runtime's delivery log: the DynamoDB one writes in transactions, which
    // dynalite lacks.
    deliveryLog = await openLocalDeliveryLog(join(dir, "delivery-log"));
    stores = { ...createDynamoStores(dynamo.doc, LOCAL_TABLE_NAMES), deliveryLog };
    wrapper = createKeyFileWrapper(join(dir, "master.key"));
  });

  afterAll(async () => {
    await deliveryLog.close();
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  });

  let apps = 0;
  /** An app of its own per test, with its configurations, installs and a worker over them. */
  const setup = async (
    configs: {
      id: string;
      installs?: "won" | "all";
      events?: boolean;
      host?: string;
      /** More of the install's and the event's query. */
      query?: string;
      windowDays?: number;
      /** A catalog partner in place of the custom template, with its values. */
      catalog?: { partner: string; values: Record<string, string> };
    }[],
    options: {
      slots?: { slowMax: number; room: number; waitMs: number };
      /** Places for requests given as they are, in place of the worker's own. */
      givenSlots?: PartnerSlots;
      /** The delivery log fails this many appends first. */
      failingLogAppends?: number;
      /** The outbox fails this many settlings first. */
      failingSettles?: number;
      /** The installs' facts, by service id, over the stored install's; null: none stored. */
      installs?: Record<string, Partial<Install> | null>;
      /** Webhooks of the app, by id. */
      webhooks?: string[];
      /** What the partner answers; 200 unless given. */
      answer?: (request: OutgoingRequest) => SendOutcome | Promise<SendOutcome>;
      /** The app as stored, read at each attempt; none unless given. */
      app?: () => App | undefined;
      /** While true, reading an install fails as a store out of reach would. */
      installsDown?: () => boolean;
      /** While true, opening a sealed secret fails as a key service out of reach would. */
      keyDown?: () => boolean;
    } = {},
  ) => {
    const appId = `${APP}.${++apps}`;
    for (const config of configs) {
      const host = config.host ?? `${config.id}.example`;
      const query = config.query ?? "";
      const parsed = parsePartnerConfig({
        id: config.id,
        appId,
        ...(config.catalog
          ? { partner: config.catalog.partner, values: config.catalog.values }
          : {
              partner: "custom",
              template: {
                method: "GET",
                install: { url: `https://${host}/i?sid={service_id}${query}` },
                event: { url: `https://${host}/e?sid={service_id}&e={event_name}${query}` },
              },
            }),
        mediaSources: ["network_a"],
        installs: config.installs ?? "all",
        events: config.events
          ? {
              service_purchase: {
                name: config.catalog ? "in_app_purchase" : "purchase",
                revenue: false,
              },
            }
          : {},
        ...(config.windowDays ? { eventWindowDays: config.windowDays } : {}),
      });
      await stores.postbackConfigs.putPartner(await sealPartnerConfig(parsed, wrapper));
    }
    for (const id of options.webhooks ?? []) {
      await stores.postbackConfigs.putWebhook(
        await sealWebhookConfig(
          {
            id,
            appId,
            url: `https://${id}.example/hooks`,
            secret: newWebhookSecret(),
            enabled: true,
            previous: null,
          },
          wrapper,
          new Date(T0),
        ),
      );
    }
    const attributions = new Map<string, AttributionRecord>();
    const deletions = new Map<string, DeletionRequest[]>();
    const queued: { job: PostbackJob; delaySeconds: number | undefined }[] = [];
    const sent: OutgoingRequest[] = [];
    /** Each send waits on its gate (by host) when the test holds one. */
    const gates = new Map<string, Promise<void>>();
    const queue = {
      async send(jobs: readonly PostbackJob[], options?: { delaySeconds?: number }) {
        for (const job of jobs) queued.push({ job, delaySeconds: options?.delaySeconds });
      },
    };
    let clock = T0;
    const slots =
      options.givenSlots ??
      (options.slots && createPartnerSlots({ ...options.slots, now: () => clock }));
    /** Attempts that have asked for a place for their request so far. */
    let slotAsks = 0;
    let failingLogAppends = options.failingLogAppends ?? 0;
    let failingSettles = options.failingSettles ?? 0;
    const worker = createPostbackWorker({
      apps: { get: async () => options.app?.() },
      installs: {
        get: async (app, serviceId) => {
          if (options.installsDown?.()) throw new Error("the installs table is out of reach");
          const facts = options.installs?.[serviceId];
          if (facts === null) return undefined;
          return storedInstall(app, serviceId, {
            firstOpenTime: new Date(T0 - MINUTE).toISOString(),
            ...facts,
          });
        },
      },
      attributions: { get: async (_app, serviceId) => attributions.get(serviceId) },
      deletions: { listByInstall: async (_app, serviceId) => deletions.get(serviceId) ?? [] },
      configs: stores.postbackConfigs,
      outbox: {
        ...stores.outbox,
        settle: async (...args) => {
          if (failingSettles > 0) {
            failingSettles -= 1;
            throw new Error("the outbox is out of reach");
          }
          return stores.outbox.settle(...args);
        },
      },
      log: {
        ...stores.deliveryLog,
        append: async (attempt) => {
          if (failingLogAppends > 0) {
            failingLogAppends -= 1;
            throw new Error("the log is down");
          }
          return stores.deliveryLog.append(attempt);
        },
      },
      queue,
      sender: {
        async send(request): Promise<SendOutcome> {
          sent.push(request);
          await gates.get(new URL(request.url).hostname);
          return (await options.answer?.(request)) ?? { kind: "answer", status: 200, body: "ok" };
        },
      },
      keyWrapper: {
        wrap: (plaintext, context) => wrapper.wrap(plaintext, context),
        unwrap: async (wrapped, context) => {
          if (options.keyDown?.()) throw new Error("the key service is out of reach");
          return wrapper.unwrap(wrapped, context);
        },
      },
      now: () => new Date(clock),
      slots: slots && {
        take: (key) => {
          slotAsks += 1;
          return slots.take(key);
        },
      },
    });
    const triggers = createPostbackTriggers({
      configs: stores.postbackConfigs,
      outbox: stores.outbox,
      queue,
      now: () => new Date(clock),
    });
    const resolve = (
      serviceId: string,
      status: AttributionResult["status"],
      source: string | null,
      more: Partial<AttributionResult> = {},
    ) =>
      attributions.set(serviceId, {
        state: "resolved",
        appId,
        serviceId,
        result: { ...result(status, source), ...more },
        delivered: true,
        sender: null,
      });
    const message = (job: PostbackJob, attempt = 1): WorkMessage<PostbackJob> => ({
      id: `${job.sendId}#${job.attempt}`,
      body: job,
      attempt,
    });
    /** The jobs queued so far, taken. */
    const take = () => queued.splice(0);
    /** Organic installs, each resolved and its sends triggered, in turn, from `userAgent`. */
    const organicInstalls = async (serviceIds: readonly string[], userAgent?: string) => {
      for (const serviceId of serviceIds) {
        resolve(serviceId, "organic", "organic");
        await triggers.installResolved({
          appId,
          serviceId,
          attribution: { status: "organic", mediaSource: "organic" },
          ip: null,
          ...(userAgent === undefined ? {} : { userAgent }),
        });
      }
    };
    return {
      appId,
      worker,
      triggers,
      resolve,
      deletions,
      sent,
      gates,
      message,
      take,
      organicInstalls,
      slotAsks: () => slotAsks,
      tick: (ms: number) => {
        clock += ms;
      },
      now: () => clock,
    };
  };

  it("makes one attempt of a message delivered twice at once", async () => {
    const t = await setup([{ id: "twice" }]);
    t.resolve("d1", "organic", "organic");
    await t.triggers.installResolved({
      appId: t.appId,
      serviceId: "d1",
      attribution: { status: "organic", mediaSource: "organic" },
      ip: null,
    });
    const [first] = t.take();
    if (!first) throw new Error("nothing queued");
    await Promise.all([t.worker(t.message(first.job)), t.worker(t.message(first.job))]);
    expect(t.sent).toHaveLength(1);
    // The delivery refused the claim comes back once it would have ended, and sends nothing.
    for (const later of t.take()) await t.worker(t.message(later.job));
    expect(t.sent).toHaveLength(1);
    expect(await stores.outbox.get(first.job.sendId)).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
    // Added again (the attribution worker ran again): nothing is queued, nothing sent.
    expect(
      await t.triggers.installResolved({
        appId: t.appId,
        serviceId: "d1",
        attribution: { status: "organic", mediaSource: "organic" },
        ip: null,
      }),
    ).toBe(0);
  });

  it.each([
    ["its attempt could not be logged", { failingLogAppends: 1 }],
    // Settled again on the spot: left open, the message's next delivery would send it again.
    ["the outbox failed its settling for a moment", { failingSettles: 2 }],
  ])("sends a postback once when %s, and its message comes again", async (_, failing) => {
    const t = await setup([{ id: "once" }], failing);
    await t.organicInstalls(["u1"]);
    const [first] = t.take();
    if (!first) throw new Error("nothing queued");
    await t.worker(t.message(first.job));
    expect(await stores.outbox.get(first.job.sendId)).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
    // The queue delivers the message again (as after any failure): nothing more is sent.
    await t.worker(t.message(first.job, 2));
    expect(t.sent).toHaveLength(1);
  });

  it("sets a slow configuration's message aside while another configuration's goes", async () => {
    const t = await setup([{ id: "slow" }, { id: "quick" }], {
      slots: { slowMax: 1, room: 1, waitMs: 20 },
    });
    let open = () => {};
    t.gates.set("slow.example", new Promise<void>((resolve) => (open = resolve)));
    await t.organicInstalls(["d1", "d2"]);
    const jobs = t.take().map((queued) => queued.job);
    const slowJobs: PostbackJob[] = [];
    const quickJobs: PostbackJob[] = [];
    for (const job of jobs) {
      const row = await stores.outbox.get(job.sendId);
      (row?.configId === "slow" ? slowJobs : quickJobs).push(job);
    }
    const [slow1, slow2] = slowJobs;
    if (!slow1 || !slow2) throw new Error("no slow sends");
    const hanging = t.worker(t.message(slow1));
    await vi.waitFor(() => expect(t.sent).toHaveLength(1), WAIT);
    // Its request has taken long enough to find the partner slow.
    t.tick(SLOW_REQUEST_MS);
    await t.worker(t.message(slow2));
    expect(t.take()).toEqual([{ job: slow2, delaySeconds: BUSY_DELAY_SECONDS }]);
    for (const job of quickJobs) await t.worker(t.message(job));
    expect(t.sent.map((request) => new URL(request.url).hostname).sort()).toEqual([
      "quick.example",
      "quick.example",
      "slow.example",
    ]);
    open();
    await hanging;
    await t.worker(t.message(slow2));
    expect(t.sent.filter((request) => request.url.includes("slow"))).toHaveLength(2);
  });

  it("holds a slow destination to its few places whichever configuration sends to it", async () => {
    // Two configurations (as of two apps) of one network, and another network.
    const t = await setup(
      [
        { id: "first", host: "network.example" },
        { id: "second", host: "network.example" },
        { id: "other" },
      ],
      { slots: { slowMax: 1, room: 0, waitMs: 0 } },
    );
    let open = () => {};
    t.gates.set("network.example", new Promise<void>((resolve) => (open = resolve)));
    await t.organicInstalls(["d1"]);
    const byConfig = new Map<string, PostbackJob>();
    for (const { job } of t.take()) {
      const row = await stores.outbox.get(job.sendId);
      if (row) byConfig.set(row.configId, job);
    }
    const [first, second, other] = ["first", "second", "other"].map((id) => byConfig.get(id));
    if (!first || !second || !other) throw new Error("three sends were not queued");
    const hanging = t.worker(t.message(first));
    await vi.waitFor(() => expect(t.sent).toHaveLength(1), WAIT);
    t.tick(SLOW_REQUEST_MS);
    // The network is slow: the second configuration's send waits, the other network's goes.
    await t.worker(t.message(second));
    expect(t.take()).toEqual([{ job: second, delaySeconds: BUSY_DELAY_SECONDS }]);
    await t.worker(t.message(other));
    expect(t.sent.map((request) => new URL(request.url).hostname)).toEqual([
      "network.example",
      "other.example",
    ]);
    open();
    await hanging;
    await t.worker(t.message(second));
    expect(t.sent).toHaveLength(3);
    expect(await stores.outbox.get(second.sendId)).toMatchObject({ state: "delivered" });
  });

  it("has a slow configuration's next attempt wait for a request to end, and one past the waiting room set aside", async () => {
    const t = await setup([{ id: "busy" }], { slots: { slowMax: 1, room: 1, waitMs: 60_000 } });
    let open = () => {};
    t.gates.set("busy.example", new Promise<void>((resolve) => (open = resolve)));
    await t.organicInstalls(["d1", "d2", "d3"]);
    const [first, second, third] = t.take().map((queued) => queued.job);
    if (!first || !second || !third) throw new Error("three sends were not queued");
    const sending = t.worker(t.message(first));
    await vi.waitFor(() => expect(t.sent).toHaveLength(1), WAIT);
    // The first asked for its configuration's place and its destination's.
    const asked = t.slotAsks();
    t.tick(SLOW_REQUEST_MS);
    // Slow: one request at once, and one attempt waiting its turn; the third has no room.
    const waiting = t.worker(t.message(second));
    // The second is in the waiting room (its configuration's, the first it asks) before the
    // third asks: else the third would wait there, and the second be set aside.
    await vi.waitFor(() => expect(t.slotAsks()).toBe(asked + 1), WAIT);
    await t.worker(t.message(third));
    expect(t.take()).toEqual([{ job: third, delaySeconds: BUSY_DELAY_SECONDS }]);
    expect(t.sent).toHaveLength(1);
    // The first request ends: the waiting attempt goes in its slot, without being set aside.
    open();
    await Promise.all([sending, waiting]);
    expect(t.sent.map((request) => new URL(request.url).searchParams.get("sid"))).toEqual([
      "d1",
      "d2",
    ]);
    expect(t.take()).toEqual([]);
    for (const job of [first, second]) {
      expect(await stores.outbox.get(job.sendId)).toMatchObject({ state: "delivered" });
    }
  });

  it("makes the attempt of a process killed holding its claim, when the message that could take it over was set aside as busy", async () => {
    let asks = 0;
    // The partner is busy once after the restart, then free.
    const t = await setup([{ id: "stranded" }], {
      givenSlots: { take: async () => (++asks === 1 ? undefined : { end() {} }) },
    });
    await t.organicInstalls(["d1"]);
    const [first] = t.take();
    if (!first) throw new Error("nothing queued");
    const { job } = first;
    // The process that had the first delivery claimed the attempt, then was killed.
    expect(
      await stores.outbox.claim(job.sendId, {
        attempt: 1,
        token: "killed",
        until: new Date(T0 + 30_000).toISOString(),
        now: new Date(T0).toISOString(),
        takeOver: false,
      }),
    ).toBeDefined();
    // Delivered again after the restart, it may take the claim over, but the partner is busy.
    t.tick(3_000);
    await t.worker(t.message(job, 2));
    expect(t.take()).toEqual([{ job, delaySeconds: BUSY_DELAY_SECONDS }]);
    // Set aside, it is a new message: the dead claim stands, and it comes back once it ends.
    t.tick(BUSY_DELAY_SECONDS * 1000);
    await t.worker(t.message(job));
    expect(t.sent).toHaveLength(0);
    const [later] = t.take();
    if (!later) throw new Error("the send was left with no message to carry it");
    expect(later.job).toEqual(job);
    expect(T0 + 8_000 + (later.delaySeconds ?? 0) * 1000).toBeGreaterThan(T0 + 30_000);
    t.tick((later.delaySeconds ?? 0) * 1000);
    await t.worker(t.message(later.job));
    expect(t.sent).toHaveLength(1);
    expect(await stores.outbox.get(job.sendId)).toMatchObject({ state: "delivered", attempts: 1 });
    expect(t.take()).toEqual([]);
  });

  it("decides an event's send once its install is attributed, and gives up after a day", async () => {
    const t = await setup([{ id: "won-only", installs: "won", events: true }]);
    const event = (eventId: string) => ({
      serviceId: eventId,
      installTime: new Date(T0 - MINUTE).toISOString(),
      event: { eventId, name: "service_purchase", time: new Date(T0).toISOString(), revenue: null },
      ip: null,
      userAgent: null,
      customerUserId: null,
    });
    // Pending: added for the partner that would take it.
    await t.triggers.eventsAccepted(
      t.appId,
      [event("e-won"), event("e-lost"), event("e-never")],
      async () => null,
    );
    const [won, lost, never] = t.take().map((queued) => queued.job);
    if (!won || !lost || !never) throw new Error("not queued");
    await t.worker(t.message(won));
    expect(t.take()).toEqual([{ job: won, delaySeconds: PENDING_DELAY_SECONDS }]);
    expect(t.sent).toEqual([]);

    t.resolve("e-won", "matched", "network_a");
    t.resolve("e-lost", "matched", "network_b");
    await t.worker(t.message(won));
    await t.worker(t.message(lost));
    expect(t.sent.map((request) => request.url)).toEqual([
      "https://won-only.example/e?sid=e-won&e=purchase",
    ]);
    expect(await stores.outbox.get(lost.sendId)).toMatchObject({
      state: "skipped",
      note: "the partner did not win the install",
    });
    t.tick(25 * 60 * MINUTE);
    await t.worker(t.message(never));
    expect(await stores.outbox.get(never.sendId)).toMatchObject({ state: "skipped" });
    expect(t.take()).toEqual([]);
  });

  it("holds an event's webhook delivery until its install is attributed, ten minutes at most, then sends what is known", async () => {
    const t = await setup([], { webhooks: ["backend"] });
    const event = (serviceId: string) => ({
      serviceId,
      installTime: new Date(T0 - MINUTE).toISOString(),
      event: {
        eventId: `${serviceId}-1`,
        name: "service_purchase",
        time: new Date(T0).toISOString(),
        revenue: null,
      },
      ip: null,
      userAgent: null,
      customerUserId: null,
    });
    await t.triggers.eventsAccepted(t.appId, [event("early"), event("orphan")], async () => null);
    const [early, orphan] = t.take().map((queued) => queued.job);
    if (!early || !orphan) throw new Error("not queued");
    await t.worker(t.message(early));
    expect(t.sent).toEqual([]);
    expect(t.take()).toEqual([{ job: early, delaySeconds: PENDING_DELAY_SECONDS }]);
    // Matched a minute on: the delivery names the campaign's network.
    t.tick(MINUTE);
    t.resolve("early", "matched", "network_a");
    await t.worker(t.message(early));
    const attributionOf = (at: number) =>
      (JSON.parse(t.sent[at]?.body ?? "{}") as { attribution: unknown }).attribution;
    expect(attributionOf(0)).toMatchObject({
      service_match_status: "matched",
      media_source: "network_a",
    });
    // Never matched: sent once the ten minutes are over, with no attribution, not held longer.
    await t.worker(t.message(orphan));
    expect(t.sent).toHaveLength(1);
    t.tick(10 * MINUTE);
    await t.worker(t.message(orphan));
    expect(t.sent).toHaveLength(2);
    expect(attributionOf(1)).toBeNull();
  });

  it("queues the next attempt again when its message was lost, and only then", async () => {
    const t = await setup([{ id: "flaky" }]);
    t.resolve("d1", "organic", "organic");
    await t.triggers.installResolved({
      appId: t.appId,
      serviceId: "d1",
      attribution: { status: "organic", mediaSource: "organic" },
      ip: null,
    });
    const [first] = t.take();
    if (!first) throw new Error("nothing queued");
    const token = "gone";
    await stores.outbox.claim(first.job.sendId, {
      attempt: 1,
      token,
      until: new Date(T0 + MINUTE).toISOString(),
      now: new Date(T0).toISOString(),
      takeOver: false,
    });
    // Attempt 1 settled by a worker that stopped before it queued attempt 2.
    await stores.outbox.settle(first.job.sendId, token, {
      attempt: 1,
      state: "retrying",
      nextAttemptAt: new Date(T0 + 15 * MINUTE).toISOString(),
      note: "answered 503",
      at: new Date(T0).toISOString(),
    });
    t.tick(5 * MINUTE);
    // The same message once more on its first delivery (a duplicate): nothing.
    await t.worker(t.message(first.job, 1));
    expect(t.take()).toEqual([]);
    // Delivered again by the queue: its worker is gone, attempt 2 may never have been queued.
    await t.worker(t.message(first.job, 2));
    expect(t.take()).toEqual([{ job: { ...first.job, attempt: 2 }, delaySeconds: 10 * 60 }]);
    expect(t.sent).toEqual([]);
  });

  it("skips a send whose configuration went, or whose install was deleted", async () => {
    const t = await setup([{ id: "removed" }, { id: "kept" }]);
    await t.organicInstalls(["d1", "d2"]);
    await stores.postbackConfigs.delete(t.appId, "partner", "removed");
    t.deletions.set("d2", [
      {
        requestId: "r1",
        appId: t.appId,
        serviceId: "d2",
        status: "pending",
        requestedAt: new Date(T0).toISOString(),
        completedAt: null,
      },
    ]);
    for (const { job } of t.take()) await t.worker(t.message(job));
    expect(t.sent.map((request) => request.url)).toEqual(["https://kept.example/i?sid=d1"]);
    const notes = [];
    for (const serviceId of ["d1", "d2"]) {
      const { entries } = await stores.deliveryLog.listByApp(t.appId, { limit: 10 });
      notes.push(entries.filter((entry) => entry.subject.serviceId === serviceId).length);
    }
    expect(notes).toEqual([1, 0]);
  });

  it("skips a queued send whose configuration was switched off before its attempt, a webhook's too", async () => {
    const t = await setup([{ id: "net" }], { webhooks: ["backend"] });
    await t.organicInstalls(["switched-off"]);
    const queued = t.take();
    expect(queued).toHaveLength(2);
    const [partner] = (await stores.postbackConfigs.listByApp(t.appId)).partners;
    if (!partner) throw new Error("no partner configuration");
    await stores.postbackConfigs.putPartner({ ...partner, enabled: false });
    await stores.postbackConfigs.putWebhook(
      await sealWebhookConfig(
        {
          id: "backend",
          appId: t.appId,
          url: "https://backend.example/hooks",
          secret: newWebhookSecret(),
          enabled: false,
          previous: null,
        },
        wrapper,
        new Date(T0),
      ),
    );
    for (const { job } of queued) await t.worker(t.message(job));
    expect(t.sent).toEqual([]);
    expect((await logOf(t.appId)).map((entry) => [entry.target, entry.reason]).sort()).toEqual([
      ["partner", "disabled"],
      ["webhook", "disabled"],
    ]);
  });

  it("skips a send whose stored configuration no longer checks, and says the owner must save it again", async () => {
    const warned = vi.spyOn(logger, "warn").mockImplementation(() => undefined);
    const t = await setup([
      {
        id: "google",
        catalog: { partner: "google-ads", values: { dev_token: "dt-1", link_id: "L1" } },
      },
    ]);
    await t.organicInstalls(["stale"]);
    const [stored] = (await stores.postbackConfigs.listByApp(t.appId)).partners;
    if (!stored) throw new Error("no partner configuration");
    // As a configuration saved before its partner required a value it lacks.
    const { link_id: _dropped, ...values } = stored.values;
    await stores.postbackConfigs.putPartner({ ...stored, values });
    await drain(t);
    expect(t.sent).toEqual([]);
    const [entry] = await logOf(t.appId);
    expect(entry).toMatchObject({ verdict: "skipped", reason: "config_invalid", final: true });
    const warning = warned.mock.calls.find(([message]) => message === "postback skipped");
    expect(warning?.[1]).toMatchObject({
      configId: "google",
      reason: "config_invalid",
      note: expect.stringContaining("the configuration no longer checks"),
    });
    warned.mockRestore();
  });

  it("opens a secret again at the message's next delivery when the key service failed the last", async () => {
    let down = true;
    const t = await setup([], { webhooks: ["hook"], keyDown: () => down });
    await t.organicInstalls(["key-down"]);
    const [queued] = t.take();
    if (!queued) throw new Error("nothing queued");
    await expect(t.worker(t.message(queued.job, 1))).rejects.toThrow(/key service/);
    expect(t.sent).toEqual([]);
    // Back at once, well within the minutes an opened secret is kept.
    down = false;
    await t.worker(t.message(queued.job, 2));
    expect(t.sent.map((request) => request.url)).toEqual(["https://hook.example/hooks"]);
  });

  it("gives a slow partner a quarter of the slots of each runtime's process", () => {
    // The embedded worker's 32 messages at once; a Lambda function's batch of 10.
    expect(slowPerConfiguration(postbackSlotsOn("embedded"))).toBe(8);
    expect(slowPerConfiguration(postbackSlotsOn("aws"))).toBe(2);
    expect(SLOW_PER_CONFIGURATION).toBe(8);
  });

  it("sends nothing more of an app switched off, a retry included", async () => {
    let enabled = true;
    let answers = 0;
    const t = await setup([{ id: "net" }], {
      app: () => ({
        appId: "com.example.any",
        name: "Any",
        platform: "android",
        enabled,
        createdAt: new Date(T0).toISOString(),
      }),
      // The first attempt fails for a while; the owner switches the app off meanwhile.
      answer: () => ({ kind: "answer", status: ++answers === 1 ? 503 : 200 }),
    });
    await skippedAtItsRetry(t, "o1", "app_disabled", () => {
      enabled = false;
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Every job queued, taken and handled in turn, until none is left. */
  const drain = async (t: Awaited<ReturnType<typeof setup>>) => {
    for (let round = 0; round < 10; round++) {
      const jobs = t.take();
      if (jobs.length === 0) return;
      for (const { job } of jobs) await t.worker(t.message(job));
    }
  };

  const logOf = async (appId: string) =>
    (await stores.deliveryLog.listByApp(appId, { limit: 100 })).entries;

  /**
   * An organic install's send whose first attempt fails (the partner answers 503 first), then,
   * after `meanwhile`, skipped at its retry for `reason`: one request made, the skip logged.
   */
  const skippedAtItsRetry = async (
    t: Awaited<ReturnType<typeof setup>>,
    serviceId: string,
    reason: string,
    meanwhile: () => void,
  ) => {
    await t.organicInstalls([serviceId]);
    const [first] = t.take();
    if (!first) throw new Error("nothing queued");
    await t.worker(t.message(first.job));
    expect(t.sent).toHaveLength(1);
    meanwhile();
    const [second] = t.take();
    if (!second) throw new Error("no second attempt queued");
    t.tick((second.delaySeconds ?? 0) * 1000);
    await t.worker(t.message(second.job));
    expect(t.sent).toHaveLength(1);
    expect(await stores.outbox.get(first.job.sendId)).toMatchObject({ state: "skipped" });
    expect(
      (await logOf(t.appId)).map((entry) => [entry.attempt, entry.verdict, entry.reason ?? null]),
    ).toEqual([
      [2, "skipped", reason],
      [1, "retry", null],
    ]);
  };

  const consent = (overrides: Partial<Consent>): Consent => ({
    gdprApplies: null,
    adUserData: null,
    adPersonalization: null,
    tcfString: null,
    updatedAt: new Date(T0).toISOString(),
    ...overrides,
  });

  it("tells no ad network of a user who refused consent, or of one where it is required and not given, and logs the skip", async () => {
    const installs: Record<string, Partial<Install>> = {
      refused: { consent: consent({ adUserData: false }) },
      unanswered: { consent: consent({ gdprApplies: true }) },
      agreed: { consent: consent({ gdprApplies: true, adUserData: true }) },
    };
    const t = await setup([{ id: "network" }], { webhooks: ["backend"], installs });
    await t.organicInstalls(["refused", "unanswered", "agreed", "unasked"]);
    await drain(t);
    const to = (host: string) =>
      t.sent.filter((request) => new URL(request.url).hostname === host).length;
    // The app's own backend hears of every install: it is first party.
    expect(to("backend.example")).toBe(4);
    expect(t.sent.filter((request) => request.url.startsWith("https://network.example/"))).toEqual([
      expect.objectContaining({ url: "https://network.example/i?sid=agreed" }),
      expect.objectContaining({ url: "https://network.example/i?sid=unasked" }),
    ]);
    const skipped = (await logOf(t.appId)).filter((entry) => entry.verdict === "skipped");
    expect(skipped.map((entry) => entry.subject.serviceId).sort()).toEqual([
      "refused",
      "unanswered",
    ]);
    for (const entry of skipped) {
      expect(entry).toMatchObject({
        configId: "network",
        partner: "custom",
        reason: "no_consent",
        final: true,
        attempt: 1,
        status: null,
        url: "",
      });
    }
    const [counts] = (await stores.deliveryLog.counts(t.appId, new Date(T0))).filter(
      (count) => count.configId === "network",
    );
    expect(counts).toMatchObject({ delivered: 2, failed: 0, skipped: 2 });
  });

  it("asks consent again at each attempt: a user who withdrew it since is not sent to", async () => {
    const installs: Record<string, Partial<Install>> = {};
    const t = await setup([{ id: "flaky" }], {
      installs,
      answer: () => ({ kind: "answer", status: 503, body: "busy" }),
    });
    await skippedAtItsRetry(t, "d1", "no_consent", () => {
      installs.d1 = { consent: consent({ adUserData: false }) };
    });
  });

  it("logs every skipped send with its reason, and warns of those that mean something went wrong", async () => {
    const warned = vi.spyOn(logger, "warn").mockImplementation(() => undefined);
    const t = await setup([{ id: "won-only", installs: "won", events: true }], {
      installs: { "not-stored": null },
    });
    const event = (serviceId: string) => ({
      serviceId,
      installTime: new Date(T0 - MINUTE).toISOString(),
      event: {
        eventId: `evt-${serviceId}`,
        name: "service_purchase",
        time: new Date(T0).toISOString(),
        revenue: null,
      },
      ip: null,
      userAgent: null,
      customerUserId: null,
    });
    await t.triggers.eventsAccepted(
      t.appId,
      [event("lost"), event("not-stored"), event("never"), event("off")],
      async () => null,
    );
    t.resolve("lost", "matched", "network_b");
    t.resolve("off", "skipped", null);
    await drain(t);
    t.tick(25 * 60 * MINUTE);
    await drain(t);
    expect(t.sent).toEqual([]);
    const reasons = Object.fromEntries(
      (await logOf(t.appId)).map((entry) => [entry.subject.serviceId, entry.reason]),
    );
    expect(reasons).toEqual({
      lost: "not_won",
      "not-stored": "install_not_stored",
      never: "not_resolved",
      off: "install_skipped",
    });
    const warnings = warned.mock.calls.filter(([message]) => message === "postback skipped");
    expect(warnings.map(([, fields]) => (fields as { reason: string }).reason).sort()).toEqual([
      "install_not_stored",
      "not_resolved",
    ]);
  });

  it("skips an install's postback, at its attempt, when the attribution as stored repeats a click the partner was told of", async () => {
    const t = await setup([{ id: "won-only", installs: "won" }]);
    for (const serviceId of ["first", "again"]) {
      t.resolve(serviceId, "matched", "network_a", { repeatsClick: serviceId === "again" });
      await t.triggers.installResolved({
        appId: t.appId,
        serviceId,
        attribution: { status: "matched", mediaSource: "network_a" },
        ip: null,
      });
    }
    await drain(t);
    expect(t.sent.map((request) => request.url)).toEqual(["https://won-only.example/i?sid=first"]);
    const reasons = Object.fromEntries(
      (await logOf(t.appId)).map((entry) => [entry.subject.serviceId, entry.reason]),
    );
    expect(reasons).toMatchObject({ again: "repeated_click" });
  });

  it("fails, without a request, a send whose template fills past the bounds, and logs the template's URL", async () => {
    const t = await setup([{ id: "agent", query: "&ua={user_agent}" }]);
    await t.organicInstalls(["long-agent"], `Mozilla/5.0 ${"x".repeat(9_000)}`);
    await drain(t);
    expect(t.sent).toEqual([]);
    const [entry] = await logOf(t.appId);
    expect(entry).toMatchObject({
      url: "https://agent.example/i?sid={service_id}&ua={user_agent}",
      method: "",
      final: true,
      error: expect.stringContaining("longer than 8192 bytes"),
    });
  });

  it("fails a send its message's last delivery could not make, and logs why, rather than leave it open", async () => {
    const failed = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    let down = true;
    const t = await setup([{ id: "stuck" }], {
      installsDown: () => down,
      webhooks: ["stuck-hook"],
    });
    await t.organicInstalls(["s1"]);
    const jobs = t.take().map((queued) => queued.job);
    // The partner's send and the webhook's.
    expect(jobs).toHaveLength(2);
    const note = `the service could not make this attempt (Error), ${POSTBACK_WORKER.maxAttempts} times: given up`;
    for (const job of jobs) {
      for (let delivery = 1; delivery < POSTBACK_WORKER.maxAttempts; delivery++) {
        await expect(t.worker(t.message(job, delivery))).rejects.toThrow(/out of reach/);
        // Another delivery is to come: the send stays open for it.
        expect(await stores.outbox.get(job.sendId)).toMatchObject({ state: "queued", attempts: 0 });
      }
      await expect(t.worker(t.message(job, POSTBACK_WORKER.maxAttempts))).rejects.toThrow(
        /out of reach/,
      );
      expect(await stores.outbox.get(job.sendId)).toMatchObject({
        state: "failed",
        attempts: 1,
        note,
      });
    }
    const logged = (await logOf(t.appId)).sort((a, b) => a.partner.localeCompare(b.partner));
    expect(logged).toMatchObject([
      {
        configId: "stuck",
        partner: "custom",
        verdict: "failed",
        final: true,
        attempt: 1,
        error: note,
      },
      { configId: "stuck-hook", partner: "webhook", verdict: "failed", final: true, attempt: 1 },
    ]);
    expect(failed.mock.calls.map(([message]) => message)).toContain(
      "postback given up: the service failed it",
    );
    // The message sent to the queue again from its dead letters, the store back: nothing goes.
    down = false;
    for (const job of jobs) await t.worker(t.message(job));
    expect(t.sent).toEqual([]);
  });

  it("skips, not fails, a send missing a value its partner requires, and names the value", async () => {
    const t = await setup(
      [
        {
          id: "google",
          catalog: { partner: "google-ads", values: { dev_token: "dt-1", link_id: "L1" } },
        },
      ],
      {
        installs: {
          "no-id": { maid: null, consent: consent({ adUserData: true }) },
          "with-id": { consent: consent({ adUserData: true }) },
        },
      },
    );
    await t.organicInstalls(["no-id", "with-id"]);
    await drain(t);
    expect(t.sent.map((request) => new URL(request.url).searchParams.get("rdid"))).toEqual([
      "38400000-8cf0-11bd-b23e-10b96e40000d",
    ]);
    const [skipped] = (await logOf(t.appId)).filter((entry) => entry.subject.serviceId === "no-id");
    expect(skipped).toMatchObject({
      verdict: "skipped",
      reason: "missing:advertising_id",
      final: true,
      error: null,
    });
    const [counts] = await stores.deliveryLog.counts(t.appId, new Date(T0));
    expect(counts).toMatchObject({ delivered: 1, failed: 0, skipped: 1 });
  });

  it("takes a TikTok 200 whose body names an error for the failure it is: final for a refused token, tried again for its rate limit", async () => {
    // The installs' sends, in turn: TikTok's body names no service id to tell them by.
    const answers = [
      '{"code":0,"message":"OK","data":{}}',
      '{"code":40105,"message":"Access token is incorrect or has been revoked."}',
      '{"code":40100,"message":"Too many requests."}',
    ];
    const t = await setup(
      [
        {
          id: "tiktok",
          catalog: {
            partner: "tiktok",
            values: { tiktok_app_id: "7000000000000000000", access_token: "tt-secret" },
          },
        },
      ],
      {
        answer: () => ({ kind: "answer", status: 200, body: answers.shift() ?? "" }),
        installs: {
          taken: { consent: consent({ adUserData: true }) },
          refused: { consent: consent({ adUserData: true }) },
          limited: { consent: consent({ adUserData: true }) },
        },
      },
    );
    await t.organicInstalls(["taken", "refused", "limited"]);
    for (const { job } of t.take()) await t.worker(t.message(job));
    const logged = new Map((await logOf(t.appId)).map((entry) => [entry.subject.serviceId, entry]));
    expect(logged.get("taken")).toMatchObject({ status: 200, verdict: "delivered", error: null });
    expect(logged.get("refused")).toMatchObject({
      status: 200,
      verdict: "failed",
      final: true,
      error: "answered 200 with code 40105: the partner refused it",
    });
    expect(logged.get("limited")).toMatchObject({ status: 200, verdict: "retry", final: false });
    const [counts] = await stores.deliveryLog.counts(t.appId, new Date(T0));
    expect(counts).toMatchObject({ delivered: 1, failed: 1 });
  });

  it("writes no record of an attempt whose send was purged with its install's data meanwhile", async () => {
    let appId = "";
    const t = await setup([{ id: "purged" }], {
      answer: async () => {
        // A deletion request's purge runs while the partner answers.
        await stores.outbox.purgeInstall(appId, "forgotten");
        await stores.deliveryLog.purgeInstall(appId, "forgotten");
        return { kind: "answer", status: 200, body: "ok" };
      },
    });
    appId = t.appId;
    await t.organicInstalls(["forgotten"]);
    await drain(t);
    expect(t.sent).toHaveLength(1);
    expect(await logOf(t.appId)).toEqual([]);
  });

  it("tries a 429 again as its Retry-After asks when that is later than its schedule, and says so in the log", async () => {
    // A webhook's first retry is a minute away: the backend asks for five.
    const t = await setup([], {
      webhooks: ["backend"],
      answer: () => ({ kind: "answer", status: 429, body: "slow down", retryAfter: "300" }),
    });
    await t.organicInstalls(["d1"]);
    const [first] = t.take();
    if (!first) throw new Error("nothing queued");
    await t.worker(t.message(first.job));
    expect(await stores.outbox.get(first.job.sendId)).toMatchObject({
      state: "retrying",
      nextAttemptAt: new Date(T0 + 300_000).toISOString(),
    });
    expect(t.take()).toEqual([{ job: { ...first.job, attempt: 2 }, delaySeconds: 300 }]);
    const [logged] = await logOf(t.appId);
    expect(logged).toMatchObject({ status: 429, verdict: "retry", final: false });
    expect(logged?.error).toMatch(/429 \(too many requests\).*300 s as its Retry-After asks/);
  });

  it("tries a webhook for more than a day, its delays past the queue's 15 minutes reached in steps", async () => {
    const t = await setup([], {
      webhooks: ["backend"],
      answer: () => ({ kind: "answer", status: 503, body: "down" }),
    });
    await t.organicInstalls(["d1"]);
    const sentAt: number[] = [];
    let early = 0;
    for (let round = 0; round < 500; round++) {
      const [next, ...rest] = t.take();
      expect(rest).toEqual([]);
      if (!next) break;
      expect(next.delaySeconds ?? 0).toBeLessThanOrEqual(900);
      t.tick((next.delaySeconds ?? 0) * 1000);
      const before = t.sent.length;
      await t.worker(t.message(next.job));
      if (t.sent.length > before) sentAt.push(t.now());
      else early += 1;
    }
    expect(sentAt).toHaveLength(10);
    expect(t.sent.map((request) => request.headers["X-Attribution-Attempt"])).toEqual([
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
      "8",
      "9",
      "10",
    ]);
    const gaps = sentAt.slice(1).map((at, i) => at - (sentAt[i] ?? 0));
    for (const [i, gap] of gaps.entries()) if (i > 0) expect(gap).toBeGreaterThan(gaps[i - 1] ?? 0);
    expect((sentAt.at(-1) ?? 0) - (sentAt[0] ?? 0)).toBeGreaterThanOrEqual(24 * 60 * MINUTE);
    // The hours-long delays came through messages of 15 minutes, each sent on again.
    expect(early).toBeGreaterThan(0);
    const [row] = await Promise.all(
      (await logOf(t.appId)).slice(0, 1).map((entry) => stores.outbox.get(entry.sendId)),
    );
    expect(row).toMatchObject({ state: "failed", attempts: 10 });
    // The queues take a webhook's later attempts' messages as they take a partner's.
    const job = (attempt: number) => ({ appId: t.appId, sendId: "snd_x", attempt });
    expect(POSTBACK_WORKER.message.safeParse(job(10)).success).toBe(true);
    expect(POSTBACK_WORKER.message.safeParse(job(11)).success).toBe(false);
  });

  it("reads the install's time on the service's clock when the device's was off: the window and the postbacks", async () => {
    const twoDays = 2 * 24 * 60 * MINUTE;
    // The phone's clock is two days behind: it reported its first open two days early.
    const installs = {
      slow: {
        firstOpenTime: new Date(T0 - twoDays).toISOString(),
        clockOffsetMs: twoDays,
        receivedAt: new Date(T0 + 1_000).toISOString(),
        os: "ios" as const,
      },
    };
    const t = await setup(
      [
        {
          id: "daily",
          events: true,
          windowDays: 1,
          query: "&ts={install_unix_ts}&type={install_type}",
        },
      ],
      { webhooks: ["backend"], installs },
    );
    t.resolve("slow", "organic", "organic");
    await t.triggers.installResolved({
      appId: t.appId,
      serviceId: "slow",
      attribution: { status: "organic", mediaSource: "organic" },
      ip: null,
    });
    await t.triggers.eventsAccepted(
      t.appId,
      [
        {
          serviceId: "slow",
          // As ingestion gives it: the install's time as kept.
          installTime: new Date(T0).toISOString(),
          event: {
            eventId: "evt-1",
            name: "service_purchase",
            time: new Date(T0 + 60 * MINUTE).toISOString(),
            revenue: null,
          },
          ip: null,
          userAgent: null,
          customerUserId: null,
        },
      ],
      async () => ({ status: "organic", mediaSource: "organic" }),
    );
    await drain(t);
    const partner = t.sent.filter((request) => request.url.startsWith("https://daily.example/"));
    expect(partner.map((request) => request.url)).toEqual([
      `https://daily.example/i?sid=slow&ts=${T0 / 1000}&type=new_install`,
      `https://daily.example/e?sid=slow&e=purchase&ts=${T0 / 1000}&type=new_install`,
    ]);
    const hook = t.sent.find((request) => request.url === "https://backend.example/hooks");
    const body = JSON.parse(hook?.body ?? "{}");
    expect(body.install.first_open_time).toBe(new Date(T0).toISOString());
    expect(body.attribution.install_type).toBe("new_install");
  });
});
