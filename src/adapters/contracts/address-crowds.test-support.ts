/**
 * The contract of which installs send from an address (src/ports/address-crowds.ts), as the
 * touch store keeps them, one suite for each server the store runs against: dynalite on the
 * embedded runtime, DynamoDB's own API on AWS (moto's, here). Each runner's test file calls
 * `describeAddressCrowdsContract` with a factory of its own side; the `it`s are the same, and
 * share its store, each with an app of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AddressSighting } from "../../ports/address-crowds.ts";
import type { TouchStore } from "../../ports/touches.ts";
import { sightingItem } from "../dynamodb/sightings.ts";

export interface TouchStoreUnderTest {
  readonly store: TouchStore;
  close(): Promise<void>;
}

const HOUR = 3_600_000;
/** An hour's start by the service's clock. */
const T0 = Date.parse("2026-11-24T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

let apps = 0;
/** An app of its own for each test, so that tests share a table and not their sightings. */
const freshApp = () => `com.crowd.c${++apps}`;

const sighting = (
  appId: string,
  serviceId: string,
  at: number,
  ip = "81.2.69.142",
): AddressSighting => ({ appId, serviceId, ip, at: iso(at) });

/** The day before T0 + 12 h, to T0 + 12 h. */
const dayTo = (appId: string, to = T0 + 12 * HOUR) => ({
  appId,
  from: new Date(to - 24 * HOUR),
  to: new Date(to),
});

export const describeAddressCrowdsContract = (
  name: string,
  factory: () => Promise<TouchStoreUnderTest>,
): void => {
  describe(`which installs send from an address: ${name}`, () => {
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
      "counts each install once, however often and in however many hours it sent",
      withStore(async (store) => {
        const app = freshApp();
        await store.recordSightings([
          sighting(app, "i1", T0 + 60_000),
          sighting(app, "i1", T0 + 120_000),
          sighting(app, "i2", T0 + 60_000),
        ]);
        await store.recordSightings([
          sighting(app, "i1", T0 + 60_000),
          sighting(app, "i1", T0 + 3 * HOUR),
          sighting(app, "i3", T0 + 5 * HOUR),
        ]);
        expect(await store.installsAt("81.2.69.142", dayTo(app), 100)).toBe(3);
      }),
    );

    it(
      "keeps apps and addresses apart, and an IPv6 /64 as one address",
      withStore(async (store) => {
        const app = freshApp();
        const other = freshApp();
        await store.recordSightings([
          sighting(app, "i1", T0, "81.2.69.142"),
          sighting(app, "i2", T0, "81.2.69.143"),
          sighting(other, "i3", T0, "81.2.69.142"),
          sighting(app, "v6-a", T0, "2a00:1450:4001:81a::1"),
          sighting(app, "v6-b", T0, "2a00:1450:4001:81a::beef"),
          sighting(app, "v6-c", T0, "2a00:1450:4001:81b::1"),
        ]);
        expect(await store.installsAt("81.2.69.142", dayTo(app), 100)).toBe(1);
        expect(await store.installsAt("81.2.69.143", dayTo(app), 100)).toBe(1);
        expect(await store.installsAt("81.2.69.142", dayTo(other), 100)).toBe(1);
        expect(await store.installsAt("81.2.69.144", dayTo(app), 100)).toBe(0);
        expect(await store.installsAt("2a00:1450:4001:81a::7", dayTo(app), 100)).toBe(2);
      }),
    );

    it(
      "counts a sighting whose hour overlaps the window, none before it or after it",
      withStore(async (store) => {
        const app = freshApp();
        const from = T0 + 30 * 60_000;
        const to = T0 + 5 * HOUR;
        await store.recordSightings([
          // The window starts within this one's hour.
          sighting(app, "in-first-hour", T0 + 10 * 60_000),
          sighting(app, "at-the-end", to),
          sighting(app, "hour-before", T0 - 10 * 60_000),
          sighting(app, "after", to + HOUR),
        ]);
        const window = { appId: app, from: new Date(from), to: new Date(to) };
        expect(await store.installsAt("81.2.69.142", window, 100)).toBe(2);
      }),
    );

    it(
      "counts up to the cap it is asked for, and exactly below it",
      withStore(async (store) => {
        const app = freshApp();
        // A carrier NAT's address: 250 installs over the day, most in several hours.
        const many = Array.from({ length: 250 }, (_, i) =>
          [0, 1, 2].map((hour) => sighting(app, `nat-${i}`, T0 - (i % 10) * HOUR + hour * HOUR)),
        ).flat();
        await store.recordSightings(many);
        expect(await store.installsAt("81.2.69.142", dayTo(app), 6)).toBe(6);
        expect(await store.installsAt("81.2.69.142", dayTo(app), 1_000)).toBe(250);
        expect(await store.installsAt("81.2.69.142", dayTo(app), 0)).toBe(0);
      }),
    );

    it(
      "never shows a sighting as a touch",
      withStore(async (store) => {
        const app = freshApp();
        const seen = sighting(app, "i1", T0);
        await store.recordSightings([seen]);
        expect(await store.byIp("81.2.69.142", dayTo(app))).toEqual([]);
        // A referrer may name any click id, a sighting's key too.
        const key = String(sightingItem(seen)?.clickId);
        expect(await store.get(key)).toBeUndefined();
      }),
    );

    it(
      "forgets sightings two days after their hour",
      withStore(async (store) => {
        const app = freshApp();
        await store.recordSightings([sighting(app, "i1", T0), sighting(app, "i2", T0 + HOUR)]);
        // The embedded runtime reaps by its sweep; DynamoDB's TTL does it on AWS, by the same
        // attribute. Last: it reaps the other tests' sightings too.
        await store.reap(new Date(T0 + 48 * HOUR + 1_000));
        expect(await store.installsAt("81.2.69.142", dayTo(app, T0 + 2 * HOUR), 100)).toBe(1);
      }),
    );
  });
};
