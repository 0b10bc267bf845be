/**
 * Cost rows of POST /v1/costs against the cost clicks carry, in the cohorts report over HTTP: a
 * row naming its campaign by id alone replaces the cost of the clicks of that id (named on the
 * link) and is in that campaign's group; the totals' cost and clicks are the same whatever the
 * grouping; names or days no report can hold, and two rows of one day and keys, are a 422,
 * never stored or asked of the lake; a name spelt apart from the link's (case, spaces) is the
 * link's campaign. Revenue in a currency pegged to the dollar counts; revenue no rate converts
 * is counted apart. A campaign renamed at its network (its id kept) is one campaign, under the
 * name of its latest tap, its cost row's whatever name that row gives it. A campaign's install
 * days with no cost are named.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CohortGroup } from "../../src/ports/reports.ts";
import type { CohortReport } from "../../src/reports/cohorts.ts";
import { PIXEL } from "../support/agents.ts";
import { androidInstallRequest } from "../support/installs.ts";
import { clearOfMidnight } from "../support/midnight.ts";
import { ecbRatesCsv } from "../support/rates.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.costrows";
/** An app whose campaign r-1 was renamed at its network: Spring v1 tapped twice, then Spring v2. */
const RENAMED = "com.example.costrows.renamed";
/** An app whose network's cost of today has not come yet. */
const LATE = "com.example.costrows.late";
/** USD per EUR on every day of the test (the ECB's table gives units per EUR). */
const USD_PER_EUR = 1.08;

const ratesCsv = () => ecbRatesCsv({ USD: USD_PER_EUR }, 10);

