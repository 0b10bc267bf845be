/**
 * Where the admin commands (apps, keys, links, users, partners, skadnetwork) act. On this
 * machine: the embedded service's stores. On AWS, after `cdk deploy`: the stack's tables and
 * sealing key, named by the stack outputs in ATTRIBUTION_AWS_APPS_TABLE,
 * ATTRIBUTION_AWS_KEYS_TABLE and ATTRIBUTION_AWS_SEALING_KEY_ARN (and, for links,
 * ATTRIBUTION_AWS_LINKS_TABLE and ATTRIBUTION_AWS_LINK_HOST_URL; for their click counts,
 * ATTRIBUTION_AWS_ATHENA_WORKGROUP and ATTRIBUTION_AWS_GLUE_DATABASE; for the dashboard's
 * people, ATTRIBUTION_AWS_USERS_TABLE and ATTRIBUTION_AWS_USER_POOL_ID; for postbacks,
 * ATTRIBUTION_AWS_POSTBACK_CONFIGS_TABLE and ATTRIBUTION_AWS_DELIVERY_LOG_TABLE, and for their
 * log ATTRIBUTION_AWS_DELETIONS_TABLE; for Apple's
 * postbacks, ATTRIBUTION_AWS_APPLE_POSTBACKS_TABLE), reached with the caller's AWS credentials
 * and region (./aws-admin-stores.ts). Each target's clients are loaded only for it, and DuckDB
 * only to count clicks: a command loads what it uses.
 */

import { createPasswordCredentials } from "../adapters/dynamodb/password-credentials.ts";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import { embeddedConfig } from "../config/embedded.ts";
import { parseEnv, setSettingsOnly } from "../config/parse-env.ts";
import { NotFoundError } from "../domain/errors.ts";
import { dataPaths, runningService } from "../embedded/data-dir.ts";
import { httpOrigin } from "../embedded/listeners.ts";
import type { App } from "../ports/apps.ts";
import { type AdminStores, AWS_TARGET } from "./admin-target.ts";
import { withLocalStores } from "./local-data.ts";

export type { AdminStores } from "./admin-target.ts";

/** The AWS target when its tables are named, else undefined (this machine). */
const awsConfig = (env: NodeJS.ProcessEnv) =>
  env.ATTRIBUTION_AWS_APPS_TABLE || env.ATTRIBUTION_AWS_KEYS_TABLE
    ? parseEnv(AWS_TARGET, setSettingsOnly(env))
    : undefined;

export const withAdminStores = async <T>(
  dataDir: string,
  work: (stores: AdminStores) => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> => {
  const aws = awsConfig(env);
  if (aws) {
    const { withAwsAdminStores } = await import("./aws-admin-stores.ts");
    return withAwsAdminStores(aws, work);
  }
  const config = embeddedConfig(env, { dataDir });
  const running = await runningService(dataDir);
  // The running service's, as its API names them; else what it would name them on start.
  const linkBaseUrl =
    running?.linkBaseUrl ?? config.linkBaseUrl ?? httpOrigin(config.host, config.linkPort);
  return withLocalStores(dataDir, (stores) =>
    work({
      apps: stores.apps,
      keys: stores.keys,
      wrapper: createKeyFileWrapper(dataPaths(dataDir).masterKey),
      links: () => stores.links,
      linkBaseUrl: () => linkBaseUrl,
      servedLinkHosts: () => null,
      // DuckDB loaded only to count.
      clickCounts: async (appId) =>
        (await import("../adapters/duckdb/link-clicks.ts")).countLinkClicks(
          dataPaths(dataDir).lake,
          appId,
        ),
      users: () => stores.users,
      credentials: () => createPasswordCredentials(stores.users),
      postbacks: () => ({
        configs: stores.postbackConfigs,
        log: stores.deliveryLog,
        deletions: stores.deletions,
        // The running service's setting too: a URL it sends to, its `partners test` reaches.
        allowLoopback: config.postbacksAllowLoopback || running?.postbacksAllowLoopback === true,
        allowLoopbackBy:
          "start the service with ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK=true (docs/cli.md)",
      }),
      applePostbacks: () => stores.applePostbacks,
      target: dataDir,
    }),
  );
};

/** The app, or a NotFoundError naming it: a command about an app that does not exist says so. */
export const appMustExist = async (
  stores: Pick<AdminStores, "apps">,
  appId: string,
): Promise<App> => {
  const app = await stores.apps.get(appId);
  if (!app) throw new NotFoundError(`App ${appId} does not exist.`);
  return app;
};
