/**
 * TCF v2 consent strings as a consent platform writes them, encoded by the IAB's own library
 * against a vendor list of the ten purposes and no vendor (it encodes against some list).
 */
import { GVL, TCModel, TCString } from "@iabtechlabtcf/core";

const PURPOSES = Object.fromEntries(
  Array.from({ length: 11 }, (_, i) => [
    String(i + 1),
    { id: i + 1, name: `Purpose ${i + 1}`, description: "", illustrations: [] },
  ]),
);

const VENDOR_LIST = new GVL({
  gvlSpecificationVersion: 3,
  vendorListVersion: 100,
  tcfPolicyVersion: 5,
  lastUpdated: "2026-01-01T00:00:00Z",
  purposes: PURPOSES,
  specialPurposes: {},
  features: {},
  specialFeatures: {},
  vendors: {},
  stacks: {},
  dataCategories: {},
});

/** A consent string whose user consented to `purposes` and to no other. */
export const tcString = (
  purposes: readonly number[],
  options: { readonly purposeOneTreatment?: boolean } = {},
): string => {
  const model = new TCModel(VENDOR_LIST);
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.purposeOneTreatment = options.purposeOneTreatment ?? false;
  model.purposeConsents.set([...purposes]);
  return TCString.encode(model);
};
