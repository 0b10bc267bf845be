import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import type { Confidence } from "../domain/attribution.ts";
import { NO_CAMPAIGN } from "../touches/touch.ts";
import type { Credit, Match } from "./matcher.ts";
import { ANSWER_KEYS, exportedFields, installTypeOf, resultOf } from "./results.ts";
import { DEFAULT_ATTRIBUTION } from "./settings.ts";

const AT = new Date("2026-11-24T12:00:00.000Z");

/** A match of a link's tap that carries an invite's deep link. */
const matchAt = (confidence: Confidence): Match => ({
  kind: "matched",
  method: confidence === "high" ? "click_id" : "probabilistic",
  credit: {
    mediaSource: "invite",
    ...NO_CAMPAIGN,
    touchType: "click",
    touchTime: "2026-11-24T11:50:00.000Z",
    clickId: "c1",
    deeplinkId: "Kx3v9QpZ2aQ",
    params: { deep_link_path: "/invite/8812", inviter: "user-8812" },
  },
  matchingType: confidence === "high" ? "network" : "geo",
  confidence,
  otherCandidates: 0,
  clickToFirstOpenHours: 0,
  reinstall: false,
});

describe("an attribution result's deferred deep link", () => {
  it("comes with a match at the app's deep-link floor or above, medium by default", () => {
    for (const confidence of ["medium", "high"] as const) {
      const result = resultOf(matchAt(confidence), null, AT, DEFAULT_ATTRIBUTION);
      expect(result.status).toBe("matched");
      expect(result.params).toEqual({ deep_link_path: "/invite/8812", inviter: "user-8812" });
    }
  });

  it("holds the tapped URL's own parameters, over the link's of the same name", () => {
    const match = matchAt("high");
    if (match.kind !== "matched") throw new Error("a match");
    const tapped = {
      ...match,
      credit: { ...match.credit, urlParams: { promo: "SPRING", inviter: "user-9" } },
    };
    const result = resultOf(tapped, null, AT, DEFAULT_ATTRIBUTION);
    expect(result.params).toEqual({
      deep_link_path: "/invite/8812",
      inviter: "user-9",
      promo: "SPRING",
    });
    // A link with no parameters of its own, tapped with some: a deferred deep link all the same.
    const bare = { ...tapped, credit: { ...tapped.credit, params: {} } };
    expect(resultOf(bare, null, AT, DEFAULT_ATTRIBUTION)).toMatchObject({
      status: "matched",
      params: { promo: "SPRING", inviter: "user-9" },
    });
    // Below the floor, none of them.
    const low = { ...tapped, confidence: "low" as const };
    expect(resultOf(low, null, AT, DEFAULT_ATTRIBUTION)).toMatchObject({
      status: "matched_no_params",
      params: {},
    });
  });

  it("needs a parameter the answer can carry: one named like the answer's own is none", () => {
    const match = matchAt("high");
    if (match.kind !== "matched") throw new Error("a match");
    // A network's macro on a link that names no campaign: not the install's campaign.
    const macro = { ...match, credit: { ...match.credit, params: { campaign_id: "{cid}" } } };
    const result = resultOf(macro, null, AT, DEFAULT_ATTRIBUTION);
    expect(result.status).toBe("matched_no_params");
    // The answer's keys are every field it says besides, so none is told twice.
    expect([...ANSWER_KEYS].sort()).toEqual(
      ["service_match_status", "click_id", ...Object.keys(exportedFields(result))].sort(),
    );
  });

  it("is left out below it: the install is still attributed, without the link's parameters", () => {
    const low = resultOf(matchAt("low"), null, AT, DEFAULT_ATTRIBUTION);
    expect(low).toMatchObject({
      status: "matched_no_params",
      mediaSource: "invite",
      confidence: "low",
      params: {},
    });
    const strict = resultOf(matchAt("medium"), null, AT, { deepLinkConfidenceFloor: "high" });
    expect(strict).toMatchObject({ status: "matched_no_params", params: {} });
    const open = resultOf(matchAt("low"), null, AT, { deepLinkConfidenceFloor: "low" });
    expect(open).toMatchObject({ status: "matched", params: { inviter: "user-8812" } });
  });
});

describe("an attribution result's cost", () => {
  const withCost = (cost: Credit["cost"], touchType: Credit["touchType"] = "click"): Match => {
    const match = matchAt("high");
    if (match.kind !== "matched") throw new Error("a match");
    return { ...match, credit: { ...match.credit, cost, touchType } };
  };

  it("is the winning touch's when it is paid per install (CPI)", () => {
    const cpi = { model: "CPI", value: 2.5, currency: "EUR" } as const;
    expect(resultOf(withCost(cpi), null, AT, DEFAULT_ATTRIBUTION).cost).toEqual(cpi);
    expect(resultOf(withCost(cpi, "impression"), null, AT, DEFAULT_ATTRIBUTION).cost).toEqual(cpi);
  });

  it("is none for a CPC or CPM touch (their cost is the touch's own), a touch of none, or an organic install", () => {
    for (const model of ["CPC", "CPM"] as const) {
      const cost = { model, value: 0.5, currency: "USD" };
      expect(resultOf(withCost(cost), null, AT, DEFAULT_ATTRIBUTION).cost, model).toBeNull();
    }
    expect(resultOf(withCost(undefined), null, AT, DEFAULT_ATTRIBUTION).cost).toBeNull();
    expect(resultOf({ kind: "organic" }, null, AT, DEFAULT_ATTRIBUTION).cost).toBeNull();
  });
});

