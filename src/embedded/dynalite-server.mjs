/**
 * dynalite, the embedded DynamoDB-compatible server, started on loopback: in the calling thread
 * (`startDynalite`), or in a worker thread of its own when this file is the worker's entry, so
 * that the store's own work (its validation, LevelDB's calls, its HTTP) never holds up the
 * thread that answers requests. Plain JavaScript: a worker thread starts without the loader the
 * service's TypeScript runs under.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createRequire } from "node:module";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import dynalite from "dynalite";

/**
 * Table files LevelDB keeps open under dynalite: the fewest it allows. LevelDB reads its table
 * files through mmap, and each open one (up to 2 MB) counts in the process's resident memory
 * once read; with its default of 1,000, resident memory grows with the store until a
 * thousand tables (2 GB) are mapped. 74 keeps 64 tables (LevelDB holds 10 files for
 * itself), about 130 MB at most.
 */
const LEVELDB_MAX_OPEN_FILES = 74;

/** `require` as dynalite's own folder resolves it: the LevelDB classes it runs on. */
export const fromDynalite = () => createRequire(createRequire(import.meta.url).resolve("dynalite"));

/**
 * dynalite opens its LevelDB with no options of ours, so the limit is the default of the class
 * it opens it with.
 */
const LIMITED = Symbol.for("attribution.leveldb-max-open-files");
const limitOpenTables = () => {
  const { Level } = fromDynalite()("level");
  // Once per thread, though this module may be evaluated again (each test file does).
  if (Level.prototype[LIMITED]) return;
  Level.prototype[LIMITED] = true;
  const open = Level.prototype._open;
  Level.prototype._open = function (options) {
    return open.call(this, { maxOpenFiles: LEVELDB_MAX_OPEN_FILES, ...options });
  };
};

/**
 * dynalite reads a Query's or a Scan's items through a stream over a LevelDB iterator, and ends
 * the iterator with `return()` when the stream ends; abstract-level's iterators have `close()`
 * and no `return()`, so dynalite left every one open until the store closed. An open iterator
 * keeps the memtable and the table files of its moment: memory and disk grew with every Query
 * for as long as the service ran. Given a `return()` that closes, each closes with its stream.
 * The classes are the thread's: where a one-off command runs the store in the command's thread,
 * the service's other LevelDB stores get the method too, and never call it (`for await` ends an
 * iterator through the iterator's own generator).
 */
const closeIteratorsAtTheirEnd = () => {
  const fromLevel = createRequire(fromDynalite().resolve("level"));
  const fromClassicLevel = createRequire(fromLevel.resolve("classic-level"));
  const { AbstractIterator, AbstractKeyIterator, AbstractValueIterator } =
    fromClassicLevel("abstract-level");
  for (const { prototype } of [AbstractIterator, AbstractKeyIterator, AbstractValueIterator]) {
    if (typeof prototype.return === "function") continue;
    prototype.return = async function () {
      await this.close();
      return { done: true, value: undefined };
    };
  }
};

const digest = (text) => createHash("sha256").update(text).digest();

/**
 * Whom the server answers: only a request that carries its token, and none from a browser.
 * Its loopback port is open to every local user, and to any web page in this user's browser,
 * which dynalite would answer with `Access-Control-Allow-Origin: *`: a page could read the
 * users' password hashes or plant an admin. A browser names the page's origin on every
 * cross-origin request and every preflight; the service's clients never send one.
 * @param {{ header: string, token: string }} access
 * @returns {(req: import("node:http").IncomingMessage) => boolean}
 */
const allowedBy = (access) => {
  const expected = digest(access.token);
  return (req) => {
    if (req.headers.origin !== undefined) return false;
    const sent = req.headers[access.header];
    // Digests of equal length, compared in constant time: the answer says nothing of the token.
    return typeof sent === "string" && timingSafeEqual(digest(sent), expected);
  };
};

const REFUSED = JSON.stringify({
  __type: "com.amazon.coral.service#AccessDeniedException",
  message: "This store answers only the attribution service and its CLI.",
});

/**
 * Starts the on-disk server on loopback; resolves with its port and how to close it.
 * @param {string} path
 * @param {number} port
 * @param {{ header: string, token: string }} access the header and token every request needs
 * @returns {Promise<{ address: string, port: number, close: () => Promise<void> }>}
 */
export const startDynalite = async (path, port, access) => {
  limitOpenTables();
  closeIteratorsAtTheirEnd();
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // dynalite's handler runs only for a request let in: a refused one is answered before its
  // body is read, with no CORS header, so neither it nor its preflight succeeds.
  const allowed = allowedBy(access);
  const handlers = server.listeners("request");
  server.removeAllListeners("request");
  server.on("request", (req, res) => {
    if (allowed(req)) {
      for (const handle of handlers) handle.call(server, req, res);
      return;
    }
    res.writeHead(403, {
      "content-type": "application/x-amz-json-1.0",
      "content-length": Buffer.byteLength(REFUSED),
      connection: "close",
    });
    res.end(REFUSED);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(undefined));
  });
  const address = server.address();
  return {
    // Where it listens, as the system has it: loopback alone.
    address: typeof address === "object" && address ? address.address : "",
    port: typeof address === "object" && address ? address.port : 0,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
};

if (!isMainThread && workerData?.dynalite && parentPort) {
  const port = parentPort;
  const { path, port: listenOn, access } = workerData.dynalite;
  const started = await startDynalite(path, listenOn, access);
  port.on("message", async (message) => {
    if (message !== "close") return;
    await started.close();
    port.postMessage("closed");
    port.close();
  });
  port.postMessage({ port: started.port });
}
