/**
 * An app's postback and webhook configurations as the routes, the CLI and the dashboard's
 * Partners page change them: each checked with its schema (./config.ts, through ./wire.ts for
 * a request's body), every address its URLs lead to checked (./url-safety.ts's
 * checkConfiguredUrl, through the resolver the caller gives), its secret values sealed
 * (./secrets.ts), then stored; read back without a secret; a test postback sent; the delivery
 * log read. The send-time check (the sender's agent) still runs on every attempt: a name may
 * answer otherwise tomorrow.
 */
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { deletedInstalls } from "../deletion/deletions.ts";
import { NotFoundError, ValidationError } from "../domain/errors.ts";
import { DAY_MS, HOUR_MS } from "../domain/time.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type {
  DeliveryLog,
  PostbackConfigStore,
  PostbackSender,
  PostbackSettings,
  SendTarget,
  StoredPartnerConfig,
  StoredWebhookConfig,
} from "../ports/postbacks.ts";
import { DELIVERY_LOG_DAYS } from "../ports/postbacks.ts";
import {
  endpointsOf,
  type PartnerConfig,
  parsePartnerConfig,
  parseWebhookConfig,
  partnerTemplateOf,
  secretNamesOf,
  secretsOf,
  type WebhookConfig,
} from "./config.ts";
import { partnerById } from "./partners.ts";
import { judged, MASK, urlCredentialsOf } from "./retries.ts";
import {
  openPartnerConfig,
  openWebhookConfig,
  sealPartnerConfig,
  sealWebhookConfig,
} from "./secrets.ts";
import { newWebhookSecret, ROTATION_GRACE_HOURS, signingSecrets } from "./signing.ts";
import { ownText } from "./templates.ts";
import {
  partnerTestRequest,
  partnerTestWarnings,
  type TestRequest,
  type TestResult,
  testResultOf,
  webhookTestRequest,
} from "./test-send.ts";
import { checkConfiguredUrl, checkUrlSyntax, type Resolver } from "./url-safety.ts";
import {
  maskedLeft,
  type PartnerRequest,
  partnerConfigFrom,
  sendsMask,
  shownUrl,
  unmaskedPartnerRequest,
  type WebhookRequest,
} from "./wire.ts";

export interface PostbackConfigurationsDeps {
  readonly store: PostbackConfigStore;
  readonly wrapper: KeyWrapper;
  /** Resolves a name to every address it has (`dns.lookup` with `all: true`, say). */
  readonly resolve: Resolver;
  /** The operator's setting: loopback allowed, for tests' mock partners. */
  readonly allowLoopback: boolean;
  /** Sends test postbacks; the delivery worker's sender. */
  readonly sender?: PostbackSender;
  readonly log?: Pick<DeliveryLog, "listByApp" | "counts">;
  /** The app's deletion requests, whose installs the log's pages leave out. */
  readonly deletions: Pick<DeletionStore, "tombstones" | "listByApp">;
  readonly now?: () => Date;
}

/** The hosts a configuration's postbacks go to; null when its templates fill to no URL. */
const hostsOf = (config: PartnerConfig): string | null => {
  try {
    return [...new Set(endpointsOf(config).map((endpoint) => new URL(endpoint).host))]
      .sort()
      .join(" ");
  } catch {
    return null;
  }
};

/** Whether two configurations send to the same hosts. */
const sameHosts = (a: PartnerConfig, b: PartnerConfig): boolean => {
  const hosts = hostsOf(a);
  return hosts !== null && hosts === hostsOf(b);
};

/** The name of the host a URL leads to; null for a URL that is not one. */
const hostnameOf = (url: string): string | null => {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
};

/**
 * The hosts a stored configuration's names were resolved and found public for when it was
 * saved: those of one that is on (one saved off was not resolved, below); none for none.
 */
const resolvedHostsOf = (previous: { enabled: boolean; urls: () => string[] } | undefined) => {
  const hosts = new Set<string>();
  if (!previous?.enabled) return hosts;
  try {
    for (const url of previous.urls()) hosts.add(hostnameOf(url) ?? "");
  } catch {
    // Its templates fill to no URL: no host of it was resolved.
  }
  return hosts;
};

