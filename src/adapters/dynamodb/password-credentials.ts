/**
 * Dashboard passwords on the embedded runtime: scrypt hashes (src/domain/passwords.ts) on the
 * users' own items. An unknown person costs a hash too, so timing does not tell who has an
 * account.
 */
import { hashPassword, verifyPassword } from "../../domain/passwords.ts";
import type { Credentials, UserStore } from "../../ports/users.ts";

// Compared against when there is no user, so a miss costs what a hit does.
const NOBODY = hashPassword("no one has this password");

export const createPasswordCredentials = (users: UserStore): Credentials => ({
  async verify(email, password) {
    const user = await users.get(email);
    const stored = user?.passwordHash ?? (await NOBODY);
    const matches = await verifyPassword(password, stored);
    return matches && user?.passwordHash !== undefined;
  },
  async set(email, password) {
    const user = await users.get(email);
    if (!user) throw new Error(`No user ${email}`);
    await users.save({ ...user, passwordHash: await hashPassword(password) });
  },
  async remove() {
    // The hash goes with the user's item.
  },
});
