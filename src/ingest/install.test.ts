import { describe, expect, it } from "vitest";
import { HOUR_MS } from "../domain/time.ts";
import { NOW } from "./ingest.test-support.ts";
import { type InstallRequest, parseInstallRequest, repeatChangesOf, toInstall } from "./install.ts";

const minimal = {
  service_id: "svc-1",
  os: "android",
  sdk_platform: "flutter",
  sdk_version: "2.10.0",
  first_open_time: "2026-09-16T10:00:00+02:00",
};

const full = {
  ...minimal,
  os_version: "14",
  device_model: "Pixel 8",
  app_version: "3.2.1",
  idfv: "6F9619FF-8B86-D011-B42D-00CF4FC964FF",
  maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
  install_referrer: {
    referrer: "utm_source=google-play&utm_medium=organic",
    click_timestamp: 1789552700,
    install_begin_timestamp: 0,
  },
  customer_user_id: "user-1",
  consent: {
    gdpr_applies: true,
    ad_user_data: false,
    ad_personalization: null,
    tcf_string: "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA",
  },
  sent_at: "2026-09-16T11:00:00Z",
  locale: "de_DE",
  timezone: "America/Argentina/Buenos_Aires",
};

const parse = (body: unknown) => parseInstallRequest(body, { now: NOW });

const requestOf = (body: unknown): InstallRequest => {
  const parsed = parse(body);
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.value;
};

const detailOf = (body: unknown): string => {
  const parsed = parse(body);
  if (parsed.ok) throw new Error("accepted");
  return parsed.detail;
};

const ctx = { appId: "com.example.game", country: "DE", receivedAt: NOW };

