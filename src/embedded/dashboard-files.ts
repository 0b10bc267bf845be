/**
 * The dashboard's built files (dashboard/dist), served by the API's listener on the paths no
 * route takes: `/` is the page, `/<file>` its script and stylesheet. Read once at start, as
 * they are small; the same security headers as the CloudFront distribution sends on AWS
 * (lib/dashboard-site.ts). Built at `npm install` and, if missing, at start.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import {
  DASHBOARD_PAGE,
  DASHBOARD_SECURITY_HEADERS,
  dashboardCacheControl,
} from "../http/dashboard-headers.ts";
import type { HttpResponse } from "../http/middleware.ts";

/** The build writes text files only. */
const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

export type DashboardFiles = (request: {
  method: string;
  path: string;
}) => HttpResponse | undefined;

/** The files of `dir`, answering GET and HEAD of their paths; undefined for anything else. */
export const loadDashboardFiles = async (dir: string): Promise<DashboardFiles> => {
  const files = new Map<string, HttpResponse>();
  if (existsSync(dir)) {
    for (const name of await readdir(dir)) {
      const type = TYPES[extname(name)];
      if (!type) continue;
      const body = await readFile(join(dir, name), "utf8");
      files.set(name === DASHBOARD_PAGE ? "/" : `/${name}`, {
        statusCode: 200,
        headers: {
          "content-type": type,
          "cache-control": dashboardCacheControl(name),
          ...DASHBOARD_SECURITY_HEADERS,
        },
        body,
      });
    }
  }
  return ({ method, path }) =>
    method === "GET" || method === "HEAD"
      ? files.get(path === `/${DASHBOARD_PAGE}` ? "/" : path)
      : undefined;
};
