/** When an install first opened, on the service's clock: what its event, cohort and reinstall go by. */
import { keptDeviceTime } from "../domain/device-clock.ts";
import type { Install } from "../ports/installs.ts";

/**
 * The first open on the service's clock when the device's was off, and never after the service
 * heard of the install: a clock fast by less than the tolerance, or one whose offset is unknown
 * (no `sent_at`), would otherwise put it there.
 */
export const keptFirstOpen = (
  install: Pick<Install, "firstOpenTime" | "clockOffsetMs" | "receivedAt">,
): string => {
  const deviceMs = Date.parse(install.firstOpenTime);
  const keptMs = Math.min(
    keptDeviceTime(deviceMs, install.clockOffsetMs ?? 0),
    Date.parse(install.receivedAt),
  );
  return keptMs === deviceMs ? install.firstOpenTime : new Date(keptMs).toISOString();
};
