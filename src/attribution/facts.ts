/** What matching reads of an install: its device, its first open, the click ids it carries. */
import { allowsAdUserData } from "../domain/consent.ts";
import { deviceClockOffsetMs } from "../domain/device-clock.ts";
import type { InstallFacts } from "../domain/install-facts.ts";
import type { Install } from "../ports/installs.ts";
import { clickIdOfReferrer, REFERRER_CLICK_ID } from "../touches/destination.ts";
import { CLICK_ID_PATTERN } from "../touches/ids.ts";
import { normalizeIp } from "../touches/ip.ts";

/**
 * The click id a link that opened the app carries in its query, if any: one of the link host's
 * shape (anything else names no click, and would only cost a lookup).
 */
export const clickIdOfOpenUrl = (openUrl: string | null): string | null => {
  if (!openUrl) return null;
  try {
    const found = new URL(openUrl).searchParams.get(REFERRER_CLICK_ID);
    return found !== null && CLICK_ID_PATTERN.test(found) ? found : null;
  } catch {
    return null;
  }
};

const secondsToIso = (seconds: number | null | undefined) =>
  seconds ? new Date(seconds * 1000).toISOString() : null;

/**
 * The install's facts, with what its request carried beside it: the address it came from and
 * Apple's AdServices token, which matching needs and the install does not keep.
 */
export const installFacts = (
  install: Install,
  request: {
    readonly ip: string | null;
    readonly userAgent?: string | null;
    readonly platformAdsToken?: string | null;
    readonly receivedAt: Date;
    /** The device's clock when it sent the request (`sent_at`), if it said. */
    readonly sentAt?: string | null;
  },
): InstallFacts => ({
  appId: install.appId,
  os: install.os,
  osVersion: install.osVersion,
  deviceModel: install.deviceModel,
  firstOpenTime: install.firstOpenTime,
  receivedAt: request.receivedAt.toISOString(),
  // The stored first open was on this device's clock too (the first report wins, and a
  // device's offset changes slowly): this request's offset moves it to the service's.
  clockOffsetMs: request.sentAt ? deviceClockOffsetMs(request.receivedAt, request.sentAt) : null,
  maid: install.maid,
  attStatus: install.attStatus,
  referrerClickId: clickIdOfReferrer(install.installReferrer?.referrer),
  openUrlClickId: clickIdOfOpenUrl(install.openUrl),
  // Google Play's server clock, the one a click's time is on; the device's may be set anywhere.
  installBeganAt: secondsToIso(install.installReferrer?.installBeginServerTimestamp),
  deviceReferrerClickAt: secondsToIso(install.installReferrer?.clickTimestamp),
  deviceInstallBeganAt: secondsToIso(install.installReferrer?.installBeginTimestamp),
  ip: normalizeIp(request.ip),
  userAgent: request.userAgent ?? null,
  platformAdsToken: request.platformAdsToken ?? null,
});

/**
 * The facts matching may use under the install's consent and tracking as they stand when
 * matching runs: the advertising id and ATT status the install holds then (a consent update may
 * have withdrawn the one or changed the other since the first open), and never an advertising
 * id whose user refused ad user data.
 */
export const factsUnderConsent = (facts: InstallFacts, install: Install): InstallFacts => ({
  ...facts,
  maid: allowsAdUserData(install.consent) ? install.maid : null,
  attStatus: install.attStatus,
});
