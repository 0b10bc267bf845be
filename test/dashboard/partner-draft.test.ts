/** The Partners page's form of a saved configuration: what it shows of the values kept sealed. */
import { describe, expect, it } from "vitest";
import type { PartnerConfig } from "../../dashboard/src/api.ts";
import {
  draftOf,
  headerLinesRefused,
  requestOf,
  valueFieldsOf,
} from "../../dashboard/src/pages/partner-draft.ts";

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

  it("shows the headers as lines, asks for the values they name, and sends them back", () => {
    const headed: PartnerConfig = {
      ...saved,
      template: {
        method: "POST",
        install: {
          url: "https://pb.example.net/i",
          headers: { Authorization: "***", "X-Tenant": "{partner.tenant}" },
          body: '{"a": 1}\n',
        },
      },
      values: { tenant: "t-1" },
      sealed_values: ["token"],
    };
    const draft = draftOf(headed);
    expect(draft.installHeaders).toBe("Authorization: ***\nX-Tenant: {partner.tenant}");
    expect(valueFieldsOf(draft, undefined).map((field) => field.name)).toEqual(["tenant"]);
    const request = requestOf(draft, undefined, headed.sealed_values);
    expect(request.template?.install).toEqual(headed.template?.install);
    expect(request.values).toEqual({ tenant: "t-1" });
  });

  it("splits the media sources at commas alone", () => {
    const draft = { ...draftOf(saved), mediaSources: "Apple Search Ads, net ,, " };
    expect(requestOf(draft, undefined).media_sources).toEqual(["Apple Search Ads", "net"]);
  });

  it("names the headers' lines that are no Name: value", () => {
    expect(headerLinesRefused("A: 1\n\nnothing\n: x\n  B :2")).toEqual([3, 4]);
  });
});
