/**
 * The contract of the postback stores (src/ports/postbacks.ts): configurations, the outbox and
 * the delivery log, one suite for each server the stores run against (dynalite on the
 * embedded runtime, DynamoDB's own API on AWS, moto's here). Each runner's test file calls
 * `describePostbackStoresContract` with a factory of its own side; the `it`s are the same and
 * share its stores, each with an app of its own.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_POSTBACK_SETTINGS,
  DELIVERY_LOG_DAYS,
  type DeliveryLog,
  type DeliveryLogEntry,
  OUTBOX_DAYS,
  type OutboxRow,
  type OutboxStore,
  type PostbackConfigStore,
  type StoredPartnerConfig,
  type StoredWebhookConfig,
} from "../../ports/postbacks.ts";
import { underTest } from "./under-test.test-support.ts";

export interface PostbackStoresUnderTest {
  readonly configs: PostbackConfigStore;
  readonly outbox: OutboxStore;
  readonly log: DeliveryLog;
  close(): Promise<void>;
}

const T0 = Date.parse("2026-11-24T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;
const DAY = 86_400_000;

let apps = 0;
/** An app of its own for each test, so that tests share tables and not their items. */
const freshApp = () => `com.postbacks.c${++apps}`;

const partner = (appId: string, id: string): StoredPartnerConfig => ({
  id,
  appId,
  partner: "generic",
  template: null,
  mediaSources: ["network_a"],
  values: { endpoint: "https://partner.example/postback" },
  sealedValues: { token: "kf1.sealed" },
  secretValues: ["token"],
  installs: "won",
  // A name from outside: kept as a key, whatever it is.
  events: {
    service_purchase: { name: "purchase", revenue: true },
    constructor: { name: "c", revenue: false },
  },
  eventWindowDays: 180,
  tcfVendorId: 12,
  enabled: true,
  updatedAt: iso(T0),
});

const webhook = (appId: string, id: string): StoredWebhookConfig => ({
  id,
  appId,
  url: "https://backend.example/hooks",
  sealedSecret: "kf1.secret",
  previous: null,
  enabled: true,
  updatedAt: iso(T0),
});

const row = (appId: string, sendId: string, overrides: Partial<OutboxRow> = {}): OutboxRow => ({
  sendId,
  appId,
  configId: "cfg-1",
  target: "partner",
  subject: {
    kind: "event",
    serviceId: "device-1",
    eventId: "evt-1",
    name: "service_purchase",
    time: iso(T0),
    revenue: { amount: 9.99, currency: "EUR", usd: 10.79 },
    ip: "81.2.69.160",
    userAgent: null,
    customerUserId: null,
  },
  state: "queued",
  attempts: 0,
  nextAttemptAt: null,
  note: null,
  claimToken: null,
  claimedUntil: null,
  createdAt: iso(T0),
  updatedAt: iso(T0),
  ...overrides,
});

const entry = (
  appId: string,
  sendId: string,
  attempt: number,
  at: number,
  overrides: Partial<DeliveryLogEntry> = {},
): DeliveryLogEntry => ({
  appId,
  sendId,
  configId: "cfg-1",
  target: "partner",
  partner: "generic",
  subject: { kind: "install", serviceId: "device-1", eventId: null },
  time: iso(at),
  url: "https://partner.example/postback?token=***",
  method: "GET",
  status: 503,
  answer: "busy",
  error: null,
  attempt,
  retry: attempt > 1,
  verdict: "retry",
  final: false,
  reason: null,
  ...overrides,
});

