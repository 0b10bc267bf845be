import { describe, expect, it } from "vitest";
import { allowsAdUserData, type Consent } from "./consent.ts";

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
