/** `GET /api/v1/export`: one page of the app's attributed events, streamed in the asked format. */
import type { Readable } from "node:stream";
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { ValidationError } from "../../domain/errors.ts";
import { createExportPages, type ExportPageDeps } from "../../export/export-page.ts";
import { exportFileName } from "../../export/file-name.ts";
import { FORMATS } from "../../export/formats/index.ts";
import { exportParamsSchema } from "../../export/params.ts";
import type { ExportRecord } from "../../record/columns.ts";
import { errorResponses, type HttpResponse } from "../middleware.ts";
import { principalOf } from "../principal.ts";

/**
 * Starts the row source before the status line is sent, so a failing query still answers 500
 * instead of breaking a stream that already said 200. Closing the result (a client gone, a
 * HEAD request) closes the source too, which releases its query.
 */
const primed = async (
  rows: AsyncIterable<ExportRecord>,
): Promise<AsyncIterableIterator<ExportRecord>> => {
  const source = rows[Symbol.asyncIterator]();
  let first: IteratorResult<ExportRecord> | undefined = await source.next();
  const primedRows: AsyncIterableIterator<ExportRecord> = {
    [Symbol.asyncIterator]: () => primedRows,
    next: async () => {
      const head = first;
      first = undefined;
      return head ?? source.next();
    },
    return: async () => {
      first = undefined;
      await source.return?.();
      return { done: true, value: undefined };
    },
  };
  return primedRows;
};

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
      const parsed = exportParamsSchema.safeParse(event.queryStringParameters ?? {});
      if (!parsed.success) {
        throw new ValidationError(parsed.error.issues.map((i) => i.message).join(" "));
      }
      const { timestamp, format, limit, offset } = parsed.data;
      const page = await pages.open({ appId: principal.appId, since: timestamp, offset, limit });
      const writer = FORMATS[format];
      const headers: Record<string, string> = {
        "content-type": writer.contentType,
        "cache-control": "no-store",
      };
      if (writer.attachment) {
        const fileName = exportFileName({
          appId: principal.appId,
          since: timestamp,
          until: page.snapshot.createdAt,
          offset,
          limit,
          total: page.snapshot.rowCount,
          extension: writer.extension,
        });
        headers["content-disposition"] = `attachment; filename="${fileName}"`;
      }
      const body: Readable = writer.write(await primed(page.rows));
      return { statusCode: 200, headers, body };
    });
};
