/**
 * The export formats by name, apart from their writers: the query schema and the API contract
 * need the list, and importing the writers would pull the zip and Parquet encoders with them.
 */
export const EXPORT_FORMATS = ["json", "ndjson", "csv", "tsv", "xml", "xlsx", "parquet"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
