/**
 * The embedded DynamoDB: dynalite, a DynamoDB-compatible server in pure Node that keeps its
 * tables on disk. It needs nothing installed beyond npm (DynamoDB Local needs Java), and the
 * service reaches it with the same AWS SDK client code as on AWS.
 */
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import dynalite from "dynalite";
import { ensureTables, perTable, type TableNames } from "../adapters/dynamodb/table-definitions.ts";

/**
 * Table names on the embedded runtime, from the tables' ids (`customerUsers` is
 * `attribution-customer-users`); on AWS CloudFormation names them.
 */
export const LOCAL_TABLE_NAMES: TableNames = perTable(
  (id) => `attribution-${id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
);

export interface DynamoConnection {
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  close(): Promise<void>;
}

type RequestSigner = Extract<NonNullable<DynamoDBClientConfig["signer"]>, { sign: unknown }>;

/**
 * Table files LevelDB keeps open under dynalite: the fewest it allows. LevelDB reads its table
 * files through mmap, and each open one (up to 2 MB) counts in the process's resident memory
 * once read; with its default of 1,000, resident memory grows with the store until a
 * thousand tables (2 GB) are mapped. 74 keeps 64 tables (LevelDB holds 10 files for
 * itself), about 130 MB at most.
 */
const LEVELDB_MAX_OPEN_FILES = 74;

/**
 * dynalite opens its LevelDB with no options of ours, so the limit is the default of the class
 * it opens it with (found from dynalite's own folder, as it finds it).
 */
const LIMITED = Symbol.for("attribution.leveldb-max-open-files");
const limitOpenTables = () => {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve("dynalite"));
  type Open = (this: unknown, options: Record<string, unknown>) => Promise<void>;
  const { Level } = fromDynalite("level") as {
    Level: { prototype: { _open: Open; [LIMITED]?: true } };
  };
  // Once per process, though this module may be evaluated again (each test file does).
  if (Level.prototype[LIMITED]) return;
  Level.prototype[LIMITED] = true;
  const open = Level.prototype._open;
  Level.prototype._open = function (options) {
    return open.call(this, { maxOpenFiles: LEVELDB_MAX_OPEN_FILES, ...options });
  };
};
limitOpenTables();

/**
 * The local server wants an AWS authorization header but checks no signature, so requests to
 * it carry a fixed one: computing SigV4 for every request cost more CPU than the server's own
 * work on a read. The commands and clients are the same.
 */
const UNSIGNED: RequestSigner = {
  sign: async (request) => {
    request.headers.authorization =
      "AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0";
    request.headers["x-amz-date"] = "20260101T000000Z";
    return request;
  },
};

/** A client for a DynamoDB-compatible endpoint; the local server accepts any credentials. */
export const connectDynamoDb = (endpoint: string): DynamoConnection => {
  const client = new DynamoDBClient({
    endpoint,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    signer: UNSIGNED,
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return {
    endpoint,
    client,
    doc,
    close: async () => client.destroy(),
  };
};

/** Starts the on-disk server on loopback and creates the service's tables. */
export const startLocalDynamoDb = async (path: string, port = 0): Promise<DynamoConnection> => {
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const connection = connectDynamoDb(`http://127.0.0.1:${bound}`);
  await ensureTables(connection.client, LOCAL_TABLE_NAMES);
  return {
    ...connection,
    close: async () => {
      await connection.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
