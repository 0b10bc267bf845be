/**
 * The exported event record, defined once. Column order is the spec's order; every
 * schema, writer, lake table and query derives from this list.
 */

/** Wire type of a column in the export (the spec's types). */
export type ExportType = "string" | "integer" | "number";

/**
 * Where a value lives in the lake. Event columns are written with each event; attribution
 * columns are resolved asynchronously and joined at export time (never copied into events).
 */
export type ColumnSource = "event" | "attribution";

export interface ExportColumn {
  readonly name: string;
  readonly type: ExportType;
  readonly source: ColumnSource;
}

export const EXPORT_COLUMNS = [
  { name: "event_id", type: "string", source: "event" },
  { name: "event_time", type: "string", source: "event" },
  { name: "event_name", type: "string", source: "event" },
  { name: "service_id", type: "string", source: "event" },
  { name: "media_source", type: "string", source: "attribution" },
  { name: "campaign_id", type: "string", source: "attribution" },
  { name: "campaign_name", type: "string", source: "attribution" },
  { name: "adset_id", type: "string", source: "attribution" },
  { name: "adset_name", type: "string", source: "attribution" },
  { name: "ad_id", type: "string", source: "attribution" },
  { name: "ad_name", type: "string", source: "attribution" },
  { name: "matching_type", type: "string", source: "attribution" },
  { name: "click_to_first_open_hours", type: "integer", source: "attribution" },
  { name: "confidence_score", type: "string", source: "attribution" },
  { name: "country", type: "string", source: "event" },
  { name: "os", type: "string", source: "event" },
  { name: "app_id", type: "string", source: "event" },
  { name: "app_name", type: "string", source: "event" },
  { name: "install_type", type: "string", source: "attribution" },
  { name: "revenue", type: "number", source: "event" },
  { name: "currency", type: "string", source: "event" },
  { name: "idfv", type: "string", source: "event" },
  { name: "maid", type: "string", source: "event" },
  { name: "customer_user_id", type: "string", source: "event" },
  { name: "revenue_usd", type: "number", source: "event" },
] as const satisfies readonly ExportColumn[];

export type ColumnName = (typeof EXPORT_COLUMNS)[number]["name"];

type TsType<T extends ExportType> = T extends "string" ? string : number;

/** One exported event. Every field may be null (docs/export.md#formats-and-records). */
export type ExportRecord = {
  [C in (typeof EXPORT_COLUMNS)[number] as C["name"]]: TsType<C["type"]> | null;
};

export const COLUMN_NAMES: readonly ColumnName[] = EXPORT_COLUMNS.map((c) => c.name);
