/** An install as the stores keep it, for tests: every field set, overridable. */
import type { Install } from "../../src/ports/installs.ts";

export const storedInstall = (
  appId: string,
  serviceId: string,
  overrides: Partial<Install> = {},
): Install => ({
  appId,
  serviceId,
  os: "android",
  osVersion: "14",
  deviceModel: "Pixel 8",
  appVersion: "1.2.3",
  sdkPlatform: "kotlin",
  sdkVersion: "1.11.0",
  firstOpenTime: "2026-11-01T10:00:00.000Z",
  idfv: null,
  maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
  installReferrer: null,
  customerUserId: null,
  locale: "de-DE",
  timezone: "Europe/Berlin",
  country: "DE",
  receivedAt: "2026-11-01T10:00:01.000Z",
  ...overrides,
});
