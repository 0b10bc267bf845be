/**
 * The Partners page's forms: the service's own refusals of what a form sends (got over HTTP from
 * the embedded runtime, so a change of their words fails here), each beside the input it is
 * about, in the form's words.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogPartner, PartnerCatalog } from "../../dashboard/src/api.ts";
import {
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
