/**
 * What a deployable function uses, as data: the vocabulary of the manifest's rows
 * (./manifest.ts). A row names each resource its handler reads or writes and the access it
 * needs, and everything else is derived from it: the function's environment (./env.ts, which
 * src/config/aws-env.ts names), its CDK environment values and IAM grants (lib/bindings.ts,
 * lib/dynamodb-tables.ts), the Lambda bundle's data files, the entries test and the bench's list.
 *
 * Each access word is one grant on AWS, so a word added here fails to compile until
 * lib/dynamodb-tables.ts (for a table) or lib/bindings.ts (for the rest) grants it.
 */
import type { TableId } from "../adapters/dynamodb/table-definitions.ts";
import type { LakeTableName } from "../lake/lake-tables.ts";

/**
 * What a function may do with each DynamoDB table (src/adapters/dynamodb/table-definitions.ts); the
 * statements each word grants are in lib/dynamodb-tables.ts.
 */
export interface TableAccess {
  /**
   * get: one app by id; lookup: by id, in batches too (the authorizer); list: every app;
   * manage: the dashboard's (create, read, list and change apps); configure: read and change
   * one app by id (its SKAdNetwork settings), listing none.
   */
  readonly apps: "get" | "lookup" | "list" | "manage" | "configure" | "tap";
  /** lookup: a key by id, in batches too; manage: an app's keys listed, issued and revoked. */
  readonly keys: "lookup" | "manage";
  /**
   * create: get and put-if-absent; consent: update an install's consent; match: get, and query
   * by IDFV; get: one by key (a postback's facts); purge: delete by key.
   */
  readonly installs: "create" | "consent" | "match" | "get" | "purge";
  /** create: get and put-if-absent; purge: find an install's mappings and delete them. */
  readonly customerUsers: "create" | "purge";
  /**
   * lookup: one install's requests (by-install index); request: record a request and tombstone
   * its install; status: one request by id; tombstones: an app's tombstones and requests (the
   * export); purge: find open requests, complete them.
   */
  readonly deletions: "lookup" | "request" | "status" | "tombstones" | "purge";
  /** readWrite: snapshot entries by key; purge: find an app's entries and delete them. */
  readonly snapshots: "readWrite" | "purge";
  /** get: one link by id; manage: create, read, disable and list an app's links. */
  readonly links: "get" | "manage";
  /**
   * record: put touches (and take back a failed request's random ids); tap: put one touch, nothing else
   * (the link host's click); sight: record the installs sending from an address (sightings'
   * items only); match: the matcher's lookups, and its claim of the winning click for the
   * install; get: one by click id (a postback's winning touch); purge: a deleted install's
   * claim let go.
   */
  readonly touches: "record" | "tap" | "sight" | "match" | "get" | "purge";
  /**
   * request: a new install's pending record, and one read (whether an event's install is
   * attributed yet, for its postbacks); work: read and resolve one (the worker); get: read one
   * (the SDKs, the postback worker); sweep: find unfinished ones; purge: read one (the click
   * whose claim it lets go) and delete it.
   */
  readonly attributions: "request" | "work" | "get" | "sweep" | "purge";
  /**
   * read: one user by email (a session's owner); grant: add an app to a user's apps; renew: read
   * one and renew their session generation (ending their sessions); manage: the People page's
   * (list every user, create, change and remove one).
   */
  readonly users: "read" | "grant" | "renew" | "manage";
  /** read: one session by key (the authorizer); readWrite: sign in and out. */
  readonly sessions: "read" | "readWrite";
  /** read: an app's configurations (the by-app index) and one by key; manage: and change them. */
  readonly postbackConfigs: "read" | "manage";
  /**
   * enqueue: add a send where none is (a conditional put) and read one (the triggers); work:
   * read, claim and settle one (the postback worker); purge: an install's sends (the by-install
   * index) deleted.
   */
  readonly outbox: "enqueue" | "work" | "purge";
  /**
   * write: record an attempt and count it; read: an app's attempts and counts (the index);
   * purge: an install's attempts (the by-install index) deleted.
   */
  readonly deliveryLog: "write" | "read" | "purge";
  /**
   * receive: one read by its key, and added (a conditional put, a verified one over an
   * unverified one); read: an app's, by the by-app index and, those of no app Apple's
   * production key verified for its App Store id, by the unclaimed index; unknown: those of no
   * app, by the by-app index (the service's admins' count of them).
   */
  readonly applePostbacks: "receive" | "read" | "unknown";
  /**
   * manage: rows put (a row of the same keys written over) and an app's days read; read: only
   * an app's days (the by-app index).
   */
  readonly costs: "manage" | "read";
}

/**
 * `named`: the function is told the resource's name but given no right on it. The three
 * ingestion routes share one composition, which names the events stream and the sealing key,
 * but only the routes that take events may use them.
 */