/** The API's page bounds of the delivery log. */
export const LOG_PAGE_LIMITS = { defaultLimit: 50, maxLimit: 200 } as const;

const notFound = (target: SendTarget, id: string) =>
  new NotFoundError(`The app has no ${target} configuration ${id}.`);

/**
 * A configuration as stored, at most: a DynamoDB item holds 400 KB, attribute names and the
 * table's keys included, and an item over it would fail the save as a 500.
 */
export const MAX_CONFIGURATION_BYTES = 256 * 1024;

const checkSize = (stored: object, path: string) => {
  const bytes = Buffer.byteLength(JSON.stringify(stored));
  if (bytes > MAX_CONFIGURATION_BYTES) {
    throw new ValidationError(
      `${path}: is ${bytes} bytes as stored, over the ${MAX_CONFIGURATION_BYTES} a configuration may have: fewer event mappings, or shorter values`,
    );
  }
};

export const createPostbackConfigurations = (deps: PostbackConfigurationsDeps) => {
  const now = deps.now ?? (() => new Date());
  /**
   * Each URL checked before a configuration is saved: its form and a literal address always;
   * what its name resolves to only for a configuration saved on, and a host the stored one
   * (on) did not already lead to. So a configuration can be switched off, or edited without
   * moving, while its partner's DNS fails; the send-time check still guards every attempt, and
   * switching it on again resolves its names anew.
   */
  const checkUrls = async (
    urls: readonly string[],
    path: string,
    saved: { readonly enabled: boolean; readonly resolvedHosts: ReadonlySet<string> },
  ) => {
    const options = { allowLoopback: deps.allowLoopback };
    for (const url of urls) {
      const host = hostnameOf(url);
      const resolveAgain = saved.enabled && host !== null && !saved.resolvedHosts.has(host);
      const checked = resolveAgain
        ? await checkConfiguredUrl(url, deps.resolve, options)
        : checkUrlSyntax(url, options);
      if (!checked.ok) throw new ValidationError(`${path}: ${url} ${checked.problem}`);
    }
  };
  const storePartner = async (
    config: PartnerConfig,
    path: string,
    previous: PartnerConfig | undefined,
  ) => {
    await checkUrls(endpointsOf(config), path, {
      enabled: config.enabled,
      resolvedHosts: resolvedHostsOf(
        previous && { enabled: previous.enabled, urls: () => endpointsOf(previous) },
      ),
    });
    const sealed = await sealPartnerConfig(config, deps.wrapper, now());
    checkSize(sealed, "configuration");
    await deps.store.putPartner(sealed);
    return sealed;
  };
  const storeWebhook = async (
    webhook: WebhookConfig,
    path: string,
    previous: StoredWebhookConfig | undefined,
  ) => {
    await checkUrls([webhook.url], path, {
      enabled: webhook.enabled,
      resolvedHosts: resolvedHostsOf(
        previous && { enabled: previous.enabled, urls: () => [previous.url] },
      ),
    });
    const sealed = await sealWebhookConfig(webhook, deps.wrapper, now());
    checkSize(sealed, "webhook");
    await deps.store.putWebhook(sealed);
    return sealed;
  };
  /** The stored partner configuration, opened; undefined when none (or it no longer checks). */
  const storedPartner = async (appId: string, id: string) => {
    const stored = await deps.store.getPartner(appId, id);
    return stored && openPartnerConfig(stored, deps.wrapper).catch(() => undefined);
  };
  const sender = () => {
    if (!deps.sender) throw new Error("No sender for test postbacks");
    return deps.sender;
  };
  const deliveryLog = () => {
    if (!deps.log) throw new Error("No delivery log");
    return deps.log;
  };

  return {
    /** Creates or replaces a partner configuration; throws a ValidationError naming what is wrong. */
    savePartner: async (input: unknown): Promise<PartnerConfig> => {
      const config = parsePartnerConfig(input);
      await storePartner(config, "configuration", await storedPartner(config.appId, config.id));
      return config;
    },

    /**
     * `PUT /v1/postbacks/partners/{id}`: the body's configuration, whole, except that a secret
     * value already saved and left out of the body is kept, and kept secret (it is never shown,
     * so it cannot be sent back, nor its mark with it); and that a value, a template URL or a
     * header sent back masked as answered (wire.ts) keeps the stored one.
     */
    async putPartner(appId: string, id: string, sent: PartnerRequest) {
      const existing = await deps.store.getPartner(appId, id);
      const { body, restored } = unmaskedPartnerRequest(sent, existing);
      const [left] = maskedLeft(body);
      if (left !== undefined) {
        throw new ValidationError(
          `body.${left}: is a credential masked as answered (***), and no stored value stands behind it here (its URL was edited, or it is another configuration's): give its value again`,
        );
      }
      const kept: Record<string, string> = {};
      /**
       * Kept values that were secret other than by the catalog (the owner marked them, or they
       * were credentials): they stay secret whatever the body marks or its template now does
       * with them. So does a credential sent back masked (`***`, restored): it was never shown.
       */
      const keptMarked: string[] = restored.flatMap((path) => {
        const name = path.startsWith("values.") ? path.slice("values.".length) : null;
        return name !== null && ownText(sent.values, name) === MASK ? [name] : [];
      });
      // Kept only for the same partner: another's values are not this one's.
      const opened =
        existing && existing.partner === body.partner
          ? await openPartnerConfig(existing, deps.wrapper).catch(() => undefined)
          : undefined;
      if (opened) {
        const catalogSecret = new Set(
          (partnerTemplateOf(opened)?.values ?? []).filter((v) => v.secret).map((v) => v.name),
        );
        for (const name of secretNamesOf(opened)) {
          const value = ownText(opened.values, name);
          if (value !== undefined && ownText(body.values, name) === undefined) {
            kept[name] = value;
            if (!catalogSecret.has(name)) keptMarked.push(name);
          }
        }
      }
      const marked = [...new Set([...(body.secret_values ?? []), ...keptMarked])];
      const withKept = partnerConfigFrom(
        appId,
        id,
        keptMarked.length === 0 ? body : { ...body, secret_values: marked },
        kept,
      );
      // A saved secret goes on only to the hosts it went to: a template or an endpoint that now
      // leads elsewhere is given its secrets again (else anyone who may change the
      // configuration could read one, by pointing it at their own server).
      const config =
        opened && !sameHosts(opened, withKept) ? partnerConfigFrom(appId, id, body, {}) : withKept;
      // The same for a credential shown masked: it stands for the stored one only while the
      // configuration goes where it went; else it is to be given again.
      const [masked] = restored;
      if (masked !== undefined && !(opened && sameHosts(opened, config))) {
        throw new ValidationError(
          `body.${masked}: is masked as answered, and the configuration now leads elsewhere: give its value again`,
        );
      }
      return { stored: await storePartner(config, "body", opened) };
    },

    /**
     * `PUT /v1/postbacks/webhooks/{id}`: its URL and switch; a new webhook, or one asked to,
     * gets a new signing secret, which only this answer shows. The URL as the API shows it, its
     * credentials masked, keeps the stored URL: an edit that changes only the switch does not
     * save `***` in place of a token.
     */
    async putWebhook(
      appId: string,
      id: string,
      body: WebhookRequest,
    ): Promise<{ stored: StoredWebhookConfig; secret?: string }> {
      const existing = await deps.store.getWebhook(appId, id);
      const fresh = !existing || body.rotate_secret === true;
      const opened = existing ? await openWebhookConfig(existing, deps.wrapper) : undefined;
      const secret = fresh || !opened ? newWebhookSecret() : opened.secret;
      // A rotation keeps the secret it replaces signing beside the new one for a while, so
      // deliveries already queued, and those made before the backend has the new secret, are
      // still taken; an edit keeps a grace under way.
      const previous =
        fresh && opened
          ? {
              secret: opened.secret,
              until: new Date(now().getTime() + ROTATION_GRACE_HOURS * HOUR_MS).toISOString(),
            }
          : opened?.previous && Date.parse(opened.previous.until) > now().getTime()
            ? opened.previous
            : null;
      const url =
        existing && existing.url !== body.url && shownUrl(existing.url) === body.url
          ? existing.url
          : body.url;
      if (sendsMask(url)) {
        throw new ValidationError(
          "body.url: is a credential masked as answered (***), and the URL around it is not the stored one: give its value again",
        );
      }
      const webhook = parseWebhookConfig({
        id,
        appId,
        url,
        secret,
        enabled: body.enabled,
        previous,
      });
      const stored = await storeWebhook(webhook, "body.url", existing);
      return fresh ? { stored, secret } : { stored };
    },

    /** Forgets a configuration; a NotFoundError when there was none. */
    async remove(appId: string, target: SendTarget, id: string): Promise<void> {
      if (!(await deps.store.delete(appId, target, id))) throw notFound(target, id);
    },

    saveSettings: (appId: string, settings: PostbackSettings): Promise<void> =>
      deps.store.putSettings(appId, settings),

    /** The app's configurations and settings, and its log's counts of the last 30 days. */
    async list(appId: string) {
      const [configs, counts] = await Promise.all([
        deps.store.listByApp(appId),
        deliveryLog().counts(appId, new Date(now().getTime() - (DELIVERY_LOG_DAYS - 1) * DAY_MS)),
      ]);
      return { ...configs, counts };
    },

    /**
     * A page of the app's delivery log, newest first, without the attempts of an install whose
     * deletion was asked for (their URLs may hold its ids): hidden from the request on, as the
     * exports and reports hide it, until the purge takes them out. A page may then hold fewer
     * than its limit; its cursor goes on from where it read.
     */
    async logPage(appId: string, page: { readonly limit: number; readonly after?: string }) {
      const [read, deleted] = await Promise.all([
        deliveryLog().listByApp(appId, page),
        deletedInstalls(deps.deletions, appId),
      ]);
      if (deleted.length === 0) return read;
      const hidden = new Set(deleted);
      return {
        ...read,
        entries: read.entries.filter((entry) => !hidden.has(entry.subject.serviceId)),
      };
    },

    /**
     * Sends one test postback of a configuration, on or off, with a sample install (./test-
     * send.ts) and answers what went and what came back; nothing is logged or counted.
     */
    async test(
      appId: string,
      target: SendTarget,
      id: string,
      request: TestRequest,
    ): Promise<TestResult> {
      const at = now();
      const test: TestRequest = request;
      if (target === "webhook") {
        const stored = await deps.store.getWebhook(appId, id);
        if (!stored) throw notFound(target, id);
        const webhook = await openWebhookConfig(stored, deps.wrapper);
        const built = webhookTestRequest(webhook, test, at);
        const outcome = await sender().send(built);
        return testResultOf({
          request: built,
          outcome,
          secrets: [...signingSecrets(webhook, at), ...urlCredentialsOf(webhook.url)],
          now: now(),
        });
      }
      const stored: StoredPartnerConfig | undefined = await deps.store.getPartner(appId, id);
      if (!stored) throw notFound(target, id);
      const config = await openPartnerConfig(stored, deps.wrapper);
      const { settings } = await deps.store.listByApp(appId);
      const built = partnerTestRequest(config, test, settings, at);
      if (!built.ok) throw new ValidationError(`body: ${built.problem}`);
      // Judged as a real send's answer is: a partner's 200 that names a refusal fails the test.
      const outcome = judged(
        await sender().send(built.request),
        partnerById(config.partner)?.answer,
      );
      return testResultOf({
        request: built.request,
        outcome,
        secrets: secretsOf(config),
        now: now(),
        warnings: partnerTestWarnings(config, settings, request.app),
      });
    },
  };
};

export type PostbackConfigurations = ReturnType<typeof createPostbackConfigurations>;