describe("cost rows in the cohorts report", () => {
  let rt: TestRuntime;
  let serverKey = "";
  let sdkKey = "";
  let today = "";
  let renamedKey = "";

  /** A CPC link of clicknet at 0.10 EUR a tap, tapped `taps` times on the link host. */
  const tappedLink = async (
    campaign: { id?: string; name: string },
    taps: number,
    key = serverKey,
  ) => {
    const response = await rt.post(
      "/v1/links",
      {
        media_source: "clicknet",
        ...(campaign.id === undefined ? {} : { campaign_id: campaign.id }),
        campaign_name: campaign.name,
        cost_model: "CPC",
        cost_value: 0.1,
        cost_currency: "EUR",
      },
      key,
    );
    expect(response.status).toBe(201);
    const { url } = (await response.json()) as { url: string };
    for (let n = 0; n < taps; n++) {
      const tap = await fetch(`${rt.linkUrl}${new URL(url).pathname}`, {
        redirect: "manual",
        headers: { "user-agent": PIXEL },
      });
      expect(tap.status).toBe(302);
    }
  };

  /** From the day of the file's taps and cost rows to the day of now: a midnight may be past. */
  const cohorts = async (query: string, key = serverKey) =>
    rt.get(
      `/v1/reports/cohorts?from=${today}&to=${new Date().toISOString().slice(0, 10)}${query}`,
      key,
    );

  beforeAll(async () => {
    // Every figure here is of one UTC day: the taps', the cost row's and the report's.
    await clearOfMidnight(60_000);
    today = new Date().toISOString().slice(0, 10);
    rt = await startTestRuntime({ ratesCsv: ratesCsv() });
    ({ serverKey, sdkKey } = await rt.createApp(APP, "android"));
    await tappedLink({ id: "t-1", name: "Taps" }, 3);
    await tappedLink({ id: "o-1", name: "Other" }, 2);
    const costs = await rt.post(
      "/v1/costs",
      {
        rows: [
          // Taps by its id alone: 5 EUR, and the 40 clicks the network counted.
          {
            day: today,
            media_source: "clicknet",
            campaign_id: "t-1",
            amount: 5,
            currency: "EUR",
            clicks: 40,
          },
        ],
      },
      serverKey,
    );
    expect(costs.status).toBe(200);
    ({ serverKey: renamedKey } = await rt.createApp(RENAMED, "android"));
    await tappedLink({ id: "r-1", name: "Spring v1" }, 2, renamedKey);
    await tappedLink({ id: "r-1", name: "Spring v2" }, 1, renamedKey);
    // The network's row of the day, sent under the campaign's old name: 2 EUR.
    const renamedCost = await rt.post(
      "/v1/costs",
      {
        rows: [
          {
            day: today,
            media_source: "clicknet",
            campaign_id: "r-1",
            campaign_name: "Spring v1",
            amount: 2,
            currency: "EUR",
          },
        ],
      },
      renamedKey,
    );
    expect(renamedCost.status).toBe(200);
    await rt.workers.idle();
    await rt.flush();
  }, 150_000);

  afterAll(() => rt?.dispose());

  it("replaces the clicks' cost of the campaign a row names by its id, in that campaign's group", async () => {
    const response = await cohorts("&group_by=campaign");
    expect(response.status).toBe(200);
    const answer = (await response.json()) as CohortReport;
    // Taps: the cost row's 5.40 USD, not its 3 taps' 0.324 on top; Other: its 2 taps' 0.216.
    expect(answer.groups.map((group) => [group.group, group.clicks, group.cost_usd])).toEqual([
      ["Taps", 3, 5.4],
      ["Other", 2, 0.216],
    ]);
    // The service's own taps of Taps, not the network's 40.
    expect(answer.totals).toMatchObject({ clicks: 5, cost_usd: 5.616 });
  });

  it("shows a campaign renamed at its network as one, under its latest tap's name, with its cost row sent under the old", async () => {
    const response = await cohorts("&group_by=campaign", renamedKey);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as CohortReport;
    expect(answer.groups.map((group) => [group.group, group.clicks, group.cost_usd])).toEqual([
      ["Spring v2", 3, 2.16],
    ]);
    const byOldName = await cohorts("&group_by=campaign&campaign=Spring%20v1", renamedKey);
    expect(((await byOldName.json()) as CohortReport).totals).toMatchObject({
      clicks: 0,
      cost_usd: null,
    });
  });

  it("gives the same totals whatever the grouping", async () => {
    for (const groupBy of ["adset", "ad", "country", "platform"] satisfies CohortGroup[]) {
      const response = await cohorts(`&group_by=${groupBy}`);
      expect(response.status).toBe(200);
      const answer = (await response.json()) as CohortReport;
      expect(answer.totals, groupBy).toMatchObject({ clicks: 5, cost_usd: 5.616 });
    }
  });

  it("refuses a name with a control character, and a day after tomorrow, with a 422", async () => {
    const refused = await rt.post(
      "/v1/costs",
      {
        rows: [
          {
            day: today,
            media_source: "click\u0000net",
            campaign_id: "t-1",
            amount: 1,
            currency: "EUR",
          },
        ],
      },
      serverKey,
    );
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: "Unprocessable Entity",
      detail: "body.rows[0].media_source: must not contain control characters",
    });
    const listed = await rt.get(`/v1/costs?from=${today}&to=${today}`, serverKey);
    expect(((await listed.json()) as { data: unknown[] }).data).toHaveLength(1);

    // A day's total, then the same day by country: both stored, and the answer says they count
    // the same spend twice.
    const split = await rt.post(
      "/v1/costs",
      {
        rows: [
          { day: today, media_source: "splitnet", campaign_id: "s-1", amount: 10, currency: "USD" },
          {
            day: today,
            media_source: "splitnet",
            campaign_id: "s-1",
            country: "DE",
            amount: 10,
            currency: "USD",
          },
        ],
      },
      serverKey,
    );
    expect(split.status).toBe(200);
    expect(((await split.json()) as { warnings: string[] }).warnings).toEqual([
      `Campaign s-1 of splitnet on ${today} has cost rows at 2 levels of detail (by country; the campaign's total): every row counts as spend of its own, so a total and its split count twice. Keep one level for a campaign's day (a row sent again with amount 0 takes it back).`,
    ]);
    // A list's window is a report's: at most 366 days.
    const years = await rt.get(`/v1/costs?from=2020-01-01&to=${today}`, serverKey);
    expect(years.status).toBe(422);
    expect(((await years.json()) as { detail: string }).detail).toBe(
      "to: must end a window of at most 366 days, `from` and `to` counted",
    );

    const nul = await cohorts("&campaign=Taps%00");
    expect(nul.status).toBe(422);
    expect(((await nul.json()) as { detail: string }).detail).toBe(
      "campaign: must not contain control characters",
    );
    const far = await rt.get("/v1/reports/cohorts?from=9999-12-01&to=9999-12-31", serverKey);
    expect(far.status).toBe(422);
    expect(((await far.json()) as { detail: string }).detail).toMatch(
      /^from: must not be after tomorrow \(\d{4}-\d{2}-\d{2}, UTC\); to: must not be after tomorrow/,
    );
  });

  it("refuses a parameter a report or listing does not take, and another app's id as unknown", async () => {
    // A misspelt filter answered as if absent would read as the filtered figures.
    const misspelt = await cohorts("&mediasource=clicknet");
    expect(misspelt.status).toBe(422);
    expect(await misspelt.json()).toEqual({
      error: "Unprocessable Entity",
      detail:
        'query: takes no "mediasource": its parameters are app_id, from, to, group_by, media_source, campaign, country, platform',
    });
    for (const [path, detail] of [
      [`/v1/costs?from=${today}&to=${today}&media_source=clicknet`, "app_id, from, to"],
      ["/v1/links?page=2", "app_id, limit, cursor"],
      ["/v1/postbacks/log?page=2", "app_id, limit, cursor"],
      [`/v1/skadnetwork/report?from=${today}&to=${today}&country=DE`, "app_id, from, to, include"],
      ["/v1/reports/link-clicks?link=x", "app_id"],
    ] as const) {
      const answer = await rt.get(path, serverKey);
      expect(answer.status, path).toBe(422);
      expect(((await answer.json()) as { detail: string }).detail, path).toMatch(
        new RegExp(`^query: takes no "[a-z_]+": its parameters are ${detail}$`),
      );
    }
    // A key acts for its own app: naming it is the same answer, naming another is not found.
    for (const path of [`/v1/costs?from=${today}&to=${today}`, "/v1/links", "/v1/postbacks/log"]) {
      expect(
        (await rt.get(`${path}${path.includes("?") ? "&" : "?"}app_id=${APP}`, serverKey)).status,
        path,
      ).toBe(200);
      const other = await rt.get(
        `${path}${path.includes("?") ? "&" : "?"}app_id=com.example.other`,
        serverKey,
      );
      expect(other.status, path).toBe(404);
      expect(await other.json(), path).toEqual({ error: "Not Found", detail: "No such app." });
    }
  });

  it("refuses a parameter given twice, rather than answering for its last value", async () => {
    // `campaign=A&campaign=B` answered as B's figures alone would read as both campaigns'.
    const twice = await cohorts("&campaign=Winter&campaign=Spring");
    expect(twice.status).toBe(422);
    expect(await twice.json()).toEqual({
      error: "Unprocessable Entity",
      detail: 'query: gives "campaign" more than once: give each parameter once',
    });
    for (const path of [
      `/v1/reports/overview?from=${today}&to=${today}&media_source=a&media_source=b`,
      `/v1/reports/cohorts?from=${today}&from=${today}&to=${today}`,
      "/v1/reports/latest-events?limit=0&limit=5",
      `/v1/costs?from=${today}&to=${today}&to=${today}`,
      `/v1/reports/link-clicks?app_id=${APP}&app_id=${APP}`,
    ]) {
      const answer = await rt.get(path, serverKey);
      expect(answer.status, path).toBe(422);
      const body = (await answer.json()) as { error: string; detail: string };
      expect(body.error, path).toBe("Unprocessable Entity");
      expect(body.detail, path).toMatch(/^query: gives "[a-z_]+" more than once/);
    }
  });

  it("refuses two rows of one day and keys in one body, naming both, and stores neither", async () => {
    const row = { day: today, media_source: "dupnet", campaign_id: "d-1", amount: 10 };
    const refused = await rt.post(
      "/v1/costs",
      {
        rows: [
          { ...row, currency: "EUR" },
          { ...row, currency: "USD", amount: 10.8 },
        ],
      },
      serverKey,
    );
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: "Unprocessable Entity",
      detail:
        "body.rows[1]: has the day, media source, campaign, ad set, ad and country of body.rows[0]: one row for them, in one currency",
    });
    const listed = await rt.get(`/v1/costs?from=${today}&to=${today}`, serverKey);
    const rows = ((await listed.json()) as { data: { media_source: string }[] }).data;
    expect(rows.filter((stored) => stored.media_source === "dupnet")).toEqual([]);
  });

  it("takes a name spelt apart from the link's as the link's campaign, trimmed as sent", async () => {
    // Clicks of a link naming its campaign by its name alone: 4 taps at 0.10 EUR.
    await tappedLink({ name: "Name Only" }, 4);
    const stored = await rt.post(
      "/v1/costs",
      {
        rows: [
          {
            day: today,
            media_source: " clicknet ",
            campaign_id: "n-1",
            campaign_name: "  NAME ONLY ",
            amount: 2,
            currency: "USD",
          },
        ],
      },
      serverKey,
    );
    expect(stored.status).toBe(200);
    await rt.flush();
    const listed = await rt.get(`/v1/costs?from=${today}&to=${today}`, serverKey);
    const rows = ((await listed.json()) as { data: { campaign_id: string }[] }).data;
    expect(rows.find((row) => row.campaign_id === "n-1")).toMatchObject({
      media_source: "clicknet",
      campaign_name: "NAME ONLY",
    });
    const answer = (await (
      await cohorts("&media_source=clicknet&campaign=Name%20Only")
    ).json()) as CohortReport;
    // The cost row's 2 USD, not the taps' 0.432 beside it, in the link's campaign's group.
    expect(answer.groups.map((group) => [group.group, group.clicks, group.cost_usd])).toEqual([
      ["Name Only", 4, 2],
    ]);
  });

  it("names a campaign's install days with no cost, whose paid installs eCPI counts as free", async () => {
    const { serverKey: key, sdkKey: sdk } = await rt.createApp(LATE, "android");
    const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000)
      .toISOString()
      .slice(0, 10);
    const now = new Date();
    // Two installs the network's clicks won, by advertising id: yesterday's and now's.
    const installs = [
      { id: "late-1", maid: "7d3c9a1e-0000-4000-8000-000000000001", at: `${yesterday}T12:00:00Z` },
      { id: "late-2", maid: "7d3c9a1e-0000-4000-8000-000000000002", at: now.toISOString() },
    ];
    const touched = await rt.post(
      "/v1/touches",
      {
        touches: installs.map((install) => ({
          touch_type: "click",
          touch_time: new Date(Date.parse(install.at) - 60_000).toISOString(),
          media_source: "latenet",
          campaign_id: "l-1",
          campaign_name: "Late",
          maid: install.maid,
        })),
      },
      key,
    );
    expect(touched.status).toBe(202);
    for (const install of installs) {
      const body = androidInstallRequest(install.id, {
        maid: install.maid,
        first_open_time: install.at,
      });
      expect((await rt.post("/v1/installs", body, sdk)).status).toBe(202);
      const attribution = await rt.get(
        `/v1/installs/${install.id}/attribution?wait_seconds=20`,
        sdk,
      );
      expect(await attribution.json()).toMatchObject({ media_source: "latenet" });
    }
    // The network's cost of yesterday; today's is not in yet.
    const cost = {
      rows: [
        {
          day: yesterday,
          media_source: "latenet",
          campaign_id: "l-1",
          amount: 10,
          currency: "USD",
        },
      ],
    };
    expect((await rt.post("/v1/costs", cost, key)).status).toBe(200);
    await rt.workers.idle();
    await rt.flush();
    const answer = (await (
      await rt.get(
        `/v1/reports/cohorts?from=${yesterday}&to=${new Date().toISOString().slice(0, 10)}`,
        key,
      )
    ).json()) as CohortReport;
    expect(answer.cost_days_missing).toEqual([
      {
        media_source: "latenet",
        campaign: "Late",
        days: [now.toISOString().slice(0, 10)],
        paid_installs: 1,
      },
    ]);
    // What the list warns of: yesterday's 10 USD over both installs.
    expect(answer.totals).toMatchObject({ cost_usd: 10, ecpi_usd: 5 });
  });

  it("counts revenue in a currency pegged to the dollar, and says how much no rate converted", async () => {
    const installed = await rt.post("/v1/installs", androidInstallRequest("buyer-1"), sdkKey);
    expect(installed.status).toBe(202);
    await rt.workers.idle();
    const purchase = (revenue: number, currency: string) => ({
      event_id: `${currency}-${revenue}`,
      event_type: "PURCHASE",
      event_time: new Date().toISOString(),
      service_id: "buyer-1",
      parameters: { revenue, currency },
    });
    const events = await rt.post(
      "/v1/events",
      // The test's rates know the dollar and the euro alone.
      { events: [purchase(37.5, "SAR"), purchase(2, "USD"), purchase(3, "KWD")] },
      sdkKey,
    );
    expect(events.status).toBe(202);
    expect(await events.json()).toMatchObject({ accepted: 3 });
    await rt.workers.idle();
    await rt.flush();
    const answer = (await (await cohorts("")).json()) as CohortReport;
    // 37.50 SAR at 3.75 a dollar, and 2 USD; the dinar's 3 left out, and said.
    expect(answer.totals.revenue_usd).toBe(12);
    expect(answer.revenue_events_unconverted).toBe(1);
    expect(answer.revenue_unconverted).toEqual([{ currency: "KWD", events: 1, amount: 3 }]);
    // And in the totals, and in the buyer's group alone.
    expect(answer.totals.revenue_events_unconverted).toBe(1);
    const lacking = answer.groups.filter((group) => group.revenue_events_unconverted > 0);
    expect(lacking.map((group) => group.revenue_events_unconverted)).toEqual([1]);
  });
});
