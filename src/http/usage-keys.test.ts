import { describe, expect, it } from "vitest";
import {
  apiIdOf,
  USAGE_KEY_SLOTS,
  usageIdentityOf,
  usageKeyOf,
  usageKeyValue,
  usageSlotOf,
} from "./usage-keys.ts";

const METHOD_ARN = "arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/prod/POST/v1/events";
const key = (appId: string, user?: string) => ({
  keyId: user ? "session" : "k1",
  appId,
  appName: appId,
  scopes: [],
  ...(user ? { user } : {}),
});

describe("usage keys", () => {
  it("names an API key value API Gateway takes: alphanumeric, 20 to 128 characters", () => {
    for (const apiId of ["a1b2c3d4e5", "api"]) {
      for (const slot of [0, USAGE_KEY_SLOTS - 1]) {
        expect(usageKeyValue(apiId, slot)).toMatch(/^[A-Za-z0-9]{20,128}$/);
      }
    }
    // One value per slot and API: two stacks in one account never make the same key.
    expect(usageKeyValue("a1b2c3d4e5", 7)).not.toBe(usageKeyValue("f6g7h8i9j0", 7));
    expect(usageKeyValue("a1b2c3d4e5", 7)).not.toBe(usageKeyValue("a1b2c3d4e5", 17));
  });

  it("reads the API's id from the method ARN the authorizer is given", () => {
    expect(apiIdOf(METHOD_ARN)).toBe("a1b2c3d4e5");
    expect(() => apiIdOf("not an arn")).toThrow(/method ARN/);
  });

  it("keeps an app in one slot, whoever calls for it, and spreads apps over every slot", () => {
    expect(usageKeyOf(METHOD_ARN, key("com.example.game"))).toBe(
      usageKeyOf(METHOD_ARN, key("com.example.game", "ana@example.com")),
    );
    const slots = new Set(
      Array.from({ length: 5_000 }, (_, i) => usageSlotOf(`app:com.example.app${i}`)),
    );
    expect(slots.size).toBe(USAGE_KEY_SLOTS);
    expect(Math.min(...slots)).toBe(0);
    expect(Math.max(...slots)).toBe(USAGE_KEY_SLOTS - 1);
  });

  it("counts a person's app-less calls as that person's, apart from any app", () => {
    expect(usageIdentityOf(key("", "ana@example.com"))).toBe("user:ana@example.com");
    expect(usageIdentityOf(key("com.example.game"))).toBe("app:com.example.game");
  });
});
