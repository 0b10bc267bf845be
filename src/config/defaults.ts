/**
 * Defaults that more than one runtime or file applies, written once: the embedded
 * configuration, the Lambda environment contract, the Lambda entries and the CDK stack all
 * read them from here.
 */

/** How long the pages of one export keep slicing the same snapshot: 15 minutes. */
export const DEFAULT_SNAPSHOT_TTL_SECONDS = 900;

/** How long ingestion reuses an app it read: switching an app off lands within this. */
export const DEFAULT_APP_CACHE_MS = 5_000;

/** Apple's AdServices attribution API, which resolves iOS installs' Apple Ads tokens. */
export const APPLE_ADSERVICES_URL = "https://api-adservices.apple.com/api/v1/";
