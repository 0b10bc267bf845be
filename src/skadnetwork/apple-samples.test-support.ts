/**
 * The signed example postbacks on Apple's documentation pages, as the devices send them, for
 * the tests: each verifies with Apple's published key, as checked here (the SKAdNetwork 1.0
 * example, of an older page, does not, and is kept to show that it is refused as unverified).
 */

import type { StoredApplePostback } from "../ports/apple-postbacks.ts";
import type { App } from "../ports/apps.ts";

/** The app whose App Store id Apple's SKAdNetwork examples name (`app-id` 525463029). */
export const SAMPLE_APP: App = {
  appId: "com.example.skan",
  name: "Skan",
  platform: "ios",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
  links: { appStoreId: "525463029" },
};

/** A 4.0 postback as the store keeps it (a first-window winner of fine value 63), unverified. */
export const storedPostback = (
  overrides: Partial<StoredApplePostback> = {},
): StoredApplePostback => ({
  kind: "skadnetwork",
  version: "4.0",
  adNetworkId: "cstr6suwn9.skadnetwork",
  sourceIdentifier: "5239",
  appStoreId: "525463029",
  transactionId: "t-1",
  redownload: false,
  sourceAppId: null,
  sourceDomain: null,
  fidelityType: 1,
  didWin: true,
  sequenceIndex: 0,
  conversionValue: 63,
  coarseValue: null,
  countryCode: null,
  conversionType: null,
  verification: { status: "unverified", environment: null, keyId: null, reason: null },
  appId: SAMPLE_APP.appId,
  receivedAt: "2026-11-01T10:00:00.000Z",
  valuesDisputed: false,
  ...overrides,
});

/** https://developer.apple.com/documentation/storekit/verifying-an-install-validation-postback */
export const SKAN_4_FINE = {
  version: "4.0",
  "ad-network-id": "com.example",
  "source-identifier": "5239",
  "app-id": 525463029,
  "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e30",
  redownload: false,
  "source-domain": "example.com",
  "fidelity-type": 1,
  "did-win": true,
  "conversion-value": 63,
  "postback-sequence-index": 0,
  "attribution-signature":
    "MEUCIGRmSMrqedNu6uaHyhVcifs118R5z/AB6cvRaKrRRHWRAiEAv96ne3dKQ5kJpbsfk4eYiePmrZUU6sQmo+7zfP/1Bxo=",
};

/** The same page: a low tier's first postback, a coarse value only. */
export const SKAN_4_COARSE = {
  version: "4.0",
  "ad-network-id": "com.example",
  "source-identifier": "39",
  "app-id": 525463029,
  "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e31",
  redownload: false,
  "source-domain": "example.com",
  "fidelity-type": 1,
  "did-win": true,
  "coarse-conversion-value": "high",
  "postback-sequence-index": 0,
  "attribution-signature":
    "MEUCIQD4rX6eh38qEhuUKHdap345UbmlzA7KEZ1bhWZuYM8MJwIgMnyiiZe6heabDkGwOaKBYrUXQhKtF3P/ERHqkR/XpuA=",
};

/** https://developer.apple.com/documentation/storekit/combining-parameters-for-skadnetwork-3-postbacks */
export const SKAN_3_WIN = {
  version: "3.0",
  "ad-network-id": "example123.skadnetwork",
  "campaign-id": 42,
  "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
  "app-id": 525463029,
  "attribution-signature":
    "MEYCIQD5eq3AUlamORiGovqFiHWI4RZT/PrM3VEiXUrsC+M51wIhAPMANZA9c07raZJ64gVaXhB9+9yZj/X6DcNxONdccQij",
  redownload: true,
  "source-app-id": 1234567891,
  "fidelity-type": 1,
  "conversion-value": 20,
  "did-win": true,
};

/**
 * The same page's postback of an ad that did not win: `did-win` false, and neither
 * `source-app-id` nor a conversion value, so the signed text goes from `redownload` to
 * `fidelity-type`.
 */
export const SKAN_3_LOSS = {
  version: "3.0",
  "ad-network-id": "example123.skadnetwork",
  "campaign-id": 42,
  "transaction-id": "f9ac267a-a889-44ce-b5f7-0166d11461f0",
  "app-id": 525463029,
  "attribution-signature":
    "MEUCIQDDetUtkyc/MiQvVJ5I6HIO1E7l598572Wljot2Onzd4wIgVJLzVcyAV+TXksGNoa0DTMXEPgNPeHCmD4fw1ABXX0g=",
  redownload: true,
  "fidelity-type": 1,
  "did-win": false,
};

