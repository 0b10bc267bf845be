/**
 * The click benchmark's reference: a bare Node HTTP server that answers every GET with the
 * same 302 the link host sends (a Location and `Cache-Control: no-store`), and nothing else.
 * What any Node service pays for HTTP alone. Prints `listening on http://…` once it listens;
 * stops on SIGINT.
 */
import { createServer } from "node:http";

const LOCATION = "https://play.google.com/store/apps/details?id=com.bench.clicks";

const server = createServer((req, res) => {
  req.resume();
  res.writeHead(302, { location: LOCATION, "cache-control": "no-store" });
  res.end();
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(`listening on http://127.0.0.1:${port}`);
});

process.once("SIGINT", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
