/**
 * The answers to Google's EU user consent policy that an IAB TCF v2 consent string gives, read
 * as Google reads one for consent mode: `ad_user_data` is granted with purposes 1 (store and/or
 * access information on a device) and 7 (measure ad performance), `ad_personalization` with
 * purposes 3 (create a personalised ads profile) and 4 (select personalised ads). A string
 * whose CMP did not disclose purpose 1 at all (purpose one treatment, where the publisher's
 * country has no such rule) is read without it. The vendors the user consented to are kept too,
 * less those the publisher's restrictions keep from consent on purposes 1 or 7: an ad network
 * on the IAB's Global Vendor List hears of an install only with its own consent (vendorRefused,
 * ./consent.ts).
 */
import { RestrictionType, type TCModel, TCString } from "@iabtechlabtcf/core";

export interface TcfAnswers {
  readonly adUserData: boolean;
  readonly adPersonalization: boolean;
  /**
   * The Global Vendor List ids of the vendors the user consented to, less those the publisher
   * does not allow purpose 1 or 7, or allows them on legitimate interest only.
   */
  readonly vendorConsents: ReadonlySet<number>;
}

/** The purposes a postback's consent stands on: storage on the device, and measurement. */
const MEASUREMENT_PURPOSES = new Set([1, 7]);

/** The vendors the user consented to that the publisher's restrictions leave it to. */
const consentedVendors = (model: TCModel): Set<number> => {
  const vendors = new Set<number>();
  model.vendorConsents.forEach((consented, vendorId) => {
    if (consented) vendors.add(vendorId);
  });
  const restrictions = model.publisherRestrictions;
  for (const vendorId of restrictions.getVendors()) {
    const barred = restrictions
      .getRestrictions(vendorId)
      .some(
        (restriction) =>
          MEASUREMENT_PURPOSES.has(restriction.purposeId) &&
          restriction.restrictionType !== RestrictionType.REQUIRE_CONSENT,
      );
    if (barred) vendors.delete(vendorId);
  }
  return vendors;
};

/** The last string read and its answers: an install's consent is read several times in a row. */
let last: { readonly text: string; readonly answers: TcfAnswers | null } | undefined;

/** The answers the string gives; null for a string that is no TCF v2 consent string. */
export const tcfAnswers = (text: string): TcfAnswers | null => {
  if (last?.text === text) return last.answers;
  let answers: TcfAnswers | null = null;
  try {
    const model = TCString.decode(text);
    if (model.version === 2) {
      const granted = (purpose: number) => model.purposeConsents.has(purpose);
      answers = {
        adUserData: (model.purposeOneTreatment || granted(1)) && granted(7),
        adPersonalization: granted(3) && granted(4),
        vendorConsents: consentedVendors(model),
      };
    }
  } catch {
    // Not a consent string (cut short, another framework's): it says nothing.
  }
  last = { text, answers };
  return answers;
};
