/**
 * What an attribution writes to the lake: its `attributions` row (joined to the install's
 * events at export time) and the install's own `service_install` event, whose id is derived
 * from the install, so a job run twice or a first open sent twice never makes two. An install
 * won by a touch paid per install (CPI) carries its cost on its attribution row, in USD at the
 * ECB rate of its install event's day (the day its cohort is of).
 */
import { createHash } from "node:crypto";
import { costColumns } from "../costs/touch-cost.ts";
import { exportEventName } from "../domain/event-types.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  nullColumns,
} from "../lake/lake-tables.ts";
import type { App } from "../ports/apps.ts";
import type { AttributionResult } from "../ports/attributions.ts";
import type { Install } from "../ports/installs.ts";
import { keptFirstOpen } from "./first-open.ts";
import { exportedFields } from "./results.ts";

export const attributionRow = (
  install: Install,
  result: AttributionResult,
  fx: Pick<FxRates, "toUsd">,
): LakeRecord => {
  const { cost } = result;
  return {
    ...nullColumns(ATTRIBUTIONS_TABLE),
    app_id: install.appId,
    service_id: install.serviceId,
    attributed_at: result.attributedAt,
    ...exportedFields(result),
    install_type: result.installType,
    reinstall: result.reinstall ? 1 : 0,
    match_status: result.status,
    match_method: result.method,
    click_id: result.clickId,
    other_candidates: result.otherCandidates,
    ...costColumns(cost),
    cost_usd: cost && fx.toUsd(cost.value, cost.currency, keptFirstOpen(install).slice(0, 10)),
  };
};

/** The install event's id: the same for the same install, and unlike any SDK's event id. */
export const installEventId = (install: Pick<Install, "appId" | "serviceId">): string =>
  `service_install_${createHash("sha256").update(`${install.appId}\0${install.serviceId}`).digest("hex").slice(0, 32)}`;

/**
 * The install's `service_install` event, at its first open as the device reported it, or on the
 * service's clock when the device's was off, as every event is kept; never after the service
 * heard of the install.
 */
export const installEventRow = (app: App, install: Install): LakeRecord => ({
  ...nullColumns(EVENTS_TABLE),
  app_id: install.appId,
  event_id: installEventId(install),
  event_time: keptFirstOpen(install),
  event_name: exportEventName("INSTALL"),
  service_id: install.serviceId,
  country: install.country,
  os: install.os,
  app_name: app.name,
  idfv: install.idfv,
  maid: install.maid,
  customer_user_id: install.customerUserId,
  received_at: install.receivedAt,
  event_type: "INSTALL",
  parameters: "{}",
});
