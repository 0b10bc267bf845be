/** A link's own preview as the Links page's forms hold it and send it. */
import type { Link, LinkPatch } from "./api.ts";

/** A link's preview as its form holds it: an empty field is no preview of the link's own. */
export interface PreviewValues {
  readonly title: string;
  readonly description: string;
  readonly imageUrl: string;
}

export const NO_PREVIEW: PreviewValues = { title: "", description: "", imageUrl: "" };

export const previewValuesOf = (link: Link): PreviewValues => ({
  title: link.preview_title ?? "",
  description: link.preview_description ?? "",
  imageUrl: link.preview_image_url ?? "",
});

export const hasOwnPreview = (link: Link) =>
  link.preview_title !== null ||
  link.preview_description !== null ||
  link.preview_image_url !== null;

/**
 * The preview fields the form changed: an emptied one cleared (null), so that the app's default
 * shows again; an edited one sent trimmed; the rest left out, so they stay as stored (a title
 * set elsewhere with a space at its end is not rewritten by a save that changed the cost).
 */
export const previewPatch = (link: Link, values: PreviewValues): LinkPatch => {
  const patch: LinkPatch = {};
  const title = textChange(values.title, link.preview_title);
  const description = textChange(values.description, link.preview_description);
  const imageUrl = textChange(values.imageUrl, link.preview_image_url);
  if (title !== undefined) patch.preview_title = title;
  if (description !== undefined) patch.preview_description = description;
  if (imageUrl !== undefined) patch.preview_image_url = imageUrl;
  return patch;
};

/**
 * A text field of a link's form against the link's own value: undefined when the form holds it
 * as stored (left out of the patch), else the new value trimmed, or null for an emptied one.
 */
export const textChange = (value: string, stored: string | null): string | null | undefined => {
  if (value === (stored ?? "")) return undefined;
  return value.trim() === "" ? null : value.trim();
};
