/**
 * The postback worker's decisions, over the real outbox, log and configuration stores (on
 * dynalite) and a sender that records what it is asked: one attempt however often a message
 * comes, a busy configuration's message set aside while another's goes, an event decided once
 * its install is attributed, the next attempt queued again when its message was lost, and a
 * send skipped when its configuration went or its install was deleted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import {
  type DynamoConnection,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
} from "../embedded/local-dynamodb.ts";
import type { AttributionRecord, AttributionResult } from "../ports/attributions.ts";
import type { DeletionRequest } from "../ports/deletions.ts";
import type { OutgoingRequest, SendOutcome } from "../ports/postbacks.ts";
import type { WorkMessage } from "../ports/work-queue.ts";
import { parsePartnerConfig } from "../postbacks/config.ts";
import type { PostbackJob } from "../postbacks/delivery.ts";
import {
  createPartnerSlots,
  type PartnerSlots,
  SLOW_REQUEST_MS,
} from "../postbacks/partner-slots.ts";
import { sealPartnerConfig } from "../postbacks/secrets.ts";
import { createPostbackTriggers } from "../postbacks/triggers.ts";
import {
  BUSY_DELAY_SECONDS,
  createPostbackWorker,
  PENDING_DELAY_SECONDS,
} from "./postback-worker.ts";

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
  otherCandidates: 0,
  params: {},
  cost: null,
  touchTime: null,
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
  let stores: ReturnType<typeof createDynamoStores>;
  let wrapper: KeyWrapper;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "postback-worker-"));
    dynamo = await startLocalDynamoDb(join(dir, "dynamodb"));
    stores = createDynamoStores(dynamo.doc, LOCAL_TABLE_NAMES);
    wrapper = createKeyFileWrapper(join(dir, "master.key"));
  });

  afterAll(async () => {
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  });

  let apps = 0;
  /** An app of its own per test, with its configurations, installs and a worker over them. */
  const setup = async (
    configs: { id: string; installs?: "won" | "all"; events?: boolean; host?: string }[],
    options: {
      slots?: { slowMax: number; room: number; waitMs: number };
      /** Places for requests given as they are, in place of the worker's own. */
      givenSlots?: PartnerSlots;
      /** The delivery log fails this many appends first. */
      failingLogAppends?: number;
    } = {},
  ) => {
    const appId = `${APP}.${++apps}`;
    for (const config of configs) {
      const parsed = parsePartnerConfig({
        id: config.id,
        appId,
        partner: "custom",
        template: {
          method: "GET",
          install: { url: `https://${config.host ?? `${config.id}.example`}/i?sid={service_id}` },
          event: {
            url: `https://${config.host ?? `${config.id}.example`}/e?sid={service_id}&e={event_name}`,
          },
        },
        mediaSources: ["network_a"],
        installs: config.installs ?? "all",
        events: config.events ? { service_purchase: { name: "purchase", revenue: false } } : {},
      });
      await stores.postbackConfigs.putPartner(await sealPartnerConfig(parsed, wrapper));
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
    const worker = createPostbackWorker({
      apps: { get: async () => undefined },
      installs: {
        get: async (app, serviceId) =>
          storedInstall(app, serviceId, { firstOpenTime: new Date(T0 - MINUTE).toISOString() }),
      },
      attributions: { get: async (_app, serviceId) => attributions.get(serviceId) },
      deletions: { listByInstall: async (_app, serviceId) => deletions.get(serviceId) ?? [] },
      configs: stores.postbackConfigs,
      outbox: stores.outbox,
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
          return { kind: "answer", status: 200, body: "ok" };
        },
      },
      keyWrapper: wrapper,
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
    ) =>
      attributions.set(serviceId, {
        state: "resolved",
        appId,
        serviceId,
        result: result(status, source),
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
    /** Organic installs, each resolved and its sends triggered, in turn. */
    const organicInstalls = async (serviceIds: readonly string[]) => {
      for (const serviceId of serviceIds) {
        resolve(serviceId, "organic", "organic");
        await triggers.installResolved({
          appId,
          serviceId,
          attribution: { status: "organic", mediaSource: "organic" },
          ip: null,
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

  it("sends a postback once when its attempt could not be logged, and its message comes again", async () => {
    const t = await setup([{ id: "unlogged" }], { failingLogAppends: 1 });
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
});
