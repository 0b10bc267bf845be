import { describe, expect, it } from "vitest";
import { recordingDoc } from "./dynamo-targets.test-support.ts";
import { countInstallsAt, sightingItem } from "./sightings.ts";
import { SIGHTING_KEY_PREFIX } from "./table-definitions.ts";

const SIGHTING = {
  appId: "com.example.game",
  serviceId: "install-5f1c",
  ip: "81.2.69.142",
  at: "2026-11-24T12:34:56.000Z",
};

describe("address sightings on DynamoDB", () => {
  it("keeps one item an install, address and hour, naming the install by a hash alone", () => {
    const item = sightingItem(SIGHTING);
    expect(item).toEqual({
      clickId: expect.stringMatching(
        new RegExp(`^${SIGHTING_KEY_PREFIX}com\\.example\\.game#81\\.2\\.69\\.142#`),
      ),
      ipKey: "com.example.game#81.2.69.142#seen",
      touchKey: expect.stringMatching(/^2026-11-24T12:00:00\.000Z#/),
      expiresTtl: expect.any(Number),
    });
    expect(JSON.stringify(item)).not.toContain(SIGHTING.serviceId);
    // The same install in the same hour is the same item; another install is another.
    expect(sightingItem({ ...SIGHTING, at: "2026-11-24T12:00:01.000Z" })).toEqual(item);
    expect(sightingItem({ ...SIGHTING, serviceId: "install-other" })?.clickId).not.toBe(
      item?.clickId,
    );
  });

  it("keeps nothing of an address that is none", () => {
    for (const ip of ["", "unknown", "999.1.1.1"])
      expect(sightingItem({ ...SIGHTING, ip })).toBeNull();
  });

  it("counts to nothing without asking, when nothing is asked for or there is no address", async () => {
    const { doc, sent } = recordingDoc();
    const window = { appId: SIGHTING.appId, from: new Date(0), to: new Date() };
    expect(await countInstallsAt(doc, "touches", SIGHTING.ip, window, 0)).toBe(0);
    expect(await countInstallsAt(doc, "touches", "unknown", window, 10)).toBe(0);
    expect(sent).toEqual([]);
  });
});
