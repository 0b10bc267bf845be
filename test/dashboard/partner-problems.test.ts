/**
 * The Partners page's forms: the service's own refusals of what a form sends (got over HTTP from
 * the embedded runtime, so a change of their words fails here), each beside the input it is
 * about, in the form's words.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogPartner, PartnerCatalog, PartnerConfig } from "../../dashboard/src/api.ts";
import {
  draftOf,
  mappingRow,
  newDraft,
  type PartnerDraft,
  partnerProblemsOf,
  requestOf,
  webhookProblemsOf,
} from "../../dashboard/src/pages/partner-draft.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.partners.form";

describe("the Partners page's forms", () => {
  let rt: TestRuntime;
  let serverKey = "";
  let generic: CatalogPartner;

  /** The 422's detail of a PUT the service refuses. */
  const refusal = async (path: string, body: unknown): Promise<string> => {
    const response = await rt.fetch(
      `${path}?app_id=${APP}`,
      { method: "PUT", body: JSON.stringify(body) },
      serverKey,
    );
    expect(response.status).toBe(422);
    return ((await response.json()) as { detail: string }).detail;
  };
  /** The form's problems of a configuration as the page sends it. */
  const problems = async (id: string, draft: PartnerDraft, partner?: CatalogPartner) =>
    partnerProblemsOf(
      await refusal(`/v1/postbacks/partners/${id}`, requestOf(draft, partner)),
      draft,
      partner,
    );

  beforeAll(async () => {
    rt = await startTestRuntime();
    ({ serverKey } = await rt.createApp(APP));
    const catalog = (await (
      await rt.get(`/v1/partners?app_id=${APP}`, serverKey)
    ).json()) as PartnerCatalog;
    const found = catalog.data.find((partner) => partner.id === "generic");
    if (!found) throw new Error("the catalog has no generic partner");
    generic = found;
  });

  afterAll(async () => {
    await rt?.dispose();
  });

  it("puts a catalog partner's refusals beside the value, the window and each mapping's inputs", async () => {
    const unnamed = mappingRow("purchase", "");
    const long = mappingRow("service_purchase", "x".repeat(101), true);
    const draft: PartnerDraft = {
      ...newDraft(generic, "net"),
      mediaSources: "net",
      windowDays: "0",
      mappings: [unnamed, long],
    };
    expect(await problems("net", draft, generic)).toEqual([
      {
        field: `mapping-name:${unnamed.key}`,
        text: "The partner's name for purchase must not be empty",
      },
      {
        field: `mapping-name:${long.key}`,
        text: "The partner's name for service_purchase must be at most 100 characters",
      },
      { field: "event_window_days", text: "Event window must be at least 1" },
      {
        field: "value:endpoint",
        text: "Endpoint is required: the Generic server-to-server template uses it",
      },
      // One problem, though its words hold a `; ` of their own.
      {
        field: `mapping:${unnamed.key}`,
        text: "The mapping of purchase must be our event name as the export gives it: service_ and the event in snake case (service_purchase, service_level_complete, or a CUSTOM event's service_<name in snake_case>): service_purchase?",
      },
    ]);
  });

  it("puts a custom template's refusals beside its URLs, its body and the values it names", async () => {
    const custom = newDraft(undefined, "mine");
    expect(
      await problems("mine", {
        ...custom,
        installUrl: "https://pb.example.com/i?x={foo}&k={partner.key}",
        eventUrl: "ftp://pb.example.com/e",
      }),
    ).toEqual([
      {
        field: "event_url",
        text: "Event URL must begin with https:// or with {partner.<name>} holding a URL",
      },
      {
        field: "install_url",
        text: "Install URL names the macro {foo}, which the service does not know (docs/postbacks.md#macros)",
      },
      { field: "value:key", text: "key is required: the template uses it" },
      {
        field: "media_sources",
        text: "Media sources must name at least one media source: only the installs they won go",
      },
    ]);
    expect(
      await problems("mine", {
        ...custom,
        method: "POST",
        installUrl: "https://pb.example.com/i",
        installBody: "{not json",
        mediaSources: "net",
      }),
    ).toEqual([{ field: "install_body", text: "Install body must be JSON" }]);
  });

  it("keeps a custom template's headers, the values they name and its body through an edit", async () => {
    const body = '{"id": "{advertising_id}", "key": "{partner.api_key}"}\n';
    const put = async (request: unknown) => {
      const response = await rt.fetch(
        `/v1/postbacks/partners/headed?app_id=${APP}`,
        { method: "PUT", body: JSON.stringify(request) },
        serverKey,
      );
      const answer = await response.json();
      expect((answer as { detail?: string }).detail).toBeUndefined();
      expect(response.status).toBe(200);
      return answer as PartnerConfig;
    };
    const first = await put({
      partner: "custom",
      template: {
        method: "POST",
        install: {
          // An address, not a name: no DNS is asked.
          url: "https://93.184.216.34/i",
          headers: { Authorization: "Bearer {partner.token}", "X-Tenant": "{partner.tenant}" },
          body,
        },
      },
      media_sources: ["Apple Search Ads", "net"],
      values: { token: "s3cret-token-value", tenant: "t-1", api_key: "k-123456789" },
    });
    // Only switched off in the form: everything else goes back as it was shown.
    const edited = draftOf(first);
    const second = await put(
      requestOf({ ...edited, enabled: false }, undefined, first.sealed_values),
    );
    expect(second.enabled).toBe(false);
    expect(second.media_sources).toEqual(["Apple Search Ads", "net"]);
    expect(second.template).toEqual({ ...first.template, event: null });
    expect(second.values).toEqual(first.values);
    expect(second.sealed_values).toEqual(first.sealed_values);
    const install = (second.template as { install: { headers: Record<string, string> } }).install;
    expect(Object.keys(install.headers)).toEqual(["Authorization", "X-Tenant"]);
    expect(second.values.tenant).toBe("t-1");
  });

  it("refuses a header the service cannot send beside the headers' input", async () => {
    const draft: PartnerDraft = {
      ...newDraft(undefined, "mine"),
      installUrl: "https://pb.example.com/i",
      installHeaders: "Host: evil.example.com",
      mediaSources: "net",
    };
    const said = await problems("mine", draft);
    expect(said).toEqual([expect.objectContaining({ field: "install_headers" })]);
    expect(said[0]?.text).toMatch(/^Install headers /);
  });

  it("counts the problems past the fifth in a sentence", async () => {
    const rows = ["a", "b", "c", "d", "e", "f"].map((name) => mappingRow(`service_${name}`, ""));
    const said = await problems(
      "many",
      { ...newDraft(generic, "many"), mediaSources: "net", mappings: rows },
      generic,
    );
    expect(said.slice(0, 5).map((problem) => problem.field)).toEqual(
      rows.slice(0, 5).map((row) => `mapping-name:${row.key}`),
    );
    expect(said.slice(5)).toEqual([{ field: null, text: "And 2 more problems." }]);
  });

  it("puts a webhook's refusals beside its URL and its switch", async () => {
    const webhook = async (body: unknown) =>
      webhookProblemsOf(await refusal("/v1/postbacks/webhooks/hook", body));
    expect(await webhook({ url: "http://hooks.example.com/h" })).toEqual([
      { field: "url", text: "URL: http://hooks.example.com/h must be https" },
    ]);
    expect(await webhook({ url: `https://hooks.example.com/${"a".repeat(2048)}` })).toEqual([
      { field: "url", text: "URL must be at most 2048 characters" },
    ]);
    expect(await webhook({ url: "https://hooks.example.com/h", enabled: "yes" })).toEqual([
      { field: "enabled", text: "On must be a boolean" },
    ]);
  });
});