export type Named = "named";

/** The settings a function reads from its environment, each set by the stack (lib/settings.ts). */
export type FunctionSetting =
  | "snapshotTtl"
  | "trustViewerCountry"
  | "trustViewerAddress"
  | "minRequestAge"
  | "postbacksAllowLoopback";

/**
 * A function's resources and access. Key order is the order of the grants on AWS (statements
 * of the same actions on different tables are merged into one, in order).
 */
export interface Uses<Queue extends string = string> {
  readonly tables?: { readonly [T in TableId]?: TableAccess[T] };
  /** The lake's delivery streams (Firehose on AWS): `put` records. */
  readonly streams?: { readonly [T in LakeTableName]?: "put" | Named };
  /** Queue-driven workers' queues (src/workers/workers.ts): `send` messages. */
  readonly queues?: { readonly [W in Queue]?: "send" };
  /**
   * The key that wraps apps' sealing private keys: `unwrap` one; `wrap` a new app key pair's
   * (switching sealing on from the dashboard).
   */
  readonly sealingKey?: "unwrap" | "wrap" | Named;
  /**
   * The same key, for the secret values of postback and webhook configurations (their own
   * purpose in the key's context, src/postbacks/secrets.ts): `open` them (the postback worker);
   * `manage` them: seal, and open those a saved configuration keeps (saving one).
   */
  readonly postbackSecrets?: "open" | "manage";
  /**
   * Dashboard people's passwords (Cognito's user pool on AWS): `verify` one at sign-in;
   * `manage` them (set, remove); `list` the people, to find those disabled there.
   */
  readonly credentials?: "verify" | "manage" | "list";
  /**
   * The exchange-rate table: `read` the stored one (else the one shipped in the asset); `write`
   * it (the daily rates job), starting from the shipped one.
   */
  readonly rates?: "read" | "write";
  /** The IP-to-country database, shipped in the asset. */
  readonly countries?: "read";
  /**
   * The lake's query engine (Athena): run queries over the lake, read and write results; for
   * the export's snapshots and pages, or the dashboard's reports.
   */
  readonly queries?: "export" | "reports";
  /** The lake's files: `purge` rewrites those of a deleted install and drops query results. */
  readonly lake?: "purge";
  /** The link host's base URL, which new links name, and the DNS that proves a host an app's. */
  readonly linkHost?: "name";
  /** Apple's AdServices API, which resolves iOS installs' Apple Ads tokens. */
  readonly appleAds?: "call";
  readonly settings?: readonly FunctionSetting[];
}

/**
 * Whether a function checks that an install is not deleted before it writes for it (ingestion,
 * matching, postbacks): its work found the install alive, and may write after a purge began.
 * A purge waits for such work under way where it can (the embedded runtime); on AWS it leaves
 * requests younger than the longest such work for a later run.
 */
export const writesForLiveInstalls = (uses: Uses): boolean => uses.tables?.deletions === "lookup";

/**
 * What one function serving several rows (a route group, src/functions/manifest.ts) uses: every
 * resource any of them names, with the one access word they all give it, and every setting any
 * of them reads. A function has one environment and one role, so two rows that name a resource
 * with different words cannot share one: that is refused here, naming both rows, rather than
 * granted as the wider word (the narrower row would run with the wider grant unseen).
 */
export const mergeUses = <Q extends string>(
  owner: string,
  rows: readonly { readonly id: string; readonly uses: Uses<Q> }[],
): Uses<Q> => {
  const merged: Record<string, unknown> = {};
  const givenBy = new Map<string, string>();
  const settings: FunctionSetting[] = [];
  const agree = (
    target: Record<string, unknown>,
    key: string,
    path: string,
    word: unknown,
    row: string,
  ) => {
    const had = target[key];
    if (had === undefined) {
      target[key] = word;
      givenBy.set(path, row);
    } else if (had !== word) {
      throw new Error(
        `${owner}: ${givenBy.get(path)} uses ${path} "${String(had)}" where ${row} uses "${String(word)}"; the rows of one function must give a resource the same access word`,
      );
    }
  };
  for (const row of rows) {
    for (const [key, value] of Object.entries(row.uses) as [keyof Uses, unknown][]) {
      if (value === undefined) continue;
      if (key === "settings") {
        for (const setting of value as readonly FunctionSetting[]) {
          if (!settings.includes(setting)) settings.push(setting);
        }
      } else if (typeof value === "object" && value !== null) {
        const target = (merged[key] ?? {}) as Record<string, unknown>;
        merged[key] = target;
        for (const [name, word] of Object.entries(value)) {
          if (word !== undefined) agree(target, name, `${key}.${name}`, word, row.id);
        }
      } else {
        agree(merged, key, key, value, row.id);
      }
    }
  }
  if (settings.length > 0) merged.settings = settings;
  return merged as Uses<Q>;
};
