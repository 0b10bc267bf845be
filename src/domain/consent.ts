import { tcfAnswers } from "./tcf.ts";

/**
 * A user's consent as the SDK reports it: whether the user is where consent is required, the
 * answers Google's EU user consent policy asks for, and the IAB TCF string a consent platform
 * stored on the device. Null is "not known": the app did not ask, or the user did not answer.
 */
export interface Consent {
  readonly gdprApplies: boolean | null;
  /** May the user's data be sent to ad platforms for advertising (Google's `ad_user_data`). */
  readonly adUserData: boolean | null;
  /** May ads be personalised for the user (Google's `ad_personalization`). */
  readonly adPersonalization: boolean | null;
  /** The IAB TCF v2 consent string (`IABTCF_TCString`), kept as the device stored it. */
  readonly tcfString: string | null;
  /** When the service received this consent (ISO 8601 UTC). */
  readonly updatedAt: string;
}

/**
 * The user's answer on ad user data: the app's own (`setConsent`), else what the consent
 * platform's TCF string says (./tcf.ts), else null. The app's answer comes first, as it does
 * for the leading attribution services: an app that asks itself knows what it asked.
 */
export const adUserDataOf = (consent: Consent | null): boolean | null => {
  if (!consent) return null;
  if (consent.adUserData !== null) return consent.adUserData;
  return (consent.tcfString ? tcfAnswers(consent.tcfString)?.adUserData : undefined) ?? null;
};

/**
 * Whether the install's advertising id may serve advertising purposes, matching included: not
 * when the user refused ad user data, nor where consent is required and was not given (Google's
 * policy for the EEA asks for a yes, not the absence of a no).
 */
export const allowsAdUserData = (consent: Consent | null): boolean => {
  if (!consent) return true;
  const adUserData = adUserDataOf(consent);
  if (adUserData === false) return false;
  return consent.gdprApplies !== true || adUserData === true;
};

/**
 * Whether the consent platform's TCF string withholds the user's consent from the vendor of the
 * IAB's Global Vendor List with this id (an ad network): a string that names no consent for it,
 * or whose publisher keeps it from consent on purpose 1 or 7 (./tcf.ts), where GDPR was not said
 * not to apply. The string is more specific than the app's own answer
 * on ad user data, which speaks of ad networks at large, so a yes there does not outweigh it.
 * No vendor id, no string, or a string that is no TCF v2 one: nothing withheld.
 */
export const vendorRefused = (consent: Consent | null, vendorId: number | null): boolean => {
  if (vendorId === null || !consent?.tcfString || consent.gdprApplies === false) return false;
  const answers = tcfAnswers(consent.tcfString);
  return answers !== null && !answers.vendorConsents.has(vendorId);
};
