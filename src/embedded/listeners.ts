/**
 * The embedded runtime's listeners: one gateway on its own port per row, each with its own
 * route table (the API; the link host beside it), as each is its own API on AWS.
 */
import { type AddressInfo, isIPv6 } from "node:net";
import { createGateway, type GatewayOptions } from "./gateway.ts";

/** `http://<host>:<port>` of a listener, an IPv6 address in brackets as a URL writes it. */
export const httpOrigin = (host: string, port: number): string =>
  `http://${isIPv6(host) ? `[${host}]` : host}:${port}`;

export interface ListenerSpec {
  readonly name: string;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly gateway: GatewayOptions;
}

export interface Listening {
  readonly name: string;
  readonly url: string;
  /**
   * Takes no new request, cuts the open connections and resolves once closed and every request
   * it took is answered, so that nothing reaches a store closed after it.
   */
  close(): Promise<void>;
}

export const listen = async (spec: ListenerSpec): Promise<Listening> => {
  const server = createGateway(spec.gateway);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(spec.port, spec.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    name: spec.name,
    url: httpOrigin(spec.host, port),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await server.settled();
    },
  };
};

/** Every listener of the table, or none: one that cannot listen closes those that did. */
export const listenAll = async (specs: readonly ListenerSpec[]): Promise<Listening[]> => {
  const started: Listening[] = [];
  try {
    for (const spec of specs) started.push(await listen(spec));
    return started;
  } catch (error) {
    await Promise.all(started.map((listening) => listening.close()));
    throw error;
  }
};
