/**
 * Cost on links and networks' touches over HTTP, into the cohorts report: a CPI link tapped and
 * an install matched to the tap gives the install's cost, in USD at the day's ECB rate; a CPC
 * link's taps and a network's CPM impressions give their own; a cost row of POST /v1/costs wins
 * its day, media source and campaign over the touches' cost; a price no rate converts is in no
 * cost, and counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LinkAnswer } from "../../src/links/links.ts";
import type { CohortReport } from "../../src/reports/cohorts.ts";
import type { TouchesAnswer } from "../../src/touches/network-touches.ts";
import { PIXEL } from "../support/agents.ts";
import { androidInstallRequest } from "../support/installs.ts";
import { ecbRatesCsv } from "../support/rates.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.costed";
/** USD per EUR on every day of the test (the ECB's table gives units per EUR). */
const USD_PER_EUR = 1.08;

/** ECB-shaped rates for the last 40 days, as `rates import` would bring them. */
const ratesCsv = () => ecbRatesCsv({ USD: USD_PER_EUR }, 40);

describe("cost on links and touches, in the cohorts report", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };
  const today = new Date().toISOString().slice(0, 10);

  const makeLink = async (body: Record<string, unknown>) => {
    const response = await rt.post("/v1/links", body, keys.serverKey);
    expect(response.status).toBe(201);
    return (await response.json()) as LinkAnswer;
  };

  /** A tap on the link host from a Pixel; its Play Store redirect's install referrer. */
  const tap = async (link: LinkAnswer) => {
    const response = await fetch(`${rt.linkUrl}${new URL(link.url).pathname}`, {
      redirect: "manual",
      headers: { "user-agent": PIXEL },
    });
    expect(response.status).toBe(302);
    return new URL(response.headers.get("location") ?? "").searchParams.get("referrer") ?? "";
  };

  /** Every day the test's touches can fall on: an impression a minute old, and midnight. */
  const cohorts = async (): Promise<CohortReport> => {
    await rt.workers.idle();
    await rt.flush();
    const from = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10);
    const to = new Date().toISOString().slice(0, 10);
    const response = await rt.get(`/v1/reports/cohorts?from=${from}&to=${to}`, keys.serverKey);
    expect(response.status).toBe(200);
    return (await response.json()) as CohortReport;
  };

  beforeAll(async () => {
    rt = await startTestRuntime({ ratesCsv: ratesCsv() });
    keys = await rt.createApp(APP, "android");
  });

  afterAll(() => rt?.dispose());

  it("gives an install won by a CPI link's tap its cost in USD, and CPC taps and CPM impressions theirs", async () => {
    const cpi = await makeLink({
      media_source: "influencer_a",
      campaign_name: "Winter",
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "EUR",
    });
    expect(cpi).toMatchObject({ cost_model: "CPI", cost_value: 2.5, cost_currency: "EUR" });
    const referrer = await tap(cpi);
    // The phone installs, then installs again (a new install id, the same advertising id and
    // Play referrer): the tap's price is the first install's alone.
    for (const serviceId of ["costed-1", "costed-again"]) {
      const installed = await rt.post(
        "/v1/installs",
        androidInstallRequest(serviceId, {
          maid: "6f1e1d2c-0b9a-4f8e-8d7c-6b5a4f3e2d1c",
          install_referrer: {
            referrer,
            click_timestamp: Math.floor(Date.now() / 1000) - 5,
            install_begin_timestamp: Math.floor(Date.now() / 1000) - 2,
          },
        }),
        keys.sdkKey,
      );
      expect(installed.status).toBe(202);
      expect(await rt.attributionOf(serviceId, keys.sdkKey)).toMatchObject({
        service_match_status: "matched_no_params",
        media_source: "influencer_a",
      });
    }

    // Three taps on a CPC link at 0.10 EUR; two CPM impressions a network reports at 4 USD.
    const cpc = await makeLink({
      media_source: "clicknet",
      campaign_name: "Taps",
      cost_model: "CPC",
      cost_value: 0.1,
      cost_currency: "EUR",
    });
    for (let n = 0; n < 3; n++) await tap(cpc);
    const impressions = Array.from({ length: 2 }, (_, n) => ({
      touch_type: "impression",
      touch_time: new Date(Date.now() - 60_000).toISOString(),
      media_source: "viewnet",
      campaign_name: "Views",
      click_id: `view-${n}`,
      cost_model: "CPM",
      cost_value: 4,
      cost_currency: "USD",
    }));
    const reported = await rt.post("/v1/touches", { touches: impressions }, keys.serverKey);
    expect(reported.status).toBe(202);
    expect(((await reported.json()) as TouchesAnswer).rejected).toEqual([]);

    const answer = await cohorts();
    const group = (mediaSource: string) =>
      answer.groups.find((found) => found.media_source === mediaSource);
    // 2.50 EUR at 1.08: 2.70 USD, paid once, by the phone's first install; its second, from
    // the same tap, is a reinstall, in no cohort, so the eCPI is the price.
    expect(group("influencer_a")).toMatchObject({
      group: "Winter",
      installs: 1,
      clicks: 1,
      cost_usd: 2.7,
      ecpi_usd: 2.7,
    });
    expect(group("clicknet")).toMatchObject({ group: "Taps", clicks: 3, cost_usd: 0.324 });
    expect(group("viewnet")).toMatchObject({ group: "Views", impressions: 2, cost_usd: 0.008 });
    expect(answer.totals.cost_usd).toBe(3.032);
  });

  it("charges a phone's tap from a desktop's QR code no per-click price, and keeps a per-install one", async () => {
    const cpc = await makeLink({
      media_source: "desk_net",
      cost_model: "CPC",
      cost_value: 0.5,
      cost_currency: "EUR",
    });
    const cpi = await makeLink({
      media_source: "desk_net",
      cost_model: "CPI",
      cost_value: 2,
      cost_currency: "EUR",
    });
    /** The click a Pixel's tap of the link with this query stored. */
    const stored = async (link: LinkAnswer, query: string) => {
      const response = await fetch(`${rt.linkUrl}${new URL(link.url).pathname}${query}`, {
        redirect: "manual",
        headers: { "user-agent": PIXEL },
      });
      expect(response.status).toBe(302);
      const referrer = new URL(response.headers.get("location") ?? "").searchParams.get("referrer");
      const clickId = new URLSearchParams(referrer ?? "").get("service_click_id") ?? "";
      await rt.workers.idle();
      return rt.stores.touches.get(clickId);
    };
    const charged = { model: "CPC", value: 0.5, currency: "EUR" };
    expect((await stored(cpc, "?sub1=a"))?.cost).toMatchObject(charged);
    const fromQr = await stored(cpc, "?sub1=a&service_qr=1");
    expect(fromQr?.cost).toBeNull();
    // The mark is no parameter of the tap's.
    expect(fromQr?.urlParams).toEqual({ sub1: "a" });
    expect((await stored(cpi, "?service_qr=1"))?.cost).toMatchObject({ model: "CPI", value: 2 });
  });

  it("takes a network's cost row over its clicks' cost for the day and campaign it names", async () => {
    const costs = await rt.post(
      "/v1/costs",
      {
        rows: [
          {
            day: today,
            media_source: "clicknet",
            campaign_id: "t-1",
            campaign_name: "Taps",
            amount: 5,
            currency: "EUR",
          },
        ],
      },
      keys.serverKey,
    );
    expect(costs.status).toBe(200);
    // Answers are kept 30 seconds: another window's is asked for.
    const response = await rt.get(
      `/v1/reports/cohorts?from=${today}&to=${today}&group_by=campaign&media_source=clicknet`,
      keys.serverKey,
    );
    const answer = (await response.json()) as CohortReport;
    expect(answer.totals.cost_usd).toBe(5.4);
  });

  it("counts the installs, clicks and impressions whose price no rate converts, and leaves it out of the cost", async () => {
    // The rates have no yen: a CPI link, a CPC link and a network's CPM impressions priced in it.
    const cpi = await makeLink({
      media_source: "yennet",
      campaign_name: "Tokyo",
      cost_model: "CPI",
      cost_value: 300,
      cost_currency: "JPY",
    });
    const referrer = await tap(cpi);
    const installed = await rt.post(
      "/v1/installs",
      androidInstallRequest("costed-yen", {
        maid: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        install_referrer: {
          referrer,
          click_timestamp: Math.floor(Date.now() / 1000) - 5,
          install_begin_timestamp: Math.floor(Date.now() / 1000) - 2,
        },
      }),
      keys.sdkKey,
    );
    expect(installed.status).toBe(202);
    expect(await rt.attributionOf("costed-yen", keys.sdkKey)).toMatchObject({
      media_source: "yennet",
    });
    const cpc = await makeLink({
      media_source: "yenclicks",
      campaign_name: "Osaka",
      cost_model: "CPC",
      cost_value: 15,
      cost_currency: "JPY",
    });
    for (let n = 0; n < 2; n++) await tap(cpc);
    const impressions = Array.from({ length: 3 }, (_, n) => ({
      touch_type: "impression",
      touch_time: new Date(Date.now() - 60_000).toISOString(),
      media_source: "yenviews",
      campaign_name: "Kyoto",
      click_id: `yen-view-${n}`,
      cost_model: "CPM",
      cost_value: 500,
      cost_currency: "JPY",
    }));
    const reported = await rt.post("/v1/touches", { touches: impressions }, keys.serverKey);
    expect(reported.status).toBe(202);

    await rt.workers.idle();
    await rt.flush();
    const from = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10);
    // The day of now, not of the file's start: a midnight may have passed since.
    const to = new Date().toISOString().slice(0, 10);
    // Grouped by country: a question no test before asked, so no kept answer of it.
    const response = await rt.get(
      `/v1/reports/cohorts?from=${from}&to=${to}&group_by=country`,
      keys.serverKey,
    );
    expect(response.status).toBe(200);
    const answer = (await response.json()) as CohortReport;
    // The install, the two taps and the three impressions: none in the cost, each counted.
    expect(answer.touch_costs_unconverted).toBe(6);
    expect(answer.cost_rows_unconverted).toBe(0);
    const yen = await rt.get(
      `/v1/reports/cohorts?from=${from}&to=${to}&media_source=yennet`,
      keys.serverKey,
    );
    expect(((await yen.json()) as CohortReport).totals).toMatchObject({
      installs: 1,
      cost_usd: null,
    });
  });
});
