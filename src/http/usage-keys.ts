/**
 * Which usage-plan key a request counts against on AWS. The REST API takes its API keys from
 * the authorizer (`apiKeySourceType: AUTHORIZER`), and its usage plan throttles each key on its
 * own (lib/usage-plans.ts), so the key the authorizer names is what keeps one tenant's traffic
 * apart from the rest. The stack makes a fixed set of keys, USAGE_KEY_SLOTS of them, when it
 * deploys; a caller's key is the slot its app hashes to. Nothing is made when an app is, no
 * request waits on API Gateway's control plane, and an app can never name a key that does not
 * exist (which API Gateway answers with 403): the price is that two apps hashed to one slot
 * share its limits (docs/aws.md#limits says why this over a key per app).
 *
 * The values are not secrets: API Gateway takes them from the authorizer only, never from a
 * caller's header, and they are usable only on this API's stage.
 */
import { createHash } from "node:crypto";
import type { Principal } from "../apps/authenticate.ts";

/**
 * How many keys the stack makes. Each is two CloudFormation resources (the key and its place in
 * the plan) in a nested stack of its own, which holds at most 500; and an account has at most
 * 10,000 API keys in a region, which no quota increase raises.
 */
export const USAGE_KEY_SLOTS = 200;

/** Alphanumeric, as API Gateway requires, and at least 20 characters whatever the API's id. */
const PREFIX = "attributionusage";

/** The slot of an identity: the first 32 bits of its SHA-256, modulo the slots. */
export const usageSlotOf = (identity: string): number =>
  createHash("sha256").update(identity).digest().readUInt32BE(0) % USAGE_KEY_SLOTS;

/** A slot's key value on one REST API: unique in the account and region, as API Gateway needs. */
export const usageKeyValue = (apiId: string, slot: number): string =>
  `${PREFIX}${apiId}${String(slot).padStart(String(USAGE_KEY_SLOTS - 1).length, "0")}`;

/** `arn:aws:execute-api:region:account:apiId/stage/METHOD/path` → `apiId`. */
export const apiIdOf = (methodArn: string): string => {
  const apiId = methodArn.split(":")[5]?.split("/")[0];
  if (!apiId) throw new Error(`Unexpected method ARN: ${methodArn}`);
  return apiId;
};

/**
 * Whose traffic a principal is: its app's, whether a key or a signed-in person calls; a person's
 * own for the few session calls that name no app (listing and creating apps).
 */
export const usageIdentityOf = (principal: Principal): string =>
  principal.appId ? `app:${principal.appId}` : `user:${principal.user ?? principal.keyId}`;

/** The key the authorizer names for a principal's request. */
export const usageKeyOf = (methodArn: string, principal: Principal): string =>
  usageKeyValue(apiIdOf(methodArn), usageSlotOf(usageIdentityOf(principal)));
