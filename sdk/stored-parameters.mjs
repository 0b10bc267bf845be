// Prints, as one JSON object, the parameters the embedded service stored in its lake for one
// event, and the same with every sealed value opened by the service's own code with the app's
// keys: {"stored": {...}, "opened": {...}}. The SDKs' end-to-end tests run it against the
// service that their test.sh started (sdk/service.sh). Usage: node stored-parameters.mjs <data dir> <app id> <event id>
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DuckDBInstance } from "@duckdb/node-api";
import { register } from "tsx/esm/api";

const [dataDir, appId, eventId] = process.argv.slice(2);
if (!dataDir || !appId || !eventId) {
  console.error("usage: node stored-parameters.mjs <data dir> <app id> <event id>");
  process.exit(2);
}

register();
const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src");
const { withAdminStores } = await import(join(src, "cli", "admin-stores.ts"));
const { createAppKeyrings } = await import(join(src, "apps", "app-keyrings.ts"));
const { isSealed, openSealed } = await import(join(src, "crypto", "envelope.ts"));
const { dataPaths } = await import(join(src, "embedded", "data-dir.ts"));

const duckdb = await DuckDBInstance.create(":memory:");
const connection = await duckdb.connect();
let stored;
try {
  const glob = join(dataPaths(dataDir).lake, "events", "**", "*.parquet");
  const reader = await connection.runAndReadAll(
    "SELECT parameters FROM read_parquet($glob) WHERE event_id = $id AND app_id = $app",
    { glob, id: eventId, app: appId },
  );
  const rows = reader.getRowObjectsJS();
  if (rows.length !== 1) throw new Error(`${rows.length} stored rows for event ${eventId}`);
  stored = rows[0].parameters === null ? null : JSON.parse(String(rows[0].parameters));
} finally {
  connection.closeSync();
  duckdb.closeSync();
}

const keyring = await withAdminStores(dataDir, async (stores) => {
  const app = await stores.apps.get(appId);
  if (!app) throw new Error(`no app ${appId}`);
  return createAppKeyrings(stores.wrapper)(app);
});
const open = (value) => {
  if (Array.isArray(value)) return value.map(open);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, open(v)]));
  }
  return typeof value === "string" && isSealed(value) ? openSealed(value, keyring) : value;
};
console.log(JSON.stringify({ stored, opened: open(stored) }));
