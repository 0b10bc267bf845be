/** The spec's EventType list: wire values, SNAKE_CASE uppercase. */
export const EVENT_TYPES = [
  "INSTALL",
  "LOGIN",
  "SIGN_UP",
  "REGISTER",
  "PURCHASE",
  "ADD_TO_CART",
  "ADD_TO_WISHLIST",
  "INITIATE_CHECKOUT",
  "START_TRIAL",
  "SUBSCRIBE",
  "LEVEL_START",
  "LEVEL_COMPLETE",
  "TUTORIAL_COMPLETE",
  "SEARCH",
  "VIEW_ITEM",
  "VIEW_CONTENT",
  "SHARE",
  "CUSTOM",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// Letters and digits of every script are kept (`Café Visit` gives `café_visit`, `購入 完了`
// gives `購入_完了`): dropping them would merge names that differ only there. NFC first, so a
// name typed with combining accents names the same event as one typed with composed ones.
const snakeCaseOf = (value: string): string =>
  value
    .normalize("NFC")
    .trim()
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1_$2")
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();

// An app sends its few custom event names again and again, each checked and named on the way
// in: each is worked out once. The map is emptied when full, so any names at all stay bounded.
const snakeCases = new Map<string, string>();
const MAX_SNAKE_CASES = 10_000;

/** Lower snake case: `levelComplete`, `Level Complete` and `LEVEL_COMPLETE` give `level_complete`. */
export const toSnakeCase = (value: string): string => {
  let snake = snakeCases.get(value);
  if (snake === undefined) {
    snake = snakeCaseOf(value);
    if (snakeCases.size >= MAX_SNAKE_CASES) snakeCases.clear();
    snakeCases.set(value, snake);
  }
  return snake;
};

// Worked out once: every stored event is named on the ingestion path.
const STANDARD_NAMES = new Map(EVENT_TYPES.map((type) => [type, `service_${toSnakeCase(type)}`]));

/** The exported `event_name`: `service_<event>`, with a custom event's own name for CUSTOM. */
export const exportEventName = (type: EventType, customName?: string | null): string =>
  type === "CUSTOM" && customName
    ? `service_${toSnakeCase(customName)}`
    : (STANDARD_NAMES.get(type) ?? `service_${toSnakeCase(type)}`);
