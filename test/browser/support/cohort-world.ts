/**
 * A small world for the Cohorts page, sent through the API as the SDKs, an ad network and the
 * app owner send it: 10 installs of an Android app over two install days (four days ago, and
 * two days ago), 6 of them won by an ad network's clicks (by advertising id), 4 organic (2 on iOS);
 * the SDKs' sessions on the install day and the days after, purchases in USD, and a cost row of
 * 30 USD for the network's campaign. What the report should make of it is written out in
 * seedCohortWorld's comment, day by day, so a test can hold the page to it.
 */
import { randomUUID } from "node:crypto";
import { androidInstallRequest, installRequest } from "../../support/installs.ts";
import { clearOfMidnight } from "../../support/midnight.ts";
import type { TestRuntime } from "../../support/runtime.ts";

const DAY_MS = 86_400_000;
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);
const at = (day: string, time: string) => `${day}T${time}Z`;

export const COHORT_APP_ID = "com.example.cohorts";
export const COHORT_NETWORK = "examplenet";
export const COHORT_CAMPAIGN = "Winter Sale";

const ANDROID_BROWSER =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

export interface CohortWorld {
  readonly appId: string;
  readonly sdkKey: string;
  readonly serverKey: string;
  /** The first install day (four days ago), the second (two days ago), and today (UTC). */
  readonly days: { readonly first: string; readonly second: string; readonly today: string };
}

interface Install {
  readonly serviceId: string;
  readonly body: Record<string, unknown>;
  readonly country: string;
}

