import { describe, expect, it } from "vitest";
import {
  createPartnerSlots,
  type PartnerSlot,
  SLOW_FOR_MS,
  SLOW_REQUEST_MS,
} from "./partner-slots.ts";

const setup = (waitMs = 60_000) => {
  let clock = 1_000_000;
  const slots = createPartnerSlots({ slowMax: 2, room: 1, waitMs, now: () => clock });
  return {
    slots,
    tick: (ms: number) => {
      clock += ms;
    },
  };
};

const takeMany = async (
  slots: ReturnType<typeof setup>["slots"],
  key: string,
  count: number,
): Promise<PartnerSlot[]> => {
  const taken: PartnerSlot[] = [];
  for (let i = 0; i < count; i++) {
    const slot = await slots.take(key);
    if (!slot) throw new Error(`slot ${i} refused`);
    taken.push(slot);
  }
  return taken;
};

describe("a configuration's places for requests", () => {
  it("gives a partner that answers quickly as many as it asks for", async () => {
    const { slots, tick } = setup();
    const first = await takeMany(slots, "quick", 20);
    tick(SLOW_REQUEST_MS - 1);
    for (const slot of first) slot.end();
    expect(await takeMany(slots, "quick", 20)).toHaveLength(20);
  });

  it("holds a partner found slow to its few, one more waiting its turn, until it answers quickly for a while", async () => {
    const { slots, tick } = setup();
    const [a, b, c] = await takeMany(slots, "slow", 3);
    // One request took long: slow for a while, whatever it has under way.
    tick(SLOW_REQUEST_MS);
    a?.end();
    b?.end();
    c?.end();
    const [d, e] = await takeMany(slots, "slow", 2);
    let waited: PartnerSlot | undefined;
    const waiting = slots.take("slow").then((slot) => {
      waited = slot;
    });
    // No room for a second to wait.
    expect(await slots.take("slow")).toBeUndefined();
    // Another partner is not held.
    expect(await takeMany(slots, "other", 5)).toHaveLength(5);
    // A request ends: its place passes to the one waiting.
    expect(waited).toBeUndefined();
    d?.end();
    await waiting;
    expect(waited?.end).toBeTypeOf("function");
    // The place itself passed: two are still under way (e and the one that waited), so the
    // next attempt waits in its turn, until the one that waited ends.
    const next = slots.take("slow");
    expect(await Promise.race([next, Promise.resolve("still waiting")])).toBe("still waiting");
    waited?.end();
    const handed = await next;
    expect(handed?.end).toBeTypeOf("function");
    // Quick answers for as long as it stays slow: then as many as it asks for again.
    e?.end();
    handed?.end();
    tick(SLOW_FOR_MS);
    expect(await takeMany(slots, "slow", 6)).toHaveLength(6);
  });

  it("finds a partner slow by a request still under way, before it ends", async () => {
    const { slots, tick } = setup();
    const [first] = await takeMany(slots, "hanging", 3);
    tick(SLOW_REQUEST_MS);
    // Three under way, past its two: none more, one may wait.
    const waiting = slots.take("hanging");
    expect(await slots.take("hanging")).toBeUndefined();
    expect(await Promise.race([waiting, Promise.resolve("still waiting")])).toBe("still waiting");
    first?.end();
    const handed = await waiting;
    expect(handed?.end).toBeTypeOf("function");
    // It holds the place the first freed: the next attempt waits for it to end.
    const next = slots.take("hanging");
    expect(await Promise.race([next, Promise.resolve("still waiting")])).toBe("still waiting");
    handed?.end();
    expect((await next)?.end).toBeTypeOf("function");
  });

  it("refuses an attempt that waited its time without a request ending", async () => {
    const { slots, tick } = setup(10);
    await takeMany(slots, "stuck", 2);
    tick(SLOW_REQUEST_MS);
    expect(await slots.take("stuck")).toBeUndefined();
  });
});
