/**
 * What the admin commands (apps, keys, links, users, partners, skadnetwork) act on, whichever
 * the target: the stores (./admin-stores.ts chooses them), and the AWS target's settings, the
 * stack's outputs in the environment.
 */
import * as z from "zod";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import type { ApplePostbackStore } from "../ports/apple-postbacks.ts";
import type { AppStore, KeyStore } from "../ports/apps.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type { LinkStore } from "../ports/links.ts";
import type { DeliveryLog, PostbackConfigStore } from "../ports/postbacks.ts";
import type { Credentials, UserStore } from "../ports/users.ts";

export interface AdminStores {
  readonly apps: AppStore;
  readonly keys: KeyStore;
  /** Wraps new app private keys: KMS on AWS, the data folder's key file here. */
  readonly wrapper: KeyWrapper;
  /** The links; a ValidationError on AWS when the links table is not named. */
  readonly links: () => LinkStore;
  /** The service's link host, which links of an app without a host of its own name. */
  readonly linkBaseUrl: () => string;
  /**
   * The apps' own link hosts the deployment serves (on AWS, the stack's `-c linkAppHosts`, its
   * output LinkAppHosts); null where any host is served (the embedded runtime).
   */
  readonly servedLinkHosts: () => readonly string[] | null;
  /** Counted clicks per link of an app, from the lake; undefined where the CLI cannot count. */
  readonly clickCounts?: (appId: string) => Promise<Map<string, number>>;
  /** The dashboard's people; a ValidationError on AWS when the users table is not named. */
  readonly users: () => UserStore;
  /** Their passwords: the users table's hashes here, Cognito's user pool on AWS. */
  readonly credentials: () => Credentials;
  /** Postback and webhook configurations and their delivery log; a ValidationError on AWS when unnamed. */
  readonly postbacks: () => {
    readonly configs: PostbackConfigStore;
    readonly log: DeliveryLog;
    /** The deletion requests, whose installs the log leaves out. */
    readonly deletions: Pick<DeletionStore, "tombstones" | "listByApp">;
    /** The operator's setting: postbacks may go to this machine (tests' mock partners). */
    readonly allowLoopback: boolean;
    /** How the operator allows it, where the target can (the embedded runtime's setting). */
    readonly allowLoopbackBy?: string;
  };
  /** Apple's postbacks; a ValidationError on AWS when their table is not named. */
  readonly applePostbacks: () => ApplePostbackStore;
  /** Where the commands act, for their messages. */
  readonly target: string;
}

export const AWS_TARGET = z.object({
  ATTRIBUTION_AWS_APPS_TABLE: z.string().min(3),
  ATTRIBUTION_AWS_KEYS_TABLE: z.string().min(3),
  ATTRIBUTION_AWS_SEALING_KEY_ARN: z.string().min(1).optional(),
  ATTRIBUTION_AWS_LINKS_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_LINK_HOST_URL: z.url().optional(),
  /** The stack output LinkAppHosts: comma-separated, or `none`. */
  ATTRIBUTION_AWS_LINK_APP_HOSTS: z.string().optional(),
  ATTRIBUTION_AWS_ATHENA_WORKGROUP: z.string().min(1).optional(),
  ATTRIBUTION_AWS_GLUE_DATABASE: z.string().min(1).optional(),
  ATTRIBUTION_AWS_USERS_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_USER_POOL_ID: z.string().min(1).optional(),
  ATTRIBUTION_AWS_POSTBACK_CONFIGS_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_DELIVERY_LOG_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_DELETIONS_TABLE: z.string().min(3).optional(),
  ATTRIBUTION_AWS_APPLE_POSTBACKS_TABLE: z.string().min(3).optional(),
});

export type AwsTarget = z.infer<typeof AWS_TARGET>;
