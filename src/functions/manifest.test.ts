/**
 * The manifest's route groups: one function per group, derived from its routes' rows, and the
 * groups it refuses.
 */
import { describe, expect, it } from "vitest";
import { ROUTES, type ServiceRoute } from "../http/routes.ts";
import {
  API_FUNCTIONS,
  apiFunctionIdOf,
  apiFunctionRows,
  FUNCTION_IDS,
  functionOf,
  routeGroupRow,
} from "./manifest.ts";
import { mergeUses } from "./uses.ts";

const route = (id: string, fields: Partial<ServiceRoute> = {}): ServiceRoute =>
  ({
    id,
    handler: `http/handlers/x.ts#${id}`,
    method: "GET",
    path: `/v1/${id}`,
    scope: "apps",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: { tables: { apps: "get" } },
    ...fields,
  }) as ServiceRoute;

describe("the API's functions", () => {
  it("are one per ungrouped route and one per group, every route served by one", () => {
    const grouped = ROUTES.filter((row) => "group" in row);
    const groups = new Set(grouped.map((row) => row.group));
    expect(API_FUNCTIONS).toHaveLength(ROUTES.length - grouped.length + groups.size);
    for (const row of ROUTES) {
      const fn = functionOf(apiFunctionIdOf(row.id));
      if (fn.kind === "route-group") {
        expect(
          fn.routes.map((member) => member.id),
          row.id,
        ).toContain(row.id);
      } else {
        expect(fn.id).toBe(row.id);
      }
    }
  });

  it("name every function once", () => {
    expect(new Set(FUNCTION_IDS).size).toBe(FUNCTION_IDS.length);
  });

  it("give a group its routes' method, resource path and handler, the largest sizing and their uses", () => {
    const row = functionOf("postbacks");
    if (row.kind !== "route-group") throw new Error("postbacks is not a route group");
    const members = ROUTES.filter((each) => "group" in each && each.group === "postbacks");
    expect(row.routes).toEqual(
      members.map(({ id, method, path, handler }) => ({ id, method, path, handler })),
    );
    expect(row.memoryMb).toBe(Math.max(...members.map((each) => each.memoryMb)));
    // The test postbacks wait on a partner's answer: the group has their timeout.
    expect(row.timeoutSeconds).toBe(20);
    expect(row.streaming).toBe(false);
    expect(row.uses).toEqual(mergeUses("postbacks", members));
  });

  it("keep apart the routes that stream, reserve concurrency or use what their family does not", () => {
    for (const id of ["export", "installs", "events", "s2s-events", "touches", "config"] as const) {
      expect(apiFunctionIdOf(id)).toBe(id);
    }
  });
});

describe("a route group", () => {
  it("merges its routes' uses: every resource, with the word they agree on, and every setting", () => {
    const row = routeGroupRow("g", [
      route("a", { uses: { tables: { apps: "get" }, settings: ["snapshotTtl"] } }),
      route("b", {
        uses: { tables: { apps: "get", links: "manage" }, linkHost: "name" },
        memoryMb: 512,
      }),
      route("c", { uses: {}, timeoutSeconds: 20 }),
    ]);
    expect(row.uses).toEqual({
      tables: { apps: "get", links: "manage" },
      settings: ["snapshotTtl"],
      linkHost: "name",
    });
    expect(row).toMatchObject({ kind: "route-group", memoryMb: 512, timeoutSeconds: 20 });
  });

  it("is refused when two routes give a table different access words, naming both", () => {
    expect(() =>
      routeGroupRow("g", [route("a"), route("b", { uses: { tables: { apps: "manage" } } })]),
    ).toThrow(/route group g: a uses tables\.apps "get" where b uses "manage"/);
  });

  it("is refused when two routes give another resource different words", () => {
    expect(() =>
      routeGroupRow("g", [
        route("a", { uses: { sealingKey: "wrap" } }),
        route("b", { uses: { sealingKey: "unwrap" } }),
      ]),
    ).toThrow(/a uses sealingKey "wrap" where b uses "unwrap"/);
  });

  it("is refused when it holds a streaming route", () => {
    expect(() => routeGroupRow("g", [route("a"), route("b", { streaming: true })])).toThrow(
      /b streams its response/,
    );
  });

  it("is refused when it is named as a route is", () => {
    expect(() => apiFunctionRows([route("a", { group: "b" }), route("b", { group: "b" })])).toThrow(
      /route group b is named as a route is/,
    );
  });

  it("takes its place in the table's order, where its first route is", () => {
    const rows = apiFunctionRows([
      route("a"),
      route("b", { group: "g" }),
      route("c"),
      route("d", { group: "g" }),
    ]);
    expect(rows.map((row) => [row.id, row.kind])).toEqual([
      ["a", "route"],
      ["g", "route-group"],
      ["c", "route"],
    ]);
  });
});
