import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import { CLICK_ID_LENGTH } from "../touches/ids.ts";
import { factsUnderConsent, installFacts } from "./facts.ts";

const IDFA = "6D92078A-8246-4BA4-AE5B-76104861E7DC";
const RECEIVED = new Date("2026-11-01T10:00:01.000Z");

/** An iPhone's install as its first open reported it, and its facts as matching got them then. */
const firstOpen = () => {
  const install = storedInstall("com.example.app", "s1", {
    os: "ios",
    maid: IDFA,
    attStatus: "authorized",
  });
  return { install, facts: installFacts(install, { ip: "203.0.113.7", receivedAt: RECEIVED }) };
};

describe("the facts matching uses", () => {
  it("are the install's tracking as it stands, not the first open's", () => {
    const { install, facts } = firstOpen();
    expect(factsUnderConsent(facts, install)).toMatchObject({
      maid: IDFA,
      attStatus: "authorized",
    });
    // Tracking turned off before the job ran: the consent update replaced the install's.
    const withdrawn = { ...install, maid: null, attStatus: "denied" as const };
    expect(factsUnderConsent(facts, withdrawn)).toMatchObject({ maid: null, attStatus: "denied" });
    // Allowed after the first open: matching may use it from then on.
    const undetermined = installFacts(
      { ...install, maid: null, attStatus: "not_determined" },
      { ip: null, receivedAt: RECEIVED },
    );
    expect(factsUnderConsent(undetermined, install)).toMatchObject({
      maid: IDFA,
      attStatus: "authorized",
    });
  });

  it("read Play's times of 0, which it gives for a time it does not know, as none", () => {
    const install = storedInstall("com.example.app", "s2", {
      installReferrer: {
        referrer: "utm_source=google-play",
        clickTimestamp: 0,
        installBeginTimestamp: 0,
        clickServerTimestamp: null,
        installBeginServerTimestamp: 1_793_527_200,
        installVersion: null,
      },
    });
    expect(installFacts(install, { ip: null, receivedAt: RECEIVED })).toMatchObject({
      deviceReferrerClickAt: null,
      deviceInstallBeganAt: null,
      installBeganAt: "2026-11-01T10:00:00.000Z",
    });
  });

  it("never hold an advertising id whose user refused ad user data", () => {
    const { install, facts } = firstOpen();
    const refused = {
      ...install,
      consent: {
        gdprApplies: true,
        adUserData: false,
        adPersonalization: null,
        tcfString: null,
        updatedAt: "2026-11-01T10:00:00.000Z",
      },
    };
    expect(factsUnderConsent(facts, refused).maid).toBeNull();
    // Everything else is the first open's.
    expect(factsUnderConsent(facts, refused)).toMatchObject({
      ip: "203.0.113.7",
      os: "ios",
      firstOpenTime: facts.firstOpenTime,
    });
  });
});

describe("the facts an install's request carries", () => {
  const clickId = "A".repeat(CLICK_ID_LENGTH);
  const factsOf = (openUrl: string | null) =>
    installFacts(storedInstall("com.example.app", "s1", { openUrl }), {
      ip: "203.0.113.7",
      userAgent: "Mozilla/5.0 (iPhone)",
      receivedAt: RECEIVED,
    });

  it("take a click id from the link that opened the app, only of the link host's shape", () => {
    expect(factsOf(`https://go.example.com/Kx3v9QpZ2aQ?service_click_id=${clickId}`)).toMatchObject(
      { openUrlClickId: clickId, userAgent: "Mozilla/5.0 (iPhone)" },
    );
    for (const openUrl of [
      null,
      "",
      "game://levels/7",
      "not a url",
      "https://go.example.com/x?service_click_id=short",
      `https://go.example.com/x?other=${clickId}`,
    ]) {
      expect(factsOf(openUrl).openUrlClickId, String(openUrl)).toBeNull();
    }
  });
});
