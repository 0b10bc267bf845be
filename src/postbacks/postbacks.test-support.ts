/** An install, its winning touch and an event as the postback tests fill templates from. */
import type { Consent } from "../domain/consent.ts";
import type { PostbackContext, PostbackInstall, PostbackTouch } from "./templates.ts";

export const consentOf = (overrides: Partial<Consent> = {}): Consent => ({
  gdprApplies: null,
  adUserData: null,
  adPersonalization: null,
  tcfString: null,
  updatedAt: "2026-11-01T10:00:00.000Z",
  ...overrides,
});

export const TOUCH: PostbackTouch = {
  mediaSource: "unityads_int",
  campaignId: "cmp-1",
  campaignName: "EG_AND_Launch",
  adsetId: "as-1",
  adsetName: "Broad",
  adId: "ad-1",
  adName: "Video 15s",
  clickId: "clk_service_1",
  touchTime: "2026-11-01T09:58:20.000Z",
  touchType: "click",
  networkClickId: "net-click-9",
  urlParams: { gamer_id: "gamer-77", sub1: "a b" },
};

export const ANDROID_INSTALL: PostbackInstall = {
  appId: "com.example.game",
  platformAppId: "com.example.game",
  appStoreId: null,
  platform: "android",
  serviceId: "3f2b9c1e-7a4d-4e8b-9c0a-1d2e3f4a5b6c",
  advertisingId: "38400000-8cf0-11bd-b23e-10b96e40000d",
  attStatus: null,
  idfv: null,
  firstOpenTime: "2026-11-01T10:00:00.000Z",
  installType: null,
  appVersion: "2.3.1",
  osVersion: "14",
  deviceModel: "Pixel 8",
  sdkVersion: "kotlin 1.4.0",
  // As the SDKs send it (BCP 47): the templates that want `en_US` take `locale_posix`.
  locale: "en-US",
  timezone: "Europe/Berlin",
  country: "DE",
  ip: "81.2.69.160",
  userAgent: "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8)",
  consent: consentOf({ gdprApplies: true, adUserData: true }),
  referrerGclid: "Cj0KCQiA-gclid_1",
  touch: TOUCH,
};

export const IOS_INSTALL: PostbackInstall = {
  ...ANDROID_INSTALL,
  appId: "com.example.game.ios",
  platformAppId: "com.example.game.ios",
  appStoreId: "1234567890",
  platform: "ios",
  advertisingId: "6D92078A-8246-4BA4-AE5B-76104861E7DC",
  attStatus: "authorized",
  idfv: "B5372DB0-C21E-11E4-8DFC-AA07A5B093DB",
  osVersion: "17.4.1",
  deviceModel: "iPhone15,2",
  installType: "new_install",
  referrerGclid: null,
};

export const contextOf = (overrides: Partial<PostbackContext> = {}): PostbackContext => ({
  configId: "net",
  install: ANDROID_INSTALL,
  event: null,
  won: true,
  attempt: 1,
  values: {},
  shareDeviceDataWithoutConsent: false,
  ...overrides,
});

export const PURCHASE = {
  eventId: "evt-1",
  name: "in_app_purchase",
  time: "2026-11-03T12:00:00.000Z",
  revenue: { amount: 9.99, currency: "EUR", usd: null },
} as const;
