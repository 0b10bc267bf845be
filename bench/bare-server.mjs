/**
 * The ingestion benchmark's reference: a bare Node HTTP server that reads the body, parses it
 * as JSON and answers 202 with a small JSON body, and nothing else. What any Node service pays
 * for HTTP and JSON alone. Prints `listening on http://…` once it listens; stops on SIGINT.
 */
import { createServer } from "node:http";
import { serve } from "./serve.mjs";

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let status = 202;
    let body;
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      body = { accepted: Array.isArray(parsed?.events) ? parsed.events.length : 0 };
    } catch {
      status = 400;
      body = { error: "Bad Request" };
    }
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  });
});

serve(server);
