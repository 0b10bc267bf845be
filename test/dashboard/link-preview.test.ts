/** A link's own preview as the Links page's edit form sends it. */
import { describe, expect, it } from "vitest";
import type { Link } from "../../dashboard/src/api.ts";
import { previewPatch, previewValuesOf } from "../../dashboard/src/link-preview.ts";
import { linkOf } from "./link.test-support.ts";

const link = (
  preview: Pick<Link, "preview_title" | "preview_description" | "preview_image_url">,
): Link => linkOf(preview);

describe("a link's preview changed", () => {
  const stored = link({
    // Set through the API or the CLI, a space at the end and all.
    preview_title: "Winter ",
    preview_description: "Cards for everyone",
    preview_image_url: null,
  });

  it("sends nothing for fields the form holds as stored, spaces and all", () => {
    expect(previewPatch(stored, previewValuesOf(stored))).toEqual({});
  });

  it("sends an edited field trimmed, and an emptied one as null so the app's default shows", () => {
    const values = previewValuesOf(stored);
    expect(previewPatch(stored, { ...values, title: "  Spring " })).toEqual({
      preview_title: "Spring",
    });
    expect(previewPatch(stored, { ...values, description: "   " })).toEqual({
      preview_description: null,
    });
    expect(previewPatch(stored, { ...values, imageUrl: "https://cdn.example.com/w.png" })).toEqual({
      preview_image_url: "https://cdn.example.com/w.png",
    });
  });
});
