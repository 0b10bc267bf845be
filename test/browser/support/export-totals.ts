/**
 * What the export API gives for a window of UTC days: every page of the JSON export from the
 * first day's start, counted as the overview counts (src/reports/queries.ts): the rows whose
 * event_time falls on the window's days, the install events among them (a reinstall's apart),
 * and their USD revenue.
 */
import { REINSTALL } from "../../../src/domain/attribution.ts";
import { INSTALL_EVENT_NAME } from "../../../src/reports/queries.ts";

export interface WindowTotals {
  readonly installs: number;
  readonly reinstalls: number;
  readonly events: number;
  readonly revenueUsd: number;
}

const PAGE = 10_000;

interface Row {
  readonly event_time: string | null;
  readonly event_name: string | null;
  readonly install_type: string | null;
  readonly revenue_usd: number | null;
}

export const exportTotals = async (
  baseUrl: string,
  serverKey: string,
  appId: string,
  window: { from: string; to: string },
): Promise<WindowTotals> => {
  const timestamp = Math.floor(Date.parse(`${window.from}T00:00:00Z`) / 1000);
  let installs = 0;
  let reinstalls = 0;
  let events = 0;
  let revenueUsd = 0;
  let snapshot: string | null = null;
  for (let offset = 0; ; offset += PAGE) {
    const query = new URLSearchParams({
      app_id: appId,
      timestamp: String(timestamp),
      format: "json",
      limit: String(PAGE),
      offset: String(offset),
      ...(snapshot ? { snapshot } : {}),
    });
    const response = await fetch(`${baseUrl}/api/v1/export?${query}`, {
      headers: { authorization: serverKey },
    });
    if (response.status !== 200) {
      throw new Error(`The export answered ${response.status}: ${await response.text()}`);
    }
    snapshot ??= response.headers.get("x-export-snapshot");
    const { data } = (await response.json()) as { data: Row[] };
    for (const row of data) {
      const day = row.event_time?.slice(0, 10) ?? "";
      if (day < window.from || day > window.to) continue;
      events += 1;
      if (row.event_name === INSTALL_EVENT_NAME) {
        if (row.install_type === REINSTALL) reinstalls += 1;
        else installs += 1;
      }
      revenueUsd += row.revenue_usd ?? 0;
    }
    if (data.length < PAGE) return { installs, reinstalls, events, revenueUsd };
  }
};
