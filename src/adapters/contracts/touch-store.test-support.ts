/**
 * The touch store's contract (TouchStore in src/ports/touches.ts), one suite for every store
 * behind the port: the DynamoDB table (on dynalite, and on DynamoDB's API as moto's server
 * answers it, as on AWS) and the embedded runtime's own store. Each store's test file calls
 * `describeTouchStoreContract` with a factory of its own side; the `it`s are the same, and share
 * its store, each with an app of its own. What matching reads is held here: a touch by its
 * click id, an advertising id's touches whatever its case, an address's (IPv4 whole, IPv6 by its
 * /64), each a window of touch times with both bounds included, newest first, every touch of one
 * millisecond kept; a click id stored again written over, lookups following; a network's click
 * id claimed once; a click credited to one install only; deleted touches gone from every
 * lookup; expired ones reaped, with their claims.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Touch, TouchStore, TouchWindow } from "../../ports/touches.ts";
import { NO_CAMPAIGN } from "../../touches/touch.ts";
import type { TouchStoreUnderTest } from "./address-crowds.test-support.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The contract's clock: every touch but the reaped ones is within a day of it. */
const T0 = Date.parse("2026-11-24T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

let apps = 0;
/** An app of its own for each test, so that tests share a store and not their touches. */
const freshApp = () => `com.touch.t${++apps}`;

let ids = 0;
export const contractTouch = (
  appId: string,
  at: number,
  overrides: Partial<Touch> = {},
): Touch => ({
  clickId: `c${++ids}-${appId}`,
  appId,
  touchType: "click",
  source: "link",
  touchTime: iso(at),
  receivedAt: iso(at),
  deeplinkId: "Ab3dEf6hIj9",
  mediaSource: "network_a",
  ...NO_CAMPAIGN,
  networkClickId: null,
  ip: "81.2.69.142",
  userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8)",
  platform: "android",
  osVersion: "14",
  deviceModel: "Pixel 8",
  language: "en-US",
  country: "GB",
  maid: null,
  params: { promo: "WINTER" },
  urlParams: { sub1: "abc" },
  cost: null,
  ...overrides,
});

const window = (appId: string, from: number, to: number): TouchWindow => ({
  appId,
  from: new Date(from),
  to: new Date(to),
});

const idsOf = (touches: readonly Touch[]) => touches.map((touch) => touch.clickId);