describe("an attribution result's touch type", () => {
  it("is the winning touch's, click-through or view-through, and none for an organic install", () => {
    const match = matchAt("high");
    if (match.kind !== "matched") throw new Error("a match");
    const seen = { ...match, credit: { ...match.credit, touchType: "impression" as const } };
    expect(resultOf(match, null, AT, DEFAULT_ATTRIBUTION).touchType).toBe("click");
    expect(resultOf(seen, null, AT, DEFAULT_ATTRIBUTION).touchType).toBe("impression");
    expect(resultOf({ kind: "organic" }, null, AT, DEFAULT_ATTRIBUTION).touchType).toBeNull();
  });

  it("carries the network's own click id of a touch a network reported, none of a link's", () => {
    const match = matchAt("high");
    if (match.kind !== "matched") throw new Error("a match");
    const reported = { ...match, credit: { ...match.credit, networkClickId: "net-42" } };
    expect(resultOf(reported, null, AT, DEFAULT_ATTRIBUTION).networkClickId).toBe("net-42");
    expect(resultOf(match, null, AT, DEFAULT_ATTRIBUTION).networkClickId).toBeNull();
  });
});

describe("an install again from a click another install of its device holds", () => {
  it("costs nothing more, and is a reinstall: in the export's install type on iOS, for the reports on both", () => {
    const high = matchAt("high") as Extract<Match, { kind: "matched" }>;
    const paid: Extract<Match, { kind: "matched" }> = {
      ...high,
      credit: { ...high.credit, cost: { model: "CPI", value: 2, currency: "USD" } },
    };
    const first = resultOf(paid, null, AT, DEFAULT_ATTRIBUTION);
    expect(first).toMatchObject({ installType: null, reinstall: false });
    // The first install from the CPI click is the one its price is for.
    expect(first.cost).toEqual({ model: "CPI", value: 2, currency: "USD" });
    const again = resultOf({ ...paid, reinstall: true }, null, AT, DEFAULT_ATTRIBUTION);
    expect(again).toMatchObject({
      status: "matched",
      installType: null,
      reinstall: true,
      repeatsClick: true,
    });
    expect(again.cost).toBeNull();
    const ios = resultOf({ ...paid, reinstall: true }, "new_install", AT, DEFAULT_ATTRIBUTION);
    expect(ios).toMatchObject({
      installType: "reinstall_same_device",
      reinstall: true,
      cost: null,
    });
    // An iPhone whose IDFV an earlier install had: a reinstall, matched or organic; from a new
    // click, one its network was not told of yet.
    expect(resultOf(paid, "reinstall_same_device", AT, DEFAULT_ATTRIBUTION)).toMatchObject({
      reinstall: true,
      repeatsClick: false,
    });
    expect(
      resultOf({ kind: "organic" } as Match, "reinstall_same_device", AT, DEFAULT_ATTRIBUTION)
        .reinstall,
    ).toBe(true);
  });
});

describe("an iOS install's type", () => {
  /**
   * An iPhone's install first opened at `openedAt` by the service's clock and sent a minute
   * later, by a device whose clock is `offsetMs` behind (its own first open reads that earlier).
   */
  const iphone = (serviceId: string, openedAt: string, offsetMs = 0) =>
    storedInstall("com.example.game", serviceId, {
      os: "ios",
      firstOpenTime: new Date(Date.parse(openedAt) - offsetMs).toISOString(),
      clockOffsetMs: offsetMs === 0 ? null : offsetMs,
      receivedAt: new Date(Date.parse(openedAt) + 60_000).toISOString(),
    });

  it("is a reinstall when the IDFV was on an install first opened earlier, else new", () => {
    const first = iphone("s-1", "2026-11-01T10:00:00.000Z");
    const again = iphone("s-2", "2026-11-05T10:00:00.000Z");
    expect(installTypeOf(first, [first, again])).toBe("new_install");
    expect(installTypeOf(again, [first, again])).toBe("reinstall_same_device");
    expect(installTypeOf(again, [again])).toBe("new_install");
  });

  it("tells two installs first opened at one time apart by their ids, so exactly one is new", () => {
    const a = iphone("s-a", "2026-11-01T10:00:00.000Z");
    const b = iphone("s-b", "2026-11-01T10:00:00.000Z");
    expect([installTypeOf(a, [a, b]), installTypeOf(b, [a, b])]).toEqual([
      "new_install",
      "reinstall_same_device",
    ]);
  });

  it("orders them on the service's clock, whatever each device's clock read", () => {
    // The later install's phone was set three days back: by its own clock it opened first.
    const first = iphone("s-1", "2026-11-03T10:00:00.000Z");
    const again = iphone("s-2", "2026-11-04T10:00:00.000Z", 3 * 24 * 3_600_000);
    expect(again.firstOpenTime < first.firstOpenTime).toBe(true);
    expect(installTypeOf(again, [first, again])).toBe("reinstall_same_device");
    expect(installTypeOf(first, [first, again])).toBe("new_install");
  });

  it("is none on Android, which cannot tell a reinstall without a click", () => {
    const android = storedInstall("com.example.game", "s-1");
    expect(installTypeOf(android, [android, storedInstall("com.example.game", "s-0")])).toBeNull();
  });
});
