/**
 * The ingestion benchmark's floor: the bare reference server plus the service's own work on
 * each event (the batch's checks, the lake row and its checks, the write-ahead line), for one
 * fixed app and install, with nothing stored or delivered and no gateway, authorizer or store
 * in the way. No service that checks and enriches its events as this one does can take in
 * batches faster than this on the same machine, so its ratio to the reference bounds the
 * service's. Prints `listening on http://…` once it listens; stops on SIGINT.
 */
import { createServer } from "node:http";
import {
  partitionOf,
  recordKeys,
  writeAheadLine,
} from "../src/adapters/local-stream/write-ahead.ts";
import { loadEcbRates } from "../src/fx/ecb-rates.ts";
import { parseEventsEnvelope } from "../src/ingest/event-schema.ts";
import { judgeEvents } from "../src/ingest/judge.ts";
import { toLakeEvent } from "../src/ingest/lake-event.ts";
import { EVENTS_TABLE, type LakeRecord, recordChecker } from "../src/lake/lake-tables.ts";
import type { App } from "../src/ports/apps.ts";
import { storedInstall } from "../test/support/installs.ts";
import { serve } from "./serve.mjs";

const app: App = {
  appId: "com.bench.ingest",
  name: "Bench",
  platform: "android",
  enabled: true,
  createdAt: new Date().toISOString(),
};
const install = storedInstall(app.appId, "bench-device-1");
const fx = await loadEcbRates();
const keys = recordKeys(EVENTS_TABLE);
const checkRecord = recordChecker(EVENTS_TABLE);
const sealedNever = () => false;
const opensNothing = () => undefined;

const answer = (body: string): { status: number; json: unknown } => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { status: 400, json: { error: "Bad Request" } };
  }
  const envelope = parseEventsEnvelope(parsed);
  if (!envelope.ok) return { status: 422, json: { error: "Unprocessable Entity" } };
  const now = new Date();
  const receivedAt = now.toISOString();
  const verdicts = judgeEvents(envelope.value.events, {
    now,
    s2s: false,
    isSealed: sealedNever,
    open: opensNothing,
  });
  const records: LakeRecord[] = [];
  for (const verdict of verdicts) {
    if (verdict.kind !== "accepted") continue;
    records.push(toLakeEvent(verdict.event, { app, install, country: "DE", receivedAt, fx }));
  }
  // Checked and made as the delivery stream does, then dropped: nothing is stored.
  for (const record of records) checkRecord(record);
  if (partitionOf(records, EVENTS_TABLE) !== undefined) writeAheadLine(records, keys);
  return {
    status: 202,
    json: { accepted: records.length, ignored: [], rejected: [] },
  };
};

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const { status, json } = answer(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(json));
  });
});

serve(server);
