/**
 * Every size and time limit of the SDK ingestion API, in one place so the schemas, the
 * parameter checks, the HTTP layer and the service documentation cannot drift apart. The spec
 * leaves these open ("Size limits on event parameters and on event counts: not shown"); the
 * values follow the leading attribution services, rounded to numbers an SDK author remembers.
 */
export const INGEST_LIMITS = {
  /**
   * Largest request body, in bytes (1 MiB). Checked by the HTTP layer before JSON parsing, so a
   * huge body is never parsed. 100 events of 10 KiB parameters fit with room for their fields.
   */
  maxBodyBytes: 1_048_576,
  /** Events in one `POST /v1/events` or `/v1/s2s/events` body: 1 to 100. */
  maxEventsPerRequest: 100,
  /** `service_id` and `event_id`: 1 to 128 characters of `A-Z a-z 0-9 . _ : -`. */
  maxIdLength: 128,
  /** `customer_user_id`: 1 to 256 characters, the app's own identifier; no control characters. */
  maxCustomerUserIdLength: 256,
  /** A CUSTOM event's `event_name`, in characters. */
  maxEventNameLength: 100,
  /** Keys in one parameter map (the top level or any nested map); null values do not count. */
  maxParameterKeys: 100,
  /** Characters in one parameter key; a key may not be empty. */
  maxParameterKeyLength: 100,
  /**
   * Nesting of maps and lists, the `parameters` map itself being level 1: `parameters.a.b.c.d`
   * may still be a map or list (level 5), anything nested in it may only be a plain value.
   */
  maxParameterDepth: 5,
  /** Characters in one string value (a sealed value counts as sent, envelope included). */
  maxParameterStringLength: 1_000,
  /**
   * UTF-8 bytes of an event's parameters serialised as JSON (10 KiB), after null values are
   * dropped and before matching PII is hashed, so an SDK can check it before sending.
   */
  maxParametersBytes: 10_240,
  /**
   * The largest `revenue`, either way (a refund is negative), in its own currency: room for a
   * large purchase in a currency of many units to the dollar, and sums over any number of events
   * that stay finite, as the reports add them.
   */
  maxRevenueAmount: 1_000_000_000_000,
  /** How far `event_time` and `first_open_time` may be ahead of the server's clock (device clock skew). */
  maxFutureSkewHours: 24,
  /**
   * How old `event_time` may be, in days. Long enough for an SDK's offline buffer and a
   * server's retries, short enough that late events do not rewrite export windows already
   * pulled. Like the leading services' late-event windows. `first_open_time` has no such bound:
   * an SDK added to an existing app reports a first open that may be years old.
   */
  maxEventAgeDays: 30,
  /** `os_version`, `device_model`, `app_version`, in characters. */
  maxDeviceFieldLength: 64,
  /** `sdk_platform` and `sdk_version`, in characters. */
  maxSdkFieldLength: 32,
  /** `install_referrer.referrer` (the Play install referrer string), in characters. */
  maxReferrerLength: 2_048,
  /** Apple's AdServices tokens run to a few hundred characters; room to spare. */
  maxAdsTokenLength: 8_192,
  /** `locale` (a BCP 47 tag; the longest in real use are well under this), in characters. */
  maxLocaleLength: 35,
  /** `consent.tcf_string`: a TCF v2 string with every vendor and publisher section stays well under it. */
  maxTcfStringLength: 4_096,
  /** `timezone` (an IANA name such as `America/Argentina/Buenos_Aires`), in characters. */
  maxTimezoneLength: 64,
} as const;