describe("parseInstallRequest", () => {
  it("accepts the required fields alone, and every field", () => {
    expect(requestOf(minimal)).toEqual(minimal);
    expect(requestOf(full)).toEqual(full);
  });

  it("ignores unknown keys and treats null as absent", () => {
    expect(requestOf({ ...minimal, future_field: 1, idfv: null, install_referrer: null })).toEqual({
      ...minimal,
      idfv: null,
      install_referrer: null,
    });
  });

  it("names every missing required field", () => {
    expect(detailOf({})).toBe(
      "service_id: is required; os: is required; sdk_platform: is required; sdk_version: is required; first_open_time: is required",
    );
    expect(detailOf(null)).toBe("body: must be a JSON object");
    expect(detailOf([])).toBe("body: must be a JSON object");
  });

  it("accepts any lowercase SDK platform name, up to 32 characters", () => {
    expect(requestOf({ ...minimal, sdk_platform: "react-native" }).sdk_platform).toBe(
      "react-native",
    );
    const rule =
      'sdk_platform: must be a lowercase name of 1 to 32 characters (a-z, 0-9, "_", "-"), e.g. flutter, unity, kotlin, ios, android, typescript';
    expect(detailOf({ ...minimal, sdk_platform: "Flutter" })).toBe(rule);
    expect(detailOf({ ...minimal, sdk_platform: "a".repeat(33) })).toBe(rule);
    expect(requestOf({ ...minimal, sdk_platform: "a".repeat(32) }).sdk_platform).toHaveLength(32);
  });

  it("checks os, sdk_version and the device texts", () => {
    expect(detailOf({ ...minimal, os: "windows" })).toBe("os: must be one of android, ios");
    expect(detailOf({ ...minimal, sdk_version: "1 0" })).toBe(
      'sdk_version: must be 1 to 32 characters of letters, digits, ".", "+", "_" or "-"',
    );
    expect(requestOf({ ...minimal, device_model: "m".repeat(64) }).device_model).toHaveLength(64);
    expect(detailOf({ ...minimal, device_model: "m".repeat(65) })).toBe(
      "device_model: must be at most 64 characters",
    );
  });

  it("requires UUID-shaped device ids", () => {
    expect(detailOf({ ...minimal, maid: "not-a-uuid" })).toBe(
      "maid: must be a UUID (8-4-4-4-12 hexadecimal digits)",
    );
  });

  it("bounds first_open_time to 24 hours ahead, with no bound in the past", () => {
    const at = (ms: number) => ({
      ...minimal,
      first_open_time: new Date(NOW.getTime() + ms).toISOString(),
    });
    expect(parse(at(24 * HOUR_MS)).ok).toBe(true);
    expect(detailOf(at(24 * HOUR_MS + 1))).toBe(
      "first_open_time: is more than 24 hours ahead of the server's clock",
    );
    expect(parse({ ...minimal, first_open_time: "2019-01-01T00:00:00Z" }).ok).toBe(true);
    expect(detailOf({ ...minimal, first_open_time: "2026-09-16T10:00:00" })).toBe(
      "first_open_time: must be an ISO 8601 date-time with a UTC offset or Z, e.g. 2026-09-16T10:00:00Z",
    );
  });

  it("reads first_open_time on the service's clock when the phone sends its own (sent_at)", () => {
    // A phone two days ahead, which opened the app a minute before it sent the install.
    const ahead = (ms: number) => new Date(NOW.getTime() + 2 * 24 * HOUR_MS + ms).toISOString();
    const fast = { ...minimal, first_open_time: ahead(-60_000), sent_at: ahead(0) };
    expect(parse(fast).ok).toBe(true);
    expect(detailOf({ ...fast, sent_at: undefined })).toBe(
      "first_open_time: is more than 24 hours ahead of the server's clock",
    );
    expect(detailOf({ ...fast, first_open_time: ahead(24 * HOUR_MS + 1) })).toBe(
      "first_open_time: is more than 24 hours after sent_at",
    );
    expect(detailOf({ ...fast, sent_at: "yesterday" })).toMatch(/^sent_at: must be an ISO 8601/);
  });

  it("names the field at fault for a first open before 1970, by whether sent_at came", () => {
    expect(detailOf({ ...minimal, first_open_time: "1969-12-31T23:00:00Z" })).toBe(
      "first_open_time: is before 1970",
    );
    // 1970's first instant is no time before it.
    expect(requestOf({ ...minimal, first_open_time: "1970-01-01T00:00:00Z" }).first_open_time).toBe(
      "1970-01-01T00:00:00Z",
    );
    // A phone whose clock says it is decades later than it is.
    expect(
      detailOf({
        ...minimal,
        first_open_time: "2026-09-16T10:00:00Z",
        sent_at: "2090-01-01T00:00:00Z",
      }),
    ).toBe("sent_at: is so far after first_open_time that it puts the first open before 1970");
  });

  it("refuses a customer_user_id with a control character, as events do", () => {
    for (const customer_user_id of ["u\u0000", "a\nb", "\u009f"]) {
      expect(detailOf({ ...minimal, customer_user_id })).toBe(
        "customer_user_id: must not contain control characters",
      );
    }
    expect(requestOf({ ...minimal, customer_user_id: "user 1 ü" }).customer_user_id).toBe(
      "user 1 ü",
    );
  });

  it("checks the consent's answers and TCF string", () => {
    expect(requestOf({ ...minimal, consent: {} }).consent).toEqual({});
    expect(detailOf({ ...minimal, consent: { ad_user_data: "granted" } })).toBe(
      "consent.ad_user_data: must be true, false or null",
    );
    expect(detailOf({ ...minimal, consent: "yes" })).toBe("consent: must be a JSON object");
    expect(detailOf({ ...minimal, consent: { tcf_string: "C".repeat(4097) } })).toBe(
      "consent.tcf_string: must be at most 4096 characters",
    );
  });

  it("checks the install referrer", () => {
    const referrer = (value: unknown) => ({ ...minimal, install_referrer: value });
    expect(detailOf(referrer({ referrer: "r".repeat(2049) }))).toBe(
      "install_referrer.referrer: must be at most 2048 characters",
    );
    expect(detailOf(referrer({ referrer: "r", click_timestamp: 1789552700000 }))).toBe(
      "install_referrer.click_timestamp: must be Unix seconds, not milliseconds",
    );
    expect(detailOf(referrer({ referrer: "r", install_begin_timestamp: 1.5 }))).toBe(
      "install_referrer.install_begin_timestamp: must be an integer number of Unix seconds",
    );
    expect(detailOf(referrer({}))).toBe("install_referrer.referrer: is required");
  });

  it("checks locale and timezone by shape", () => {
    expect(requestOf({ ...minimal, locale: "zh-Hant-TW" }).locale).toBe("zh-Hant-TW");
    const localeRule =
      'locale: must be a BCP 47 language tag such as "en-US" (Android\'s "en_US" is accepted)';
    expect(detailOf({ ...minimal, locale: "English" })).toBe(localeRule);
    expect(detailOf({ ...minimal, locale: "en US" })).toBe(localeRule);
    expect(detailOf({ ...minimal, locale: `en-${"a".repeat(32)}` })).toBe(localeRule);
    for (const timezone of ["Europe/Berlin", "Etc/GMT+3", "UTC", "America/Port-au-Prince"]) {
      expect(requestOf({ ...minimal, timezone }).timezone).toBe(timezone);
    }
    const zoneRule = 'timezone: must be an IANA time zone name such as "Europe/Berlin"';
    expect(detailOf({ ...minimal, timezone: "Europe Berlin" })).toBe(zoneRule);
    expect(detailOf({ ...minimal, timezone: "+02:00" })).toBe(zoneRule);
    expect(detailOf({ ...minimal, timezone: `A/${"b".repeat(63)}` })).toBe(zoneRule);
  });
});

