/**
 * An accepted event as it goes on the stream to the lake's `events` table
 * (docs/architecture.md#the-parts): the event's own fields, the install-level fields copied
 * from its install, and the USD revenue of its UTC date. Attribution columns are not in the
 * table: they are joined at export time.
 */

import { exportEventName } from "../domain/event-types.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import type { LakeRecord } from "../lake/lake-tables.ts";
import type { App } from "../ports/apps.ts";
import type { Install } from "../ports/installs.ts";
import type { ValidEvent } from "./judge.ts";

export interface LakeEventContext {
  readonly app: App;
  readonly install: Install;
  /** The caller's country when the event arrived (ISO 3166-1 alpha-2), if known. */
  readonly country: string | null;
  /** When the request arrived, ISO 8601 UTC: one value for the whole batch. */
  readonly receivedAt: string;
  readonly fx: FxRates;
}

/**
 * The `events` row of an accepted event: every table column and `app_id`. One object literal,
 * built once per event on the ingestion path; a test holds its keys to the table's columns.
 */
export function toLakeEvent(event: ValidEvent, ctx: LakeEventContext): LakeRecord {
  const revenue = event.revenue;
  return {
    app_id: ctx.app.appId,
    event_id: event.eventId,
    event_time: event.eventTime,
    event_name: exportEventName(event.eventType, event.eventName),
    // The event's install: an S2S event's is the one its customer user id resolved to.
    service_id: ctx.install.serviceId,
    country: ctx.country,
    os: ctx.install.os,
    app_name: ctx.app.name,
    revenue: revenue?.amount ?? null,
    currency: revenue?.currency ?? null,
    // An event sent anonymous names no device, whatever its install was reported with.
    idfv: event.anonymous ? null : ctx.install.idfv,
    maid: event.anonymous ? null : ctx.install.maid,
    // The event's own (none when it was sent anonymous); the caller applies the customer-user
    // mapping, not this function.
    customer_user_id: event.anonymous ? null : event.customerUserId,
    // The rate of the event's UTC date, carried over closures by toUsd's default, or the peg of
    // a currency fixed to the dollar or the euro; null when no rate is known, never a guess.
    revenue_usd: revenue
      ? ctx.fx.toUsd(revenue.amount, revenue.currency, event.eventTime.slice(0, 10))
      : null,
    received_at: ctx.receivedAt,
    event_type: event.eventType,
    parameters: event.parametersJson,
  };
}
