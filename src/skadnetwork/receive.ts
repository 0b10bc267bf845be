/**
 * Receiving the copies of Apple's postbacks that devices send to the app's own endpoints (the
 * link host's `/.well-known/skadnetwork/report-attribution/` and
 * `/.well-known/appattribution/report-attribution/`): each read and verified (./postbacks.ts),
 * attached to the app whose App Store id it names (or kept under no app when none has it), and
 * stored once. The device is answered 200 once the postback is stored, so one that failed to
 * store is sent again (Apple retries for days); a body that is no postback is answered 400,
 * and nothing is kept of it.
 */
import { BadRequestError, NotFoundError } from "../domain/errors.ts";
import type { ApplePostbackStore } from "../ports/apple-postbacks.ts";
import type { App } from "../ports/apps.ts";
import { type PostbackKind, readPostback } from "./postbacks.ts";

/** The `.well-known` folder each framework posts to, as its path names it. */
export const ENDPOINT_FOLDERS: Readonly<Record<string, PostbackKind>> = {
  skadnetwork: "skadnetwork",
  appattribution: "adattributionkit",
};

export interface PostbackReceiverDeps {
  /** Every app, briefly cached: a postback names its app by App Store id. */
  readonly apps: () => Promise<readonly App[]>;
  readonly store: Pick<ApplePostbackStore, "add">;
  readonly now?: () => Date;
}

export const createPostbackReceiver = (deps: PostbackReceiverDeps) => {
  const now = deps.now ?? (() => new Date());
  return {
    /** Stores the body posted to `folder`; whether it was new. Throws what the answer says. */
    async receive(folder: string, body: unknown): Promise<{ readonly created: boolean }> {
      const kind = ENDPOINT_FOLDERS[folder];
      if (!kind) throw new NotFoundError(`No postback endpoint under /.well-known/${folder}.`);
      const read = readPostback(kind, body);
      if (!read.ok) throw new BadRequestError(`The body is ${read.problem}.`);
      const app = (await deps.apps()).find(
        (candidate) => candidate.links?.appStoreId === read.postback.appStoreId,
      );
      const created = await deps.store.add({
        ...read.postback,
        appId: app?.appId ?? null,
        receivedAt: now().toISOString(),
      });
      return { created };
    },
  };
};