export const describePostbackStoresContract = (
  name: string,
  factory: () => Promise<PostbackStoresUnderTest>,
  /** `log: false` where the log cannot run: the DynamoDB one's transactions on dynalite. */
  options: { readonly log?: boolean } = {},
): void => {
  describe(`the postback stores: ${name}`, () => {
    const stores = underTest(factory);
    // Where the target keeps no log, its tests are not there to pass or to skip.
    const logIt = (title: string, test: () => Promise<void>) => {
      if (options.log !== false) it(title, test);
    };

    it("keeps an app's configurations and settings, and only that app's", async () => {
      const { configs } = stores();
      const app = freshApp();
      const other = freshApp();
      await configs.putPartner(partner(app, "net-a"));
      await configs.putPartner({ ...partner(app, "net-b"), enabled: false });
      await configs.putWebhook(webhook(app, "backend"));
      await configs.putPartner(partner(other, "net-a"));
      expect(await configs.listByApp(freshApp())).toEqual({
        partners: [],
        webhooks: [],
        settings: DEFAULT_POSTBACK_SETTINGS,
      });
      await configs.putSettings(app, { shareDeviceDataWithoutConsent: true });
      const listed = await configs.listByApp(app);
      expect(listed.partners.map((config) => config.id).sort()).toEqual(["net-a", "net-b"]);
      expect(listed.partners.find((config) => config.id === "net-a")).toEqual(
        partner(app, "net-a"),
      );
      expect(listed.webhooks).toEqual([webhook(app, "backend")]);
      expect(listed.settings).toEqual({ shareDeviceDataWithoutConsent: true });
      expect(await configs.getPartner(app, "net-b")).toMatchObject({ enabled: false });
      expect(await configs.getWebhook(app, "backend")).toEqual(webhook(app, "backend"));
      expect(await configs.getWebhook(app, "net-a")).toBeUndefined();

      await configs.putPartner({ ...partner(app, "net-a"), mediaSources: ["network_z"] });
      expect((await configs.getPartner(app, "net-a"))?.mediaSources).toEqual(["network_z"]);
      expect(await configs.delete(app, "partner", "net-b")).toBe(true);
      expect(await configs.delete(app, "partner", "net-b")).toBe(false);
      expect((await configs.listByApp(app)).partners.map((config) => config.id)).toEqual(["net-a"]);
    });

    it("adds a send once: a second row of the same send id is refused", async () => {
      const { outbox } = stores();
      const app = freshApp();
      expect(await outbox.add(row(app, `${app}-s1`))).toBe(true);
      expect(await outbox.add(row(app, `${app}-s1`, { configId: "cfg-2" }))).toBe(false);
      expect(await outbox.get(`${app}-s1`)).toEqual(row(app, `${app}-s1`));
      expect(await outbox.get(`${app}-none`)).toBeUndefined();
    });

    it("keeps an event send's whole subject: the customer user id its webhook names the user by", async () => {
      const { outbox } = stores();
      const app = freshApp();
      const event = {
        kind: "event",
        serviceId: "svc-1",
        eventId: "evt-1",
        name: "service_purchase",
        time: "2026-11-24T11:00:00.000Z",
        revenue: null,
        ip: null,
        userAgent: null,
        customerUserId: null,
      } as const;
      await outbox.add(row(app, `${app}-user`, { subject: { ...event, customerUserId: "u-42" } }));
      expect((await outbox.get(`${app}-user`))?.subject).toEqual({
        ...event,
        customerUserId: "u-42",
      });
      // A send queued with no id names none.
      await outbox.add(row(app, `${app}-none`, { subject: event }));
      expect((await outbox.get(`${app}-none`))?.subject).toEqual(event);
      // An event sent in anonymous mode stays so: its sends name neither device nor user.
      const anonymous = { ...event, anonymous: true };
      await outbox.add(row(app, `${app}-anonymous`, { subject: anonymous }));
      expect((await outbox.get(`${app}-anonymous`))?.subject).toEqual(anonymous);
    });

    it("claims each attempt for one holder, and settles it only for that holder", async () => {
      const { outbox } = stores();
      const app = freshApp();
      const sendId = `${app}-s1`;
      await outbox.add(row(app, sendId));
      const claim = (token: string, attempt: number, at: number, takeOver = false) =>
        outbox.claim(sendId, {
          attempt,
          token,
          until: iso(at + MINUTE),
          now: iso(at),
          takeOver,
        });
      // Attempt 2 before attempt 1 is made: refused.
      expect(await claim("a", 2, T0)).toBeUndefined();
      expect(await claim("a", 1, T0)).toMatchObject({ claimToken: "a", attempts: 0 });
      // Another holder while the claim is alive: refused; once it has ended, or when the queue
      // says the holder is gone: taken.
      expect(await claim("b", 1, T0 + 1_000)).toBeUndefined();
      expect(await claim("b", 1, T0 + 1_000, true)).toMatchObject({ claimToken: "b" });
      expect(
        await outbox.settle(sendId, "a", {
          attempt: 1,
          state: "retrying",
          nextAttemptAt: iso(T0 + 15 * MINUTE),
          note: null,
          at: iso(T0),
        }),
      ).toBe(false);
      expect(
        await outbox.settle(sendId, "b", {
          attempt: 1,
          state: "retrying",
          nextAttemptAt: iso(T0 + 15 * MINUTE),
          note: "503",
          at: iso(T0 + 2_000),
        }),
      ).toBe(true);
      expect(await outbox.get(sendId)).toMatchObject({
        state: "retrying",
        attempts: 1,
        nextAttemptAt: iso(T0 + 15 * MINUTE),
        note: "503",
        claimToken: null,
        claimedUntil: null,
      });
      // Attempt 1 is made: it cannot be claimed again; attempt 2 can.
      expect(await claim("c", 1, T0 + 3 * MINUTE, true)).toBeUndefined();
      expect(await claim("c", 2, T0 + 15 * MINUTE)).toMatchObject({ claimToken: "c" });
      // The retrying send kept its subject whole; the final one keeps the subject given.
      expect((await outbox.get(sendId))?.subject).toMatchObject({ ip: "81.2.69.160" });
      const kept = { ...row(app, sendId).subject, ip: null, userAgent: null };
      expect(
        await outbox.settle(sendId, "c", {
          attempt: 2,
          state: "delivered",
          nextAttemptAt: null,
          note: null,
          at: iso(T0 + 15 * MINUTE),
          subject: kept,
        }),
      ).toBe(true);
      expect(await outbox.get(sendId)).toMatchObject({
        state: "delivered",
        attempts: 2,
        nextAttemptAt: null,
        note: null,
        subject: kept,
      });
      // A final send is claimed no more, and not skipped either.
      expect(await claim("d", 3, T0 + 30 * MINUTE, true)).toBeUndefined();
      expect(await outbox.skip(sendId, "too late", iso(T0 + 31 * MINUTE))).toBe(false);
      expect((await outbox.get(sendId))?.state).toBe("delivered");
    });

    it("lets another holder take a claim once it has ended, and not before", async () => {
      const { outbox } = stores();
      const app = freshApp();
      const sendId = `${app}-ended`;
      await outbox.add(row(app, sendId));
      const claim = (token: string, at: number) =>
        outbox.claim(sendId, {
          attempt: 1,
          token,
          until: iso(at + MINUTE),
          now: iso(at),
          takeOver: false,
        });
      expect(await claim("a", T0)).toMatchObject({ claimToken: "a" });
      expect(await claim("b", T0 + MINUTE)).toBeUndefined();
      expect(await claim("b", T0 + MINUTE + 1)).toMatchObject({
        claimToken: "b",
        claimedUntil: iso(T0 + 2 * MINUTE + 1),
      });
    });

    it("skips a send not yet final, which then cannot be claimed", async () => {
      const { outbox } = stores();
      const app = freshApp();
      // Waiting for its next attempt: skipped, it waits for none.
      await outbox.add(
        row(app, `${app}-s1`, {
          state: "retrying",
          attempts: 1,
          nextAttemptAt: iso(T0 + MINUTE),
          note: "HTTP 503",
        }),
      );
      const kept = { ...row(app, `${app}-s1`).subject, ip: null };
      expect(await outbox.skip(`${app}-s1`, "the configuration is gone", iso(T0), kept)).toBe(true);
      // A send that is gone (purged with its install's data) is not skipped: nothing is written.
      expect(await outbox.skip(`${app}-gone`, "the configuration is gone", iso(T0))).toBe(false);
      expect(await outbox.get(`${app}-gone`)).toBeUndefined();
      expect(await outbox.get(`${app}-s1`)).toMatchObject({
        state: "skipped",
        note: "the configuration is gone",
        subject: kept,
        nextAttemptAt: null,
      });
      expect(
        await outbox.claim(`${app}-s1`, {
          attempt: 2,
          token: "a",
          until: iso(T0 + 2 * MINUTE),
          now: iso(T0 + MINUTE),
          takeOver: true,
        }),
      ).toBeUndefined();
    });

    it("forgets sends past their lifetime, and no other", async () => {
      const { outbox } = stores();
      const app = freshApp();
      const old = Date.now() - 46 * DAY;
      await outbox.add(row(app, `${app}-old`, { createdAt: iso(old), updatedAt: iso(old) }));
      await outbox.add(row(app, `${app}-new`, { createdAt: iso(Date.now()) }));
      expect(await outbox.reap(new Date())).toBeGreaterThanOrEqual(1);
      expect(await outbox.get(`${app}-old`)).toBeUndefined();
      expect(await outbox.get(`${app}-new`)).toBeDefined();
    });

    it("keeps a send its days from when it was made, to the second", async () => {
      const { outbox } = stores();
      const app = freshApp();
      const made = T0 - 400 * DAY;
      await outbox.add(row(app, `${app}-s`, { createdAt: iso(made), updatedAt: iso(made) }));
      const end = made + OUTBOX_DAYS * DAY;
      // Other tests' sends may go too: only this one's is asked after.
      await outbox.reap(new Date(end));
      expect(await outbox.get(`${app}-s`)).toBeDefined();
      await outbox.reap(new Date(end + 1_000));
      expect(await outbox.get(`${app}-s`)).toBeUndefined();
    });

    logIt(
      "keeps an attempt its days from its time, and its day's counts a day longer, to the second",
      async () => {
        const { log } = stores();
        const app = freshApp();
        const at = T0 - 400 * DAY;
        const day = at - (at % DAY);
        await log.append(entry(app, "snd_old", 1, at));
        const listed = async () => (await log.listByApp(app, { limit: 10 })).entries.length;
        const counted = async () => (await log.counts(app, new Date(day))).length;
        const end = at + DELIVERY_LOG_DAYS * DAY;
        await log.reap(new Date(end));
        expect([await listed(), await counted()]).toEqual([1, 1]);
        await log.reap(new Date(end + 1_000));
        expect([await listed(), await counted()]).toEqual([0, 1]);
        const countEnd = day + (DELIVERY_LOG_DAYS + 1) * DAY;
        await log.reap(new Date(countEnd));
        expect(await counted()).toBe(1);
        await log.reap(new Date(countEnd + 1_000));
        expect(await counted()).toBe(0);
      },
    );

    logIt(
      "records an attempt given twice at once once, by the last given, and counts it once",
      async () => {
        const { log } = stores();
        const app = freshApp();
        await Promise.all([
          log.append(entry(app, "snd_twice", 1, T0, { verdict: "retry", status: 503 })),
          log.append(entry(app, "snd_twice", 1, T0, { verdict: "delivered", status: 200 })),
        ]);
        const { entries } = await log.listByApp(app, { limit: 10 });
        expect(entries.map((e) => [e.sendId, e.status])).toEqual([["snd_twice", 200]]);
        expect(await log.counts(app, new Date(T0 - (T0 % DAY)))).toMatchObject([
          { delivered: 1, retry: 0, failed: 0, skipped: 0 },
        ]);
      },
    );

    logIt("lists an app's attempts newest first, page by page, and counts them once", async () => {
      const { log } = stores();
      const app = freshApp();
      const other = freshApp();
      const day = T0 - (T0 % DAY);
      for (let attempt = 1; attempt <= 5; attempt++) {
        await log.append(
          entry(app, "snd_a", attempt, T0 + (attempt - 1) * 15 * MINUTE, {
            verdict: attempt === 5 ? "failed" : "retry",
            final: attempt === 5,
          }),
        );
      }
      await log.append(entry(app, "snd_b", 1, T0 + MINUTE, { verdict: "delivered", status: 200 }));
      await log.append(
        entry(app, "snd_c", 1, T0 + DAY, {
          verdict: "delivered",
          configId: "hook",
          partner: "webhook",
          target: "webhook",
        }),
      );
      await log.append(entry(other, "snd_z", 1, T0, { verdict: "delivered" }));
      // The same attempt recorded again (its worker stopped before it was done): replaced.
      await log.append(entry(app, "snd_b", 1, T0 + MINUTE, { verdict: "delivered", status: 204 }));

      const first = await log.listByApp(app, { limit: 4 });
      expect(first.entries.map((e) => `${e.sendId}#${e.attempt}`)).toEqual([
        "snd_c#1",
        "snd_a#5",
        "snd_a#4",
        "snd_a#3",
      ]);
      expect(first.next).not.toBeNull();
      const second = await log.listByApp(app, { limit: 4, after: first.next ?? undefined });
      expect(second.entries.map((e) => `${e.sendId}#${e.attempt}`)).toEqual([
        "snd_a#2",
        "snd_b#1",
        "snd_a#1",
      ]);
      expect(second.entries.find((e) => e.sendId === "snd_b")?.status).toBe(204);
      expect(first.entries[1]).toEqual(
        entry(app, "snd_a", 5, T0 + 60 * MINUTE, { verdict: "failed", final: true }),
      );

      const counts = await log.counts(app, new Date(day));
      expect(counts).toHaveLength(2);
      expect(counts).toContainEqual({
        day: iso(day).slice(0, 10),
        configId: "cfg-1",
        partner: "generic",
        delivered: 1,
        retry: 4,
        failed: 1,
        skipped: 0,
      });
      expect(counts).toContainEqual({
        day: iso(day + DAY).slice(0, 10),
        configId: "hook",
        partner: "webhook",
        delivered: 1,
        retry: 0,
        failed: 0,
        skipped: 0,
      });
      expect(await log.counts(app, new Date(day + DAY))).toHaveLength(1);
    });

    logIt("records attempts appended together, each once, and counts each once", async () => {
      const { log } = stores();
      const app = freshApp();
      const day = T0 - (T0 % DAY);
      await log.append(entry(app, "snd_first", 1, T0, { verdict: "retry" }));
      // Forty at once, among them the first again (recorded anew, not counted again) and one
      // attempt given twice in the same burst.
      await Promise.all([
        ...Array.from({ length: 38 }, (_, i) =>
          log.append(
            entry(app, `snd_${String(i).padStart(2, "0")}`, 1, T0 + i * 1000, {
              verdict: i % 3 === 0 ? "failed" : "delivered",
              final: true,
            }),
          ),
        ),
        log.append(entry(app, "snd_first", 1, T0, { verdict: "retry", status: 504 })),
        log.append(entry(app, "snd_00", 1, T0, { verdict: "failed", final: true })),
      ]);
      const listed = await log.listByApp(app, { limit: 100 });
      expect(listed.entries).toHaveLength(39);
      expect(new Set(listed.entries.map((e) => `${e.sendId}#${e.attempt}`)).size).toBe(39);
      expect(listed.entries.find((e) => e.sendId === "snd_first")?.status).toBe(504);
      expect(await log.counts(app, new Date(day))).toEqual([
        {
          day: iso(day).slice(0, 10),
          configId: "cfg-1",
          partner: "generic",
          delivered: 25,
          retry: 1,
          failed: 13,
          skipped: 0,
        },
      ]);
    });

    logIt(
      "keeps a skipped send's record with its reason, and counts skips apart from failures",
      async () => {
        const { log } = stores();
        const app = freshApp();
        const day = T0 - (T0 % DAY);
        const skipped = entry(app, "snd_skipped", 1, T0, {
          url: "",
          method: "",
          status: null,
          answer: null,
          verdict: "skipped",
          final: true,
          reason: "no_consent",
        });
        await log.append(skipped);
        await log.append(entry(app, "snd_failed", 1, T0 + 1, { verdict: "failed", final: true }));
        const { entries } = await log.listByApp(app, { limit: 10 });
        expect(entries.find((e) => e.sendId === "snd_skipped")).toEqual(skipped);
        expect(await log.counts(app, new Date(day))).toEqual([
          {
            day: iso(day).slice(0, 10),
            configId: "cfg-1",
            partner: "generic",
            delivered: 0,
            retry: 0,
            failed: 1,
            skipped: 1,
          },
        ]);
      },
    );

    logIt("forgets attempts and counts past 30 days", async () => {
      const { log } = stores();
      const app = freshApp();
      const old = Date.now() - 32 * DAY;
      await log.append(entry(app, "snd_old", 1, old));
      await log.append(entry(app, "snd_new", 1, Date.now()));
      expect(await log.reap(new Date())).toBeGreaterThanOrEqual(2);
      const left = await log.listByApp(app, { limit: 10 });
      expect(left.entries.map((e) => e.sendId)).toEqual(["snd_new"]);
      expect((await log.counts(app, new Date(old))).map((c) => c.day)).toEqual([
        iso(Date.now()).slice(0, 10),
      ]);
    });

    it("purges one install's sends, leaving its neighbours'", async () => {
      const { outbox } = stores();
      const app = freshApp();
      const other = { ...row(app, "x").subject, serviceId: "device-2" };
      await outbox.add(row(app, `${app}-a`));
      await outbox.add(row(app, `${app}-b`, { configId: "cfg-2" }));
      await outbox.add(row(app, `${app}-c`, { subject: other }));
      // The same service id in another app is another install.
      const elsewhere = freshApp();
      await outbox.add(row(elsewhere, `${elsewhere}-a`));

      expect(await outbox.purgeInstall(app, "device-1")).toBe(2);
      expect(await outbox.get(`${app}-a`)).toBeUndefined();
      expect(await outbox.get(`${app}-b`)).toBeUndefined();
      expect(await outbox.get(`${app}-c`)).toBeDefined();
      expect(await outbox.get(`${elsewhere}-a`)).toBeDefined();
      expect(await outbox.purgeInstall(app, "device-1")).toBe(0);
    });

    logIt("purges one install's attempts, leaving its neighbours' and the counts", async () => {
      const { log } = stores();
      const app = freshApp();
      const now = Date.now();
      // Send ids are hashes, unique across apps: these are made so too, apart from other tests'.
      await log.append(entry(app, `${app}-snd_a`, 1, now));
      await log.append(entry(app, `${app}-snd_a`, 2, now + 1));
      await log.append(
        entry(app, `${app}-snd_c`, 1, now + 2, {
          subject: { kind: "install", serviceId: "device-2", eventId: null },
        }),
      );

      expect(await log.purgeInstall(app, "device-1")).toBe(2);
      const left = await log.listByApp(app, { limit: 10 });
      expect(left.entries.map((e) => e.sendId)).toEqual([`${app}-snd_c`]);
      const counts = await log.counts(app, new Date(now - DAY));
      expect(counts.reduce((sum, c) => sum + c.retry, 0)).toBe(3);
      expect(await log.purgeInstall(app, "device-1")).toBe(0);
    });
  });
};
