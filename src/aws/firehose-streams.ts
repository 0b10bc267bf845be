/** The Firehose delivery streams of the lake tables a function's row names. */
import { createFirehoseStream } from "../adapters/firehose/record-stream.ts";
import type { AllAdapters } from "../functions/adapters.ts";
import { streamVariable } from "../functions/env.ts";
import { LAKE_TABLES } from "../lake/lake-tables.ts";
import { firehose } from "./clients.ts";
import { type Provider, variable } from "./provider.ts";

export const firehoseStreams: Provider = (env, uses) => {
  const named = new Set(Object.keys(uses.streams ?? {}));
  const streams = Object.fromEntries(
    LAKE_TABLES.filter((table) => named.has(table.name)).map((table) => [
      table.name,
      createFirehoseStream({
        firehose,
        streamName: variable(env, streamVariable(table.name)),
        table,
      }),
    ]),
  );
  return { streams: streams as unknown as AllAdapters["streams"] };
};
