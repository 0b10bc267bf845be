/**
 * The dashboard on the embedded runtime: its files, built now if `npm install` did not (a
 * checkout whose install skipped scripts), served by the API's listener.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { dashboardDist } from "../../dashboard/dist-path.ts";
import { type DashboardFiles, loadDashboardFiles } from "./dashboard-files.ts";

export const dashboardFiles = async (): Promise<DashboardFiles> => {
  // The builder (esbuild) is loaded only when there is something to build.
  if (!existsSync(join(dashboardDist, "index.html"))) {
    const { buildDashboard } = await import("../../dashboard/build.ts");
    await buildDashboard();
  }
  return loadDashboardFiles(dashboardDist);
};
