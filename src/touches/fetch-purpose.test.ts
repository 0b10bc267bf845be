import { describe, expect, it } from "vitest";
import { isEmbedded, isPrefetch } from "./fetch-purpose.ts";

describe("why a browser asks for a link", () => {
  it("sees a page embedding it: a request that is no navigation, or a frame no one tapped", () => {
    expect(isEmbedded({ "sec-fetch-dest": "image", "sec-fetch-mode": "no-cors" })).toBe(true);
    expect(isEmbedded({ "sec-fetch-dest": "empty", "sec-fetch-mode": "cors" })).toBe(true);
    expect(isEmbedded({ "sec-fetch-dest": "iframe", "sec-fetch-mode": "navigate" })).toBe(true);
    expect(isEmbedded({ "sec-fetch-dest": "Object", "sec-fetch-mode": " navigate " })).toBe(true);
    // Every kind of frame a page may load the link in unseen.
    for (const dest of ["frame", "embed", "fencedframe"]) {
      expect(isEmbedded({ "sec-fetch-dest": dest, "sec-fetch-mode": "navigate" }), dest).toBe(true);
    }
    // A page navigated to whole is a tap.
    expect(isEmbedded({ "sec-fetch-dest": "document", "sec-fetch-mode": "navigate" })).toBe(false);
  });

  it("takes a navigation, a tap inside a frame, and a request without a destination as a tap", () => {
    expect(isEmbedded({ "sec-fetch-dest": "document", "sec-fetch-mode": "navigate" })).toBe(false);
    expect(
      isEmbedded({
        "sec-fetch-dest": "iframe",
        "sec-fetch-mode": "navigate",
        "sec-fetch-user": "?1",
      }),
    ).toBe(false);
    // In any case, and a destination without a mode.
    expect(isEmbedded({ "sec-fetch-dest": "Document", "sec-fetch-mode": "Navigate" })).toBe(false);
    expect(isEmbedded({ "sec-fetch-dest": "document" })).toBe(false);
    // Node's fetch sends a mode alone; an older browser sends nothing.
    expect(isEmbedded({ "sec-fetch-mode": "cors" })).toBe(false);
    expect(isEmbedded({})).toBe(false);
  });

  it("reads the headers as the CDN folds them, those sent apart first", () => {
    expect(isEmbedded({ "x-tap-fetch": "sec-fetch-dest=image&sec-fetch-mode=no-cors" })).toBe(true);
    expect(
      isEmbedded({
        "x-tap-fetch": "sec-fetch-dest=iframe&sec-fetch-mode=navigate&sec-fetch-user=%3F1",
      }),
    ).toBe(false);
    expect(
      isEmbedded({
        "sec-fetch-dest": "document",
        "sec-fetch-mode": "navigate",
        "x-tap-fetch": "sec-fetch-mode=no-cors",
      }),
    ).toBe(false);
    expect(isPrefetch({ "x-tap-fetch": "x-moz=prefetch" })).toBe(true);
  });

  it("sees each prefetch the browsers announce, and nothing else", () => {
    for (const headers of [
      { "sec-purpose": "prefetch" },
      { "sec-purpose": "prefetch;prerender" },
      { purpose: "Prefetch" },
      { "x-moz": "prefetch" },
      { "x-purpose": "preview" },
    ]) {
      expect(isPrefetch(headers), JSON.stringify(headers)).toBe(true);
    }
    expect(isPrefetch({ purpose: "prefetch-later" })).toBe(false);
    expect(isPrefetch({ "x-moz": "" })).toBe(false);
    expect(isPrefetch({})).toBe(false);
  });
});
