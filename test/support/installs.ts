/** An install as the stores keep it, for tests: every field set, overridable. */
import type { Install, InstallStore } from "../../src/ports/installs.ts";

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
  clockOffsetMs: null,
  idfv: null,
  maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
  installReferrer: null,
  attStatus: null,
  openUrl: null,
  customerUserId: null,
  consent: null,
  locale: "de-DE",
  timezone: "Europe/Berlin",
  country: "DE",
  receivedAt: "2026-11-01T10:00:01.000Z",
  ...overrides,
});

/** An install store that has every install asked for. */
export const everyInstallStored: Pick<InstallStore, "get"> = {
  get: async (appId, serviceId) => storedInstall(appId, serviceId),
};

/** The IDFV `installRequest` sends. */
export const REQUEST_IDFV = "6D92078A-8246-4BA4-AE5B-76104861E7DC";

/**
 * A `POST /v1/installs` body as an iOS SDK sends it, first opened an hour ago, its advertising
 * id all zeros (tracking not allowed, so absent): every field set, overridable.
 */
export const installRequest = (serviceId: string, overrides: Record<string, unknown> = {}) => ({
  service_id: serviceId,
  os: "ios",
  os_version: "18.1",
  device_model: "iPhone16,2",
  app_version: "2.3.0",
  sdk_platform: "flutter",
  sdk_version: "2.10.0",
  first_open_time: new Date(Date.now() - 3_600_000).toISOString(),
  idfv: REQUEST_IDFV,
  maid: "00000000-0000-0000-0000-000000000000",
  locale: "pt-BR",
  timezone: "America/Sao_Paulo",
  ...overrides,
});

/**
 * A `POST /v1/installs` body as the Kotlin SDK sends a Pixel 8's first open, now (after any tap
 * made before it), without an advertising id: every field set, overridable.
 */
export const androidInstallRequest = (serviceId: string, overrides: Record<string, unknown> = {}) =>
  installRequest(serviceId, {
    os: "android",
    os_version: "14",
    device_model: "Pixel 8",
    sdk_platform: "kotlin",
    idfv: null,
    maid: null,
    first_open_time: new Date().toISOString(),
    ...overrides,
  });
