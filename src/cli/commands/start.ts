import { networkInterfaces } from "node:os";
import { embeddedConfig } from "../../config/embedded.ts";
import { startEmbeddedRuntime } from "../../embedded/runtime.ts";

export const start = async (options: {
  port?: number;
  linkPort?: number;
  host?: string;
  dataDir?: string;
}) => {
  const config = embeddedConfig(process.env, options);
  // Said before anything opens: the link host's listener would fail on the port the API's had
  // just taken, and the failure read as another program's.
  if (config.port !== 0 && config.port === config.linkPort) {
    throw new Error(
      `The API and the link host cannot share port ${config.port}: give one of them another with --port (ATTRIBUTION_PORT) or --link-port (ATTRIBUTION_LINK_PORT).`,
    );
  }
  const runtime = await startEmbeddedRuntime(config);
  // Before anything says the service is up: a Ctrl-C (or a supervisor's signal) that comes as
  // soon as it is must find the handler that delivers what the streams hold, not Node's default
  // of ending the process where it stands.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received: delivering buffered events and stopping…`);
    runtime.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("Stopped with an error:", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));

  console.log(`Attribution service listening on ${runtime.url}`);
  console.log(`Dashboard:   ${runtime.url}/`);
  printOwner(runtime.owner);
  console.log(`Data folder: ${config.dataDir}`);
  console.log(`SDK API:     ${runtime.url}/v1/… (contract: ${runtime.url}/v1/openapi.json)`);
  console.log(`Export:      GET ${runtime.url}/api/v1/export (Authorization: <server key>)`);
  // As new links name it: the base URL set (a phone's way to this machine), else the listener.
  const linkBase = (config.linkBaseUrl ?? runtime.linkUrl).replace(/\/+$/, "");
  console.log(
    `Link host:   ${linkBase}/<deeplink_id> (make links with \`attribution links create\`)`,
  );
  const reachable = machineAddresses(config.host);
  if (reachable.length > 0) {
    // 0.0.0.0 is no address a phone or an SDK's base URL can use: this machine's are.
    console.log(
      `Reachable:   ${reachable.map((address) => `http://${address}:${new URL(runtime.url).port}`).join(", ")} (this machine's addresses)`,
    );
  }
  console.log(
    `Rates:       ECB reference rates up to ${runtime.fx.lastDate}${
      config.fxFeedUrl ? `; refreshing from ${config.fxFeedUrl}` : " (refresh off)"
    }`,
  );
  console.log("Press Ctrl-C to stop.");
};

/** This machine's own addresses, when the service listens on all of them (0.0.0.0, ::). */
const machineAddresses = (host: string): string[] =>
  host === "0.0.0.0" || host === "::"
    ? Object.values(networkInterfaces())
        .flat()
        .filter((info) => info !== undefined && !info.internal && info.family === "IPv4")
        .map((info) => info?.address ?? "")
    : [];

/**
 * The owner account a first start made, with its password, shown this once: by `start`, or by
 * the command that started the service first on a new data folder (`demo`).
 */
export const printOwner = (
  owner: { readonly email: string; readonly password: string } | undefined,
): void => {
  if (!owner) return;
  console.log("");
  console.log("  The first start made the owner account. Its password is shown this once:");
  console.log(`    email:    ${owner.email}`);
  console.log(`    password: ${owner.password}`);
  console.log("  Change it with `attribution users password owner@localhost`; add people with");
  console.log("  `attribution users add <email>`.");
  console.log("");
};
