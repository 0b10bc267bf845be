/**
 * A phone's clock may be set anywhere. The SDK sends its clock with each request (`sent_at`),
 * which gives the offset between it and the service's: times the device reported are read on
 * the service's clock with it (docs/attribution.md#clocks).
 */
import { MINUTE_MS } from "./time.ts";

/**
 * A device clock within this of the service's is taken at its word: the time a request spends
 * on the network never moves an event, and a retry never gives an event another time.
 */
export const DEVICE_CLOCK_TOLERANCE_MS = MINUTE_MS;

/** The service's clock minus the device's, from the device's `sent_at`; 0 when it did not say. */
export const deviceClockOffsetMs = (receivedAt: Date, sentAt: string | null | undefined): number =>
  sentAt ? receivedAt.getTime() - Date.parse(sentAt) : 0;

/**
 * A time the device reported, as the service keeps it: moved onto the service's clock when the
 * device's is off by more than the tolerance, else as the device said.
 */
export const keptDeviceTime = (deviceMs: number, offsetMs: number): number =>
  Math.abs(offsetMs) > DEVICE_CLOCK_TOLERANCE_MS ? deviceMs + offsetMs : deviceMs;
