/**
 * Where the DynamoDB stores' contract suites run: on dynalite, as the embedded runtime keeps
 * the tables, and on DynamoDB's API as moto's server answers it (test/local-aws/moto.ts), as the
 * stores run on AWS. Each target makes the service's tables and hands `make` a document client;
 * what `make` builds comes back with a `close` that stops the target.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll } from "vitest";
import {
  motoClientConfig,
  motoDisabled,
  reportNoMoto,
  startMoto,
} from "../../../test/local-aws/moto.ts";
import {
  type DynamoConnection,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
} from "../../embedded/local-dynamodb.ts";
import { MARSHALL_OPTIONS } from "./marshall-options.ts";
import { ensureTables } from "./table-definitions.ts";

type Made<T> = T & { close(): Promise<void> };

/**
 * The service's tables on dynalite for the tests of one file or `describe`, in a data folder of
 * their own: made before its tests, gone after them. The connection is asked for in the tests.
 */
export const dynaliteForTests = (prefix = "dynamo-"): (() => DynamoConnection) => {
  let dir: string | undefined;
  let dynamo: DynamoConnection | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    dynamo = await startLocalDynamoDb(dir);
  });
  afterAll(async () => {
    await dynamo?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (!dynamo) throw new Error("The tables are made before the tests begin");
    return dynamo;
  };
};

/** The stores on dynalite, in a data folder of their own. */
export const onDynalite =
  <T extends object>(make: (doc: DynamoDBDocumentClient) => T) =>
  async (): Promise<Made<T>> => {
    const dir = await mkdtemp(join(tmpdir(), "dynamo-contract-"));
    const dynamo = await startLocalDynamoDb(dir);
    return {
      ...make(dynamo.doc),
      close: async () => {
        await dynamo.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  };

/**
 * The stores on moto's DynamoDB API, or undefined on a machine without moto (which says so once,
 * naming `what`).
 */
export const onMoto = <T extends object>(
  what: string,
  make: (doc: DynamoDBDocumentClient) => T,
): (() => Promise<Made<T>>) | undefined => {
  reportNoMoto(what);
  if (motoDisabled) return undefined;
  return async () => {
    // One request at a time: moto's threads race conditional writes, where DynamoDB does not.
    const moto = await startMoto({ serial: true });
    const client = new DynamoDBClient(motoClientConfig(moto));
    await ensureTables(client, LOCAL_TABLE_NAMES);
    const doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: MARSHALL_OPTIONS,
    });
    return {
      ...make(doc),
      close: async () => {
        client.destroy();
        await moto.stop();
      },
    };
  };
};

/**
 * A document client that answers every command with nothing (an empty item, page or write) and
 * keeps the commands sent: for what a store asks, where what DynamoDB answers does not matter.
 */
export const recordingDoc = (): { doc: DynamoDBDocumentClient; sent: unknown[] } => {
  const sent: unknown[] = [];
  const doc = {
    send: async (command: unknown) => {
      sent.push(command);
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { doc, sent };
};
