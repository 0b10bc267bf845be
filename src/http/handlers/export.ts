/** `GET /api/v1/export`: one page of the app's attributed events, streamed in the asked format. */
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { createExportPages, type ExportPageDeps } from "../../export/export-page.ts";
import { exportFileName } from "../../export/file-name.ts";
import { FORMATS } from "../../export/formats/index.ts";
import { PAGE_ROWS_HEADER, SNAPSHOT_HEADER, SNAPSHOT_ROWS_HEADER } from "../../export/paging.ts";
import { exportParamsSchema } from "../../export/params.ts";
import { composition } from "../../functions/adapters.ts";
import { checked } from "../../validation/issues.ts";
import { errorResponses, type HttpResponse } from "../middleware.ts";
import { principalOf } from "../principal.ts";
import { queryOnce } from "../query-once.ts";
import { routeOf } from "../routes.ts";

export const createExportHandler = (
  deps: ExportPageDeps,
  /** `streamifyResponse` on AWS: the route uses Lambda response streaming. */
  options: { streamifyResponse?: boolean } = {},
) => {
  const pages = createExportPages(deps);
  return middy<APIGatewayProxyEvent, HttpResponse>(options)
    .use(errorResponses())
    .handler(async (event) => {
      const principal = principalOf(event, "export");
      const { timestamp, format, limit, offset, snapshot } = checked(
        exportParamsSchema,
        // The export ignores a parameter it does not know, and so a repeat of one.
        queryOnce(event, Object.keys(exportParamsSchema.shape)),
        "query",
      );
      const page = await pages.open({
        appId: principal.appId,
        since: timestamp,
        offset,
        limit,
        snapshotId: snapshot,
      });
      const writer = FORMATS[format];
      const headers: Record<string, string> = {
        "content-type": writer.contentType,
        "cache-control": "no-store",
        [SNAPSHOT_HEADER.toLowerCase()]: page.snapshot.snapshotId,
      };
      if (page.snapshot.rowCount !== undefined) {
        headers[SNAPSHOT_ROWS_HEADER.toLowerCase()] = String(page.snapshot.rowCount);
      }
      const { body, rowCount } = await page.encode(writer);
      if (rowCount !== undefined) headers[PAGE_ROWS_HEADER.toLowerCase()] = String(rowCount);
      if (writer.attachment) {
        // The page's last row: from the window's size, or else from the page's own count (a
        // snapshot still being made), so a short last page is not named as a full one.
        const fileName = exportFileName({
          appId: principal.appId,
          since: timestamp,
          until: page.snapshot.createdAt,
          offset,
          limit,
          total: page.snapshot.rowCount ?? (rowCount === undefined ? undefined : offset + rowCount),
          extension: writer.extension,
        });
        headers["content-disposition"] = `attachment; filename="${fileName}"`;
      }
      return { statusCode: 200, headers, body };
    });
};

/** On AWS the page streams with Lambda response streaming. */
export const exportFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("export"),
  ({ tables, engine, settings }, runtime) =>
    createExportHandler(
      {
        engine,
        catalog: tables.snapshots,
        deletions: tables.deletions,
        snapshotTtlSeconds: settings.snapshotTtlSeconds,
      },
      ...(runtime.kind === "aws" ? [{ streamifyResponse: true }] : []),
    ),
);
