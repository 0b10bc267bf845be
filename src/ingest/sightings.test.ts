import { describe, expect, it } from "vitest";
import type { AddressSighting } from "../ports/address-crowds.ts";
import { createSightingRecorder } from "./sightings.ts";

const AT = new Date("2026-11-24T12:10:00.000Z");
const later = (minutes: number) => new Date(AT.getTime() + minutes * 60_000);

const recorder = (options: { fail?: () => boolean; remembered?: number } = {}) => {
  const written: AddressSighting[][] = [];
  const record = createSightingRecorder(
    {
      recordSightings: async (sightings) => {
        if (options.fail?.()) throw new Error("store down");
        written.push([...sightings]);
      },
    },
    options.remembered,
  );
  return { record, written };
};

describe("recording which installs send from an address", () => {
  it("writes an install once an hour per address, not once a request", async () => {
    const { record, written } = recorder();
    await record("com.a", "81.2.69.142", ["i1", "i2", "i1"], AT);
    await record("com.a", "81.2.69.142", ["i1"], later(20));
    await record("com.a", "81.2.69.142", ["i2", "i3"], later(30));
    // The next clock hour, another address, another app: new sightings.
    await record("com.a", "81.2.69.142", ["i1"], later(50));
    await record("com.a", "81.2.69.143", ["i1"], later(50));
    await record("com.b", "81.2.69.142", ["i1"], later(50));
    expect(written.map((batch) => batch.map((s) => `${s.appId} ${s.ip} ${s.serviceId}`))).toEqual([
      ["com.a 81.2.69.142 i1", "com.a 81.2.69.142 i2"],
      ["com.a 81.2.69.142 i3"],
      ["com.a 81.2.69.142 i1"],
      ["com.a 81.2.69.143 i1"],
      ["com.b 81.2.69.142 i1"],
    ]);
    expect(written[0]?.[0]?.at).toBe(AT.toISOString());
  });

  it("takes the addresses of one IPv6 /64 as one", async () => {
    const { record, written } = recorder();
    await record("com.a", "2a00:1450:4001:81a::1", ["i1"], AT);
    await record("com.a", "2a00:1450:4001:81a::beef", ["i1"], AT);
    expect(written).toHaveLength(1);
  });

  it("records no address matching never reads: private, carrier-NAT, loopback, none", async () => {
    const { record, written } = recorder();
    for (const ip of ["10.1.2.3", "100.64.1.2", "127.0.0.1", "fd00::1", null, "not an ip"]) {
      await record("com.a", ip, ["i1"], AT);
    }
    expect(written).toEqual([]);
  });

  it("writes again what a failed write lost", async () => {
    let down = true;
    const { record, written } = recorder({ fail: () => down });
    await expect(record("com.a", "81.2.69.142", ["i1"], AT)).rejects.toThrow("store down");
    down = false;
    await record("com.a", "81.2.69.142", ["i1"], AT);
    expect(written).toHaveLength(1);
  });

  it("forgets the oldest sightings past its memory, and writes them again", async () => {
    const { record, written } = recorder({ remembered: 2 });
    await record("com.a", "81.2.69.142", ["i1"], AT);
    await record("com.a", "81.2.69.142", ["i2"], AT);
    await record("com.a", "81.2.69.142", ["i3"], AT);
    await record("com.a", "81.2.69.142", ["i3"], AT);
    await record("com.a", "81.2.69.142", ["i1"], AT);
    expect(written.flat().map((s) => s.serviceId)).toEqual(["i1", "i2", "i3", "i1"]);
  });
});
