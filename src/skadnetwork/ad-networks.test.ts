/** The catalog of ad network ids and the media sources their postbacks are reported as. */
import { describe, expect, it } from "vitest";
import { AD_NETWORKS, mediaSourceOf } from "./ad-networks.ts";

describe("the ad network catalog", () => {
  it("holds each id once, in lower case, as Apple writes them", () => {
    const ids = AD_NETWORKS.map((network) => network.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]{10}\.skadnetwork$/);
  });

  it("reports the mediation networks' postbacks by their media sources, the app's own name first", () => {
    expect(mediaSourceOf("ludvb6z3bs.skadnetwork")).toBe("applovin_int");
    expect(mediaSourceOf("4DZT52R2T5.skadnetwork")).toBe("unityads_int");
    expect(mediaSourceOf("22mmun2rn5.skadnetwork")).toBe("bytedanceglobal_int");
    // The app's own name first; an id neither knows as it stands.
    expect(mediaSourceOf("ludvb6z3bs.skadnetwork", { "LUDVB6Z3BS.skadnetwork": "applovin" })).toBe(
      "applovin",
    );
    expect(mediaSourceOf("abcdefghij.skadnetwork")).toBe("abcdefghij.skadnetwork");
  });
});
