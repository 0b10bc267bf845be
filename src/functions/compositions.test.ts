import { describe, expect, it } from "vitest";
import { AUTHORIZER, LINK_HOST_ROUTES, ROUTES } from "../http/routes.ts";
import { JOBS } from "../jobs/jobs.ts";
import { WORKERS } from "../workers/workers.ts";
import { loadComposition } from "./compositions.ts";
import { parseHandlerRef } from "./handler-ref.ts";

const ROWS = [
  ...ROUTES,
  ...LINK_HOST_ROUTES,
  AUTHORIZER,
  ...WORKERS,
  ...JOBS.flatMap((job) => ("handler" in job ? [{ id: job.id, handler: job.handler }] : [])),
];

describe("a row's handler", () => {
  it.each(ROWS.map((row) => [row.id, row] as const))(
    "%s names its own composition",
    async (_, row) => {
      const composition = await loadComposition(row);
      expect(composition.row.id).toBe(row.id);
      expect(typeof composition.compose).toBe("function");
    },
  );

  it("is refused when it names another row's composition", async () => {
    await expect(
      loadComposition({ id: "events", handler: "http/handlers/config.ts#configFunction" }),
    ).rejects.toThrow(/events: .* is composed for config/);
  });

  it("is refused when the export is not a composition", async () => {
    await expect(
      loadComposition({ id: "config", handler: "http/routes.ts#ROUTES" }),
    ).rejects.toThrow(/is not a composition/);
  });

  it.each(["config.ts", "/abs.ts#x", "../up.ts#x", "a.ts#b#c"])(
    "refuses the reference %s",
    (ref) => {
      expect(() => parseHandlerRef(ref as `${string}.ts#${string}`)).toThrow(
        /not <module under src>#<export>/,
      );
    },
  );
});