/** https://developer.apple.com/documentation/storekit/combining-parameters-for-previous-skadnetwork-postback-versions */
export const SKAN_2_2 = {
  version: "2.2",
  "ad-network-id": "com.example",
  "campaign-id": 42,
  "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
  "app-id": 525463029,
  "attribution-signature":
    "MEYCIQDTuQ1Z4Tpy9D3aEKbxLl5J5iKiTumcqZikuY/AOD2U7QIhAJAaiAv89AoquHXJffcieEQXdWHpcV8ZgbKN0EwV9/sY",
  redownload: true,
  "source-app-id": 1234567891,
  "fidelity-type": 1,
  "conversion-value": 20,
};

/** The same page's version 2.1 example. */
export const SKAN_2_1 = {
  version: "2.1",
  "ad-network-id": "com.example",
  "campaign-id": 42,
  "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
  "app-id": 525463029,
  "attribution-signature":
    "MEUCID6rbq3qt4GvFaAaynh5/LAcvn1d8CQTRhrZhLIxLKntAiEAo7IrvoMw6u2qDg6Tr5vIsEHXjlLkPlCOL0ojJcEh3Qw=",
  redownload: true,
  "source-app-id": 1234567891,
  "conversion-value": 20,
};

/** The same page's version 2.0 example, signed with the P-192 key. */
export const SKAN_2_0 = {
  version: "2.0",
  "ad-network-id": "com.example",
  "campaign-id": 42,
  "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
  "app-id": 525463029,
  "attribution-signature":
    "MDYCGQD0AdGn5gUnSuVGk8Wi0IgxzWiKdBzwJrQCGQCJfkrI5bda93EC4Xm1H+MtNxstFmnVBn0=",
  redownload: true,
  "source-app-id": 1234567891,
  "conversion-value": 20,
};

/**
 * The version 1.0 example of Apple's first page on postbacks: its signature does not verify
 * with the published P-192 key over the documented fields.
 */
export const SKAN_1_0_UNVERIFIABLE = {
  "ad-network-id": "com.example",
  "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
  "campaign-id": 42,
  "app-id": 1229670720,
  "attribution-signature":
    "MDYCGQCsQ4y8d4BlYU9b8Qb9BPWPi+ixk/OiRysCGQDZZ8fpJnuqs9my8iSQVbJO/oU1AXUROYU=",
};

/**
 * https://developer.apple.com/documentation/adattributionkit/identifying-the-parameters-in-a-postback:
 * a re-engagement postback signed with the development key of developer settings.
 */
export const AAK_DEVELOPMENT = {
  "jws-string":
    "eyJraWQiOiJhcHBsZS1kZXZlbG9wbWVudC1pZGVudGlmaWVyXC8xIiwiYWxnIjoiRVMyNTYifQ.eyJwb3N0YmFjay1pZGVudGlmaWVyIjoiODU1NDZFQjctRkQzOS00NEJDLTg5OTAtQzk4QTRBQzM2QTQ5IiwicHVibGlzaGVyLWl0ZW0taWRlbnRpZmllciI6MCwibWFya2V0cGxhY2UtaWRlbnRpZmllciI6ImNvbS5hcHBsZS5BcHBTdG9yZSIsImltcHJlc3Npb24tdHlwZSI6ImFwcC1pbXByZXNzaW9uIiwiYWQtbmV0d29yay1pZGVudGlmaWVyIjoiZGV2ZWxvcG1lbnQuYWRhdHRyaWJ1dGlvbmtpdCIsImRpZC13aW4iOnRydWUsInBvc3RiYWNrLXNlcXVlbmNlLWluZGV4IjowLCJjb252ZXJzaW9uLXR5cGUiOiJyZS1lbmdhZ2VtZW50Iiwic291cmNlLWlkZW50aWZpZXIiOiIxMjM0IiwiYWR2ZXJ0aXNlZC1pdGVtLWlkZW50aWZpZXIiOjEwNzM4MDI3NzU2fQ.bAdNwKd6OfHK9tofvjjua4X_JPcFTxXPQSspD9gZkinw97pY7R1aI-LSjl-oxZZF3_K2H5JK5TSEBee4_1U4oQ",
  "conversion-value": 24,
  "ad-interaction-type": "click",
  "country-code": "US",
};

/** Every SKAdNetwork sample that verifies. */
export const VERIFIED_SKAN_SAMPLES = {
  "4.0 fine": SKAN_4_FINE,
  "4.0 coarse": SKAN_4_COARSE,
  "3.0": SKAN_3_WIN,
  "3.0 not winning": SKAN_3_LOSS,
  "2.2": SKAN_2_2,
  "2.1": SKAN_2_1,
  "2.0": SKAN_2_0,
} as const;
