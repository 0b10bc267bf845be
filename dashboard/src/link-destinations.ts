/** A link's own destinations as the Links page's edit form holds them and sends them. */
import type { Link, LinkPatch } from "./api.ts";
import { textChange } from "./link-preview.ts";

/** The three destinations by the API's names; an empty one is the app's default. */
export type DestinationField = "android_url" | "ios_url" | "web_url";
export type DestinationValues = Readonly<Record<DestinationField, string>>;

export const DESTINATION_FIELDS: readonly DestinationField[] = [
  "android_url",
  "ios_url",
  "web_url",
];

export const destinationValuesOf = (link: Link): DestinationValues => ({
  android_url: link.android_url ?? "",
  ios_url: link.ios_url ?? "",
  web_url: link.web_url ?? "",
});

/**
 * The destinations the form changed: an edited one sent trimmed, an emptied one cleared (null),
 * so that taps go to the app's store page or web URL again; the rest left out, so they stay.
 */
export const destinationPatch = (link: Link, values: DestinationValues): LinkPatch => {
  const patch: LinkPatch = {};
  for (const field of DESTINATION_FIELDS) {
    const change = textChange(values[field], link[field]);
    if (change !== undefined) patch[field] = change;
  }
  return patch;
};
