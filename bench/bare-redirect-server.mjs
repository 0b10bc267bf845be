/**
 * The click benchmark's reference: a bare Node HTTP server that answers every GET with the
 * same 302 the link host sends (a Location and `Cache-Control: no-store`), and nothing else.
 * What any Node service pays for HTTP alone.
 */
import { createServer } from "node:http";
import { serve } from "./serve.mjs";

const LOCATION = "https://play.google.com/store/apps/details?id=com.bench.clicks";

const server = createServer((req, res) => {
  req.resume();
  res.writeHead(302, { location: LOCATION, "cache-control": "no-store" });
  res.end();
});

serve(server);
