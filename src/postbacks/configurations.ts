/**
 * Saving an app's postback and webhook configurations, as the routes, the CLI and the
 * dashboard's Partners page will: each checked with its schema (./config.ts), every address
 * its URLs lead to checked (./url-safety.ts's checkConfiguredUrl, through the resolver the
 * caller gives), its secret values sealed (./secrets.ts), then stored. The send-time check
 * (the sender's agent) still runs on every attempt: a name may answer otherwise tomorrow.
 */
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { ValidationError } from "../domain/errors.ts";
import type { PostbackConfigStore, PostbackSettings, SendTarget } from "../ports/postbacks.ts";
import {
  endpointsOf,
  type PartnerConfig,
  parsePartnerConfig,
  parseWebhookConfig,
  type WebhookConfig,
} from "./config.ts";
import { sealPartnerConfig, sealWebhookConfig } from "./secrets.ts";
import { checkConfiguredUrl, type Resolver } from "./url-safety.ts";

export interface PostbackConfigurationsDeps {
  readonly store: PostbackConfigStore;
  readonly wrapper: KeyWrapper;
  /** Resolves a name to every address it has (`dns.lookup` with `all: true`, say). */
  readonly resolve: Resolver;
  /** The operator's setting: loopback allowed, for tests' mock partners. */
  readonly allowLoopback: boolean;
  readonly now?: () => Date;
}

export const createPostbackConfigurations = (deps: PostbackConfigurationsDeps) => {
  const now = deps.now ?? (() => new Date());
  const checkUrls = async (urls: readonly string[], path: string) => {
    for (const url of urls) {
      const checked = await checkConfiguredUrl(url, deps.resolve, {
        allowLoopback: deps.allowLoopback,
      });
      if (!checked.ok) throw new ValidationError(`${path}: ${url} ${checked.problem}`);
    }
  };
  return {
    /** Creates or replaces a partner configuration; throws a ValidationError naming what is wrong. */
    async savePartner(input: unknown): Promise<PartnerConfig> {
      const config = parsePartnerConfig(input);
      await checkUrls(endpointsOf(config), "configuration");
      await deps.store.putPartner(await sealPartnerConfig(config, deps.wrapper, now()));
      return config;
    },
    /** Creates or replaces a webhook; throws a ValidationError naming what is wrong. */
    async saveWebhook(input: unknown): Promise<WebhookConfig> {
      const webhook = parseWebhookConfig(input);
      await checkUrls([webhook.url], "webhook.url");
      await deps.store.putWebhook(await sealWebhookConfig(webhook, deps.wrapper, now()));
      return webhook;
    },
    remove: (appId: string, target: SendTarget, id: string): Promise<boolean> =>
      deps.store.delete(appId, target, id),
    saveSettings: (appId: string, settings: PostbackSettings): Promise<void> =>
      deps.store.putSettings(appId, settings),
  };
};

export type PostbackConfigurations = ReturnType<typeof createPostbackConfigurations>;
