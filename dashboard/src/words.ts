/**
 * The one map from the words the service stores (`matched_no_params`, `service_purchase`,
 * `retry`) to the words a person reads. Every page shows statuses, methods, verdicts, platforms
 * and event names through it, so a word reads the same wherever it appears; inputs and the
 * export keep the stored words, which are what the API and the SDKs take.
 */

/** An install's attribution status (`service_match_status`, and `pending` from the reports). */
const MATCH_STATUS_WORDS: Readonly<Record<string, string>> = {
  matched: "Matched (with deep link)",
  matched_no_params: "Matched (no deep link)",
  organic: "Organic",
  skipped: "Not attributed (attribution off)",
  failed: "Failed (tried again)",
  not_configured: "App switched off",
  pending: "Waiting for attribution",
};

/**
 * How an install was matched (`matching_type`), or, for one not matched, its status: the
 * overview's methods chart names both.
 */
const MATCH_METHOD_WORDS: Readonly<Record<string, string>> = {
  network: "Click id or advertising id",
  geo: "Probabilistic (address and device)",
  organic: "Organic",
  skipped: "Not attributed (attribution off)",
  failed: "Failed (tried again)",
  not_configured: "App switched off",
  pending: "Waiting for attribution",
  // An install matched whose method the lake does not carry.
  matched: "Matched",
  matched_no_params: "Matched",
};

/** What came of a postback's or a webhook's attempt. */
const VERDICT_WORDS: Readonly<Record<string, string>> = {
  delivered: "Delivered",
  retry: "To be tried again",
  failed: "Failed",
  skipped: "Skipped",
};

const PLATFORM_WORDS: Readonly<Record<string, string>> = {
  android: "Android",
  ios: "iOS",
};

/** What the cohorts report breaks a media source's installs down by (`group_by`). */
const GROUP_BY_WORDS: Readonly<Record<string, string>> = {
  campaign: "Campaign",
  adset: "Ad set",
  ad: "Ad",
  country: "Country",
  platform: "Platform",
};

/** The spec's standard events, as the export names them without their `service_` prefix. */
const EVENT_WORDS: Readonly<Record<string, string>> = {
  install: "Install",
  login: "Log in",
  sign_up: "Sign up",
  register: "Register",
  purchase: "Purchase",
  add_to_cart: "Add to cart",
  add_to_wishlist: "Add to wishlist",
  initiate_checkout: "Start checkout",
  start_trial: "Start trial",
  subscribe: "Subscribe",
  level_start: "Level start",
  level_complete: "Level complete",
  tutorial_complete: "Tutorial complete",
  search: "Search",
  view_item: "View item",
  view_content: "View content",
  share: "Share",
};

/** The prefix every exported event name carries, which says nothing to the reader. */
const EVENT_PREFIX = "service_";

/** A stored word that no map knows: its underscores as spaces, its first letter capitalised. */
const plain = (word: string): string => {
  const spaced = word.replace(/_+/g, " ").trim();
  return spaced === "" ? word : spaced.charAt(0).toUpperCase() + spaced.slice(1);
};

const wordOf = (map: Readonly<Record<string, string>>, word: string): string =>
  map[word] ?? plain(word);

export const matchStatusWord = (status: string): string => wordOf(MATCH_STATUS_WORDS, status);

export const matchMethodWord = (method: string): string => wordOf(MATCH_METHOD_WORDS, method);

export const verdictWord = (verdict: string): string => wordOf(VERDICT_WORDS, verdict);

export const platformWord = (platform: string): string => wordOf(PLATFORM_WORDS, platform);

export const groupByWord = (groupBy: string): string => wordOf(GROUP_BY_WORDS, groupBy);

/**
 * An exported event name as a person reads it: `service_purchase` → "Purchase", a custom
 * `service_level_up` → "Level up"; a name without the prefix is shown as it is.
 */
export const eventWord = (name: string): string => {
  if (!name.startsWith(EVENT_PREFIX) || name.length === EVENT_PREFIX.length) return name;
  const bare = name.slice(EVENT_PREFIX.length);
  return EVENT_WORDS[bare] ?? plain(bare);
};

/** An event stored without a name, as the overview's charts and tables show it. */
export const NO_EVENT_NAME = "(no name)";

/**
 * Each stored event name's label where names are shown side by side (the events chart's
 * series, its table's columns): its word, and, when two names read the same word (the spec's
 * `service_login` and a custom `service_log_in` are both "Log in"), the word followed by the
 * stored name, "Log in (service_login)", so that neither is taken for the other. Null is an
 * event without a name.
 */
export const eventLabels = (names: readonly (string | null)[]): Map<string | null, string> => {
  const wordOf = (name: string | null) => (name === null ? NO_EVENT_NAME : eventWord(name));
  const distinct = [...new Set(names)];
  const uses = new Map<string, number>();
  for (const name of distinct) {
    const word = wordOf(name);
    uses.set(word, (uses.get(word) ?? 0) + 1);
  }
  return new Map(
    distinct.map((name) => {
      const word = wordOf(name);
      return [name, name === null || (uses.get(word) ?? 0) < 2 ? word : `${word} (${name})`];
    }),
  );
};

/**
 * A sentence the service wrote with exported event names in it (a conversion value's meaning:
 * `service_purchase, 4.99+ USD`), each name in the reader's words.
 */
export const withEventWords = (text: string): string =>
  text.replace(/\bservice_[\p{L}\p{M}\p{N}_]+/gu, (name) => eventWord(name));

/**
 * The media source of installs credited to none (attribution skipped, or not done yet), and of
 * their events: one name on every page and in every file.
 */
export const UNATTRIBUTED = "none (not attributed)";
