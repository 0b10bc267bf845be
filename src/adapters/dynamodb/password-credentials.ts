/**
 * Dashboard passwords on the embedded runtime: scrypt hashes (src/domain/passwords.ts) on the
 * users' own items. An unknown person costs a hash too, so timing does not tell who has an
 * account. A person's TOTP secret is kept on their item too, once its first code was right;
 * a code is taken once (RFC 6238's advice), remembered in this process, the one that serves
 * sign-ins.
 */
import { newTotpSecret, totpStepOf } from "../../dashboard/totp.ts";
import { hashPassword, verifyPassword } from "../../domain/passwords.ts";
import type { Credentials, UserStore } from "../../ports/users.ts";

// Compared against when there is no user, so a miss costs what a hit does.
const NOBODY = hashPassword("no one has this password");

export const createPasswordCredentials = (
  users: UserStore,
  options: { readonly adminsNeedTotp?: boolean; readonly now?: () => number } = {},
): Credentials => {
  const { adminsNeedTotp = false, now = Date.now } = options;
  /** Each person's last time step a code was taken for: an older or equal one is refused. */
  const lastStep = new Map<string, number>();
  const takeCode = (email: string, secret: string, code: string): boolean => {
    const step = totpStepOf(secret, code, now());
    if (step === undefined || step <= (lastStep.get(email) ?? -1)) return false;
    lastStep.set(email, step);
    return true;
  };
  return {
    adminsNeedTotp,
    async verify(email, password) {
      const user = await users.get(email);
      const stored = user?.passwordHash ?? (await NOBODY);
      const matches = await verifyPassword(password, stored);
      if (!matches || user?.passwordHash === undefined) return { outcome: "refused" };
      return user.totpSecret
        ? { outcome: "code", step: "totp", state: "" }
        : { outcome: "verified", state: "" };
    },
    async startTotpSetup() {
      const secret = newTotpSecret();
      return { secret, state: secret };
    },
    async checkCode(email, step, state, code) {
      const user = await users.get(email);
      if (!user) return { outcome: "expired" };
      if (step === "totp") {
        if (!user.totpSecret) return { outcome: "expired" };
        return takeCode(email, user.totpSecret, code)
          ? { outcome: "accepted" }
          : { outcome: "wrong" };
      }
      if (!takeCode(email, state, code)) return { outcome: "wrong" };
      await users.save({ ...user, totpSecret: state });
      return { outcome: "accepted" };
    },
    async set(email, password) {
      const user = await users.get(email);
      if (!user) throw new Error(`No user ${email}`);
      await users.save({ ...user, passwordHash: await hashPassword(password) });
    },
    async remove() {
      // The hash and the secret go with the user's item.
    },
    async disabledAccounts() {
      // No account here is disabled but by its removal, which ends its sessions itself.
      return [];
    },
  };
};
