/**
 * Matching PII (docs/api.md#rules, sdk/conformance/pii.json): the top-level parameters `email`,
 * `name`, `phone_number`, `date_of_birth` and `gender` are never stored in clear. A clear value is
 * normalised the way ad networks normalise before matching (so our hash equals theirs) and replaced
 * by `sha256:<64 lowercase hex>`, under the same key. A value sealed on the device (the Kotlin SDK
 * seals these: sdk/conformance/pii.json) stays sealed: only the app's owner can open it.
 *
 * Only top-level keys are matching PII: `parameters.items[0].name` is a product's name, and
 * hashing it would destroy data the app owner needs.
 */
import { createHash } from "node:crypto";
import type { ParameterMap, ParameterValue } from "./parameters.ts";

export const PII_KEYS = ["email", "name", "phone_number", "date_of_birth", "gender"] as const;
export type PiiKey = (typeof PII_KEYS)[number];

/** Prefix of a hashed value, so a reader tells a hash from a clear or sealed value at a glance. */
export const HASH_MARKER = "sha256:";

const HEX_64 = /^(?:sha256:)?([0-9a-fA-F]{64})$/;

export type Normalised =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly message: string };

const ok = (value: string): Normalised => ({ ok: true, value });

/** Gmail ignores dots, but Meta and most networks hash the address as typed: dots stay. */
const email = (value: string): Normalised => ok(value.trim().toLowerCase());

/**
 * Digits only, with the country code: `+1 (555) 010-9999` gives `15550109999`. Leading zeros
 * go too (Meta's rule): a country code never starts with 0, so `0049…` becomes `49…`. A national
 * number without a country code cannot be completed here and is hashed as it is.
 */
const phone = (value: string): Normalised => ok(value.replace(/\D+/g, "").replace(/^0+/, ""));

/** NFC so a composed and a decomposed "é" hash alike; no other folding (accents are kept). */
const name = (value: string): Normalised => ok(value.trim().normalize("NFC").toLowerCase());

const DATE = /^(\d{4})[-/.]?(\d{2})[-/.]?(\d{2})(?:T.*)?$/;

/** YYYYMMDD from `1990-01-31`, `19900131`, `1990/01/31`, `1990.01.31` or an ISO date-time. */
const dateOfBirth = (value: string): Normalised => {
  const match = DATE.exec(value.trim());
  const [, year, month, day] = match ?? [];
  if (year !== undefined && month !== undefined && day !== undefined) {
    const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
    // Date.UTC rolls 31 February over into March; a round trip refuses it.
    if (
      date.getUTCFullYear() === Number(year) &&
      date.getUTCMonth() === Number(month) - 1 &&
      date.getUTCDate() === Number(day)
    ) {
      return ok(`${year}${month}${day}`);
    }
  }
  return { ok: false, message: "must be a date as YYYY-MM-DD or YYYYMMDD, e.g. 1990-01-31" };
};

const GENDERS: Readonly<Record<string, string>> = { m: "m", male: "m", f: "f", female: "f" };

/** `m` or `f` for the usual spellings, any other answer lowercased as it is. */
const gender = (value: string): Normalised => {
  const lowered = value.trim().toLowerCase();
  return ok(GENDERS[lowered] ?? lowered);
};

const NORMALISERS: Readonly<Record<PiiKey, (value: string) => Normalised>> = {
  email,
  name,
  phone_number: phone,
  date_of_birth: dateOfBirth,
  gender,
};

export const normalisePii = (key: PiiKey, value: string): Normalised => NORMALISERS[key](value);

export const sha256Marked = (value: string): string =>
  `${HASH_MARKER}${createHash("sha256").update(value, "utf8").digest("hex")}`;

export interface PiiResult {
  readonly parameters: ParameterMap;
  /** Each value dropped with its key, and why. */
  readonly warnings: readonly string[];
}

/**
 * Replaces each clear matching-PII value by its hash. `isSealed` tells a sealed envelope from a
 * clear string; when it cannot tell (it throws), the value is hashed: a hashed envelope is
 * useless but private, a clear value kept would not be.
 *
 * A value that cannot be normalised (not a string or a number, no date for `date_of_birth`) is
 * dropped with its key and a warning, as the SDKs drop it on the device (pii.json): it cannot
 * be stored in clear, its hash would match nothing, and the event around it is still good.
 */
export const protectPii = (
  parameters: ParameterMap,
  isSealed: (value: string) => boolean,
): PiiResult => {
  // Most events carry none: they keep their parameters object as it is.
  if (!PII_KEYS.some((key) => Object.hasOwn(parameters, key))) {
    return { parameters, warnings: [] };
  }
  const kept: Record<string, ParameterValue> = { ...parameters };
  const warnings: string[] = [];
  const drop = (key: PiiKey, why: string) => {
    delete kept[key];
    warnings.push(`parameters.${key} was dropped: ${why}`);
  };
  for (const key of PII_KEYS) {
    if (!Object.hasOwn(parameters, key)) continue;
    const raw = parameters[key];
    // A phone number or a date of birth sent as a JSON number is still that number's digits.
    const value = typeof raw === "number" ? String(raw) : raw;
    if (typeof value !== "string") {
      drop(key, "it must be a string or a number (in clear or sealed)");
      continue;
    }
    const preHashed = HEX_64.exec(value);
    if (preHashed?.[1] !== undefined) {
      // Already hashed by the app, as ad networks allow: keep it, in our one marked form.
      kept[key] = `${HASH_MARKER}${preHashed[1].toLowerCase()}`;
      continue;
    }
    if (sealed(value, isSealed)) continue;
    const normalised = normalisePii(key, value);
    if (!normalised.ok) {
      drop(key, `it ${normalised.message}`);
      continue;
    }
    if (normalised.value === "") {
      // A hash of nothing would match every other empty value: worse than no value.
      drop(key, "it is empty once normalised");
      continue;
    }
    kept[key] = sha256Marked(normalised.value);
  }
  return { parameters: kept, warnings };
};

const sealed = (value: string, isSealed: (value: string) => boolean): boolean => {
  try {
    return isSealed(value);
  } catch {
    return false;
  }
};
