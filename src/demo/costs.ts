/**
 * What the demo's paid installs cost, as a network's cost API or a marketer's CSV reports it
 * (POST /v1/costs): a row per day, media source and campaign, in the network's currency, with
 * the impressions and clicks it reports. Each network has a cost per install of its own, known
 * from its name, so the same traffic always costs the same and the seed's random draws are left
 * to the traffic.
 */
import type { CostRequestRow } from "../costs/cost-rows.ts";
import type { InstallProfile } from "./install.ts";
import { hashString } from "./prng.ts";

/** Networks that bill in euros (the others bill in US dollars). */
const EURO_NETWORKS = new Set(["tiktokglobal_int", "unityads_int"]);

/** A network's cost per install, 1.50 to 4.50 in its currency, from its name. */
const costPerInstall = (mediaSource: string): number => 1.5 + (hashString(mediaSource) % 301) / 100;

/**
 * Cost rows of the paid installs, by their first open's UTC day and campaign; a euro network's
 * in US dollars instead when the rates at hand do not convert euros on every day of the demo
 * (`euros`), as its revenue does, so that every row counts in the cohorts' cost.
 */
export const demoCosts = (
  installs: readonly { readonly profile: InstallProfile }[],
  euros = true,
): CostRequestRow[] => {
  const rows = new Map<string, CostRequestRow>();
  for (const { profile } of installs) {
    const { cause } = profile;
    if (cause.kind === "organic") continue;
    const touch = cause.kind === "network" ? cause.touch.touch : cause.touch;
    const day = new Date(profile.firstOpen).toISOString().slice(0, 10);
    const key = JSON.stringify([day, touch.media_source, touch.campaign_id]);
    const perInstall = costPerInstall(touch.media_source);
    const row = rows.get(key) ?? {
      day,
      media_source: touch.media_source,
      campaign_id: touch.campaign_id,
      campaign_name: touch.campaign_name,
      amount: 0,
      currency: euros && EURO_NETWORKS.has(touch.media_source) ? "EUR" : "USD",
      impressions: 0,
      clicks: 0,
    };
    rows.set(key, {
      ...row,
      amount: Math.round((row.amount + perInstall) * 100) / 100,
      // A click converts about one time in eight, an impression one in a hundred and fifty.
      impressions: (row.impressions ?? 0) + 150,
      clicks: (row.clicks ?? 0) + 8,
    });
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
};