describe("toInstall", () => {
  it("stores the request with the caller's context", () => {
    expect(toInstall(requestOf(full), ctx)).toEqual({
      appId: "com.example.game",
      serviceId: "svc-1",
      os: "android",
      osVersion: "14",
      deviceModel: "Pixel 8",
      appVersion: "3.2.1",
      sdkPlatform: "flutter",
      sdkVersion: "2.10.0",
      firstOpenTime: "2026-09-16T08:00:00.000Z",
      // The phone's clock an hour behind the service's when it sent the install.
      clockOffsetMs: HOUR_MS,
      idfv: "6F9619FF-8B86-D011-B42D-00CF4FC964FF",
      maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
      installReferrer: {
        referrer: "utm_source=google-play&utm_medium=organic",
        clickTimestamp: 1789552700,
        installBeginTimestamp: null,
        clickServerTimestamp: null,
        installBeginServerTimestamp: null,
        installVersion: null,
      },
      attStatus: null,
      openUrl: null,
      customerUserId: "user-1",
      consent: {
        gdprApplies: true,
        adUserData: false,
        adPersonalization: null,
        tcfString: "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA",
        updatedAt: "2026-09-16T12:00:00.000Z",
      },
      locale: "de_DE",
      timezone: "America/Argentina/Buenos_Aires",
      country: "DE",
      receivedAt: "2026-09-16T12:00:00.000Z",
    });
  });

  it("fills absent optional fields with null", () => {
    expect(
      toInstall(requestOf({ ...minimal, os_version: "" }), { ...ctx, country: null }),
    ).toMatchObject({
      osVersion: null,
      deviceModel: null,
      appVersion: null,
      idfv: null,
      maid: null,
      installReferrer: null,
      attStatus: null,
      openUrl: null,
      customerUserId: null,
      locale: null,
      timezone: null,
      country: null,
    });
  });

  it("keeps an install reported in anonymous mode as anonymous, and no other", () => {
    const device = {
      maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
      idfv: "6D92078A-8246-4BA4-AE5B-76104861E7DC",
      customer_user_id: "user-8812",
    };
    // Whatever a client sends with it, an anonymous install keeps no device id and no user.
    expect(toInstall(requestOf({ ...minimal, ...device, anonymous: true }), ctx)).toMatchObject({
      anonymous: true,
      maid: null,
      idfv: null,
      customerUserId: null,
    });
    expect(toInstall(requestOf({ ...minimal, ...device }), ctx)).toMatchObject({
      maid: device.maid,
      customerUserId: "user-8812",
    });
    for (const anonymous of [false, null, undefined]) {
      expect(toInstall(requestOf({ ...minimal, anonymous }), ctx)).not.toHaveProperty("anonymous");
    }
    expect(parse({ ...minimal, anonymous: "yes" }).ok).toBe(false);
  });

  it("treats the all-zero advertising id as absent", () => {
    const zero = "00000000-0000-0000-0000-000000000000";
    expect(toInstall(requestOf({ ...minimal, maid: zero, idfv: zero }), ctx)).toMatchObject({
      maid: null,
      idfv: null,
    });
  });
});

