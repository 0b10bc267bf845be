import { RestrictionType, TCString } from "@iabtechlabtcf/core";
import { describe, expect, it } from "vitest";
import { adUserDataOf, allowsAdUserData, type Consent, vendorRefused } from "./consent.ts";
import { tcString } from "./tcf.test-support.ts";
import { tcfAnswers } from "./tcf.ts";

/** The publisher's restrictions of `vendor` a consent's string carries, as decoded. */
const decodedRestrictions = (given: Consent, vendor: number) =>
  TCString.decode(given.tcfString ?? "")
    .publisherRestrictions.getRestrictions(vendor)
    .map((restriction) => [restriction.purposeId, restriction.restrictionType]);

const consent = (overrides: Partial<Consent>): Consent => ({
  gdprApplies: null,
  adUserData: null,
  adPersonalization: null,
  tcfString: null,
  updatedAt: "2026-11-01T10:00:00.000Z",
  ...overrides,
});

describe("allowsAdUserData", () => {
  it("allows an install that never said, and one whose user agreed", () => {
    expect(allowsAdUserData(null)).toBe(true);
    expect(allowsAdUserData(consent({}))).toBe(true);
    expect(allowsAdUserData(consent({ gdprApplies: true, adUserData: true }))).toBe(true);
    expect(allowsAdUserData(consent({ gdprApplies: false }))).toBe(true);
  });

  it("refuses a user who said no, wherever they are", () => {
    expect(allowsAdUserData(consent({ adUserData: false }))).toBe(false);
    expect(allowsAdUserData(consent({ gdprApplies: false, adUserData: false }))).toBe(false);
  });

  it("asks for a yes where consent is required", () => {
    expect(allowsAdUserData(consent({ gdprApplies: true }))).toBe(false);
    expect(allowsAdUserData(consent({ gdprApplies: true, adPersonalization: true }))).toBe(false);
  });
});

describe("a consent platform's TCF string", () => {
  const measured = tcString([1, 3, 4, 7]);
  const notMeasured = tcString([1, 3, 4]);

  it("answers ad user data when the app did not: purposes 1 and 7, as Google reads it", () => {
    expect(adUserDataOf(consent({ tcfString: measured }))).toBe(true);
    expect(adUserDataOf(consent({ tcfString: notMeasured }))).toBe(false);
    expect(adUserDataOf(consent({ tcfString: tcString([7]) }))).toBe(false);
    expect(allowsAdUserData(consent({ gdprApplies: true, tcfString: measured }))).toBe(true);
    expect(allowsAdUserData(consent({ gdprApplies: true, tcfString: notMeasured }))).toBe(false);
    // A refusal there holds wherever the user is, as the app's own does.
    expect(allowsAdUserData(consent({ gdprApplies: false, tcfString: notMeasured }))).toBe(false);
  });

  it("reads purpose 1 as given where the platform did not disclose it (purpose one treatment)", () => {
    expect(adUserDataOf(consent({ tcfString: tcString([7], { purposeOneTreatment: true }) }))).toBe(
      true,
    );
  });

  it("gives way to the app's own answer", () => {
    expect(adUserDataOf(consent({ adUserData: false, tcfString: measured }))).toBe(false);
    expect(adUserDataOf(consent({ adUserData: true, tcfString: notMeasured }))).toBe(true);
  });

  it("says nothing when it is no TCF v2 string", () => {
    for (const text of [
      "CQF0-AAQF0-AAAH",
      "not a consent string",
      "BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA",
    ]) {
      expect(tcfAnswers(text)).toBeNull();
      expect(allowsAdUserData(consent({ gdprApplies: true, tcfString: text }))).toBe(false);
      expect(allowsAdUserData(consent({ gdprApplies: null, tcfString: text }))).toBe(true);
    }
  });

  it("reads personalisation from purposes 3 and 4", () => {
    expect(tcfAnswers(measured)).toMatchObject({ adUserData: true, adPersonalization: true });
    expect(tcfAnswers(tcString([1, 3, 7]))).toMatchObject({
      adUserData: true,
      adPersonalization: false,
    });
  });
});

