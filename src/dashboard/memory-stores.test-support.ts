/** The users and sessions stores in memory, for the sign-in's unit tests. */
import { ConflictError, NotFoundError } from "../domain/errors.ts";
import type { PendingSignIn, Session, SessionStore, User, UserStore } from "../ports/users.ts";

/** A dashboard person as the users' stores keep one: no app, no password, the first generation. */
export const testUser = (email: string, extra: Partial<User> = {}): User => ({
  email,
  admin: false,
  appIds: [],
  createdAt: "2026-11-01T00:00:00.000Z",
  sessionGeneration: "first",
  ...extra,
});

export const memoryUserStore = (initial: readonly User[] = []): UserStore => {
  const users = new Map(initial.map((user) => [user.email, user]));
  return {
    async create(user) {
      if (users.has(user.email)) throw new ConflictError(`A user ${user.email} already exists.`);
      users.set(user.email, user);
    },
    async get(email) {
      return users.get(email);
    },
    async list() {
      return [...users.values()];
    },
    async grantApp(email, appId) {
      const user = users.get(email);
      if (!user) throw new NotFoundError(`No user ${email}.`);
      // Once, as the tables do.
      if (!user.appIds.includes(appId))
        users.set(email, { ...user, appIds: [...user.appIds, appId] });
    },
    async revokeApp(email, appId) {
      const user = users.get(email);
      if (!user) throw new NotFoundError(`No user ${email}.`);
      users.set(email, { ...user, appIds: user.appIds.filter((id) => id !== appId) });
    },
    async save(user) {
      const stored = users.get(user.email);
      if (!stored) throw new NotFoundError(`No user ${user.email}.`);
      // As the tables do: the secrets alone.
      const { passwordHash, totpSecret, ...kept } = stored;
      users.set(user.email, {
        ...kept,
        ...(user.passwordHash !== undefined ? { passwordHash: user.passwordHash } : {}),
        ...(user.totpSecret !== undefined ? { totpSecret: user.totpSecret } : {}),
      });
    },
    async removeByAdmin(email, admin) {
      // One call at a time here: no removal meets another.
      if (!users.get(admin)?.admin) return false;
      if (!users.has(email)) throw new NotFoundError(`No user ${email}.`);
      users.delete(email);
      return true;
    },
    async renewSessionGeneration(email, generation) {
      const stored = users.get(email);
      if (!stored) throw new NotFoundError(`No user ${email}.`);
      users.set(email, { ...stored, sessionGeneration: generation });
    },
    async remove(email) {
      users.delete(email);
    },
  };
};

export interface MemorySessionStore extends SessionStore {
  readonly sessions: Map<string, Session>;
  readonly pending: Map<string, PendingSignIn>;
}

export const memorySessionStore = (): MemorySessionStore => {
  const sessions = new Map<string, Session>();
  const pending = new Map<string, PendingSignIn>();
  const live = <T extends { expiresAt: string }>(item: T | undefined, now: Date) =>
    item && Date.parse(item.expiresAt) > now.getTime() ? item : undefined;
  return {
    sessions,
    pending,
    async put(session) {
      sessions.set(session.sessionKey, session);
    },
    async get(sessionKey, now = new Date()) {
      return live(sessions.get(sessionKey), now);
    },
    async remove(sessionKey) {
      sessions.delete(sessionKey);
    },
    async putPending(item) {
      pending.set(item.challengeKey, item);
    },
    async getPending(challengeKey, now = new Date()) {
      return live(pending.get(challengeKey), now);
    },
    async removePending(challengeKey) {
      pending.delete(challengeKey);
    },
    async reap(now) {
      let removed = 0;
      for (const items of [sessions, pending] as Map<string, { expiresAt: string }>[]) {
        for (const [key, item] of items) {
          if (!live(item, now)) removed += Number(items.delete(key));
        }
      }
      return removed;
    },
  };
};