export const describeTouchStoreContract = (
  name: string,
  factory: () => Promise<TouchStoreUnderTest>,
): void => {
  describe(`the touch store: ${name}`, () => {
    let subject: TouchStoreUnderTest | undefined;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(() => subject?.close());
    const withStore = (test: (store: TouchStore) => Promise<void>) => async () => {
      if (!subject) throw new Error("no store under test");
      await test(subject.store);
    };

    it(
      "reads a touch back by its click id, as it was put; an unknown id is none",
      withStore(async (store) => {
        const app = freshApp();
        const touch = contractTouch(app, T0, {
          maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
          params: { promo: "WINTER", deep_link_path: "/levels/7" },
          urlParams: {},
          campaignName: "Winter",
        });
        const bare = contractTouch(app, T0, { ip: null, userAgent: null, country: null });
        const costed = contractTouch(app, T0, {
          cost: { model: "CPI", value: 2.5, currency: "EUR" },
        });
        const costless = contractTouch(app, T0, { cost: null });
        await store.put([touch, bare, costed, costless]);
        expect(await store.get(touch.clickId)).toEqual(touch);
        expect(await store.get(bare.clickId)).toEqual(bare);
        expect(await store.get(costed.clickId)).toEqual(costed);
        expect(await store.get(costless.clickId)).toEqual(costless);
        expect(await store.get(`${touch.clickId}-not`)).toBeUndefined();
      }),
    );

    it(
      "finds an advertising id's touches whatever its case, newest first, both bounds included, of its app only",
      withStore(async (store) => {
        const app = freshApp();
        const other = freshApp();
        const idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC";
        const at = (minute: number, overrides: Partial<Touch> = {}) =>
          contractTouch(app, T0 + minute * MINUTE, { maid: idfa, ...overrides });
        const before = at(-1);
        const first = at(0, { maid: idfa.toLowerCase(), source: "network" });
        const middle = at(5, { ip: null });
        const last = at(10);
        const after = at(11);
        const othersApp = contractTouch(other, T0 + 5 * MINUTE, { maid: idfa });
        const anotherDevice = at(5, { maid: "6D92078A-8246-4BA4-AE5B-76104861E7DD" });
        await store.put([before, first, middle, last, after, othersApp, anotherDevice]);
        const found = await store.byMaid(idfa.toLowerCase(), window(app, T0, T0 + 10 * MINUTE));
        expect(idsOf(found)).toEqual(idsOf([last, middle, first]));
        expect(found[2]).toEqual(first);
        expect(idsOf(await store.byMaid(idfa, window(app, T0, T0 + 10 * MINUTE)))).toEqual(
          idsOf([last, middle, first]),
        );
        expect(idsOf(await store.byMaid(idfa, window(other, T0, T0 + 10 * MINUTE)))).toEqual(
          idsOf([othersApp]),
        );
        expect(await store.byMaid(idfa, window(app, T0 + 12 * MINUTE, T0 + DAY))).toEqual([]);
      }),
    );

    it(
      "finds an address's touches, IPv4 whole and IPv6 by its /64, newest first, both bounds included",
      withStore(async (store) => {
        const app = freshApp();
        const v4 = contractTouch(app, T0, { ip: "81.2.69.160" });
        const v4Later = contractTouch(app, T0 + 2 * MINUTE, { ip: "81.2.69.160" });
        const v4Neighbour = contractTouch(app, T0, { ip: "81.2.69.161" });
        const v6 = contractTouch(app, T0 + MINUTE, { ip: "2a00:1450:4001:81a::1" });
        const v6SameNetwork = contractTouch(app, T0 + 3 * MINUTE, {
          ip: "2a00:1450:4001:81a:dead:beef::7",
        });
        const v6OtherNetwork = contractTouch(app, T0 + MINUTE, { ip: "2a00:1450:4001:81b::1" });
        const noAddress = contractTouch(app, T0, { ip: null });
        await store.put([v4, v4Later, v4Neighbour, v6, v6SameNetwork, v6OtherNetwork, noAddress]);
        const day = window(app, T0, T0 + 3 * MINUTE);
        expect(idsOf(await store.byIp("81.2.69.160", day))).toEqual(idsOf([v4Later, v4]));
        expect(idsOf(await store.byIp("::ffff:81.2.69.160", day))).toEqual(idsOf([v4Later, v4]));
        expect(idsOf(await store.byIp("2a00:1450:4001:81a::99", day))).toEqual(
          idsOf([v6SameNetwork, v6]),
        );
        expect(idsOf(await store.byIp("81.2.69.160", window(app, T0 + MINUTE, T0 + DAY)))).toEqual(
          idsOf([v4Later]),
        );
        expect(await store.byIp("not an address", day)).toEqual([]);
        expect(await store.byIp("81.2.69.160", window(freshApp(), T0, T0 + DAY))).toEqual([]);
      }),
    );

    it(
      "keeps every touch of one millisecond, and all of an address's many, newest first",
      withStore(async (store) => {
        const app = freshApp();
        // A carrier NAT's address: many taps, several in each millisecond.
        const taps = Array.from({ length: 120 }, (_, i) =>
          contractTouch(app, T0 + Math.floor(i / 3) * 1_000, { ip: "81.2.69.170" }),
        );
        await store.put(taps);
        const found = await store.byIp("81.2.69.170", window(app, T0, T0 + DAY));
        expect(found).toHaveLength(taps.length);
        const key = (touch: Touch) => `${touch.touchTime}#${touch.clickId}`;
        const newestFirst = [...taps].sort((a, b) => (key(a) < key(b) ? 1 : -1));
        expect(idsOf(found)).toEqual(idsOf(newestFirst));
      }),
    );

    it(
      "writes a click id stored again over the first, its lookups following",
      withStore(async (store) => {
        const app = freshApp();
        const first = contractTouch(app, T0, { ip: "81.2.69.180", maid: "aaaa-1" });
        const again: Touch = {
          ...first,
          touchTime: iso(T0 + MINUTE),
          ip: "81.2.69.181",
          maid: "aaaa-2",
          deviceModel: "Pixel 9",
        };
        await store.put([first]);
        await store.put([again]);
        expect(await store.get(first.clickId)).toEqual(again);
        const day = window(app, T0 - DAY, T0 + DAY);
        expect(await store.byIp("81.2.69.180", day)).toEqual([]);
        expect(await store.byMaid("aaaa-1", day)).toEqual([]);
        expect(await store.byIp("81.2.69.181", day)).toEqual([again]);
        expect(await store.byMaid("AAAA-2", day)).toEqual([again]);
      }),
    );

    it(
      "claims a network's click id once: a repeat, even at the same time, gets the touch that stands",
      withStore(async (store) => {
        const app = freshApp();
        const claimed = contractTouch(app, T0, { source: "network", networkClickId: "n-1" });
        const repeat = { ...claimed, touchTime: iso(T0 + MINUTE), deviceModel: "Pixel 9" };
        expect(await store.putIfAbsent(claimed)).toEqual({ touch: claimed, created: true });
        expect(await store.putIfAbsent(repeat)).toEqual({ touch: claimed, created: false });
        expect(await store.get(claimed.clickId)).toEqual(claimed);

        const raced = contractTouch(app, T0, { source: "network", networkClickId: "n-2" });
        const rival = { ...raced, deviceModel: "Pixel 9" };
        const answers = await Promise.all([store.putIfAbsent(raced), store.putIfAbsent(rival)]);
        expect(answers.filter((answer) => answer.created)).toHaveLength(1);
        const stands = await store.get(raced.clickId);
        expect(answers.map((answer) => answer.touch)).toEqual([stands, stands]);
        expect(await store.byIp("81.2.69.142", window(app, T0, T0 + DAY))).toHaveLength(2);
      }),
    );

    it(
      "credits a click to one install: its claim holds, again too, and another install's is refused",
      withStore(async (store) => {
        const app = freshApp();
        const click = contractTouch(app, T0);
        await store.put([click]);
        const claim = (serviceId: string, clickId = click.clickId) =>
          store.claimClick({
            appId: app,
            clickId,
            serviceId,
            touchTime: click.touchTime,
            device: null,
            own: false,
          });
        expect(await claim("install-1")).toBe("this_install");
        // A job run again for the same install.
        expect(await claim("install-1")).toBe("this_install");
        expect(await claim("install-2")).toBe("another_install");
        // The same service id in another app is another install, whose claims are its own.
        expect(
          await store.claimClick({
            appId: freshApp(),
            clickId: click.clickId,
            serviceId: "install-2",
            touchTime: click.touchTime,
            device: null,
            own: false,
          }),
        ).toBe("this_install");
        // Two installs at once: one holds it.
        const raced = contractTouch(app, T0);
        await store.put([raced]);
        const answers = await Promise.all([
          claim("install-3", raced.clickId),
          claim("install-4", raced.clickId),
        ]);
        expect(answers.filter((holder) => holder === "this_install")).toHaveLength(1);
        // A claim is no touch: the click reads back as it was, and no lookup finds another.
        expect(await store.get(click.clickId)).toEqual(click);
        expect(await store.get(`claim#${app}#${click.clickId}`)).toBeUndefined();
        expect(idsOf(await store.byIp("81.2.69.142", window(app, T0 - DAY, T0 + DAY)))).toEqual(
          expect.arrayContaining([click.clickId, raced.clickId]),
        );
        expect(await store.byIp("81.2.69.142", window(app, T0 - DAY, T0 + DAY))).toHaveLength(2);
      }),
    );

    it(
      "tells another install of the same device holding a click from a stranger's",
      withStore(async (store) => {
        const app = freshApp();
        const click = contractTouch(app, T0);
        await store.put([click]);
        const claim = (serviceId: string, device: string | null) =>
          store.claimClick({
            appId: app,
            clickId: click.clickId,
            serviceId,
            touchTime: click.touchTime,
            device,
            own: false,
          });
        expect(await claim("install-1", "device-a")).toBe("this_install");
        // The same phone installing again, and another phone, or one that names no device.
        expect(await claim("install-2", "device-a")).toBe("same_device");
        expect(await claim("install-3", "device-b")).toBe("another_install");
        expect(await claim("install-4", null)).toBe("another_install");
        // The holder's own claim again, whatever device it names now; the device it claimed
        // with stays the claim's (a retried job after consent was withdrawn names none).
        expect(await claim("install-1", null)).toBe("this_install");
        expect(await claim("install-5", "device-a")).toBe("same_device");

        // Two installs that name no device are not one phone's.
        const unnamed = contractTouch(app, T0 + 1);
        await store.put([unnamed]);
        const claimUnnamed = (serviceId: string) =>
          store.claimClick({
            appId: app,
            clickId: unnamed.clickId,
            serviceId,
            touchTime: unnamed.touchTime,
            device: null,
            own: false,
          });
        expect(await claimUnnamed("install-6")).toBe("this_install");
        expect(await claimUnnamed("install-7")).toBe("another_install");
      }),
    );

    it(
      "lets go of a deleted install's claim only: a later install of its device holds the click anew",
      withStore(async (store) => {
        const app = freshApp();
        const click = contractTouch(app, T0);
        await store.put([click]);
        const claim = (serviceId: string) =>
          store.claimClick({
            appId: app,
            clickId: click.clickId,
            serviceId,
            touchTime: click.touchTime,
            device: "device-a",
            own: false,
          });
        const release = (serviceId: string) =>
          store.releaseClaim({
            appId: app,
            clickId: click.clickId,
            serviceId,
            touchTime: click.touchTime,
          });
        expect(await claim("install-1")).toBe("this_install");
        // Another install's release, or one of a click never claimed, leaves the claim.
        await release("install-2");
        await store.releaseClaim({ ...click, appId: app, serviceId: "install-1", clickId: "x" });
        expect(await claim("install-2")).toBe("same_device");
        await release("install-1");
        expect(await claim("install-2")).toBe("this_install");
        expect(await store.get(click.clickId)).toEqual(click);
      }),
    );

    it(
      "notes a device's own click beside a twin's claim: its next install from it is its device's",
      withStore(async (store) => {
        const app = freshApp();
        /** Claims and releases of one click, by install and device. */
        const clickOf = async (touch: Touch) => {
          await store.put([touch]);
          const at = { appId: app, clickId: touch.clickId, touchTime: touch.touchTime };
          return {
            claim: (serviceId: string, device: string, own: boolean) =>
              store.claimClick({ ...at, serviceId, device, own }),
            release: (serviceId: string) => store.releaseClaim({ ...at, serviceId }),
          };
        };
        const { claim, release } = await clickOf(contractTouch(app, T0));
        // A twin at the address, matched probabilistically, took the click first.
        expect(await claim("twin-1", "twin", false)).toBe("this_install");
        // The click's own device (its click id): credited, not the twin's device, noted.
        expect(await claim("own-1", "own", true)).toBe("another_install");
        // Its job run again is its own claim; its device's next installs are its device's.
        expect(await claim("own-1", "own", true)).toBe("this_install");
        expect(await claim("own-2", "own", true)).toBe("same_device");
        expect(await claim("own-3", "own", false)).toBe("same_device");
        expect(await claim("twin-2", "twin", false)).toBe("same_device");
        // One own device is noted: a third phone's claim is another install's, and stays so.
        expect(await claim("third-1", "third", true)).toBe("another_install");
        expect(await claim("third-2", "third", true)).toBe("another_install");
        // The twin deleted: the own device's install holds the click.
        await release("twin-1");
        expect(await claim("own-4", "own", false)).toBe("same_device");
        expect(await claim("twin-3", "twin", false)).toBe("another_install");
        expect(await claim("own-1", "own", true)).toBe("this_install");
        // It deleted too: the click is free.
        await release("own-1");
        expect(await claim("fresh-1", "fresh", false)).toBe("this_install");

        // The own device's install deleted first: the twin keeps the click, noted no more.
        const secondTouch = contractTouch(app, T0 + 1);
        const second = await clickOf(secondTouch);
        expect(await second.claim("twin-1", "twin", false)).toBe("this_install");
        expect(await second.claim("own-1", "own", true)).toBe("another_install");
        await second.release("own-1");
        expect(await second.claim("twin-1", "twin", false)).toBe("this_install");
        expect(await second.claim("other-1", "other", false)).toBe("another_install");
        // So the device's next install from it is a new one again, and noted.
        expect(await second.claim("own-2", "own", true)).toBe("another_install");
        expect(await second.claim("own-3", "own", true)).toBe("same_device");
        expect(await store.get(secondTouch.clickId)).toEqual(secondTouch);
      }),
    );

    it(
      "forgets deleted touches in every lookup, and keeps the rest",
      withStore(async (store) => {
        const app = freshApp();
        const gone = contractTouch(app, T0, { maid: "bbbb-1" });
        const kept = contractTouch(app, T0 + MINUTE, { maid: "bbbb-1" });
        await store.put([gone, kept]);
        await store.delete([gone.clickId, "never-stored"]);
        await store.delete([]);
        const day = window(app, T0 - DAY, T0 + DAY);
        expect(await store.get(gone.clickId)).toBeUndefined();
        expect(await store.byIp("81.2.69.142", day)).toEqual([kept]);
        expect(await store.byMaid("bbbb-1", day)).toEqual([kept]);
        // A click id deleted may be stored again.
        expect((await store.putIfAbsent(gone)).created).toBe(true);
      }),
    );

    it(
      "reaps the touches whose longest click window has passed, and only those",
      withStore(async (store) => {
        // Last: a reap may take the other tests' expired items too, and they have none.
        const app = freshApp();
        const expired = contractTouch(app, T0 - 40 * DAY, { maid: "cccc-1" });
        const live = contractTouch(app, T0 - 20 * DAY, { maid: "cccc-1" });
        await store.put([expired, live]);
        const claim = (touch: Touch, serviceId: string) =>
          store.claimClick({
            appId: app,
            clickId: touch.clickId,
            serviceId,
            touchTime: touch.touchTime,
            device: null,
            own: false,
          });
        expect(await claim(expired, "install-1")).toBe("this_install");
        expect(await claim(live, "install-1")).toBe("this_install");
        // The expired click and its claim.
        expect(await store.reap(new Date(T0 - 5 * DAY))).toBe(2);
        expect(await claim(live, "install-2")).toBe("another_install");
        const all = window(app, T0 - 60 * DAY, T0);
        expect(await store.get(expired.clickId)).toBeUndefined();
        expect(await store.byMaid("cccc-1", all)).toEqual([live]);
        expect(await store.byIp("81.2.69.142", all)).toEqual([live]);
        expect(await store.reap(new Date(T0 - 5 * DAY))).toBe(0);
      }),
    );
  });
};
