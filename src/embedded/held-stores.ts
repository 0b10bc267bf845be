/**
 * The stores only the running service may open (LevelDB locks its folder to one process), as the
 * CLI reaches them while `npm start` is up: the service serves their methods on loopback, and
 * runtime.json (this user's only) gives the CLI the address and a token made at each start.
 * A call is a POST of the method's arguments as JSON to /<store>/<method>; its answer is the
 * method's result, or its error (a ValidationError stays one, for the CLI to print). What the
 * embedded DynamoDB's endpoint is for the tables it keeps; on AWS every store is a table.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { ValidationError } from "../domain/errors.ts";
import { tokensMatch } from "../domain/sessions.ts";
import { DELIVERY_LOG_METHODS, type DeliveryLog } from "../ports/postbacks.ts";
import { httpOrigin } from "./listeners.ts";

/** Each held store, and the methods of it the CLI may call. */
const HELD = {
  deliveryLog: DELIVERY_LOG_METHODS,
} as const satisfies Record<string, readonly string[]>;

export interface HeldStores {
  readonly deliveryLog: DeliveryLog;
}

export interface HeldStoresEndpoint {
  readonly url: string;
  readonly token: string;
}

/** A call's body: at most this much is read. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Dates travel as `{"$date": ISO}`; every other argument and result is plain JSON. */
const encode = (value: unknown) => (value instanceof Date ? { $date: value.toISOString() } : value);
const decode = (value: unknown) =>
  typeof value === "object" && value !== null && "$date" in value && typeof value.$date === "string"
    ? new Date(value.$date)
    : value;

const readBody = async (request: IncomingMessage): Promise<string | undefined> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
};

/** Serves the stores on loopback until `close`. */
export const serveHeldStores = async (
  stores: HeldStores,
): Promise<HeldStoresEndpoint & { close(): Promise<void> }> => {
  const token = randomBytes(32).toString("base64url");
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    const [, store, method] = (request.url ?? "").split("/");
    const methods: readonly string[] | undefined =
      store !== undefined && Object.hasOwn(HELD, store)
        ? HELD[store as keyof typeof HELD]
        : undefined;
    if (!tokensMatch(request.headers.authorization, `Bearer ${token}`)) {
      answer(401, { error: "not this service's CLI" });
      return;
    }
    if (request.method !== "POST" || !methods || !method || !methods.includes(method)) {
      answer(404, { error: "no such store method" });
      return;
    }
    void (async () => {
      const text = await readBody(request);
      if (text === undefined) return answer(413, { error: "the call is too large" });
      try {
        const args = (JSON.parse(text) as unknown[]).map(decode);
        const target = stores[store as keyof HeldStores] as unknown as Record<
          string,
          (...args: unknown[]) => Promise<unknown>
        >;
        // A method's undefined leaves `result` out of the JSON, and comes back as undefined.
        answer(200, { result: await target[method]?.(...args) });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        answer(error instanceof ValidationError ? 400 : 500, {
          error: message,
          validation: error instanceof ValidationError,
        });
      }
    })();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { address, port } = server.address() as AddressInfo;
  return {
    // Where it listens, as the system has it: loopback alone.
    url: httpOrigin(address, port),
    token,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

/** The held stores of the service at `endpoint`, each method a call to it. */
export const heldStoresAt = (endpoint: HeldStoresEndpoint): HeldStores => {
  const call = async (store: string, method: string, args: unknown[]) => {
    const response = await fetch(`${endpoint.url}/${store}/${method}`, {
      method: "POST",
      headers: { authorization: `Bearer ${endpoint.token}`, "content-type": "application/json" },
      body: JSON.stringify(args.map(encode)),
    });
    const body = (await response.json()) as {
      result?: unknown;
      error?: string;
      validation?: boolean;
    };
    if (response.ok) return body.result;
    const message = body.error ?? `the running service answered ${response.status}`;
    throw body.validation ? new ValidationError(message) : new Error(message);
  };
  const storeOf = <T>(store: keyof typeof HELD): T =>
    Object.fromEntries(
      HELD[store].map((method) => [method, (...args: unknown[]) => call(store, method, args)]),
    ) as T;
  return { deliveryLog: storeOf<DeliveryLog>("deliveryLog") };
};
