/**
 * Proof that a link host is an app's: its domain's DNS says so. A host serves the links and the
 * `.well-known` files of the apps naming it, so the first app to name a brand's domain would
 * otherwise keep it, and the brand's Universal Links with it. The domain's owner settles it with
 * TXT records of `_attribution.<host>`, one `attribution-app=<app id>` per app that may name the
 * host (a brand's iOS and Android apps: two records); an app the records name may then name the
 * host whoever else has, and the apps they do not name lose it.
 */
import type { TxtRecords } from "../ports/dns.ts";

const PREFIX = "attribution-app=";

/** Whether a host is a DNS name a TXT record can be asked of: not an address, not with a port. */
export const provableHost = (host: string): boolean =>
  !/:\d+$/.test(host) && !/^[0-9.]+$/.test(host) && host.includes(".");

/** The name whose TXT records prove `host`. */
export const hostProofName = (host: string): string => `_attribution.${host}`;

/** The TXT record that lets `appId` name a host. */
export const hostProofValue = (appId: string): string => `${PREFIX}${appId}`;

/** The app ids TXT records name: each record's strings joined, as DNS splits long ones. */
export const appsNamedBy = (records: readonly (readonly string[])[]): ReadonlySet<string> =>
  new Set(
    records
      .map((strings) => strings.join("").trim())
      .filter((value) => value.startsWith(PREFIX))
      .map((value) => value.slice(PREFIX.length).trim())
      .filter((appId) => appId.length > 0),
  );

/** What a host's DNS says: the apps it names, or that it could not be asked now. */
export type HostProof =
  | { readonly answered: true; readonly apps: ReadonlySet<string> }
  | { readonly answered: false };

/** The proof of each host, asked of the DNS together; a host that is no DNS name has none. */
export const proveHosts = async (
  dns: TxtRecords,
  hosts: readonly string[],
): Promise<ReadonlyMap<string, HostProof>> =>
  new Map(
    await Promise.all(
      hosts.map(async (host): Promise<[string, HostProof]> => {
        if (!provableHost(host)) return [host, { answered: true, apps: new Set() }];
        try {
          return [host, { answered: true, apps: appsNamedBy(await dns.txt(hostProofName(host))) }];
        } catch {
          return [host, { answered: false }];
        }
      }),
    ),
  );
