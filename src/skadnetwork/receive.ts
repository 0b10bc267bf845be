/**
 * Receiving the copies of Apple's postbacks that devices send to the app's own endpoints (the
 * link host's `/.well-known/skadnetwork/report-attribution/` and
 * `/.well-known/appattribution/report-attribution/`): each read and verified (./postbacks.ts),
 * attached to the app whose App Store id it names (or kept under no app when none has it), and
 * stored once (Apple's signed copy in place of an unverified one, and one signed for production
 * in place of a test's; a second copy signed in the same environment with other conversion
 * values marks the stored one's as disputed). The device is answered 200
 * once the postback is stored, so one that failed to store is sent again (Apple retries for
 * days); a body that is no postback is answered 400, and nothing is kept of it.
 */
import { BadRequestError, NotFoundError } from "../domain/errors.ts";
import {
  type ApplePostbackStore,
  copyStanding,
  type ReceivedPostback,
  type StoredApplePostback,
} from "../ports/apple-postbacks.ts";
import type { App } from "../ports/apps.ts";
import type { LakeRecord, RecordStream } from "../ports/lake.ts";
import { type PostbackKind, readPostback } from "./postbacks.ts";

/** The `.well-known` folder each framework posts to, as its path names it. */
export const ENDPOINT_FOLDERS: Readonly<Record<string, PostbackKind>> = {
  skadnetwork: "skadnetwork",
  appattribution: "adattributionkit",
};

export interface PostbackReceiverDeps {
  /** Every app, briefly cached: a postback names its app by App Store id. */
  readonly apps: () => Promise<readonly App[]>;
  readonly store: Pick<ApplePostbackStore, "get" | "add" | "dispute">;
  /** The lake's `apple_postbacks` stream: each new postback of an app, a row. */
  readonly lake: Pick<RecordStream, "put">;
  readonly now?: () => Date;
}

const flag = (value: boolean) => (value ? 1 : 0);

/**
 * Whether a postback takes a stored one's place: Apple's signed copy an unsigned one's, and one
 * signed for production a test's.
 */
const replaces = (next: ReceivedPostback, kept: ReceivedPostback) =>
  copyStanding(next) > copyStanding(kept);

/**
 * Whether a copy Apple signed disputes the signed one stored: its conversion values differ,
 * which Apple does not sign (a device's retry carries the same). Only a copy signed in the same
 * environment: a test's postback, signed with the development key of developer settings, says
 * nothing of one signed for production (the figures count the production copy alone).
 */
const disputes = (next: ReceivedPostback, kept: ReceivedPostback) =>
  copyStanding(next) > 0 &&
  copyStanding(next) === copyStanding(kept) &&
  (next.conversionValue !== kept.conversionValue || next.coarseValue !== kept.coarseValue);

/** A postback of an app as its lake row (src/lake/lake-tables.ts's APPLE_POSTBACKS_TABLE). */
export const applePostbackRow = (
  postback: StoredApplePostback & { readonly appId: string },
): LakeRecord => ({
  app_id: postback.appId,
  received_at: postback.receivedAt,
  kind: postback.kind,
  version: postback.version,
  ad_network_id: postback.adNetworkId,
  source_identifier: postback.sourceIdentifier,
  app_store_id: postback.appStoreId,
  transaction_id: postback.transactionId,
  redownload: flag(postback.redownload),
  source_app_id: postback.sourceAppId,
  source_domain: postback.sourceDomain,
  fidelity_type: postback.fidelityType,
  did_win: flag(postback.didWin),
  postback_sequence_index: postback.sequenceIndex,
  conversion_value: postback.conversionValue,
  coarse_conversion_value: postback.coarseValue,
  country_code: postback.countryCode,
  conversion_type: postback.conversionType,
  verification: postback.verification.status,
  environment: postback.verification.environment,
});

export const createPostbackReceiver = (deps: PostbackReceiverDeps) => {
  const now = deps.now ?? (() => new Date());
  /** A copy of a postback stored already: its item marked when the copy disputes its values. */
  const settled = async (copy: ReceivedPostback, kept: StoredApplePostback) => {
    if (disputes(copy, kept) && !kept.valuesDisputed) await deps.store.dispute(kept);
    return { created: false };
  };
  return {
    /** Stores the body posted to `folder`; whether it was new. Throws what the answer says. */
    async receive(folder: string, body: unknown): Promise<{ readonly created: boolean }> {
      // Own names only: `__proto__` or `constructor` is no endpoint.
      const kind = Object.hasOwn(ENDPOINT_FOLDERS, folder) ? ENDPOINT_FOLDERS[folder] : undefined;
      if (!kind) throw new NotFoundError(`No postback endpoint under /.well-known/${folder}.`);
      const read = readPostback(kind, body);
      if (!read.ok) throw new BadRequestError(`The body is ${read.problem}.`);
      const app = (await deps.apps()).find(
        (candidate) => candidate.links?.appStoreId === read.postback.appStoreId,
      );
      const received: StoredApplePostback = {
        ...read.postback,
        appId: app?.appId ?? null,
        receivedAt: now().toISOString(),
        valuesDisputed: false,
      };
      // A device's retry of a stored postback adds nothing, but Apple's signed copy of one
      // stored unverified takes its place, as one signed for production does a test's.
      const kept = await deps.store.get(received);
      // A copy that takes the place of one kept under an app stays that app's, though no app
      // has its App Store id as far as this receiver knows (its list of apps is a moment
      // old): kept under no app, it would be counted for the app twice, its test's copy from
      // the lake and itself by its App Store id.
      const stored: StoredApplePostback =
        received.appId === null && kept?.appId && replaces(received, kept)
          ? { ...received, appId: kept.appId }
          : received;
      /**
       * Its lake row, at `receivedAt` and under `appId`: its own, unless it stands for a
       * postback kept, whose row it joins (under the app that postback is kept under, whatever
       * app holds the App Store id now; none when that one is kept under no app).
       */
      const putRow = async (receivedAt = stored.receivedAt, appId = stored.appId) => {
        if (appId !== null) {
          await deps.lake.put([applePostbackRow({ ...stored, appId, receivedAt })]);
        }
      };
      if (kept && !replaces(stored, kept)) {
        // The report reads a dispute from the lake's rows: the disputing copy's is written once,
        // at the kept copy's time, so that the report finds the two together and counts the
        // postback on the day the table has it, however much later the copy came.
        if (disputes(stored, kept) && !kept.valuesDisputed) {
          await putRow(kept.receivedAt, kept.appId);
        }
        return settled(stored, kept);
      }
      // The lake row first, then the item: a failure of either fails the answer, and the
      // device's retry writes both. A row written twice (that retry, or two copies at once) is
      // one postback to the reports, which count each postback once, a verified row first.
      await putRow();
      if (await deps.store.add(stored)) return { created: true };
      // Another copy was stored since it was read (two at once).
      const other = await deps.store.get(stored);
      return other ? settled(stored, other) : { created: false };
    },
  };
};
