/**
 * Apple's public keys for the postbacks its devices send: SKAdNetwork's, by version, and
 * AdAttributionKit's, by the `kid` of the JWS. Public values (SPKI, base64), each with the
 * documentation page it is published on; nothing here is secret.
 */

export interface AppleKey {
  /** SKAdNetwork's are named by the versions they verify; AdAttributionKit's are its `kid`s. */
  readonly id: string;
  readonly framework: "skadnetwork" | "adattributionkit";
  /** NIST P-192 for SKAdNetwork 1.0 and 2.0, P-256 from 2.1 and for AdAttributionKit. */
  readonly curve: "P-192" | "P-256";
  /** The SubjectPublicKeyInfo, base64 (DER). */
  readonly spki: string;
  /** Whether a postback it verifies counts: development keys verify test postbacks only. */
  readonly environment: "production" | "development";
  readonly source: string;
}

const P256_PRODUCTION =
  "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEWdp8GPcGqmhgzEFj9Z2nSpQVddayaPe4FMzqM9wib1+aHaaIzoHoLN9zW4K8y4SPykE3YVK3sVqW6Af0lfx3gg==";

export const APPLE_KEYS = [
  {
    id: "skadnetwork-1",
    framework: "skadnetwork",
    curve: "P-192",
    spki: "MEkwEwYHKoZIzj0CAQYIKoZIzj0DAQEDMgAEMyHD625uvsmGq4C43cQ9BnfN2xslVT5V1nOmAMP6qaRRUll3PB1JYmgSm+62sosG",
    environment: "production",
    // The index of the release notes lists no key: the notes of versions 1 and 2 give this one.
    source:
      "https://developer.apple.com/documentation/storekit/skadnetwork-2-release-notes (and skadnetwork-1-release-notes)",
  },
  {
    id: "skadnetwork-2.1",
    framework: "skadnetwork",
    curve: "P-256",
    spki: P256_PRODUCTION,
    environment: "production",
    source:
      "https://developer.apple.com/documentation/storekit/verifying-an-install-validation-postback",
  },
  {
    id: "apple-cas-identifier/0",
    framework: "adattributionkit",
    curve: "P-256",
    spki: P256_PRODUCTION,
    environment: "production",
    source: "https://developer.apple.com/documentation/adattributionkit/verifying-a-postback",
  },
  {
    id: "apple-development-identifier/0",
    framework: "adattributionkit",
    curve: "P-256",
    spki: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAELeEDzpJEP+/qRSE5hJVC1p1J0ssUnQGMzBBbvnACBok8OVGGLgxL0myrKiy6lvRtSlLRsWit87i+vftD8AEqeQ==",
    environment: "development",
    source: "https://developer.apple.com/documentation/adattributionkit/verifying-a-postback",
  },
  {
    id: "apple-development-identifier/1",
    framework: "adattributionkit",
    curve: "P-256",
    spki: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8YzdO7eM97s/IJ25kdW5CZ3A14USE5IJ5Ha/vhWaxI6UBI1ZxCEvjrKxVluVGe6qWwF1BDFq+QHqKfH5u+wxHQ==",
    environment: "development",
    source: "https://developer.apple.com/documentation/adattributionkit/verifying-a-postback",
  },
] as const satisfies readonly AppleKey[];

export type AppleKeyId = (typeof APPLE_KEYS)[number]["id"];

export const appleKey = (framework: AppleKey["framework"], id: string): AppleKey | undefined =>
  APPLE_KEYS.find((key) => key.framework === framework && key.id === id);
