/**
 * The click benchmark's PostgreSQL reference: what the leading open-source link servers do. The
 * link is held in memory; a tap is answered at once with its 302 (a click id in the Play
 * referrer, as the link host's), and the click is then inserted into PostgreSQL, one row a
 * click, through a pool of connections. Its server is named by PGHOST (a socket folder), PGPORT
 * and PGUSER; the link by REFERENCE_LINK.
 */
import { createServer } from "node:http";
import { customAlphabet } from "nanoid";
import pg from "pg";
import { serve } from "./serve.mjs";

const LINK = process.env.REFERENCE_LINK ?? "";
const STORE = "https://play.google.com/store/apps/details?id=com.bench.clicks";
// A click id as the link host makes one (22 of 62 characters): matching reads no other shape
// back from a referrer, and the benchmark checks each answer's id the way matching would.
const newClickId = customAlphabet(
  "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
  22,
);

const pool = new pg.Pool({ database: "postgres", max: 10 });
// A table of its own each run: the rows counted after it are its clicks.
await pool.query("DROP TABLE IF EXISTS clicks");
await pool.query(`CREATE TABLE clicks (
  id bigserial PRIMARY KEY,
  click_id text NOT NULL UNIQUE,
  link text NOT NULL,
  ip text,
  user_agent text,
  language text,
  query text,
  created_at timestamptz NOT NULL DEFAULT now()
)`);

let failed = 0;
const server = createServer((req, res) => {
  req.resume();
  const url = new URL(req.url ?? "/", "http://reference");
  if (url.pathname !== `/${LINK}`) {
    res.writeHead(404).end();
    return;
  }
  const clickId = newClickId();
  const referrer = new URLSearchParams({ service_click_id: clickId, utm_source: "bench" });
  res.writeHead(302, {
    location: `${STORE}&referrer=${encodeURIComponent(referrer.toString())}`,
    "cache-control": "no-store",
  });
  res.end();
  const forwarded = req.headers["x-forwarded-for"];
  pool
    .query(
      "INSERT INTO clicks (click_id, link, ip, user_agent, language, query) VALUES ($1, $2, $3, $4, $5, $6)",
      [
        clickId,
        LINK,
        (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0] ?? null,
        req.headers["user-agent"] ?? null,
        req.headers["accept-language"] ?? null,
        url.search,
      ],
    )
    .catch(() => {
      failed += 1;
    });
});

process.once("SIGINT", () => {
  if (failed > 0) console.error(`${failed} clicks not inserted`);
});
serve(server);