describe("vendorRefused: a network's own consent in the TCF string", () => {
  const google = 755;
  const withGoogle = tcString([1, 7], { vendors: [12, google] });
  const withoutGoogle = tcString([1, 7], { vendors: [12] });

  it("withholds the install from a vendor the user did not consent to", () => {
    expect(tcfAnswers(withGoogle)?.vendorConsents).toEqual(new Set([12, google]));
    expect(vendorRefused(consent({ gdprApplies: true, tcfString: withoutGoogle }), google)).toBe(
      true,
    );
    expect(vendorRefused(consent({ gdprApplies: true, tcfString: withGoogle }), google)).toBe(
      false,
    );
    expect(vendorRefused(consent({ gdprApplies: true, tcfString: withoutGoogle }), 12)).toBe(false);
  });

  it("withholds it from a vendor the publisher keeps from consent on purpose 1 or 7", () => {
    const restricted = (purpose: number, type: RestrictionType) =>
      consent({
        gdprApplies: true,
        tcfString: tcString([1, 7], {
          vendors: [12, google],
          restrictions: [{ vendor: google, purpose, type }],
        }),
      });
    expect(vendorRefused(restricted(7, RestrictionType.NOT_ALLOWED), google)).toBe(true);
    expect(vendorRefused(restricted(7, RestrictionType.REQUIRE_LI), google)).toBe(true);
    expect(vendorRefused(restricted(1, RestrictionType.NOT_ALLOWED), google)).toBe(true);
    // A vendor measuring on legitimate interest whom the publisher asks to get consent: the
    // user's consent to it stands.
    const askedConsent = consent({
      gdprApplies: true,
      tcfString: tcString([1, 7], {
        vendors: [12, google],
        onInterest: [google],
        restrictions: [{ vendor: google, purpose: 7, type: RestrictionType.REQUIRE_CONSENT }],
      }),
    });
    expect(decodedRestrictions(askedConsent, google)).toEqual([
      [7, RestrictionType.REQUIRE_CONSENT],
    ]);
    expect(vendorRefused(askedConsent, google)).toBe(false);
    // Another purpose's restriction, and another vendor, are not this one's.
    const third = restricted(3, RestrictionType.NOT_ALLOWED);
    expect(decodedRestrictions(third, google)).toEqual([[3, RestrictionType.NOT_ALLOWED]]);
    expect(vendorRefused(third, google)).toBe(false);
    // One measurement purpose's among others' is enough.
    const both = consent({
      gdprApplies: true,
      tcfString: tcString([1, 7], {
        vendors: [12, google],
        restrictions: [
          { vendor: google, purpose: 3, type: RestrictionType.NOT_ALLOWED },
          { vendor: google, purpose: 7, type: RestrictionType.NOT_ALLOWED },
        ],
      }),
    });
    expect(vendorRefused(both, google)).toBe(true);
    expect(vendorRefused(restricted(7, RestrictionType.NOT_ALLOWED), 12)).toBe(false);
  });

  it("is not outweighed by the app's yes to ad networks at large", () => {
    const yes = consent({ gdprApplies: true, adUserData: true, tcfString: withoutGoogle });
    expect(allowsAdUserData(yes)).toBe(true);
    expect(vendorRefused(yes, google)).toBe(true);
  });

  it("reads the string unless GDPR was said not to apply", () => {
    expect(vendorRefused(consent({ tcfString: withoutGoogle }), google)).toBe(true);
    expect(vendorRefused(consent({ gdprApplies: false, tcfString: withoutGoogle }), google)).toBe(
      false,
    );
  });

  it("withholds nothing without a vendor id, a string, or a TCF v2 string", () => {
    expect(vendorRefused(consent({ gdprApplies: true, tcfString: withoutGoogle }), null)).toBe(
      false,
    );
    expect(vendorRefused(consent({ gdprApplies: true }), google)).toBe(false);
    expect(vendorRefused(null, google)).toBe(false);
    expect(
      vendorRefused(consent({ gdprApplies: true, tcfString: "CQF0-AAQF0-AAAH" }), google),
    ).toBe(false);
  });
});
