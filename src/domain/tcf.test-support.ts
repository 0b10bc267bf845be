/**
 * TCF v2 consent strings as a consent platform writes them, encoded by the IAB's own library
 * against a vendor list of the ten purposes and the vendors named (it encodes against some list).
 */
import {
  GVL,
  PurposeRestriction,
  type RestrictionType,
  TCModel,
  TCString,
} from "@iabtechlabtcf/core";

const PURPOSES = Object.fromEntries(
  Array.from({ length: 11 }, (_, i) => [
    String(i + 1),
    { id: i + 1, name: `Purpose ${i + 1}`, description: "", illustrations: [] },
  ]),
);

/**
 * A vendor list of the ten purposes and these vendors: the encoder leaves out any other. A
 * vendor of `onInterest` declares purpose 7 under legitimate interest, the others under consent:
 * the encoder keeps only a restriction that changes what the vendor declared.
 */
const vendorList = (vendors: readonly number[], onInterest: readonly number[] = []) =>
  new GVL({
    gvlSpecificationVersion: 3,
    vendorListVersion: 100,
    tcfPolicyVersion: 5,
    lastUpdated: "2026-01-01T00:00:00Z",
    purposes: PURPOSES,
    specialPurposes: {},
    features: {},
    specialFeatures: {},
    vendors: Object.fromEntries(
      vendors.map((id) => [
        String(id),
        {
          id,
          name: `Vendor ${id}`,
          // Besides measurement's, purpose 3: a restriction of it must be encoded to be read.
          purposes: onInterest.includes(id) ? [1, 3] : [1, 3, 7],
          legIntPurposes: onInterest.includes(id) ? [7] : [],
          // Purpose 7 flexible: a publisher may ask consent or legitimate interest of it.
          flexiblePurposes: [7],
          specialPurposes: [],
          features: [],
          specialFeatures: [],
          usesCookies: false,
          cookieRefresh: false,
          usesNonCookieAccess: false,
          cookieMaxAgeSeconds: null,
        },
      ]),
    ),
    stacks: {},
    dataCategories: {},
  });

/**
 * A consent string whose user consented to `purposes` and `vendors` and to no other, and whose
 * publisher restricts each of `restrictions` (a vendor's purpose) as it says.
 */
export const tcString = (
  purposes: readonly number[],
  options: {
    readonly purposeOneTreatment?: boolean;
    readonly vendors?: readonly number[];
    /** Vendors that declare purpose 7 under legitimate interest (see vendorList). */
    readonly onInterest?: readonly number[];
    readonly restrictions?: readonly {
      readonly vendor: number;
      readonly purpose: number;
      readonly type: RestrictionType;
    }[];
  } = {},
): string => {
  const vendors = options.vendors ?? [];
  const model = new TCModel(vendorList(vendors, options.onInterest));
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.purposeOneTreatment = options.purposeOneTreatment ?? false;
  model.purposeConsents.set([...purposes]);
  model.vendorConsents.set([...vendors]);
  for (const { vendor, purpose, type } of options.restrictions ?? []) {
    model.publisherRestrictions.add(vendor, new PurposeRestriction(purpose, type));
  }
  return TCString.encode(model);
};
