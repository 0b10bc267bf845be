import { csv } from "./csv.ts";
import { json } from "./json.ts";
import type { ExportFormat } from "./names.ts";
import { ndjson } from "./ndjson.ts";
import { parquet } from "./parquet.ts";
import { tsv } from "./tsv.ts";
import type { FormatWriter } from "./writer.ts";
import { xlsx } from "./xlsx.ts";
import { xml } from "./xml.ts";

export { EXPORT_FORMATS, type ExportFormat } from "./names.ts";
export type { FormatWriter } from "./writer.ts";

export const FORMATS: Record<ExportFormat, FormatWriter> = {
  json,
  ndjson,
  csv,
  tsv,
  xml,
  xlsx,
  parquet,
};
