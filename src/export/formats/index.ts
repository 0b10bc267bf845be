import { csv, tsv } from "./delimited.ts";
import { json } from "./json.ts";
import { ndjson } from "./ndjson.ts";
import { parquet } from "./parquet.ts";
import type { FormatWriter } from "./writer.ts";
import { xlsx } from "./xlsx.ts";
import { xml } from "./xml.ts";

export type { FormatWriter } from "./writer.ts";

export const EXPORT_FORMATS = ["json", "ndjson", "csv", "tsv", "xml", "xlsx", "parquet"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const FORMATS: Record<ExportFormat, FormatWriter> = {
  json,
  ndjson,
  csv,
  tsv,
  xml,
  xlsx,
  parquet,
};
