/**
 * The two ways an event batch names its installs, as small strategies of the ingestion
 * service: an SDK event names its install by `service_id`, and comes from the user's device; a
 * server-to-server event names its user by `customer_user_id`, which the customer-user mapping
 * resolves to the install that last sent events under it (or, that one's data deleted, to the
 * latest of the user's other installs), and comes from the app's servers.
 */
import type { App } from "../ports/apps.ts";
import type { CustomerUserMap, Install } from "../ports/installs.ts";
import type { IgnoredReason } from "./ignored.ts";
import type { ValidEvent } from "./judge.ts";

const INSTALL_NOT_YET = (serviceId: string) =>
  `No install with service_id ${serviceId} is known to this app yet: send POST /v1/installs first, then retry.`;
const CUSTOMER_USER_UNKNOWN = (customerUserId: string) =>
  `customer_user_id ${customerUserId} is not known to this app yet: no install has sent an event with it. Retry once the app has (the SDKs send it with their next event).`;

/** The install an event's user names, or why none takes the event. */
export type Target =
  | { install: Install }
  | { error: string; detail: string; retryable: boolean }
  | { ignored: IgnoredReason };

/** The lookups a batch shares: each install and each install's deletion requests read once. */
export interface BatchLookups {
  readonly app: App;
  readonly customerUsers: CustomerUserMap;
  installOf(serviceId: string): Promise<Install | undefined>;
  deletedOf(serviceId: string): Promise<boolean>;
}

export interface EventSource {
  /** Judged by the server-to-server rules (`customer_user_id`, never `service_id`). */
  readonly s2s: boolean;
  /** What names the event's user; a batch resolves each once. */
  userOf(event: ValidEvent): string;
  target(user: string, lookups: BatchLookups): Promise<Target>;
  /** The event's country: the caller's, or the install's when the caller is not the device. */
  countryOf(install: Install, callerCountry: string | null): string | null;
  /** A customer user id this event puts to use for its install, for the mapping. */
  customerUserUse(event: ValidEvent): string | null;
}

/** The install a device's request names by service_id (an event's, a session's), or why none. */
export const installTarget = async (
  serviceId: string,
  lookups: Pick<BatchLookups, "installOf" | "deletedOf">,
): Promise<Target> => {
  // The install's requests are read beside it, not after it.
  const [install, deleted] = await Promise.all([
    lookups.installOf(serviceId),
    lookups.deletedOf(serviceId),
  ]);
  if (deleted) return { ignored: "install_deleted" };
  // Requests race and SDKs retry: the request is kept by the SDK and sent again, never lost.
  return install
    ? { install }
    : { error: "Conflict", detail: INSTALL_NOT_YET(serviceId), retryable: true };
};

export const SDK_EVENTS: EventSource = {
  s2s: false,
  userOf: (event) => event.serviceId ?? "",
  target: installTarget,
  countryOf: (_install, callerCountry) => callerCountry,
  // An event sent anonymous names no user, whatever it carries.
  customerUserUse: (event) => (event.anonymous ? null : event.customerUserId),
};

export const S2S_EVENTS: EventSource = {
  s2s: true,
  userOf: (event) => event.customerUserId ?? "",
  async target(customerUserId, lookups) {
    const { customerUsers, app } = lookups;
    /** The install, alive; or whether it was deleted. */
    const alive = async (serviceId: string) => {
      // The deletion first: once purged the install is gone, and its user's events stay
      // ignored as they were before the purge.
      const [install, deleted] = await Promise.all([
        lookups.installOf(serviceId),
        lookups.deletedOf(serviceId),
      ]);
      return deleted ? ("deleted" as const) : install;
    };
    const latest = await customerUsers.get(app.appId, customerUserId);
    const found = latest === undefined ? undefined : await alive(latest);
    if (found !== undefined && found !== "deleted") return { install: found };
    // The latest install's data deleted (or purged, and the mapping with it), or not yet
    // stored: the user's other installs, a tablet beside the phone, go on taking their events.
    for (const other of await customerUsers.otherInstalls(app.appId, customerUserId)) {
      if (other === latest) continue;
      const install = await alive(other);
      if (install !== undefined && install !== "deleted") return { install };
    }
    // An id no install uses now may be one whose install was deleted and purged since.
    const purged =
      found === undefined && latest === undefined
        ? await customerUsers.get(app.appId, customerUserId, { purged: true })
        : undefined;
    if (found === "deleted" || (purged !== undefined && (await alive(purged)) === "deleted")) {
      return { ignored: "install_deleted" };
    }
    // Often only not yet: a server sends a purchase as the user signs up, before the app's
    // first event with the id arrives. Its retry is then taken.
    return { error: "Conflict", detail: CUSTOMER_USER_UNKNOWN(customerUserId), retryable: true };
  },
  // A server-to-server call comes from the app's servers, not the user's device.
  countryOf: (install) => install.country,
  // The mapping is fed by the SDK's events only: a server names users through it.
  customerUserUse: () => null,
};