const send = async (
  rt: TestRuntime,
  path: string,
  body: unknown,
  key: string,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> => {
  const response = await rt.post(path, body, key, headers);
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${text}`);
  const answer = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  const refused = [answer.rejected, answer.ignored].flat().filter(Boolean);
  if (refused.length > 0) throw new Error(`${path} refused: ${JSON.stringify(refused)}`);
  return answer;
};

/**
 * Four days ago (the first install day, D):
 * - 6 Android installs in DE, each an hour after a click of the network's campaign "Winter Sale"
 *   with its advertising id (ad set "Set A" for 4, "Set B" for 2), so each is the network's; 6
 *   more clicks of the campaign that led to no install: 12 clicks;
 * - 2 organic iOS installs in the US;
 * two days ago (D+2, the second install day): 2 organic Android installs in the US.
 *
 * Sessions: every install on its install day (day 0); 3 of the network's and 1 organic on D+1,
 * 2 of the network's on D+2, 1 of the network's yesterday (D+3) and again today. A day since
 * install is reached once it is over (today is not), so day 1: 4 of 10 (both install days have
 * reached it), day 2: 2 of 8 and day 3: 1 of 8 (only D has reached them), day 7 and later: not
 * reached; today's session counts among the active users only. Purchases: two of 9.99 USD on D (day 0), one of 4.99 USD on D+1 (day 1), all by the
 * network's installs. Cost: 30 USD for the campaign on D, and a row in gold (XAU), which no
 * rate converts: left out of the cost.
 */
export const seedCohortWorld = async (rt: TestRuntime): Promise<CohortWorld> => {
  // Its figures are of the days reached by today: the seeding and the checks of it, in one day.
  await clearOfMidnight(2 * 60_000);
  const { sdkKey, serverKey } = await rt.createApp(COHORT_APP_ID, "android");
  const now = Date.now();
  const first = dayOf(now - 4 * DAY_MS);
  const second = dayOf(now - 2 * DAY_MS);
  const today = dayOf(now);
  const dayAfter = (n: number) => dayOf(Date.parse(at(first, "00:00:00")) + n * DAY_MS);

  const paid: Install[] = Array.from({ length: 6 }, (_, i) => {
    const serviceId = randomUUID();
    return {
      serviceId,
      country: "DE",
      body: androidInstallRequest(serviceId, {
        maid: randomUUID(),
        first_open_time: at(first, `10:0${i}:00`),
      }),
    };
  });
  const organicIos: Install[] = Array.from({ length: 2 }, (_, i) => {
    const serviceId = randomUUID();
    return {
      serviceId,
      country: "US",
      body: installRequest(serviceId, {
        idfv: randomUUID().toUpperCase(),
        first_open_time: at(first, `11:0${i}:00`),
      }),
    };
  });
  const organicLater: Install[] = Array.from({ length: 2 }, (_, i) => {
    const serviceId = randomUUID();
    return {
      serviceId,
      country: "US",
      body: androidInstallRequest(serviceId, { first_open_time: at(second, `10:0${i}:00`) }),
    };
  });

  const click = (time: string, maid: string, adset: string) => ({
    touch_type: "click",
    touch_time: time,
    media_source: COHORT_NETWORK,
    campaign_id: "w1",
    campaign_name: COHORT_CAMPAIGN,
    adset_id: adset === "Set A" ? "a1" : "a2",
    adset_name: adset,
    ip: "203.0.113.10",
    user_agent: ANDROID_BROWSER,
    maid,
  });
  await send(
    rt,
    "/v1/touches",
    {
      touches: [
        ...paid.map((install, i) =>
          click(at(first, `09:0${i}:00`), String(install.body.maid), i < 4 ? "Set A" : "Set B"),
        ),
        ...Array.from({ length: 6 }, (_, i) =>
          click(at(first, `09:3${i}:00`), randomUUID(), "Set A"),
        ),
      ],
    },
    serverKey,
  );

  const installs = [...paid, ...organicIos, ...organicLater];
  for (const install of installs) {
    await send(rt, "/v1/installs", install.body, sdkKey, {
      "cloudfront-viewer-country": install.country,
    });
  }
  // What the SDK reads: each install's attribution, once the matcher has resolved it.
  for (const install of installs) {
    const response = await rt.get(
      `/v1/installs/${install.serviceId}/attribution?wait_seconds=20`,
      sdkKey,
    );
    const params = (await response.json()) as Record<string, string>;
    const expected = paid.includes(install) ? COHORT_NETWORK : "organic";
    if (params.media_source !== expected) {
      throw new Error(
        `install ${install.serviceId} was credited to ${JSON.stringify(params)}, not ${expected}`,
      );
    }
  }

  const session = (install: Install, startedAt: string) => ({
    session_id: randomUUID(),
    service_id: install.serviceId,
    started_at: startedAt,
  });
  const [p0, p1, p2, p3, p4, p5] = paid;
  const [ios0] = organicIos;
  if (!p0 || !p1 || !p2 || !p3 || !p4 || !p5 || !ios0) throw new Error("the world has no installs");
  await send(
    rt,
    "/v1/sessions",
    {
      sessions: [
        // Day 0: each install on its first open's day, a minute after it.
        ...installs.map((install) =>
          session(
            install,
            new Date(Date.parse(String(install.body.first_open_time)) + 60_000).toISOString(),
          ),
        ),
        // Day 1: 3 of the network's, 1 organic.
        ...[p0, p1, p2, ios0].map((install) => session(install, at(dayAfter(1), "12:00:00"))),
        // Day 2: 2 of the network's.
        ...[p0, p1].map((install) => session(install, at(dayAfter(2), "12:00:00"))),
        // Day 3 (yesterday): 1 of the network's; and the same today, now.
        session(p0, at(dayAfter(3), "12:00:00")),
        session(p0, new Date(now).toISOString()),
      ],
    },
    sdkKey,
  );

  const purchase = (install: Install, time: string, usd: number) => ({
    event_id: randomUUID(),
    event_type: "PURCHASE",
    event_time: time,
    service_id: install.serviceId,
    parameters: { revenue: usd, currency: "USD" },
  });
  await send(
    rt,
    "/v1/events",
    {
      events: [
        purchase(p0, at(first, "10:30:00"), 9.99),
        purchase(p1, at(first, "10:31:00"), 9.99),
        purchase(p2, at(dayAfter(1), "12:05:00"), 4.99),
      ],
    },
    sdkKey,
  );

  await send(
    rt,
    "/v1/costs",
    {
      rows: [
        {
          day: first,
          media_source: COHORT_NETWORK,
          campaign_id: "w1",
          campaign_name: COHORT_CAMPAIGN,
          amount: 30,
          currency: "USD",
        },
        // One the report cannot convert (the ECB gives no rate of gold): left out, and counted.
        {
          day: first,
          media_source: COHORT_NETWORK,
          campaign_id: "w1",
          campaign_name: COHORT_CAMPAIGN,
          adset_id: "gold",
          amount: 1,
          currency: "XAU",
        },
      ],
    },
    serverKey,
  );
  return { appId: COHORT_APP_ID, sdkKey, serverKey, days: { first, second, today } };
};

/** CSV text as RFC 4180 reads it: records of fields, a quoted field's quotes doubled. */
export const parseCsv = (text: string): string[][] => {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      record.push(field);
      field = "";
    } else if (char === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += char;
  }
  if (field !== "" || record.length > 0) records.push([...record, field]);
  return records;
};
