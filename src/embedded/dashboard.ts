/**
 * The dashboard on the embedded runtime: its files, built now if `npm install` did not (a
 * checkout whose install skipped scripts), served by the API's listener.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildDashboard } from "../../dashboard/build.ts";
import { dashboardDist } from "../../dashboard/dist-path.ts";
import { type DashboardFiles, loadDashboardFiles } from "./dashboard-files.ts";

export const dashboardFiles = async (): Promise<DashboardFiles> => {
  if (!existsSync(join(dashboardDist, "index.html"))) await buildDashboard();
  return loadDashboardFiles(dashboardDist);
};
