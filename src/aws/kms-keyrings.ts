/**
 * Apps' keyrings, their private keys unwrapped by KMS once per app key and execution
 * environment, then kept in memory; and the wrapper itself, for a new app key pair. The
 * wrapper alone seals and opens the secret values of postback and webhook configurations.
 */
import { createKmsKeyWrapper } from "../adapters/kms/kms-key-wrapper.ts";
import { createAppKeyrings } from "../apps/app-keyrings.ts";
import { kms } from "./clients.ts";
import { type Provider, variable } from "./provider.ts";

export const kmsKeyrings: Provider = (env) => {
  const wrapper = createKmsKeyWrapper({ kms, keyId: variable(env, "SEALING_KEY_ARN") });
  return { keyrings: createAppKeyrings(wrapper), keyWrapper: wrapper };
};

export const kmsKeyWrapper: Provider = (env) => ({
  keyWrapper: createKmsKeyWrapper({ kms, keyId: variable(env, "SEALING_KEY_ARN") }),
});
