/**
 * Where the dashboard's built files live (index.html, app.js, app.css): the service serves
 * index.html at `/` and each other file at `/<file>`. Node-side; imports nothing of the app.
 */
import { fileURLToPath } from "node:url";

export const dashboardDist: string = fileURLToPath(new URL("./dist", import.meta.url));
