/**
 * A phone's clock may be set anywhere. The SDK sends its clock with each request (`sent_at`),
 * which gives the offset between it and the service's: times the device reported are read on
 * the service's clock with it (docs/attribution.md#clocks). A client that sends no `sent_at`
 * (a server-to-server client, another SDK) may still have sent the Play referrer of one of the
 * service's own taps, whose click time by the phone's clock gives the offset just as well.
 */
import { MINUTE_MS, SECOND_MS } from "./time.ts";

/**
 * A device clock within this of the service's is taken at its word: the time a request spends
 * on the network never moves an event, and a retry never gives an event another time.
 */
export const DEVICE_CLOCK_TOLERANCE_MS = MINUTE_MS;

/**
 * How far a device's time may read early for want of a fraction: Play's timestamps are whole
 * seconds, and many clients write ISO times to the second. A touch this much after a device
 * time it would otherwise have to precede is taken as before it, where nothing else says
 * otherwise.
 */
export const DEVICE_CLOCK_ROUNDING_MS = SECOND_MS;

/** The service's clock minus the device's, from the device's `sent_at`; 0 when it did not say. */
export const deviceClockOffsetMs = (receivedAt: Date, sentAt: string | null | undefined): number =>
  sentAt ? receivedAt.getTime() - Date.parse(sentAt) : 0;

/**
 * The service's clock minus the device's, from a tap the service recorded (its time on the
 * service's clock) and the same click as Play reports it to the phone (the referrer's
 * `click_timestamp`, Unix seconds by the phone's clock). Play stamps the click when the store
 * opens, a moment after the tap, so the offset reads the phone's later times at most that
 * moment early; its whole second reads them at most a second late. Both of the phone's times
 * Play reports (the click and the install's begin) are then on the service's clock exactly as
 * they stand to each other on the phone's, so a click after the install began is still one.
 */
export const referrerClickOffsetMs = (tapTimeMs: number, deviceClickSeconds: number): number =>
  tapTimeMs - deviceClickSeconds * SECOND_MS;

/**
 * A time the device reported, as the service keeps it: moved onto the service's clock when the
 * device's is off by more than the tolerance, else as the device said.
 */
export const keptDeviceTime = (deviceMs: number, offsetMs: number): number =>
  Math.abs(offsetMs) > DEVICE_CLOCK_TOLERANCE_MS ? deviceMs + offsetMs : deviceMs;
