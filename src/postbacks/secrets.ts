/**
 * The secret values of postback and webhook configurations, kept sealed: a partner's secret
 * values (its API tokens, src/postbacks/config.ts's secretNamesOf) and a webhook's signing
 * secret are each wrapped by the key wrapper (KMS on AWS, the key file embedded) before they
 * are stored, under a context naming the purpose, the app, the configuration and the value, so
 * a sealed value copied to another app, configuration or value does not open. The context
 * holds ids only: KMS records it in CloudTrail.
 *
 * Apps' own sealed values (src/crypto/envelope.ts) are sealed on the device to the app's
 * public key, which an app may not have; configurations are sealed by the service itself, so
 * the wrapper seals them directly, under its own purpose (lib/sealing-key.ts grants each
 * purpose apart).
 */
import type { KeyWrapper, WrapContext } from "../crypto/key-wrapper.ts";
import type { StoredPartnerConfig, StoredWebhookConfig } from "../ports/postbacks.ts";
import {
  type PartnerConfig,
  parsePartnerConfig,
  secretNamesOf,
  type WebhookConfig,
} from "./config.ts";

/** The `purpose` of the wrap context of every configuration secret. */
export const POSTBACK_SECRET_PURPOSE = "postback-secret";

const contextOf = (
  appId: string,
  target: "partner" | "webhook",
  configId: string,
  name: string,
): WrapContext => ({ purpose: POSTBACK_SECRET_PURPOSE, appId, target, configId, name });

const seal = async (wrapper: KeyWrapper, value: string, context: WrapContext) => {
  const plaintext = Buffer.from(value, "utf8");
  try {
    return await wrapper.wrap(plaintext, context);
  } finally {
    plaintext.fill(0);
  }
};

const open = async (wrapper: KeyWrapper, sealed: string, context: WrapContext) =>
  (await wrapper.unwrap(sealed, context)).toString("utf8");

/** A checked configuration as stored: its secret values sealed, the others in clear. */
export const sealPartnerConfig = async (
  config: PartnerConfig,
  wrapper: KeyWrapper,
  now: Date = new Date(),
): Promise<StoredPartnerConfig> => {
  const secret = new Set(secretNamesOf(config));
  const values: Record<string, string> = {};
  const sealedValues: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.values)) {
    if (secret.has(name)) {
      sealedValues[name] = await seal(
        wrapper,
        value,
        contextOf(config.appId, "partner", config.id, name),
      );
    } else {
      values[name] = value;
    }
  }
  return { ...config, values, sealedValues, updatedAt: now.toISOString() };
};

/**
 * A stored configuration with its secret values opened, checked again as it was when saved (a
 * configuration the catalog no longer takes throws the ValidationError that says why).
 */
export const openPartnerConfig = async (
  stored: StoredPartnerConfig,
  wrapper: KeyWrapper,
): Promise<PartnerConfig> => {
  const values: Record<string, string> = { ...stored.values };
  for (const [name, sealed] of Object.entries(stored.sealedValues)) {
    values[name] = await open(wrapper, sealed, contextOf(stored.appId, "partner", stored.id, name));
  }
  const { sealedValues: _sealed, updatedAt: _updated, ...config } = stored;
  return parsePartnerConfig({ ...config, values });
};

/** A checked webhook as stored: its signing secret sealed. */
export const sealWebhookConfig = async (
  config: WebhookConfig,
  wrapper: KeyWrapper,
  now: Date = new Date(),
): Promise<StoredWebhookConfig> => ({
  id: config.id,
  appId: config.appId,
  url: config.url,
  sealedSecret: await seal(
    wrapper,
    config.secret,
    contextOf(config.appId, "webhook", config.id, "secret"),
  ),
  previous: config.previous
    ? {
        sealedSecret: await seal(
          wrapper,
          config.previous.secret,
          contextOf(config.appId, "webhook", config.id, "previous-secret"),
        ),
        until: config.previous.until,
      }
    : null,
  enabled: config.enabled,
  updatedAt: now.toISOString(),
});

/** A stored webhook with its signing secret opened. */
export const openWebhookConfig = async (
  stored: StoredWebhookConfig,
  wrapper: KeyWrapper,
): Promise<WebhookConfig> => ({
  id: stored.id,
  appId: stored.appId,
  url: stored.url,
  secret: await open(
    wrapper,
    stored.sealedSecret,
    contextOf(stored.appId, "webhook", stored.id, "secret"),
  ),
  enabled: stored.enabled,
  previous: stored.previous
    ? {
        secret: await open(
          wrapper,
          stored.previous.sealedSecret,
          contextOf(stored.appId, "webhook", stored.id, "previous-secret"),
        ),
        until: stored.previous.until,
      }
    : null,
});