describe("repeatChangesOf", () => {
  const stored = toInstall(requestOf(full), ctx);
  const later = new Date(NOW.getTime() + 60_000);
  const agreed = { ...full.consent, ad_user_data: true };

  it("is nothing for a repeat that carries the stored consent and tracking, or the bare install", () => {
    expect(repeatChangesOf(stored, requestOf(full), later)).toBeNull();
    expect(repeatChangesOf(stored, requestOf({ ...full, consent: null }), later)).toBeNull();
    expect(repeatChangesOf(stored, requestOf(minimal), later)).toBeNull();
  });

  it("is the repeat's consent and tracking where either differs, received when it was", () => {
    expect(repeatChangesOf(stored, requestOf({ ...full, consent: agreed }), later)).toEqual({
      consent: {
        gdprApplies: true,
        adUserData: true,
        adPersonalization: null,
        tcfString: full.consent.tcf_string,
        updatedAt: later.toISOString(),
      },
      tracking: { maid: full.maid, attStatus: null },
    });
    expect(
      repeatChangesOf(stored, requestOf({ ...full, maid: null, att_status: "denied" }), later)
        ?.tracking,
    ).toEqual({ maid: null, attStatus: "denied" });
  });

  it("names no advertising id for an install reported anonymous, or a repeat that is", () => {
    const anonymous = toInstall(requestOf({ ...full, anonymous: true }), ctx);
    expect(
      repeatChangesOf(anonymous, requestOf({ ...full, consent: agreed }), later)?.tracking,
    ).toEqual({ maid: null, attStatus: null });
    expect(
      repeatChangesOf(stored, requestOf({ ...full, anonymous: true }), later)?.tracking?.maid,
    ).toBeNull();
  });

  it("is the tracking alone that a repeat without a consent names, where it differs", () => {
    const iosBare = { ...minimal, os: "ios", idfv: full.idfv };
    const asked = toInstall(requestOf({ ...iosBare, att_status: "not_determined" }), ctx);
    // The ATT prompt answered between the first report and its repeat: the IDFA with it.
    const idfa = "EA7583CD-A667-48BC-B806-42ECB2B48606";
    expect(
      repeatChangesOf(
        asked,
        requestOf({ ...iosBare, att_status: "authorized", maid: idfa }),
        later,
      ),
    ).toEqual({ tracking: { maid: idfa, attStatus: "authorized" } });
    // Refused: an ATT status and no IDFA.
    const granted = toInstall(requestOf({ ...iosBare, att_status: "authorized", maid: idfa }), ctx);
    expect(
      repeatChangesOf(granted, requestOf({ ...iosBare, att_status: "denied" }), later),
    ).toEqual({ tracking: { maid: null, attStatus: "denied" } });
    expect(
      repeatChangesOf(
        granted,
        requestOf({ ...iosBare, att_status: "authorized", maid: idfa }),
        later,
      ),
    ).toBeNull();
    // An advertising id alone (Android) keeps the stored ATT status.
    const noAdId = toInstall(requestOf({ ...full, consent: null, maid: null }), ctx);
    expect(repeatChangesOf(noAdId, requestOf({ ...full, consent: null }), later)).toEqual({
      tracking: { maid: full.maid, attStatus: null },
    });
    // The bare install names neither: nothing changes, even with an id stored.
    expect(repeatChangesOf(granted, requestOf(iosBare), later)).toBeNull();
    // A full report without an advertising id (limited, reset or deleted) takes the stored one
    // away, on Android too, where no ATT status says so.
    expect(
      repeatChangesOf(stored, requestOf({ ...full, consent: null, maid: null }), later),
    ).toEqual({ tracking: { maid: null, attStatus: null } });
    // So does a bare install reported anonymous: it names no device, on either platform.
    expect(repeatChangesOf(stored, requestOf({ ...minimal, anonymous: true }), later)).toEqual({
      tracking: { maid: null, attStatus: null },
    });
    expect(repeatChangesOf(granted, requestOf({ ...iosBare, anonymous: true }), later)).toEqual({
      tracking: { maid: null, attStatus: "authorized" },
    });
    // An install reported anonymous keeps naming no advertising id.
    const anonymous = toInstall(requestOf({ ...full, consent: null, anonymous: true }), ctx);
    expect(repeatChangesOf(anonymous, requestOf({ ...full, consent: null }), later)).toBeNull();
  });
});
