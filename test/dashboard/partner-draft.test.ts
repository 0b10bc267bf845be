/** The Partners page's form of a saved configuration: what it shows of the values kept sealed. */
import { describe, expect, it } from "vitest";
import type { PartnerConfig } from "../../dashboard/src/api.ts";
import { draftOf, requestOf, valueFieldsOf } from "../../dashboard/src/pages/partner-draft.ts";

const saved: PartnerConfig = {
  id: "net",
  partner: "custom",
  template: {
    method: "GET",
    install: { url: "https://pb.example.net/i?api_key={partner.api_key}&app={partner.app}" },
  },
  media_sources: ["net"],
  values: { app: "app-1" },
  // Sealed as a credential, though the owner did not mark it.
  sealed_values: ["api_key"],
  secret_values: [],
  installs: "won",
  events: {},
  event_window_days: 180,
  tcf_vendor_id: 12,
  enabled: true,
  updated_at: "2026-11-24T12:00:00.000Z",
};

describe("a custom configuration's form", () => {
  it("shows a value the service keeps sealed as a secret, kept when left empty", () => {
    const draft = draftOf(saved);
    expect(valueFieldsOf(draft, undefined)).toEqual([
      expect.objectContaining({ name: "api_key", secret: true }),
      expect.objectContaining({ name: "app", secret: false }),
    ]);
    const request = requestOf(draft, undefined, saved.sealed_values);
    expect(request.values).toEqual({ app: "app-1" });
    expect(request.secret_values).toEqual(["api_key"]);
  });

  it("keeps the partner's Global Vendor List id, and sends none for an empty one", () => {
    const draft = draftOf(saved);
    expect(draft.vendorId).toBe("12");
    expect(requestOf(draft, undefined, []).tcf_vendor_id).toBe(12);
    expect(requestOf({ ...draft, vendorId: " " }, undefined, []).tcf_vendor_id).toBeNull();
  });
});
