/** A link's own destinations as the Links page's edit form sends them. */
import { describe, expect, it } from "vitest";
import { destinationPatch, destinationValuesOf } from "../../dashboard/src/link-destinations.ts";
import { linkOf } from "./link.test-support.ts";

const link = linkOf({
  android_url: "https://shop.example.com/android",
  web_url: "https://shop.example.com/winter",
});

describe("a link's destinations changed", () => {
  it("sends nothing for the destinations as stored", () => {
    expect(destinationPatch(link, destinationValuesOf(link))).toEqual({});
  });

  it("sends an edited one trimmed, and an emptied one as null so the app's default is used", () => {
    const values = destinationValuesOf(link);
    expect(
      destinationPatch(link, {
        ...values,
        ios_url: " https://apps.apple.com/app/id1 ",
        android_url: "",
      }),
    ).toEqual({ ios_url: "https://apps.apple.com/app/id1", android_url: null });
  });
});
