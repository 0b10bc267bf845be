/**
 * The embedded DynamoDB: dynalite, a DynamoDB-compatible server in pure Node that keeps its
 * tables on disk. It needs nothing installed beyond npm (DynamoDB Local needs Java), and the
 * service reaches it with the same AWS SDK client code as on AWS.
 */

import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { MARSHALL_OPTIONS } from "../adapters/dynamodb/marshall-options.ts";
import { ensureTables, perTable, type TableNames } from "../adapters/dynamodb/table-definitions.ts";
import { boundedWorker } from "./bounded-worker.ts";

/**
 * Table names on the embedded runtime, from the tables' ids (`customerUsers` is
 * `attribution-customer-users`); on AWS CloudFormation names them.
 */
export const LOCAL_TABLE_NAMES: TableNames = perTable(
  (id) => `attribution-${id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
);

export interface DynamoConnection {
  readonly endpoint: string;
  /** What the server asks of every request (`LOCAL_DYNAMODB_TOKEN_HEADER`). */
  readonly token: string;
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  close(): Promise<void>;
}

/**
 * The header that carries the server's token. dynalite checks no signature, and its loopback
 * port is open to every local user and, through their browser, to any web page: the server
 * (./dynalite-server.mjs) answers only requests that carry the token made at its start, which
 * only this process and runtime.json (this user's only) know. A header of its own rather than
 * a SigV4 signature keyed by the token: the check is a comparison, and nothing is signed.
 */
export const LOCAL_DYNAMODB_TOKEN_HEADER = "x-attribution-store-token";

type RequestSigner = Extract<NonNullable<DynamoDBClientConfig["signer"]>, { sign: unknown }>;

/**
 * The server checks no signature, so requests to it carry a fixed authorization header, with
 * the token beside it: computing SigV4 for every request cost more CPU than the server's own
 * work on a read. The commands and clients are the same.
 */
const localSigner = (token: string): RequestSigner => ({
  sign: async (request) => {
    request.headers.authorization =
      "AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0";
    request.headers["x-amz-date"] = "20260101T000000Z";
    request.headers[LOCAL_DYNAMODB_TOKEN_HEADER] = token;
    return request;
  },
});

/**
 * A client for the embedded DynamoDB at `endpoint`, which answers only requests with its
 * `token`: every client of it, the service's and the CLI's, is made here.
 */
export const connectDynamoDb = (endpoint: string, token: string): DynamoConnection => {
  const client = new DynamoDBClient({
    endpoint,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    signer: localSigner(token),
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: MARSHALL_OPTIONS,
  });
  return {
    endpoint,
    token,
    client,
    doc,
    close: async () => client.destroy(),
  };
};

/** The tables' folder could not be opened: another process holds it, most likely. */
export class TablesHeldError extends Error {
  constructor(path: string, cause: unknown) {
    super(
      `The tables in ${path} could not be opened (${cause instanceof Error ? cause.message : String(cause)}): another process may hold them; start again once it ends.`,
    );
    this.name = "TablesHeldError";
  }
}

/** The store thread's young generation: its objects live for one request, not a batch of them. */
const YOUNG_GENERATION_MB = 32;

/**
 * Starts the on-disk server on loopback and creates the service's tables: in a worker thread of
 * its own for the running service (`thread`), so the store's work runs beside the requests'
 * rather than between them; in this thread for a one-off command or a test.
 */
export const startLocalDynamoDb = async (
  path: string,
  options: { readonly port?: number; readonly thread?: boolean } = {},
): Promise<DynamoConnection> => {
  const port = options.port ?? 0;
  // Made anew at each start: a token read from an earlier runtime.json opens nothing now.
  const access = {
    header: LOCAL_DYNAMODB_TOKEN_HEADER,
    token: randomBytes(32).toString("base64url"),
  };
  let server: { port: number; close: () => Promise<void> };
  // The store opens its files at its first request; a thread that cannot (another process
  // holds them) dies, and its error says more than the refused connections that follow.
  let died: Promise<never> = new Promise(() => {});
  let started = () => {};
  if (options.thread) {
    const worker = boundedWorker(
      new URL("./dynalite-server.mjs", import.meta.url),
      YOUNG_GENERATION_MB,
      {
        workerData: { dynalite: { path, port, access } },
      },
    );
    const bound = await new Promise<number>((resolve, reject) => {
      worker.once("error", reject);
      worker.once("message", (message: { port: number }) => resolve(message.port));
    });
    died = new Promise<never>((_, reject) => {
      const failed = (error: unknown) => reject(new TablesHeldError(path, error));
      worker.once("error", failed);
      // Once open, a failure of the thread is the process's, as any other.
      started = () => worker.off("error", failed);
    });
    server = {
      port: bound,
      close: async () => {
        const closed = once(worker, "message");
        worker.postMessage("close");
        await closed;
        await worker.terminate();
      },
    };
  } else {
    // Loaded only here: a command that reaches the running service's store never needs it.
    const { startDynalite } = await import("./dynalite-server.mjs");
    server = await startDynalite(path, port, access);
  }
  const connection = connectDynamoDb(`http://127.0.0.1:${server.port}`, access.token);
  try {
    await Promise.race([ensureTables(connection.client, LOCAL_TABLE_NAMES), died]);
  } finally {
    started();
  }
  return {
    ...connection,
    close: async () => {
      await connection.close();
      await server.close();
    },
  };
};
